/* SPDX-License-Identifier: MIT */
/*
 * test_stage — a target's visit as the stage does it: the precondition before the first write
 * run, through an identity-checked descriptor (a scratch file replaced by a link after its
 * preparation is refused and never written), the events the caller hears (progress lines,
 * journal notes, the target found changed), and the built-ins: drop_caches (as root, and a
 * note for an ordinary user), fstrim and discard where they cannot apply, precondition writing
 * exactly the bytes asked; the one run path (iom_stage_run) and its caller's steps; and the
 * plan's text about hooks and built-ins.
 *
 * Every case with files works in a temporary directory of its own, removed in teardown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loopdev.h"
#include "matrix/matrix.h"
#include "plan.h"
#include "stage.h"
#include "util.h"

struct st {
	char *dir;
};

static int setup(void **state)
{
	struct st *s = xcalloc(1, sizeof(*s));

	s->dir = xstrdup("/tmp/iom-stage-XXXXXX");
	*state = s;
	return mkdtemp(s->dir) ? 0 : -1;
}

static int teardown(void **state)
{
	struct st *s = *state;
	char *cmd = xasprintf("rm -rf -- '%s'", s->dir);
	int ret = system(cmd);

	free(cmd);
	free(s->dir);
	free(s);
	return ret == 0 ? 0 : -1;
}

static char *path_in(const struct st *s, const char *name)
{
	return xasprintf("%s/%s", s->dir, name);
}

static void assert_contains(const char *s, const char *part)
{
	if (!s || !strstr(s, part))
		fail_msg("'%s' does not contain '%s'", s ? s : "(null)", part);
}

/* ---- a visit ----------------------------------------------------------------------------- */

/* What the stage told, one line per event: "KIND target run: text". */
struct heard {
	char *text;
	size_t len;
	FILE *f;
};

static int hear(void *arg, const struct iom_stage_event *e)
{
	static const char *const kinds[] = { "say", "warn", "note", "failed", "changed", "mkfs",
					     "progress", "progress-end" };
	struct heard *h = arg;

	if (e->kind == IOM_STAGE_PROGRESS)
		return 0; /* how often depends on the clock */
	fprintf(h->f, "%s %zu %u: %s\n", kinds[e->kind], e->target, e->run,
		e->text ? e->text : "");
	return 0;
}

static const char *visit_matrix =
	"iomatrix = 1;\n"
	"name = \"t\";\n"
	"targets = ( { label = \"a\"; path = \"%s/a.scratch\"; size = \"64K\"; } );\n"
	"workload = { engine = \"null\"; direct = false; block_size = \"4K\"; read_pct = [ 100, 0 ]; };\n"
	"timing = { warmup = \"0s\"; duration = \"20ms\"; };\n"
	"trace = false;\n"
	"hooks = { precondition = \"2x\"; };\n";

struct visit {
	struct iom_matrix *m;
	struct iom_plan p;
	struct iom_stage st;
	struct heard h;
};

static void visit_open(struct visit *v, const struct st *s)
{
	char *text = xasprintf(visit_matrix, s->dir);
	char err[IOM_ERRLEN];

	memset(v, 0, sizeof(*v));
	assert_int_equal(iom_matrix_parse("m.cfg", text, NULL, 0, &v->m, err, sizeof(err)), 0);
	assert_int_equal(iom_plan_build(v->m, &v->p, err, sizeof(err)), 0);
	assert_int_equal(v->p.nruns, 2);
	free(text);
	v->h.f = open_memstream(&v->h.text, &v->h.len);
	assert_non_null(v->h.f);
	iom_stage_init(&v->st, &v->p, s->dir, NULL, false, hear, &v->h);
	assert_true(iom_stage_target_writes(&v->p, 0));
	assert_int_equal(iom_stage_prepare_target(&v->st, 0, err, sizeof(err)), 0);
	assert_int_equal(iom_stage_begin_visit(&v->st, 0), 0);
	assert_int_equal(v->st.cur, 0);
}

/* The run of the plan that writes. */
static const struct iom_run *write_run(const struct visit *v)
{
	for (size_t i = 0; i < v->p.nruns; i++)
		if (v->p.cells[v->p.runs[i].cell].v[IOM_DIM_READ_PCT] < 100)
			return &v->p.runs[i];
	fail_msg("no write run");
	return NULL;
}

