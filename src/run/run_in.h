/* SPDX-License-Identifier: MIT */
/*
 * run_in.h — the inside of one run, shared by its controller (run.c: the workers, the phases,
 * the intervals) and its result (run_result.c: the controller's counts made into a struct
 * iom_run_result). Nothing outside these two includes it.
 */
#ifndef IOM_RUN_IN_H
#define IOM_RUN_IN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cpu.h"
#include "run.h"
#include "target/device.h"
#include "worker.h"

/* The controller's state. */
struct ctl {
	const struct iom_run_spec *spec;
	struct iom_worker_conf conf;
	struct iom_worker *w;      /* threads entries, 64-byte aligned */
	pthread_t *tid;
	unsigned nstarted;
	_Atomic int phase;
	struct iom_worker_gate gate;
	bool gate_open, joined;
	struct iom_worker_hooks hooks; /* the spec's, with the trace's record hook */
	struct iom_trace *trace;
	_Atomic uint64_t shared_next;  /* shared_sequential: the next block of the one stream */
	/* several paths: a conf per path (heap; worker i takes pconf[i % npaths]),
	 * and each path's sequential stream */
	struct iom_worker_conf *pconf;
	_Atomic uint64_t *pshared;

	/* the measured window */
	uint64_t t0, t1;           /* monotonic ns */
	bool measuring, measured;
	struct iom_interval *iv;   /* intervals, with their lengths in iv_ns */
	uint64_t *iv_ns;
	size_t niv, cap;
	uint64_t last_ios[2], last_bytes[2];
	/* the intervals' latencies: the workers' histograms summed at this take, at the last
	 * and at the one before (heap; NULL: not had, the intervals carry none) */
	struct iom_hist *snap[3];
	/* many hosts (spec->hosts_out): each interval's latencies in coarse groups, to be summed
	 * with the other hosts' (IOM_HIST_COARSE per interval, heap) */
	uint64_t *iv_coarse;
	size_t iv_coarse_cap;

	uint64_t watchdog;         /* monotonic deadline of timing.timeout; 0: none */
	unsigned abandoned;        /* workers that did not exit after a timeout (detached) */
};

/* The result of the measured window from the workers' counts, the intervals and the stalls:
 * rates, latencies (the threads' histograms merged exactly), access lines, paths, the offered
 * load, the spread and the stall check. */
void iom_run_fill_result(const struct ctl *c, struct iom_run_result *r);

/* Many hosts: what the backend asked of the run (its histograms and each interval's coarse
 * latency groups), for summing with the other hosts'. */
void iom_run_fill_hosts_out(const struct ctl *c, struct iom_run_hosts_out *o);

/* The process's and the machine's CPU between samples a and b, sample_ns apart (drivers: the
 * interrupt sources counted as the I/O's). */
void iom_run_fill_cpu(struct iom_run_result *r, const struct iom_cpu_sample *a,
		      const struct iom_cpu_sample *b, uint64_t sample_ns, const char *drivers);

/* The disk's requests between samples a and b (a counter that went back: 0). */
void iom_run_fill_disk(struct iom_run_result *r, const char *device,
		       const struct iom_disk_counters *a, const struct iom_disk_counters *b);

#endif
