/* SPDX-License-Identifier: MIT */
/*
 * test_import — the readers of `iomatrix import`: fio's units (kb_base), bssplit's blank shares,
 * jobs differing in one option as a dimension and in two as a full product (or refused), global
 * sections above a job only, ${VAR}, include, every unknown option named with its line; what
 * sync, dsync, dedupe_percentage, rwmixwrite, offset and ramp_time map to; a DiskSpd
 * profile into the flags' struct; an .icf's access specs and queue-depth sweep.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "import/diskspd.h"
#include "import/import.h"
#include "util.h"

static int fio(const char *text, bool lenient, struct iom_import *im, char *err)
{
	memset(im, 0, sizeof(*im));
	return iom_import_fio("t.fio", text, lenient, im, err, IOM_ERRLEN);
}

static void assert_has(const char *text, const char *want)
{
	if (!text || !strstr(text, want))
		fail_msg("'%s' not in:\n%s", want, text ? text : "(null)");
}

static void test_import_fio_units_and_defaults(void **state)
{
	struct iom_import im;
	char err[IOM_ERRLEN];

	(void)state;
	assert_int_equal(fio("[j]\nfilename=/dev/null0\nbs=4ki\nrw=randwrite\nruntime=1m\n", false,
			     &im, err), 0);
	assert_has(im.text, "block_size = \"4000\";"); /* kb_base 1024: ki is 1000 */
	assert_has(im.text, "engine = \"psync\";");    /* fio's default engine */
	assert_has(im.text, "read_pct = 0;");
	assert_has(im.text, "duration = \"1m\";");
	iom_import_release(&im);
	assert_int_equal(fio("[j]\nkb_base=1000\nfilename=/dev/null0\nbs=4k\nruntime=2\n", false, &im,
			     err), 0);
	assert_has(im.text, "block_size = \"4000\";");
	assert_has(im.text, "pattern = \"sequential\";");
	iom_import_release(&im);
}

static void test_import_fio_bssplit_blank_shares(void **state)
{
	struct iom_import im;
	char err[IOM_ERRLEN];

	(void)state;
	assert_int_equal(fio("[j]\nfilename=/dev/null0\nbssplit=4k/40:1k/:32k/:8k/\nruntime=1\n",
			     false, &im, err), 0);
	assert_has(im.text, "{ share = 40; block_size = \"4K\"; }");
	assert_has(im.text, "{ share = 20; block_size = \"1K\"; }");
	assert_has(im.text, "{ share = 20; block_size = \"8K\"; }");
	iom_import_release(&im);
	assert_int_equal(fio("[j]\nfilename=/dev/null0\nbssplit=4k/60:8k/60\nruntime=1\n", false, &im,
			     err), -EINVAL);
	assert_int_equal(im.nproblems, 1);
	assert_has(im.problems[0], "t.fio:3: bssplit '4k/60:8k/60': the percentages add up to 120");
	iom_import_release(&im);
}

static void test_import_fio_dimensions(void **state)
{
	struct iom_import im;
	char err[IOM_ERRLEN];

	(void)state;
	/* 2 x 2: two dimensions */
	assert_int_equal(fio("[global]\nfilename=/dev/null0\nruntime=1\n"
			     "[a]\nbs=4k\niodepth=1\n[b]\nbs=4k\niodepth=8\n"
			     "[c]\nbs=64k\niodepth=1\n[d]\nbs=64k\niodepth=8\n", false, &im, err), 0);
	assert_has(im.text, "block_size = ( \"4K\", \"64K\" );");
	assert_has(im.text, "queue_depth = ( 1, 8 );");
	iom_import_release(&im);
	/* three of the four combinations: refused */
	assert_int_equal(fio("[global]\nfilename=/dev/null0\nruntime=1\n"
			     "[a]\nbs=4k\niodepth=1\n[b]\nbs=4k\niodepth=8\n[c]\nbs=64k\niodepth=1\n",
			     false, &im, err), -EINVAL);
	assert_has(err, "differ in block_size, queue_depth but are not every combination");
	iom_import_release(&im);
	/* the same cell twice: fio's concurrency, said as numjobs */
	assert_int_equal(fio("[global]\nfilename=/dev/null0\nruntime=1\n[a]\n[b]\n", false, &im,
			     err), -EINVAL);
	assert_has(err, "t.fio:5: job 'b' is the same cell as job 'a' (t.fio:4)");
	assert_has(err, "numjobs=2");
	iom_import_release(&im);
	/* timed otherwise: refused with both jobs named */
	assert_int_equal(fio("[global]\nfilename=/dev/null0\n[a]\nruntime=1\n[b]\nruntime=2\n", false,
			     &im, err), -EINVAL);
	assert_has(err, "t.fio:5: job 'b' is timed otherwise than job 'a' (t.fio:3)");
	iom_import_release(&im);
}

