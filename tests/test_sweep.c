/* SPDX-License-Identifier: MIT */
/*
 * Tests of the overnight machinery around a run: the watchdog (timing.timeout) that run.c keeps
 * for the sweep; iom_sweep_execute on a small plan — resume never repeats a finished run,
 * refuses a changed plan and a journal that lost its records without writing anything, redoes
 * runs whose files are missing or damaged (setting the damaged aside), and skips what an
 * adaptive "stop" decided against when the kill came before its run-skipped records; shell
 * hooks are refused without allow_hooks, a hook's failure fails its run; and the matrix keys of
 * hooks, built-ins and filesystems.
 *
 * A hung I/O is simulated with the worker's prepare_write hook, which blocks its thread the way
 * a device that never answers would. The abandoned worker's memory is left to it by design, so
 * this binary turns LeakSanitizer off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "matrix/matrix.h"
#include "ownfile.h"
#include "plan.h"
#include "result/result.h"
#include "run/run.h"
#include "sweep/sweep.h"
#include "tmpdir.h"
#include "util.h"

#define MS 1000000ull

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static struct iom_run_spec spec_null(void)
{
	return (struct iom_run_spec){
		.fd = -1, .region = 1ull << 30,
		.wl = { .block_size = 4096, .queue_depth = 4, .threads = 2, .read_pct = 50,
			.pattern = IOM_PATTERN_RANDOM, .engine = IOM_ENGINE_NULL,
			.random_pct = 100 },
		.timing = { .duration_ns = 200 * MS },
		.seed = 5, .index = 1, .repetition = 1,
	};
}

/* A run longer than its timeout fails as timed out, with its workers joined. */
static void test_sweep_watchdog_times_out_a_long_run(void **state)
{
	struct iom_run_spec s = spec_null();
	struct iom_run_result r;
	char err[IOM_ERRLEN];

	(void)state;
	s.timing.duration_ns = 5000 * MS;
	s.timing.timeout_ns = 300 * MS;
	assert_int_equal(iom_run_execute(&s, &r, err, sizeof(err)), -ETIMEDOUT);
	assert_int_equal(r.status, IOM_RUN_FAILED);
	assert_non_null(strstr(r.error, "timed out after 300ms"));
	assert_null(strstr(r.error, "abandoned"));
	iom_run_result_release(&r);

	/* a timeout the run stays within changes nothing */
	s.timing.duration_ns = 100 * MS;
	s.timing.timeout_ns = 5000 * MS;
	assert_int_equal(iom_run_execute(&s, &r, err, sizeof(err)), 0);
	assert_int_equal(r.status, IOM_RUN_OK);
	iom_run_result_release(&r);
}

static volatile int hang_ms;

/* Blocks the first thread's first write for hang_ms: a device that does not answer. */
static void hang_prepare(void *ctx, unsigned thread, struct iom_io *io)
{
	static _Atomic int hung;
	struct timespec ts;

	(void)ctx;
	(void)io;
	if (thread != 0 || hung++)
		return;
	ts.tv_sec = hang_ms / 1000;
	ts.tv_nsec = (long)(hang_ms % 1000) * 1000000;
	nanosleep(&ts, NULL);
}

/* A worker that hangs past the timeout and the grace period is abandoned: the run fails with
 * the reason, and returns long before the hang ends. */
static void test_sweep_watchdog_abandons_a_hung_worker(void **state)
{
	const struct iom_worker_hooks hooks = { .prepare_write = hang_prepare };
	struct iom_run_spec s = spec_null();
	struct iom_run_result r;
	char err[IOM_ERRLEN];
	uint64_t t0;

	(void)state;
	hang_ms = 6000;
	s.hooks = &hooks;
	s.wl.read_pct = 0;
	s.timing.duration_ns = 200 * MS;
	s.timing.timeout_ns = 400 * MS;
	t0 = iom_now_ns();
	assert_int_equal(iom_run_execute(&s, &r, err, sizeof(err)), -ETIMEDOUT);
	assert_true(iom_now_ns() - t0 < 5000 * MS);
	assert_int_equal(r.status, IOM_RUN_FAILED);
	assert_non_null(strstr(r.error, "timed out after 400ms"));
	assert_non_null(strstr(r.error, "1 worker thread was abandoned"));
	assert_non_null(strstr(err, "abandoned"));
	iom_run_result_release(&r);
	/* the process must still be able to exit with the thread asleep: cmocka's exit shows it */
}