static void visit_close(struct visit *v)
{
	iom_stage_end_visit(&v->st);
	assert_int_equal(v->st.cur, -1);
	iom_stage_release(&v->st);
	fclose(v->h.f);
	free(v->h.text);
	iom_plan_release(&v->p);
	iom_matrix_free(v->m);
}

/* The precondition runs once, before the first write run, and says so. */
static void test_stage_visit_preconditions_once(void **state)
{
	struct st *s = *state;
	struct visit v;
	const struct iom_run *w;
	char err[IOM_ERRLEN], *want;

	visit_open(&v, s);
	w = write_run(&v);
	assert_int_equal(iom_stage_before_run(&v.st, w, err, sizeof(err)), 0);
	assert_int_equal(iom_stage_before_run(&v.st, w, err, sizeof(err)), 0);
	fflush(v.h.f);
	want = xasprintf("say 0 0: preconditioning target 'a': 128K of sequential writes\n\n"
			 "progress-end 0 0: \n"
			 "note 0 %u: precondition target 'a' done: 131072 bytes\n",
			 w->index);
	assert_string_equal(v.h.text, want);
	free(want);
	visit_close(&v);

	/* a write run that finished in an earlier invocation: not again */
	visit_open(&v, s);
	iom_stage_set_written(&v.st, 0);
	assert_int_equal(iom_stage_before_run(&v.st, write_run(&v), err, sizeof(err)), 0);
	fflush(v.h.f);
	assert_string_equal(v.h.text, "");
	visit_close(&v);
}

/* A scratch file replaced by a link to another file after its preparation: the precondition
 * refuses it, never writing through the link, and the target's remaining runs fail. */
static void test_stage_precondition_refuses_a_replaced_target(void **state)
{
	struct st *s = *state;
	char *scratch = path_in(s, "a.scratch"), *victim = path_in(s, "victim"), *data = NULL;
	char err[IOM_ERRLEN];
	struct visit v;
	size_t len = 0;
	int fd;

	visit_open(&v, s);
	fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "someone else's data\n", 20), 20);
	close(fd);
	assert_int_equal(unlink(scratch), 0);
	assert_int_equal(symlink(victim, scratch), 0);

	assert_int_equal(iom_stage_before_run(&v.st, write_run(&v), err, sizeof(err)), -ESTALE);
	assert_contains(err, "is now a symbolic link to");
	fflush(v.h.f);
	assert_contains(v.h.text, "changed 0 0: ");
	assert_null(strstr(v.h.text, "preconditioning"));
	assert_non_null(v.st.target_error[0]);
	/* the victim is as it was */
	assert_int_equal(iom_read_file(victim, &data, &len), 0);
	assert_int_equal(len, 20);
	assert_string_equal(data, "someone else's data\n");
	free(data);
	/* and every later run of the target fails without touching it */
	assert_int_equal(iom_stage_before_run(&v.st, &v.p.runs[0], err, sizeof(err)), -ENODEV);
	assert_contains(err, "target 'a' is not usable: ");
	/* for good: no later visit uses it again (a filesystem target is not made anew) */
	assert_true(v.st.changed[0]);
	assert_int_equal(iom_stage_begin_visit(&v.st, 0), -ENODEV);
	visit_close(&v);
	free(scratch);
	free(victim);
}

/* A failed visit (before_target) fails its runs with the reason, until the next visit. */
static void test_stage_failed_visit_fails_its_runs(void **state)
{
	struct st *s = *state;
	char err[IOM_ERRLEN];
	struct visit v;

	visit_open(&v, s);
	iom_stage_fail_visit(&v.st, "hook before_target exited with status 1 (no output)");
	assert_int_equal(iom_stage_before_run(&v.st, &v.p.runs[0], err, sizeof(err)), -EIO);
	assert_string_equal(err, "hook before_target exited with status 1 (no output)");
	iom_stage_end_visit(&v.st);
	assert_int_equal(iom_stage_begin_visit(&v.st, 0), 0);
	assert_int_equal(iom_stage_before_run(&v.st, &v.p.runs[0], err, sizeof(err)), 0);
	visit_close(&v);
}

