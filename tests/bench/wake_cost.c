/* SPDX-License-Identifier: MIT */
/*
 * wake_cost — what one timed wake-up costs this machine in CPU, the floor under the pacer's
 * figure (docs/performance.md, "Pacing"): a paced worker sleeps once per pace_tick, so at a
 * tick of T µs it spends at least (one wake-up's CPU) / T of a core, whatever it issues.
 *
 *   wake_cost [PERIOD_US [SECONDS [MODE]]]     (defaults: 75, 2, sleep)
 *
 * MODE is how the thread sleeps until each period's end:
 *   sleep    clock_nanosleep to an absolute time, timer slack 1 ns: the pacer's own call;
 *   timerfd  a periodic timerfd, read once a period;
 *   uring    a multishot IORING_OP_TIMEOUT, one completion a period (kernel 6.4 or later).
 * Prints the wake-ups, the process's CPU per wake-up (every thread) and what that is in % of a
 * core at one wake-up a period.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#ifndef IORING_TIMEOUT_MULTISHOT
#define IORING_TIMEOUT_MULTISHOT (1U << 6)
#endif

static uint64_t ns_of(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct timespec ts_of(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u),
				  .tv_nsec = (long)(ns % 1000000000u) };
}

/* Sleeps until each period's end until `end`; returns the wake-ups, or -1. */
static long wake_sleep(uint64_t start, uint64_t end, uint64_t period)
{
	long n = 0;

	for (uint64_t t = start + period; t <= end; t += period, n++) {
		struct timespec ts = ts_of(t);

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	return n;
}

static long wake_timerfd(uint64_t end, uint64_t period)
{
	const struct timespec p = ts_of(period);
	const struct itimerspec its = { .it_interval = p, .it_value = p };
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	uint64_t expiries;
	long n = 0;

	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL) < 0) {
		perror("wake_cost: timerfd");
		return -1;
	}
	while (ns_of(CLOCK_MONOTONIC) < end && read(fd, &expiries, sizeof(expiries)) > 0)
		n++;
	close(fd);
	return n;
}

static long wake_uring(uint64_t end, uint64_t period)
{
	struct __kernel_timespec ts = { .tv_sec = (long long)(period / 1000000000u),
					.tv_nsec = (long long)(period % 1000000000u) };
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	long n = 0;
	int ret = io_uring_queue_init(4, &ring, 0);

	if (ret < 0) {
		fprintf(stderr, "wake_cost: io_uring: %s\n", strerror(-ret));
		return -1;
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_timeout(sqe, &ts, 0, IORING_TIMEOUT_MULTISHOT);
	io_uring_submit(&ring);
	while (ns_of(CLOCK_MONOTONIC) < end) {
		if (io_uring_wait_cqe(&ring, &cqe) < 0)
			break;
		if (cqe->res != -ETIME) {
			fprintf(stderr, "wake_cost: a multishot timeout: %s\n", strerror(-cqe->res));
			n = -1;
			break;
		}
		io_uring_cqe_seen(&ring, cqe);
		n++;
	}
	io_uring_queue_exit(&ring);
	return n;
}

int main(int argc, char **argv)
{
	const double period_us = argc > 1 ? atof(argv[1]) : 75, secs = argc > 2 ? atof(argv[2]) : 2;
	const char *mode = argc > 3 ? argv[3] : "sleep";
	const uint64_t period = (uint64_t)(period_us * 1000);
	uint64_t start, end, c0, c1, wall;
	long n;

	if (period < 1000 || secs <= 0 || argc > 4) {
		fprintf(stderr, "usage: wake_cost [PERIOD_US (at least 1) [SECONDS [sleep|timerfd|"
				"uring]]]\n");
		return 2;
	}
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	c0 = ns_of(CLOCK_PROCESS_CPUTIME_ID);
	start = ns_of(CLOCK_MONOTONIC);
	end = start + (uint64_t)(secs * 1e9);
	if (strcmp(mode, "sleep") == 0) {
		n = wake_sleep(start, end, period);
	} else if (strcmp(mode, "timerfd") == 0) {
		n = wake_timerfd(end, period);
	} else if (strcmp(mode, "uring") == 0) {
		n = wake_uring(end, period);
	} else {
		fprintf(stderr, "wake_cost: unknown mode '%s' (sleep, timerfd, uring)\n", mode);
		return 2;
	}
	c1 = ns_of(CLOCK_PROCESS_CPUTIME_ID);
	wall = ns_of(CLOCK_MONOTONIC) - start;
	if (n <= 0)
		return 1;
	printf("wake-ups (%s, every %.0f us): %ld in %.2f s, %.2f us of CPU each: %.1f %% of a core "
	       "at one a period\n", mode, period_us, n, (double)wall / 1e9,
	       (double)(c1 - c0) / 1e3 / (double)n, 100.0 * (double)(c1 - c0) / (double)wall);
	return 0;
}