/* ---- sweeps ---- */

struct dir {
	char path[64];
};

static void dir_make(struct dir *d)
{
	snprintf(d->path, sizeof(d->path), "/tmp/iom-test-sweep.XXXXXX");
	assert_non_null(mkdtemp(d->path));
}

static void dir_remove(struct dir *d)
{
	assert_int_equal(test_tmpdir_remove(d->path), 0);
}

static const char *matrix_text =
	"iomatrix = 1;\n"
	"name = \"t\";\n"
	"targets = ( { label = \"a\"; path = \"%s/a.scratch\"; size = \"1M\"; } );\n"
	"workload = { engine = \"null\"; direct = false; block_size = [ \"4K\", \"8K\", \"16K\" ]; };\n"
	"timing = { warmup = \"0s\"; duration = \"20ms\"; };\n"
	"trace = false;\n"
	"%s";

static int sweep_once(const char *dir, const char *hooks, bool resume, bool allow,
		      struct iom_sweep_outcome *out, char *err, size_t errlen)
{
	char *text = xasprintf(matrix_text, dir, hooks);
	char *res = xasprintf("%s/res", dir);
	struct iom_matrix *m;
	struct iom_plan p;
	FILE *devnull = fopen("/dev/null", "w");
	struct iom_sweep_opts o = { .dir = res, .resume = resume, .quiet = true, .out = devnull,
				    .allow_hooks = allow, .tty = 0 };
	int ret;

	assert_int_equal(iom_matrix_parse("m.cfg", text, NULL, 0, &m, err, errlen), 0);
	assert_int_equal(iom_plan_build(m, &p, err, errlen), 0);
	ret = iom_sweep_execute(&p, &o, out, err, errlen);
	iom_plan_release(&p);
	iom_matrix_free(m);
	fclose(devnull);
	free(text);
	free(res);
	return ret;
}

static size_t count_lines(const char *path, const char *needle)
{
	char *text, *p;
	size_t n = 0;

	if (iom_read_file(path, &text, NULL) < 0)
		return 0;
	for (p = text; (p = strstr(p, needle)); p++)
		n++;
	free(text);
	return n;
}

/* A resumed sweep runs only what the journal does not mark finished; `run` refuses the
 * directory then. */
static void test_sweep_resume_skips_finished_runs(void **state)
{
	struct iom_sweep_outcome out;
	char err[IOM_ERRLEN], *journal, *cmd;
	struct dir d;
	FILE *f;

	(void)state;
	dir_make(&d);
	assert_int_equal(sweep_once(d.path, "", false, false, &out, err, sizeof(err)), 0);
	assert_int_equal(out.ok, 3);
	/* pretend the machine died in run 3, in the middle of writing a journal line */
	journal = xasprintf("%s/res/journal", d.path);
	cmd = xasprintf("sed -i '/\trun-done\t3\t/d; /\tstudy-end\t/d' '%s'", journal);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* ... and that it began on another machine, with another version of the tool */
	cmd = xasprintf("sed -i 's/\"host\": *\"[^\"]*\"/\"host\": \"elsewhere\"/; "
			"s/\"tool_version\": *\"[^\"]*\"/\"tool_version\": \"0.0-old\"/' "
			"'%s/res/study.json'", d.path);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	f = fopen(journal, "a");
	assert_non_null(f);
	fprintf(f, "2026-01-01T00:00:00Z\trun-start\t3\t\n2026-01-01T00:00:00Z\trun-st");
	fclose(f);
	assert_int_equal(sweep_once(d.path, "", true, false, &out, err, sizeof(err)), 0);
	assert_int_equal(out.skipped, 2);
	assert_int_equal(out.ok, 1);
	assert_int_equal(count_lines(journal, "\trun-done\t"), 3);
	assert_int_equal(count_lines(journal, "\trun-done\t3\t"), 1);
	assert_int_equal(count_lines(journal, "run-st2"), 0); /* the torn line was cut */
	assert_int_equal(count_lines(journal, "began on host 'elsewhere'"), 1);
	assert_int_equal(count_lines(journal, "began with iomatrix 0.0-old"), 1);
	/* a complete study resumes to nothing, and writes nothing */
	assert_int_equal(sweep_once(d.path, "", true, false, &out, err, sizeof(err)), 0);
	assert_int_equal(out.skipped, 3);
	assert_int_equal(out.ok, 0);
	assert_int_equal(count_lines(journal, "\tresume\t"), 1);
	assert_int_equal(sweep_once(d.path, "", false, false, &out, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "not empty"));
	free(journal);
	dir_remove(&d);
}