/* What a caller of iom_stage_run hears, in order, and how it answers. */
struct calls {
	char seq[64];
	int fail_before, fail_arm, fail_after;  /* -errno to answer, 0 to go on */
	bool traced, watchdog_set;
};

static int c_before(void *arg, const struct iom_run *run, char *err, size_t errlen)
{
	struct calls *c = arg;

	(void)run;
	strcat(c->seq, "b");
	return c->fail_before ? iom_err(err, errlen, -c->fail_before, "before refused") : 0;
}

static int c_arm(void *arg, const struct iom_run *run, struct iom_run_spec *spec, char *err,
		 size_t errlen)
{
	struct calls *c = arg;

	strcat(c->seq, "a");
	c->traced = spec->trace_path != NULL;
	c->watchdog_set = spec->timing.timeout_ns > 0 && spec->fd >= 0 &&
			  spec->index == run->index && spec->seed == run->seed;
	return c->fail_arm ? iom_err(err, errlen, -c->fail_arm, "arm refused") : 0;
}

static void c_running(void *arg, bool started)
{
	strcat(((struct calls *)arg)->seq, started ? "[" : "]");
}

static int c_after(void *arg, const struct iom_run *run, char *err, size_t errlen)
{
	struct calls *c = arg;

	(void)run;
	strcat(c->seq, "f");
	return c->fail_after ? iom_err(err, errlen, -c->fail_after, "after refused") : 0;
}

/* The one run path: its caller's steps in order around the run, the spec built (the watchdog,
 * the open target, no trace without a directory), each step's failure the run's, an
 * interruption as such, and a run with no steps at all. */
static void test_stage_run_one_path(void **state)
{
	static const struct {
		int before, arm, after;
		const char *seq, *error;
		enum iom_run_status status;
	} cases[] = {
		{ 0, 0, 0, "ba[]f", NULL, IOM_RUN_OK },
		{ -EIO, 0, 0, "b", "before refused", IOM_RUN_FAILED },
		{ -EINTR, 0, 0, "b", "before refused", IOM_RUN_INTERRUPTED },
		{ 0, -ENOENT, 0, "ba", "arm refused", IOM_RUN_FAILED },
		{ 0, 0, -EIO, "ba[]f", "after refused", IOM_RUN_FAILED },
	};
	struct st *s = *state;
	struct visit v;

	visit_open(&v, s);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(cases); i++) {
		struct calls c = { .fail_before = cases[i].before, .fail_arm = cases[i].arm,
				   .fail_after = cases[i].after };
		const struct iom_stage_run_ops ops = { .before = c_before, .arm = c_arm,
						       .running = c_running, .after = c_after,
						       .arg = &c };
		struct iom_run_result r;

		iom_stage_run(&v.st, &v.p.runs[0], NULL, &ops, &r);
		assert_string_equal(c.seq, cases[i].seq);
		assert_int_equal(r.status, cases[i].status);
		assert_int_equal(r.index, v.p.runs[0].index);
		if (cases[i].error)
			assert_string_equal(r.error, cases[i].error);
		else
			assert_true(r.dir[IOM_DIR_TOTAL].ios > 0);
		if (strchr(c.seq, 'a')) {
			assert_true(c.watchdog_set);
			assert_false(c.traced); /* no trace directory */
		}
		iom_run_result_release(&r);
	}
	{
		const struct iom_stage_run_ops none = { 0 };
		struct iom_run_result r;

		iom_stage_run(&v.st, &v.p.runs[0], NULL, &none, &r);
		assert_int_equal(r.status, IOM_RUN_OK);
		iom_run_result_release(&r);
	}
	visit_close(&v);
}

/* fstrim on a destructive device discards its region only when the study writes it: a device
 * prepared for reading only had no write checks, and its data stays. */
