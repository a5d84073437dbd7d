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

#define IOM_CPU_MAX 1024

/* Raw /proc/stat jiffies of one CPU. */
struct iom_cpu_ticks {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* Shares of one CPU over a window, in % (they add up to 100). */
struct iom_cpu_pct {
	double user, kernel, iowait, irq, softirq, steal, idle;
};

struct iom_cpu_sample {
	unsigned ncpu;
	struct iom_cpu_ticks total;                /* the "cpu" line */
	struct iom_cpu_ticks *cpu;                 /* per CPU, ncpu entries (heap) */
	double proc_user_s, proc_sys_s;            /* getrusage(RUSAGE_SELF) */
	uint64_t irqs;                             /* sum over the chosen IRQ lines */
};

/* Parses /proc/stat text into s (s->cpu allocated; release with iom_cpu_sample_release). */
int iom_cpu_parse_stat(const char *text, struct iom_cpu_sample *s);

/*
 * Sums the interrupts of every /proc/interrupts line whose device list names one of the drivers
 * (comma-separated, e.g. "nvme" matches "nvme0q1"; "virtio" matches "virtio1-req.0"). Returns
 * the sum; *nlines gets the number of lines matched.
 */
uint64_t iom_cpu_parse_interrupts(const char *text, const char *drivers, unsigned *nlines);

/* Takes a sample now: /proc/stat, getrusage, and interrupts of drivers (may be NULL). */
int iom_cpu_sample(struct iom_cpu_sample *s, const char *drivers);
void iom_cpu_sample_release(struct iom_cpu_sample *s);

/* Percentages between two samples, per CPU (out has a->ncpu entries) and overall. */
void iom_cpu_diff(const struct iom_cpu_sample *a, const struct iom_cpu_sample *b,
		  struct iom_cpu_pct *per_cpu, struct iom_cpu_pct *avg);

#endif