/* A resume whose matrix gives another plan (here: another seed) is refused before anything
 * is written: study.json and the journal stay byte for byte as they were, and the message has
 * both hashes and the command that starts a new study. */
static void test_sweep_resume_refuses_changed_plan(void **state)
{
	struct iom_sweep_outcome out;
	char err[IOM_ERRLEN], *study, *journal, *before_s, *before_j, *after_s, *after_j;
	struct dir d;

	(void)state;
	dir_make(&d);
	assert_int_equal(sweep_once(d.path, "", false, false, &out, err, sizeof(err)), 0);
	study = xasprintf("%s/res/study.json", d.path);
	journal = xasprintf("%s/res/journal", d.path);
	assert_int_equal(iom_read_file(study, &before_s, NULL), 0);
	assert_int_equal(iom_read_file(journal, &before_j, NULL), 0);
	/* with or without its study-end: a changed plan is refused */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			char *cmd = xasprintf("sed -i '/\tstudy-end\t/d' '%s'", journal);

			assert_int_equal(system(cmd), 0);
			free(cmd);
			free(before_j);
			assert_int_equal(iom_read_file(journal, &before_j, NULL), 0);
		}
		assert_int_equal(sweep_once(d.path, "seed = 7;\n", true, false, &out, err,
					    sizeof(err)), -ESTALE);
		assert_true(out.plan_changed);
		assert_int_equal(out.ok + out.failed + out.skipped, 0);
		assert_non_null(strstr(err, "study.json and the journal record plan "));
		assert_non_null(strstr(err, "(3 runs)"));
		assert_non_null(strstr(err, "now gives plan "));
		assert_non_null(strstr(err, "start a new study: iomatrix run "));
		assert_non_null(strstr(err, "/res/matrix.cfg -o NEWDIR"));
		assert_int_equal(iom_read_file(study, &after_s, NULL), 0);
		assert_int_equal(iom_read_file(journal, &after_j, NULL), 0);
		assert_string_equal(after_s, before_s);
		assert_string_equal(after_j, before_j);
		free(after_s);
		free(after_j);
	}
	/* the plan it began with still resumes */
	assert_int_equal(sweep_once(d.path, "", true, false, &out, err, sizeof(err)), 0);
	assert_false(out.plan_changed);
	assert_int_equal(out.skipped, 3);
	free(before_s);
	free(before_j);
	free(study);
	free(journal);
	dir_remove(&d);
}

/* A run the journal counts finished whose file is missing runs again; a damaged run file is set
 * aside (renamed, kept) and its run runs again; each exactly once, with a readable file. */
static void test_sweep_resume_redoes_missing_and_damaged_runs(void **state)
{
	struct iom_sweep_outcome out;
	char err[IOM_ERRLEN], *journal, *cmd, *path;
	struct iom_result_file f;
	struct dir d;

	(void)state;
	dir_make(&d);
	assert_int_equal(sweep_once(d.path, "", false, false, &out, err, sizeof(err)), 0);
	journal = xasprintf("%s/res/journal", d.path);
	cmd = xasprintf("rm '%s/res/runs/00002.json' && echo '{\"schema\": 1, \"ind' "
			">'%s/res/runs/00003.json'", d.path, d.path);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* the study ended: a complete study with a lost file is not complete */
	assert_int_equal(sweep_once(d.path, "", true, false, &out, err, sizeof(err)), 0);
	assert_int_equal(out.ok, 2);
	assert_int_equal(out.skipped, 1);
	assert_int_equal(count_lines(journal, "\trun-done\t2\t"), 2);
	assert_int_equal(count_lines(journal, "\trun-done\t3\t"), 2);
	assert_int_equal(count_lines(journal, "\trun-done\t1\t"), 1);
	assert_int_equal(count_lines(journal, "run 2: the journal counts it finished but "
				     "runs/00002.json is missing: it runs again"), 1);
	assert_int_equal(count_lines(journal, "run 3: runs/00003.json is damaged ("), 1);
	assert_int_equal(count_lines(journal, "set aside as runs/00003.json.corrupt-"), 1);
	for (uint32_t i = 1; i <= 3; i++) {
		path = xasprintf("%s/res/runs/%05u.json", d.path, i);
		assert_int_equal(iom_result_read(path, &f, err, sizeof(err)), 0);
		assert_int_equal(f.r.index, i);
		iom_result_file_release(&f);
		free(path);
	}
	cmd = xasprintf("test \"$(ls '%s/res/runs' | grep -c '^00003.json.corrupt-')\" = 1",
			d.path);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* and now it is whole: nothing more to do */
	assert_int_equal(sweep_once(d.path, "", true, false, &out, err, sizeof(err)), 0);
	assert_int_equal(out.ok, 0);
	assert_int_equal(out.skipped, 3);
	free(journal);
	dir_remove(&d);
}

