/* SPDX-License-Identifier: MIT */
/*
 * test_cpu — /proc/stat and /proc/interrupts parsing on fixtures (tests/fixtures/cpu/, read from
 * the top of the tree) with exact tick counts, sums and percentages, and a live sample of this
 * machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>

#include "cpu.h"
#include "util.h"

#define FIX "tests/fixtures/cpu/"

static char *fixture(const char *name)
{
	char *path = xasprintf(FIX "%s", name), *text = NULL;
	int ret = iom_read_file(path, &text, NULL);

	if (ret < 0)
		fail_msg("cannot read fixture '%s' (run from the top of the tree)", path);
	free(path);
	return text;
}

static void parse_fixture(const char *name, struct iom_cpu_sample *s)
{
	char *text = fixture(name);

	assert_int_equal(iom_cpu_parse_stat(text, s), 0);
	free(text);
}

static void assert_ticks(const struct iom_cpu_ticks *t, uint64_t user, uint64_t nice,
			 uint64_t system, uint64_t idle, uint64_t iowait, uint64_t irq,
			 uint64_t softirq, uint64_t steal)
{
	assert_int_equal(t->user, user);
	assert_int_equal(t->nice, nice);
	assert_int_equal(t->system, system);
	assert_int_equal(t->idle, idle);
	assert_int_equal(t->iowait, iowait);
	assert_int_equal(t->irq, irq);
	assert_int_equal(t->softirq, softirq);
	assert_int_equal(t->steal, steal);
}

static void assert_pct(const struct iom_cpu_pct *p, double user, double kernel, double iowait,
		       double irq, double softirq, double steal, double idle)
{
	assert_float_equal(p->user, user, 1e-9);
	assert_float_equal(p->kernel, kernel, 1e-9);
	assert_float_equal(p->iowait, iowait, 1e-9);
	assert_float_equal(p->irq, irq, 1e-9);
	assert_float_equal(p->softirq, softirq, 1e-9);
	assert_float_equal(p->steal, steal, 1e-9);
	assert_float_equal(p->idle, idle, 1e-9);
	assert_float_equal(p->user + p->kernel + p->iowait + p->irq + p->softirq + p->steal +
			   p->idle, 100.0, 1e-9);
}

/* The first "model name" of /proc/cpuinfo, blanks after the colon skipped; none: NULL. */
static void test_cpu_parse_model(void **state)
{
	char *m;

	(void)state;
	m = iom_cpu_parse_model("processor\t: 0\nvendor_id\t: GenuineIntel\n"
				"model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nflags\t\t: fpu\n"
				"processor\t: 1\nmodel name\t: other\n");
	assert_string_equal(m, "Intel(R) Xeon(R) CPU @ 2.20GHz");
	free(m);
	m = iom_cpu_parse_model("model name: last line, no newline");
	assert_string_equal(m, "last line, no newline");
	free(m);
	assert_null(iom_cpu_parse_model("processor\t: 0\nCPU part\t: 0xd0c\n"));
	assert_null(iom_cpu_parse_model(""));
}

static void test_cpu_parse_stat_two(void **state)
{
	struct iom_cpu_sample s;

	(void)state;
	parse_fixture("stat-2cpu-a.txt", &s);
	assert_int_equal(s.ncpu, 2);
	assert_ticks(&s.total, 300, 5, 130, 1900, 30, 1, 5, 1);
	assert_ticks(&s.cpu[0], 100, 5, 50, 1000, 10, 0, 2, 0);
	assert_ticks(&s.cpu[1], 200, 0, 80, 900, 20, 1, 3, 1);
	iom_cpu_sample_release(&s);
	assert_null(s.cpu);
	iom_cpu_sample_release(&s);     /* twice is fine */
}

static void test_cpu_parse_stat_offline_gap(void **state)
{
	struct iom_cpu_sample s;

	(void)state;
	parse_fixture("stat-4cpu-gap.txt", &s);
	assert_int_equal(s.ncpu, 4);
	assert_ticks(&s.total, 85517, 1240, 41633, 4711880, 12977, 0, 3385, 977);
	assert_ticks(&s.cpu[0], 22874, 310, 11020, 1176214, 3401, 0, 2107, 251);
	assert_ticks(&s.cpu[1], 21390, 318, 10211, 1178630, 3262, 0, 514, 244);
	assert_ticks(&s.cpu[2], 0, 0, 0, 0, 0, 0, 0, 0);
	assert_ticks(&s.cpu[3], 41253, 612, 20402, 2357036, 6314, 0, 764, 482);
	iom_cpu_sample_release(&s);
}