static void test_stage_discard_only_of_a_device_prepared_for_writing(void **state)
{
	static const char *text =
		"iomatrix = 1;\n"
		"targets = ( { label = \"d\"; path = \"%s\"; destructive = true; } );\n"
		"workload = { engine = \"null\"; direct = false; block_size = \"4K\"; "
		"read_pct = %d; };\n"
		"timing = { warmup = \"0s\"; duration = \"20ms\"; };\n"
		"trace = false;\n"
		"hooks = { fstrim = true; };\n";
	char backing[64], dev[32], err[IOM_ERRLEN], block[4096], back[4096];
	int lfd;

	(void)state;
	if (geteuid() != 0) {
		print_message("needs root (a loop device)\n");
		skip();
	}
	assert_int_equal(test_loop_backing(backing, sizeof(backing), "iom-stage", 16 << 20), 0);
	lfd = test_loop_attach(backing, dev, sizeof(dev));
	if (lfd < 0) {
		unlink(backing);
		print_message("no loop device\n");
		skip();
	}
	memset(block, 0x5a, sizeof(block));
	assert_int_equal(pwrite(lfd, block, sizeof(block), 0), (ssize_t)sizeof(block));
	assert_int_equal(fsync(lfd), 0);
	for (int read_pct = 100; read_pct >= 0; read_pct -= 100) {
		char *m_text = xasprintf(text, dev, read_pct);
		struct iom_matrix *m;
		struct iom_plan p;
		struct iom_stage st;
		struct heard h = { 0 };

		print_message("read_pct %d\n", read_pct);
		assert_int_equal(iom_matrix_parse("m.cfg", m_text, NULL, 0, &m, err, sizeof(err)), 0);
		assert_int_equal(iom_plan_build(m, &p, err, sizeof(err)), 0);
		h.f = open_memstream(&h.text, &h.len);
		iom_stage_init(&st, &p, "/nonexistent", NULL, false, hear, &h);
		assert_int_equal(iom_stage_prepare_target(&st, 0, err, sizeof(err)), 0);
		assert_int_equal(iom_stage_begin_visit(&st, 0), 0);
		fflush(h.f);
		assert_int_equal(pread(lfd, back, sizeof(back), 0), (ssize_t)sizeof(back));
		if (read_pct == 100) {
			char *want = xasprintf("warn 0 0: fstrim of target 'd' skipped: '%s' is only "
					       "read in this study: not discarded\n", dev);

			assert_string_equal(h.text, want);
			assert_memory_equal(back, block, sizeof(block));
			free(want);
		} else if (strstr(h.text, "does not support discard")) {
			print_message("%s", h.text);
		} else {
			/* discarded, through the checked descriptor: a loop device over tmpfs
			 * punches the hole, and the block reads back as zeros */
			assert_contains(h.text, "note 0 0: fstrim target 'd' done\n");
			memset(block, 0, sizeof(block));
			assert_memory_equal(back, block, sizeof(block));
		}
		iom_stage_end_visit(&st);
		iom_stage_release(&st);
		fclose(h.f);
		free(h.text);
		iom_plan_release(&p);
		iom_matrix_free(m);
		free(m_text);
	}
	close(lfd);
	unlink(backing);
}

/* ---- the plan's text --------------------------------------------------------------------- */

static void test_stage_describe(void **state)
{
	struct iom_stage_desc d = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_false(iom_stage_desc_any(&d));
	f = open_memstream(&text, &len);
	assert_int_equal(iom_stage_describe(f, &d), 0);
	fclose(f);
	assert_string_equal(text, "");
	free(text);

	d.cmd[IOM_HOOK_BEFORE_STUDY] = "mkdir -p ${study.dir}/iostat";
	d.cmd[IOM_HOOK_AFTER_RUN] = "sync\necho ${run.index}";
	d.drop_caches = true;
	d.precondition = "2x";
	assert_true(iom_stage_desc_any(&d));
	f = open_memstream(&text, &len);
	assert_int_equal(iom_stage_describe(f, &d), 0);
	fclose(f);
	assert_string_equal(text,
			    "hooks (shell commands, run only with --allow-hooks):\n"
			    "  before_study   mkdir -p ${study.dir}/iostat\n"
			    "  after_run      sync\n"
			    "                 echo ${run.index}\n"
			    "preparation (built-in):\n"
			    "  precondition   sequential writes of 2x the region before a target's "
			    "first writing run (again after an fstrim or mkfs)\n"
			    "  drop_caches    before each run (needs root)\n");
	free(text);

	memset(&d, 0, sizeof(d));
	d.cmd[IOM_HOOK_AFTER_STUDY] = "true";
	d.allowed = true;
	d.fstrim = true;
	d.precondition = "64G";
	f = open_memstream(&text, &len);
	assert_int_equal(iom_stage_describe(f, &d), 0);
	fclose(f);
	assert_string_equal(text,
			    "hooks (shell commands, allowed by --allow-hooks):\n"
			    "  after_study    true\n"
			    "preparation (built-in):\n"
			    "  precondition   sequential writes of 64G before a target's first "
			    "writing run (again after an fstrim or mkfs)\n"
			    "  fstrim         at each visit of a target, before its first run\n");
	free(text);
}