static void assert_lacks(const char *text, const char *unwanted)
{
	if (text && strstr(text, unwanted))
		fail_msg("'%s' in:\n%s", unwanted, text);
}

/* The options whose mapping nothing else would notice going wrong: each job's matrix holds the
 * key it maps to, with the option in the key's comment, and not what it must not map to. */
static void test_import_fio_mappings(void **state)
{
	static const struct {
		const char *opts;    /* one job's options besides its filename and runtime */
		const char *want[3]; /* in the matrix */
		const char *lacks;   /* not in it */
	} cases[] = {
		/* O_SYNC taken as iomatrix's O_DSYNC, with a note saying so */
		{ "sync=1\n", { "write_through = true;", "# sync=1\n",
				"#   - sync=1: O_SYNC in fio, O_DSYNC in iomatrix (write_through)" },
		  NULL },
		{ "sync=sync\n", { "write_through = true;", "# sync=sync\n", "#   - sync=sync: O_SYNC" },
		  NULL },
		{ "sync=dsync\n", { "write_through = true;", "# sync=dsync\n" }, "O_SYNC" },
		{ "sync=0\n", { "iomatrix = 1;" }, "write_through" },
		{ "dsync=1\n", { "write_through = true;", "# dsync=1\n" }, "O_SYNC" },
		{ "dsync\n", { "write_through = true;", "# dsync\n" }, NULL },
		{ "dsync=0\n", { "iomatrix = 1;" }, "write_through" },
		{ "dedupe_percentage=30\n", { "data = \"dedupe:30%\";", "# dedupe_percentage=30\n" },
		  NULL },
		{ "dedupe_percentage=0\n", { "iomatrix = 1;" }, "data =" },
		/* rwmixwrite=N: the read share 100 - N; of rwmixread and rwmixwrite the later wins */
		{ "rw=randrw\nrwmixwrite=30\n", { "read_pct = 70;", "# rwmixwrite=30\n",
					       "pattern = \"random\";" }, NULL },
		{ "rw=rw\nrwmixwrite=100\n", { "read_pct = 0;", "pattern = \"sequential\";" }, NULL },
		{ "rw=randrw\nrwmixread=30\nrwmixwrite=60\n", { "read_pct = 40;", "# rwmixwrite=60\n" },
		  NULL },
		{ "rw=randrw\nrwmixwrite=60\nrwmixread=30\n", { "read_pct = 30;", "# rwmixread=30\n" },
		  NULL },
		/* offset 0 is iomatrix's region: accepted, nothing set */
		{ "offset=0\n", { "iomatrix = 1;" }, "offset" },
		{ "offset=0k\n", { "iomatrix = 1;" }, "offset" },
		/* ramp_time: the warm-up; without it none, fio's default */
		{ "ramp_time=5s\n", { "warmup = \"5s\";", "# ramp_time\n" }, NULL },
		{ "ramp_time=1500ms\n", { "warmup = \"1.5s\";", "# ramp_time\n" }, NULL },
		{ "ramp_time=2m\n", { "warmup = \"2m\";" }, NULL },
		{ "", { "warmup = \"0s\";", "# fio's default: no ramp time\n" }, NULL },
	};
	struct iom_import im;
	char err[IOM_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *job = xasprintf("[j]\nfilename=/dev/null0\nruntime=1\n%s", cases[i].opts);

		if (fio(job, false, &im, err) != 0)
			fail_msg("%s: %s", job, err);
		for (size_t w = 0; w < 3 && cases[i].want[w]; w++)
			assert_has(im.text, cases[i].want[w]);
		if (cases[i].lacks)
			assert_lacks(im.text, cases[i].lacks);
		iom_import_release(&im);
		free(job);
	}
	/* a non-zero offset, and two kinds of data at once, are refused */
	assert_int_equal(fio("[j]\nfilename=/dev/null0\nruntime=1\noffset=4k\n"
			     "dedupe_percentage=30\nbuffer_compress_percentage=20\n", false, &im, err),
			 -EINVAL);
	assert_int_equal(im.nproblems, 2);
	assert_has(im.problems[0], "t.fio:6: buffer_compress_percentage with dedupe_percentage");
	assert_has(im.problems[1], "t.fio:4: offset=4k: iomatrix's region starts at offset 0");
	iom_import_release(&im);
}