static void test_cpu_parse_stat_old_kernels(void **state)
{
	struct iom_cpu_sample s;

	(void)state;
	parse_fixture("stat-old.txt", &s);      /* 7 columns: no steal */
	assert_int_equal(s.ncpu, 1);
	assert_ticks(&s.total, 1132, 34, 1441, 11311, 20, 2, 3, 0);
	assert_ticks(&s.cpu[0], 1132, 34, 1441, 11311, 20, 2, 3, 0);
	iom_cpu_sample_release(&s);
	parse_fixture("stat-24.txt", &s);       /* 4 columns */
	assert_int_equal(s.ncpu, 2);
	assert_ticks(&s.total, 2255, 34, 2290, 22625563, 0, 0, 0, 0);
	assert_ticks(&s.cpu[1], 1123, 0, 849, 11313845, 0, 0, 0, 0);
	iom_cpu_sample_release(&s);
}

static void test_cpu_parse_stat_errors(void **state)
{
	static const struct { const char *text; int ret; } cases[] = {
		{ "", -EINVAL },
		{ "intr 1 2 3\nctxt 4\n", -EINVAL },
		{ "cpu0 1 2 3 4\n", -EINVAL },                  /* no total line */
		{ "cpu  1 2 3\ncpu0 1 2 3\n", -EINVAL },        /* fewer than 4 columns */
		{ "cpu  1 2 3 4\ncpu0 1 2 x 4\n", -EINVAL },
		{ "cpu  1 2 3 4\ncpu1024 1 2 3 4\n", -ERANGE },
		{ "cpu  1 2 3 4\ncpu99999999999999999999 1 2 3 4\n", -ERANGE },
		{ "cpu  1 2 3 4", 0 },                          /* no newline at the end, no CPUs */
		{ "cpufreq 1 2 3 4\ncpu  1 2 3 4 5 6 7 8 9 10 11\ncpu1023 1 2 3 4\n", 0 },
	};
	struct iom_cpu_sample s;
	unsigned i;

	(void)state;
	for (i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		int ret = iom_cpu_parse_stat(cases[i].text, &s);

		if (ret != cases[i].ret)
			fail_msg("case %u: got %d, want %d", i, ret, cases[i].ret);
		if (ret < 0)
			assert_null(s.cpu);
		iom_cpu_sample_release(&s);
	}
	assert_int_equal(iom_cpu_parse_stat("cpu  1 2 3 4\ncpu1023 1 2 3 4\n", &s), 0);
	assert_int_equal(s.ncpu, 1024);
	assert_int_equal(s.cpu[1023].idle, 4);
	iom_cpu_sample_release(&s);
}

static void test_cpu_diff_percentages(void **state)
{
	struct iom_cpu_sample a, b;
	struct iom_cpu_pct per[2], avg;

	(void)state;
	parse_fixture("stat-2cpu-a.txt", &a);
	parse_fixture("stat-2cpu-b.txt", &b);
	iom_cpu_diff(&a, &b, per, &avg);
	/* cpu0: user 300 + nice 100, system 200, idle 300, iowait 50, irq 25, softirq 25. */
	assert_pct(&per[0], 40, 20, 5, 2.5, 2.5, 0, 30);
	/* cpu1: user 50, system 50, idle 800, iowait 100. */
	assert_pct(&per[1], 5, 5, 10, 0, 0, 0, 80);
	assert_pct(&avg, 22.5, 12.5, 7.5, 1.25, 1.25, 0, 55);
	iom_cpu_diff(&a, &b, NULL, NULL);       /* both outputs optional */
	/* No time passed: every CPU idle. */
	iom_cpu_diff(&a, &a, per, &avg);
	assert_pct(&per[0], 0, 0, 0, 0, 0, 0, 100);
	assert_pct(&per[1], 0, 0, 0, 0, 0, 0, 100);
	assert_pct(&avg, 0, 0, 0, 0, 0, 0, 100);
	/* Counters going backwards (b before a) count as zero. */
	iom_cpu_diff(&b, &a, per, &avg);
	assert_pct(&per[0], 0, 0, 0, 0, 0, 0, 100);
	assert_pct(&avg, 0, 0, 0, 0, 0, 0, 100);
	iom_cpu_sample_release(&a);
	iom_cpu_sample_release(&b);
}

/* The system's busy jiffies (user, nice, system, irq, softirq) and all of them (plus idle, iowait,
 * steal) from the "cpu" lines; backwards counters count as zero. */