/* Adaptive repetitions: a kill between a cell's "stop" decision and the run-skipped records
 * after it; the resume skips that cell's runs of the round and later (none of them starts, none is decided
 * again) and decides the other cell's round as usual. */
static void test_sweep_resume_skips_what_a_stop_decided(void **state)
{
	static const char *adaptive_text =
		"iomatrix = 1;\n"
		"name = \"t\";\n"
		"targets = ( { label = \"a\"; path = \"%s/a.scratch\"; size = \"1M\"; } );\n"
		"workload = { engine = \"null\"; direct = false; block_size = [ \"4K\", \"8K\" ]; };\n"
		"timing = { warmup = \"0s\"; duration = \"20ms\"; repeat = 2; repeat_max = 4; "
		"until = \"ci 100%%\"; };\n"
		"trace = false;\n";
	struct iom_sweep_outcome out;
	char err[IOM_ERRLEN], *text, *res, *journal, *reps, *cmd;
	FILE *devnull = fopen("/dev/null", "w");
	struct iom_matrix *m;
	struct iom_plan p;
	struct dir d;
	FILE *f;

	(void)state;
	dir_make(&d);
	text = xasprintf(adaptive_text, d.path);
	res = xasprintf("%s/res", d.path);
	journal = xasprintf("%s/journal", res);
	reps = xasprintf("%s/repetitions.tsv", res);
	assert_int_equal(iom_matrix_parse("m.cfg", text, NULL, 0, &m, err, sizeof(err)), 0);
	assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
	assert_int_equal(p.nruns, 8); /* runs 1, 3, 5, 7: 4K, rounds 1 to 4; 2, 4, 6, 8: 8K */
	{
		struct iom_sweep_opts o = { .dir = res, .quiet = true, .out = devnull, .tty = 0 };

		assert_int_equal(iom_sweep_execute(&p, &o, &out, err, sizeof(err)), 0);
	}
	/* the journal as a kill right after 4K's decision for round 3 leaves it */
	cmd = xasprintf("sed -i '/\trun-done\t4\t/q' '%s' && rm -f '%s'/runs/0000[5-8].json '%s'",
			journal, res, reps);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	f = fopen(journal, "a");
	assert_non_null(f);
	fprintf(f, "2026-01-01T00:00:00Z\tdecide\t5\tstop: by hand after 2\n");
	fclose(f);
	{
		struct iom_sweep_opts o = { .dir = res, .resume = true, .quiet = true,
					    .out = devnull, .tty = 0 };

		assert_int_equal(iom_sweep_execute(&p, &o, &out, err, sizeof(err)), 0);
	}
	assert_int_equal(count_lines(journal, "\trun-skipped\t5\tby hand after 2\n"), 1);
	assert_int_equal(count_lines(journal, "\trun-skipped\t7\tby hand after 2\n"), 1);
	assert_int_equal(count_lines(journal, "\trun-start\t5\t"), 0);
	assert_int_equal(count_lines(journal, "\trun-start\t7\t"), 0);
	assert_int_equal(count_lines(journal, "\tdecide\t5\t"), 1);
	assert_int_equal(count_lines(journal, "\tdecide\t7\t"), 0);
	assert_int_equal(count_lines(journal, "\tdecide\t6\t"), 1); /* 8K: decided as usual */
	assert_int_equal(count_lines(journal, "\tstudy-end\t"), 1);
	assert_int_equal(count_lines(reps, "\t2\tby hand after 2\n"), 1);
	iom_plan_release(&p);
	iom_matrix_free(m);
	fclose(devnull);
	free(text);
	free(res);
	free(journal);
	free(reps);
	dir_remove(&d);
}

/* An empty or unreadable journal beside run files is refused, and nothing is changed; an empty
 * journal in a directory without run files (killed before the first run) resumes. */