/* With --lenient a refused value is a comment, and its key keeps fio's default: one pass for a
 * refused loops (not a number read before it), one job for a refused numjobs. */
static void test_import_fio_lenient_defaults(void **state)
{
	struct iom_import im;
	char err[IOM_ERRLEN];

	(void)state;
	assert_int_equal(fio("[j]\nfilename=/dev/null0\nruntime=1\niodepth=8\nloops=x\n", true,
			     &im, err), 0);
	assert_has(im.text, "#   t.fio:5: loops takes a whole number, 1 to 1000");
	assert_has(im.text, "  repeat = 1;\n");
	assert_has(im.text, "queue_depth = 8;");
	iom_import_release(&im);
	assert_int_equal(fio("[j]\nfilename=/dev/null0\nsize=8m\nnumjobs=0\nrate_iops=5\n", true,
			     &im, err), 0);
	assert_has(im.text, "#   t.fio:4: numjobs takes a whole number, 1 to 1024");
	assert_has(im.text, "threads = 1;");
	assert_has(im.text, "rate_iops = 5;");
	assert_has(im.text, "bytes = \"8M\";");
	iom_import_release(&im);
}

static void test_import_fio_global_above_only(void **state)
{
	struct iom_import im;
	char err[IOM_ERRLEN];

	(void)state;
	setenv("IOM_TEST_QD", "12", 1);
	assert_int_equal(fio("[global]\nfilename=/dev/null0\nruntime=1\niodepth=${IOM_TEST_QD}\n"
			     "[a]\n[global]\niodepth=2\n[b]\n", false, &im, err), 0);
	assert_has(im.text, "queue_depth = ( 12, 2 );");
	iom_import_release(&im);
	unsetenv("IOM_TEST_QD");
}

static void test_import_fio_refuses_by_line(void **state)
{
	struct iom_import im;
	char err[IOM_ERRLEN];

	(void)state;
	assert_int_equal(fio("[global]\nfilename=/dev/null0\nruntime=1\nverify=crc32c\n[a]\n"
			     "rw=read:8k\noffset=1m\nfoo\n[b]\n", false, &im, err), -EINVAL);
	/* the global's refusal once, though two jobs see it */
	assert_int_equal(im.nproblems, 4);
	assert_has(im.problems[0], "t.fio:4: fio option 'verify' has no iomatrix equivalent");
	assert_has(im.problems[1], "t.fio:8: fio option 'foo'");
	assert_has(im.problems[2], "t.fio:6: rw=read:8k: an offset modifier");
	assert_has(im.problems[3], "t.fio:7: offset=1m");
	assert_null(im.text);
	iom_import_release(&im);
	assert_int_equal(fio("[a]\nfilename=/dev/null0\nruntime=1\nverify=crc32c\n", true, &im, err),
			 0);
	assert_has(im.text, "#   t.fio:4: fio option 'verify' has no iomatrix equivalent");
	iom_import_release(&im);
}

static void test_import_fio_include(void **state)
{
	char dir[] = "/tmp/iom-test-import.XXXXXX", *inc, *job, err[IOM_ERRLEN];
	struct iom_import im;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	inc = xasprintf("%s/inc.fio", dir);
	job = xasprintf("%s/job.fio", dir);
	f = fopen(inc, "w");
	assert_non_null(f);
	fputs("iodepth=7\nioengine=io_uring\n", f);
	fclose(f);
	f = fopen(job, "w");
	assert_non_null(f);
	fputs("[j]\nfilename=/dev/null0\nruntime=1\ninclude inc.fio\n", f);
	fclose(f);
	assert_int_equal(iom_import_file(job, IOM_IMPORT_AUTO, false, &im, err, sizeof(err)), 0);
	assert_has(im.text, "queue_depth = 7;");
	assert_has(im.text, "engine = \"io_uring\";");
	iom_import_release(&im);
	unlink(inc);
	unlink(job);
	rmdir(dir);
	free(inc);
	free(job);
}