static void test_cpu_system_busy(void **state)
{
	struct iom_cpu_sample a, b;
	struct iom_cpu_system sys;

	(void)state;
	parse_fixture("stat-2cpu-a.txt", &a);
	parse_fixture("stat-2cpu-b.txt", &b);
	iom_cpu_system_diff(&a, &b, &sys);
	assert_int_equal(sys.busy, 750);  /* cpu0 650 + cpu1 100 */
	assert_int_equal(sys.all, 2000);
	iom_cpu_system_diff(&b, &a, &sys);
	assert_int_equal(sys.busy, 0);
	assert_int_equal(sys.all, 0);
	iom_cpu_sample_release(&a);
	iom_cpu_sample_release(&b);
}

static void test_cpu_diff_offline(void **state)
{
	/* cpu2 offline in both samples; cpu3 goes offline before the second one. */
	static const char later[] =
		"cpu  85617 1240 41733 4712080 12977 0 3385 977 0 0\n"
		"cpu0 22974 310 11020 1176314 3401 0 2107 251 0 0\n"
		"cpu1 21390 318 10311 1178730 3262 0 514 244 0 0\n";
	struct iom_cpu_sample a, b;
	struct iom_cpu_pct per[4], avg;

	(void)state;
	parse_fixture("stat-4cpu-gap.txt", &a);
	assert_int_equal(iom_cpu_parse_stat(later, &b), 0);
	assert_int_equal(b.ncpu, 2);
	iom_cpu_diff(&a, &b, per, &avg);
	assert_pct(&per[0], 50, 0, 0, 0, 0, 0, 50);
	assert_pct(&per[1], 0, 50, 0, 0, 0, 0, 50);
	assert_pct(&per[2], 0, 0, 0, 0, 0, 0, 100);
	assert_pct(&per[3], 0, 0, 0, 0, 0, 0, 100);
	assert_pct(&avg, 25, 25, 0, 0, 0, 0, 50);
	iom_cpu_sample_release(&a);
	iom_cpu_sample_release(&b);
}

/* A CPU that comes online during the window reports idle, not its ticks since boot. */
static void test_cpu_diff_onlined(void **state)
{
	static const char late[] = "cpu  1020 0 0 1020\ncpu0 20 0 0 20\ncpu1 1000 0 0 1000\n";
	struct iom_cpu_sample a, b;
	struct iom_cpu_pct per[2];

	(void)state;
	/* The first sample decides the entries: cpu1 is beyond it. */
	assert_int_equal(iom_cpu_parse_stat("cpu  10 0 0 10\ncpu0 10 0 0 10\n", &a), 0);
	assert_int_equal(iom_cpu_parse_stat(late, &b), 0);
	assert_int_equal(a.ncpu, 1);
	iom_cpu_diff(&a, &b, per, NULL);
	assert_pct(&per[0], 50, 0, 0, 0, 0, 0, 50);
	iom_cpu_sample_release(&a);
	iom_cpu_sample_release(&b);
	/* cpu0 is a gap in the first sample. */
	assert_int_equal(iom_cpu_parse_stat("cpu  10 0 0 10\ncpu1 10 0 0 10\n", &a), 0);
	assert_int_equal(iom_cpu_parse_stat(late, &b), 0);
	assert_int_equal(a.ncpu, 2);
	iom_cpu_diff(&a, &b, per, NULL);
	assert_pct(&per[0], 0, 0, 0, 0, 0, 0, 100);
	assert_pct(&per[1], 50, 0, 0, 0, 0, 0, 50);
	iom_cpu_sample_release(&a);
	iom_cpu_sample_release(&b);
}

static void test_cpu_parse_interrupts(void **state)
{
	static const struct {
		const char *file, *drivers;
		uint64_t sum;
		unsigned lines;
	} cases[] = {
		{ "interrupts-nvme-ahci.txt", "nvme", 11035, 7 },
		{ "interrupts-nvme-ahci.txt", "nvme0", 10030, 5 },
		{ "interrupts-nvme-ahci.txt", "ahci", 307, 2 },        /* one line shared */
		{ "interrupts-nvme-ahci.txt", "nvme,ahci", 11342, 9 },
		{ "interrupts-nvme-ahci.txt", " nvme , ahci ,", 11342, 9 },
		{ "interrupts-nvme-ahci.txt", "xhci", 12345, 1 },
		{ "interrupts-nvme-ahci.txt", "nvme2", 0, 0 },
		{ "interrupts-nvme-ahci.txt", "IR-PCI", 0, 0 },        /* chip names are not devices */
		{ "interrupts-nvme-ahci.txt", "2-edge", 0, 0 },
		{ "interrupts-nvme-ahci.txt", "Local", 3892029, 1 },   /* a named line, when asked */
		{ "interrupts-nvme-ahci.txt", "", 0, 0 },
		{ "interrupts-vmware.txt", "vmw_pvscsi", 75000, 1 },
		{ "interrupts-vmware.txt", "mpt3sas", 9300, 3 },
		{ "interrupts-vmware.txt", "vmw", 78401, 3 },
		{ "interrupts-vmware.txt", "pciehp", 0, 1 },
		{ "interrupts-vmware.txt", "vmw_pvscsi,mpt3sas", 84300, 4 },
		{ "interrupts-virtio.txt", "virtio", 74814, 7 },
		{ "interrupts-virtio.txt", "virtio1", 42047, 2 },
		{ "interrupts-virtio.txt", "virtio2-req", 30700, 1 },
		{ "interrupts-virtio.txt", "nvme", 0, 0 },
	};
	unsigned i, lines;

	(void)state;
	for (i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		char *text = fixture(cases[i].file);
		uint64_t sum = iom_cpu_parse_interrupts(text, cases[i].drivers, &lines);

		if (sum != cases[i].sum || lines != cases[i].lines)
			fail_msg("%s '%s': sum %llu lines %u, want %llu and %u", cases[i].file,
				 cases[i].drivers, (unsigned long long)sum, lines,
				 (unsigned long long)cases[i].sum, cases[i].lines);
		free(text);
	}
}