static void test_sweep_resume_refuses_a_journal_without_records(void **state)
{
	struct iom_sweep_outcome out;
	char err[IOM_ERRLEN], *journal, *cmd;
	struct dir d;

	(void)state;
	dir_make(&d);
	assert_int_equal(sweep_once(d.path, "", false, false, &out, err, sizeof(err)), 0);
	journal = xasprintf("%s/res/journal", d.path);
	assert_int_equal(truncate(journal, 0), 0);
	assert_int_equal(sweep_once(d.path, "", true, false, &out, err, sizeof(err)), -EUCLEAN);
	assert_non_null(strstr(err, "its journal is empty, but '"));
	assert_non_null(strstr(err, "/res/runs' holds 3 run files; resuming would run the study "
				    "again over them, so nothing was changed"));
	assert_int_equal(count_lines(journal, "\t"), 0);
	/* a journal that is not a journal */
	assert_int_equal(iom_write_file_atomic(journal, "\x01\x02binary\n", 9), 0);
	assert_int_equal(sweep_once(d.path, "", true, false, &out, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "malformed journal line; the journal says which runs finished, "
				    "so nothing was changed (the 3 run files in '"));
	/* a journal that cannot be read */
	assert_int_equal(unlink(journal), 0);
	assert_int_equal(mkdir(journal, 0755), 0);
	assert_int_equal(sweep_once(d.path, "", true, false, &out, err, sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "cannot resume '"));
	assert_int_equal(rmdir(journal), 0);
	/* no run files: an empty journal is a study killed before its first run */
	cmd = xasprintf("rm -f '%s/res/runs/'* && : >'%s'", d.path, journal);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_int_equal(sweep_once(d.path, "", true, false, &out, err, sizeof(err)), 0);
	assert_int_equal(out.ok, 3);
	free(journal);
	dir_remove(&d);
}

/* Shell hooks need allow_hooks; a failing before_run fails its run, and the sweep goes on. */
static void test_sweep_hooks(void **state)
{
	struct iom_sweep_outcome out;
	char err[IOM_ERRLEN], *path;
	struct dir d;

	(void)state;
	dir_make(&d);
	assert_int_equal(sweep_once(d.path, "hooks = { before_run = \"test ${run.index} != 2\"; };",
				    false, false, &out, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "--allow-hooks"));
	assert_int_equal(sweep_once(d.path, "hooks = { before_run = \"test ${run.index} != 2\"; };",
				    false, true, &out, err, sizeof(err)), 0);
	assert_int_equal(out.ok, 2);
	assert_int_equal(out.failed, 1);
	path = xasprintf("%s/res/hooks/00002.before_run.log", d.path);
	assert_int_equal(access(path, F_OK), 0);
	free(path);
	dir_remove(&d);
}

/* The filesystem keys of the matrix: a target with filesystems becomes one target per
 * filesystem; hooks' built-ins are read; bad values are refused with FILE:LINE. */