static void test_import_diskspd_profile_fields(void **state)
{
	static const char xml[] =
		"<Profile><TimeSpans><TimeSpan><Duration>3</Duration><Warmup>1</Warmup>"
		"<RandSeed>9</RandSeed><Affinity><AffinityAssignment>0</AffinityAssignment>"
		"<AffinityAssignment>1</AffinityAssignment></Affinity><Targets><Target>"
		"<Path>a.dat</Path><BlockSize>16384</BlockSize><Random>4096</Random>"
		"<RequestCount>4</RequestCount><WriteRatio>25</WriteRatio><FileSize>1048576</FileSize>"
		"<DisableAllCache>true</DisableAllCache><ThreadsPerFile>3</ThreadsPerFile>"
		"</Target></Targets></TimeSpan></TimeSpans></Profile>";
	struct iom_import im = { 0 };
	struct iom_diskspd d;
	char err[IOM_ERRLEN];

	(void)state;
	assert_int_equal(iom_import_diskspd_profile("p.xml", xml, sizeof(xml) - 1, false, &d, &im,
						    err, sizeof(err)), 0);
	assert_int_equal(d.block_size, 16384);
	assert_true(d.random);
	assert_int_equal(d.align, 4096);
	assert_int_equal(d.outstanding, 4);
	assert_int_equal(d.write_pct, 25);
	assert_int_equal(d.threads, 3);
	assert_int_equal(d.duration_s, 3);
	assert_int_equal(d.warmup_s, 1);
	assert_true(d.seed_given && d.seed == 9);
	assert_true(d.direct && d.write_through);
	assert_string_equal(d.cpus, "0,1");
	assert_string_equal(d.target, "a.dat");
	assert_int_equal(d.create_size, 1048576);
	iom_diskspd_release(&d);
	iom_import_release(&im);
}

static void test_import_icf_specs_and_sweep(void **state)
{
	static const char icf[] =
		"Version 1.1.0\n'TEST SETUP ====\n'Run Time\n'\thours minutes seconds\n\t0 1 30\n"
		"'Queue Depth Cycling\n'\tstart end step step type\n\t2 20 6 LINEAR\n"
		"'Test Type\n\tCYCLE_OUTSTANDING_IOS\n'END test setup\n"
		"'ACCESS SPECIFICATIONS ====\n'Access specification name,default assignment\n"
		"\t512B; 100% Read,NONE\n'size,% of size,% reads,% random,delay,burst,align,reply\n"
		"\t512,100,100,0,0,1,0,0\n'Access specification name,default assignment\n"
		"\tslow,NONE\n'size,% of size,% reads,% random,delay,burst,align,reply\n"
		"\t4096,100,100,0,5,1,0,0\n'END access specifications\n";
	struct iom_import im = { 0 };
	char err[IOM_ERRLEN];

	(void)state;
	assert_int_equal(iom_import_icf("t.icf", icf, false, &im, err, sizeof(err)), -EINVAL);
	assert_int_equal(im.nproblems, 1);
	assert_has(im.problems[0], "t.icf:20: access spec 'slow': a line with delay 5 ms");
	iom_import_release(&im);
	assert_int_equal(iom_import_icf("t.icf", icf, true, &im, err, sizeof(err)), 0);
	assert_has(im.text, "queue_depth = [ 2, 8, 14, 20 ];");
	assert_has(im.text, "spec-512B-100-Read = ( { share = 100; block_size = \"512\"; "
			    "read_pct = 100; random_pct = 0; } );");
	assert_has(im.text, "duration = \"90s\";");
	iom_import_release(&im);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_import_fio_units_and_defaults),
		cmocka_unit_test(test_import_fio_bssplit_blank_shares),
		cmocka_unit_test(test_import_fio_dimensions),
		cmocka_unit_test(test_import_fio_mappings),
		cmocka_unit_test(test_import_fio_lenient_defaults),
		cmocka_unit_test(test_import_fio_global_above_only),
		cmocka_unit_test(test_import_fio_refuses_by_line),
		cmocka_unit_test(test_import_fio_include),
		cmocka_unit_test(test_import_diskspd_profile_fields),
		cmocka_unit_test(test_import_icf_specs_and_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
