/* SPDX-License-Identifier: MIT */
/*
 * cpu — what a run costs the machine: per-CPU time split (user, kernel, iowait, irq, softirq,
 * steal, idle) from /proc/stat, the process's own user and system time (getrusage), and the
 * interrupts raised on chosen IRQ lines from /proc/interrupts. A sample is taken at each end of
 * the measured window; the difference is the window's cost. Parsers take the file text, so tests
 * feed them fixtures.
 */
#ifndef IOM_CPU_H
#define IOM_CPU_H

#include <stddef.h>
#include <stdint.h>

/* CPU numbers at or above this in /proc/stat are refused (-ERANGE) as garbage. */
#define IOM_CPU_MAX 1024

/* Raw /proc/stat jiffies of one CPU (guest time is already inside user and nice). */
struct iom_cpu_ticks {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* Shares of one CPU over a window, in % (they add up to 100); user includes nice. */
struct iom_cpu_pct {
	double user, kernel, iowait, irq, softirq, steal, idle;
};

struct iom_cpu_sample {
	unsigned ncpu;                             /* highest CPU number seen + 1 */
	struct iom_cpu_ticks total;                /* the "cpu" line */
	struct iom_cpu_ticks *cpu;                 /* per CPU by number, ncpu entries (heap);
						      all zero for a CPU absent (offline) */
	double proc_user_s, proc_sys_s;            /* getrusage(RUSAGE_SELF): every thread of
						      the process, io_uring's SQPOLL pollers
						      (iou-sqp-PID, threads of the process since
						      Linux 5.12) too — test_engine checks it */
	uint64_t irqs;                             /* sum over the chosen IRQ lines */
	unsigned irq_lines;                        /* how many IRQ lines were matched */
};

/*
 * Parses /proc/stat text into s (overwritten; s->cpu allocated, release with
 * iom_cpu_sample_release). "cpu" and "cpuN" lines need at least 4 columns; missing later ones
 * (old kernels) are 0. Returns 0, -EINVAL when there is no usable "cpu" line or a cpu line is
 * malformed, -ERANGE for a CPU number ≥ IOM_CPU_MAX; on error nothing is allocated.
 */
int iom_cpu_parse_stat(const char *text, struct iom_cpu_sample *s);

/*
 * Sums the interrupts of every /proc/interrupts line whose device list names one of the drivers
 * (comma-separated; a driver matches a device-name token it is a prefix of, e.g. "nvme" matches
 * "nvme0q1", "virtio" matches "virtio1-req.0", "ahci" matches "ahci[0000:00:1f.2]"). For
 * numbered IRQ lines the device names are the tokens after the chip name and the hwirq-type
 * token ("2-edge", when present); for named lines
 * (NMI, LOC, …) every token of the description counts, so they are summed only when a driver
 * matches them. Returns the sum; *nlines (may be NULL) gets the number of lines matched.
 * drivers NULL or empty matches nothing.
 */
uint64_t iom_cpu_parse_interrupts(const char *text, const char *drivers, unsigned *nlines);

/*
 * Takes a sample now into s (overwritten): /proc/stat, getrusage, and the interrupts of drivers
 * (may be NULL: /proc/interrupts is then not read). Returns 0 or -errno (from reading either
 * file, or iom_cpu_parse_stat); on error nothing is allocated.
 */
int iom_cpu_sample(struct iom_cpu_sample *s, const char *drivers);
/* Frees what s owns (not s); s can be released twice. */
void iom_cpu_sample_release(struct iom_cpu_sample *s);

/* The first "model name" of /proc/cpuinfo text (heap), or NULL when there is none;
 * iom_cpu_model reads this machine's (NULL when it cannot). */
char *iom_cpu_parse_model(const char *text);
char *iom_cpu_model(void);

/*
 * Percentages between two samples a (earlier) and b (later), per CPU (per_cpu has a->ncpu
 * entries; may be NULL) and overall from the "cpu" lines (avg; may be NULL). A CPU with no
 * ticks in the window (idle, offline, or absent from either sample) reports idle 100; a counter
 * that went backwards counts as 0.
 */
void iom_cpu_diff(const struct iom_cpu_sample *a, const struct iom_cpu_sample *b,
		  struct iom_cpu_pct *per_cpu, struct iom_cpu_pct *avg);

/* The system's CPU over a window, from the "cpu" lines of two samples: busy jiffies (user, nice,
 * system, irq, softirq: what runs, the driver's interrupt work on every CPU included), and all
 * jiffies (busy, idle, iowait and steal: iowait and steal are not busy). */
struct iom_cpu_system {
	uint64_t busy, all;
};
/* The window's system CPU between a (earlier) and b (later); a counter that went backwards
 * counts as 0. */
void iom_cpu_system_diff(const struct iom_cpu_sample *a, const struct iom_cpu_sample *b,
			 struct iom_cpu_system *out);

#endif