static void test_sweep_matrix_keys(void **state)
{
	static const char *head =
		"iomatrix = 1;\n"
		"targets = ( { label = \"d\"; device = \"/dev/loop9\"; destructive = true;\n"
		"              size = \"16M\"; filesystems = [ \"ext4\", \"raw\" ];\n"
		"              mkfs_options = \"-E nodiscard\"; mount_options = \"noatime\"; },\n"
		"            { label = \"f\"; path = \"f.scratch\"; size = \"1M\"; } );\n"
		"timing = { duration = \"1s\"; };\n";
	static const struct {
		const char *tail, *error; /* NULL: valid */
	} cases[] = {
		{ "hooks = { drop_caches = true; fstrim = true;\n"
		  "          precondition = { pattern = \"sequential\"; bytes = \"2x\"; }; };\n", NULL },
		{ "hooks = { precondition = { pattern = \"random\"; bytes = \"2x\"; }; };\n",
		  "m.cfg:7: hooks.precondition.pattern must be \"sequential\"" },
		{ "hooks = { precondition = { pattern = \"sequential\"; }; };\n",
		  "m.cfg:7: hooks.precondition needs bytes" },
		{ "hooks = { precondition = \"500x\"; };\n", "m.cfg:7: hooks.precondition:" },
		{ "hooks = { before_run = \"echo ${target.pth}\"; };\n", "m.cfg:7: hooks.before_run:" },
		{ "hooks = { drop_caches = 3; };\n", "m.cfg:7:" },
	};
	char err[IOM_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = xasprintf("%s%s", head, cases[i].tail);
		struct iom_matrix *m = NULL;
		int ret = iom_matrix_parse("m.cfg", text, NULL, 0, &m, err, sizeof(err));

		if (!cases[i].error) {
			assert_int_equal(ret, 0);
			assert_int_equal(m->ntargets, 3);
			assert_string_equal(m->targets[0].label, "d-ext4");
			assert_string_equal(m->targets[0].fs_type, "ext4");
			assert_string_equal(m->targets[0].path, "/dev/loop9");
			assert_string_equal(m->targets[0].mkfs_options, "-E nodiscard");
			assert_string_equal(m->targets[1].label, "d-raw");
			assert_string_equal(m->targets[1].mount_options, "noatime");
			assert_string_equal(m->targets[2].label, "f");
			assert_null(m->targets[2].fs_type);
			assert_true(m->hooks.drop_caches && m->hooks.fstrim);
			assert_string_equal(m->hooks.precondition, "2x");
			assert_false(iom_sweep_has_shell_hooks(m));
		} else {
			assert_int_equal(ret, -EINVAL);
			if (!strstr(err, cases[i].error))
				fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].error);
		}
		iom_matrix_free(m);
		free(text);
	}
	{ /* a list of one filesystem is a target on that filesystem, never the raw device */
		static const char *one =
			"iomatrix = 1;\n"
			"targets = ( { label = \"d\"; device = \"/dev/loop9\"; destructive = true;\n"
			"              size = \"16M\"; filesystems = [ \"ext4\" ]; } );\n"
			"timing = { duration = \"1s\"; };\n";
		struct iom_matrix *m = NULL;

		assert_int_equal(iom_matrix_parse("m.cfg", one, NULL, 0, &m, err, sizeof(err)), 0);
		assert_int_equal(m->ntargets, 1);
		assert_string_equal(m->targets[0].label, "d-ext4");
		assert_string_equal(m->targets[0].fs_type, "ext4");
		iom_matrix_free(m);
	}

	/* filesystems need a device and destructive = true, and a size unless raw */
	{
		static const char *bad[][2] = {
			{ "targets = ( { label = \"d\"; path = \"x.scratch\"; size = \"1M\"; "
			  "filesystems = [ \"ext4\" ]; } );", "need a block device" },
			{ "targets = ( { label = \"d\"; device = \"/dev/loop9\"; size = \"1M\"; "
			  "filesystems = [ \"ext4\" ]; } );", "destructive = true" },
			{ "targets = ( { label = \"d\"; device = \"/dev/loop9\"; destructive = true; "
			  "filesystems = [ \"ext4\" ]; } );", "needs a size" },
			{ "targets = ( { label = \"d\"; device = \"/dev/loop9\"; destructive = true; "
			  "filesystems = [ \"zfs\" ]; } );", "unknown filesystem 'zfs'" },
			{ "targets = ( { label = \"d\"; device = \"/dev/loop9\"; destructive = true; "
			  "filesystems = [ \"raw\", \"raw\" ]; } );", "listed twice" },
			{ "targets = ( { label = \"d\"; device = \"/dev/loop9\"; path = \"/dev/x\"; } );",
			  "both path and device" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			char *text = xasprintf("iomatrix = 1;\n%s\ntiming = { duration = \"1s\"; };\n",
					       bad[i][0]);
			struct iom_matrix *m = NULL;

			assert_int_equal(iom_matrix_parse("m.cfg", text, NULL, 0, &m, err, sizeof(err)),
					 -EINVAL);
			if (!strstr(err, bad[i][1]) || strncmp(err, "m.cfg:2:", 8) != 0)
				fail_msg("bad %zu: '%s' lacks '%s'", i, err, bad[i][1]);
			iom_matrix_free(m);
			free(text);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_watchdog_times_out_a_long_run),
		cmocka_unit_test(test_sweep_resume_skips_finished_runs),
		cmocka_unit_test(test_sweep_resume_refuses_changed_plan),
		cmocka_unit_test(test_sweep_resume_redoes_missing_and_damaged_runs),
		cmocka_unit_test(test_sweep_resume_refuses_a_journal_without_records),
		cmocka_unit_test(test_sweep_resume_skips_what_a_stop_decided),
		cmocka_unit_test(test_sweep_hooks),
		cmocka_unit_test(test_sweep_matrix_keys),
		/* last: it leaves a sleeping thread behind */
		cmocka_unit_test(test_sweep_watchdog_abandons_a_hung_worker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