/* ---- built-ins -------------------------------------------------------------------------- */

static void test_stage_drop_caches(void **state)
{
	char msg[IOM_ERRLEN] = "";
	int ret, status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		/* the ordinary user's case is all there is to see */
		assert_int_equal(iom_stage_drop_caches(msg, sizeof(msg)), IOM_STAGE_SKIP);
		assert_contains(msg, "needs root");
		return;
	}
	ret = iom_stage_drop_caches(msg, sizeof(msg));
	if (ret == IOM_STAGE_SKIP && strstr(msg, "read-only")) {
		print_message("%s\n", msg);
		skip();
	}
	assert_int_equal(ret, 0);

	/* as an ordinary user it is a note, not a failure */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0)
			_exit(10);
		ret = iom_stage_drop_caches(msg, sizeof(msg));
		_exit(ret == IOM_STAGE_SKIP && strstr(msg, "needs root") ? 0 : 11);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_stage_fstrim_discard_cannot_apply(void **state)
{
	struct st *s = *state;
	char msg[IOM_ERRLEN], *file = path_in(s, "plain"), *want;
	uint64_t trimmed = 99;
	int fd;

	assert_int_equal(iom_stage_fstrim("/nonexistent/iom", &trimmed, msg, sizeof(msg)),
			 -ENOENT);
	assert_string_equal(msg, "cannot open '/nonexistent/iom': No such file or directory");
	assert_int_equal(trimmed, 0);

	/* tmpfs cannot be trimmed: a note, not a failure */
	if (access("/dev/shm", W_OK) == 0) {
		assert_int_equal(iom_stage_fstrim("/dev/shm", NULL, msg, sizeof(msg)),
				 IOM_STAGE_SKIP);
		print_message("%s\n", msg);
	}

	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(iom_stage_discard(fd, file, 0, 0, msg, sizeof(msg)), -ENOTBLK);
	close(fd);
	want = xasprintf("'%s' is not a block device", file);
	assert_string_equal(msg, want);
	free(want);
	free(file);
}

/* wchar of /proc/self/io: bytes this process handed to write(2) and friends. */
static uint64_t wchar(void)
{
	char *text = NULL, *p;
	uint64_t v = 0;

	if (iom_read_file("/proc/self/io", &text, NULL) < 0)
		return UINT64_MAX;
	p = strstr(text, "wchar:");
	if (p)
		v = strtoull(p + 6, NULL, 10);
	free(text);
	return v;
}

struct progress_log {
	uint64_t calls, last_done, last_total;
	bool monotonic;
};

static void on_progress(void *arg, uint64_t done, uint64_t total)
{
	struct progress_log *pl = arg;

	if (done < pl->last_done)
		pl->monotonic = false;
	pl->calls++;
	pl->last_done = done;
	pl->last_total = total;
}

struct fill_case {
	uint64_t region;
	const char *bytes;
	uint32_t block_size;
};

static const struct fill_case fill_cases[] = {
	{ 1 << 20, "2x", 64 << 10 },          /* two whole passes, O_DIRECT */
	{ (1 << 20) + 4096, "2.5x", 0 },      /* a pass and a half over an odd region */
	{ 1 << 20, "1000000", 256 << 10 },    /* an unaligned amount: the tail is buffered */
	{ 100000, "3x", 0 },                  /* an unaligned region: no O_DIRECT at all */
};