static void test_cpu_parse_interrupts_odd_input(void **state)
{
	unsigned lines = 99;

	(void)state;
	assert_int_equal(iom_cpu_parse_interrupts("", "nvme", &lines), 0);
	assert_int_equal(lines, 0);
	assert_int_equal(iom_cpu_parse_interrupts("  CPU0\n 5: 1 nvme0q1\n", NULL, &lines), 0);
	assert_int_equal(lines, 0);
	/* No header: counts up to the first non-number; no trailing newline. */
	assert_int_equal(iom_cpu_parse_interrupts(" 5:  10  20  IO-APIC  5-edge  nvme0q1", "nvme",
						  &lines), 30);
	assert_int_equal(lines, 1);
	/* A line without a colon, a line with fewer counts than CPUs, huge counts. */
	assert_int_equal(iom_cpu_parse_interrupts("  CPU0 CPU1\ngarbage nvme\n"
						  " 7: 5 PCI-MSI 1-edge nvme0q1\n"
						  " 8: 18446744073709551615 0 PCI-MSI 2-edge other\n",
						  "nvme", NULL), 5);
}

static void test_cpu_sample_live(void **state)
{
	struct iom_cpu_sample a, b;
	struct iom_cpu_pct *per, avg;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	volatile double x = 0;
	unsigned i;

	(void)state;
	assert_int_equal(iom_cpu_sample(&a, "no-such-driver-xyz"), 0);
	assert_true(a.ncpu >= 1);
	assert_true(online < 1 || a.ncpu >= (unsigned)online);
	assert_true(a.total.user + a.total.system + a.total.idle > 0);
	assert_int_equal(a.irqs, 0);
	assert_int_equal(a.irq_lines, 0);
	for (i = 0; i < 2000000; i++)           /* a little CPU time for getrusage */
		x += i;
	assert_true(x > 0);
	assert_int_equal(iom_cpu_sample(&b, NULL), 0);
	assert_true(b.proc_user_s + b.proc_sys_s >= a.proc_user_s + a.proc_sys_s);
	assert_true(b.proc_user_s + b.proc_sys_s > 0);
	per = xcalloc(a.ncpu, sizeof(*per));
	iom_cpu_diff(&a, &b, per, &avg);
	for (i = 0; i < a.ncpu; i++)
		assert_float_equal(per[i].user + per[i].kernel + per[i].iowait + per[i].irq +
				   per[i].softirq + per[i].steal + per[i].idle, 100.0, 1e-6);
	assert_float_equal(avg.user + avg.kernel + avg.iowait + avg.irq + avg.softirq + avg.steal +
			   avg.idle, 100.0, 1e-6);
	free(per);
	iom_cpu_sample_release(&a);
	iom_cpu_sample_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_parse_stat_two),
		cmocka_unit_test(test_cpu_parse_stat_offline_gap),
		cmocka_unit_test(test_cpu_parse_stat_old_kernels),
		cmocka_unit_test(test_cpu_parse_stat_errors),
		cmocka_unit_test(test_cpu_diff_percentages),
		cmocka_unit_test(test_cpu_system_busy),
		cmocka_unit_test(test_cpu_diff_offline),
		cmocka_unit_test(test_cpu_diff_onlined),
		cmocka_unit_test(test_cpu_parse_interrupts),
		cmocka_unit_test(test_cpu_parse_interrupts_odd_input),
		cmocka_unit_test(test_cpu_sample_live),
		cmocka_unit_test(test_cpu_parse_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