static void test_stage_precondition_exact(void **state)
{
	struct st *s = *state;
	char *path = path_in(s, "fill");

	if (wchar() == UINT64_MAX) {
		print_message("/proc/self/io is not readable\n");
		skip();
	}
	for (size_t i = 0; i < IOM_ARRAY_SIZE(fill_cases); i++) {
		const struct fill_case *c = &fill_cases[i];
		struct progress_log pl = { .monotonic = true };
		struct iom_precondition pc = { .region = c->region, .block_size = c->block_size,
					       .seed = 42, .progress = on_progress, .arg = &pl };
		char err[IOM_ERRLEN] = "";
		uint64_t written = 0, before, after, zero_blocks = 0;
		unsigned char *data;
		struct stat sb;
		size_t len;
		int fd;

		print_message("case %zu: region %llu, %s\n", i, (unsigned long long)c->region,
			      c->bytes);
		assert_int_equal(iom_precondition_bytes(c->bytes, c->region, &pc.bytes, err,
							sizeof(err)),
				 0);
		/* a zeroed file of the region's size, as target.c leaves a scratch file */
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		assert_true(fd >= 0);
		assert_int_equal(ftruncate(fd, (off_t)c->region), 0);
		close(fd);

		fd = open(path, O_RDWR | O_CLOEXEC);
		assert_true(fd >= 0);
		before = wchar();
		assert_int_equal(iom_stage_precondition(fd, path, &pc, &written, err, sizeof(err)),
				 0);
		after = wchar();
		close(fd);
		assert_int_equal(written, pc.bytes);
		assert_int_equal(after - before, pc.bytes);
		assert_true(pl.calls >= 1);
		assert_true(pl.monotonic);
		assert_int_equal(pl.last_done, pc.bytes);
		assert_int_equal(pl.last_total, pc.bytes);

		/* nothing extended or truncated; every 4 KiB block written to is not zero */
		assert_int_equal(stat(path, &sb), 0);
		assert_int_equal((uint64_t)sb.st_size, c->region);
		assert_int_equal(iom_read_file(path, (char **)&data, &len), 0);
		for (size_t off = 0; off < IOM_MIN(len, (size_t)pc.bytes); off += 4096) {
			size_t n = IOM_MIN((size_t)4096, IOM_MIN(len, (size_t)pc.bytes) - off), k;

			for (k = 0; k < n && data[off + k] == 0; k++)
				;
			zero_blocks += k == n;
		}
		assert_int_equal(zero_blocks, 0);
		free(data);
	}
	free(path);
}

static void test_stage_precondition_stop_and_errors(void **state)
{
	struct st *s = *state;
	volatile sig_atomic_t stop = 1;
	char *path = path_in(s, "fill"), *want;
	struct iom_precondition pc = { .region = 1 << 20, .bytes = 2 << 20, .stop = &stop };
	char err[IOM_ERRLEN];
	uint64_t written = 1;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	assert_int_equal(iom_stage_precondition(fd, path, &pc, &written, err, sizeof(err)), -EINTR);
	assert_int_equal(written, 0);
	want = xasprintf("preconditioning '%s' was stopped after 0 of 2M", path);
	assert_string_equal(err, want);
	free(want);

	/* a file shorter than the region is not extended: the writes wrap within it */
	stop = 0;
	pc.region = 4096;
	pc.bytes = 3 * 4096;
	assert_int_equal(iom_stage_precondition(fd, path, &pc, &written, err, sizeof(err)), 0);
	assert_int_equal(written, 3 * 4096);
	{
		struct stat sb;

		assert_int_equal(fstat(fd, &sb), 0);
		assert_int_equal(sb.st_size, 1 << 20);
	}
	pc.region = 0;
	assert_int_equal(iom_stage_precondition(fd, path, &pc, NULL, err, sizeof(err)), -EINVAL);
	want = xasprintf("cannot precondition '%s': its region is empty", path);
	assert_string_equal(err, want);
	free(want);
	pc.region = 1 << 20;

	pc.block_size = 1000;
	assert_int_equal(iom_stage_precondition(fd, path, &pc, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "precondition block size 1000 is not a multiple of 4096");
	close(fd);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stage_visit_preconditions_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stage_precondition_refuses_a_replaced_target,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_stage_failed_visit_fails_its_runs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stage_run_one_path, setup, teardown),
		cmocka_unit_test(test_stage_discard_only_of_a_device_prepared_for_writing),
		cmocka_unit_test(test_stage_describe),
		cmocka_unit_test(test_stage_drop_caches),
		cmocka_unit_test_setup_teardown(test_stage_fstrim_discard_cannot_apply, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stage_precondition_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stage_precondition_stop_and_errors, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
