/* SPDX-License-Identifier: MIT */
/*
 * Tests of preflight: each problem found on the line of its target (or of timing, for the trace
 * estimate), and nothing written while looking — the scratch directory's listing and mtime are
 * the same before and after every case. Without root: missing, non-directory and read-only
 * scratch directories, free space for one target and for two that add up, an existing sparse file,
 * missing and character devices, a filesystem target on a missing device, runs already done on
 * resume, the trace warning. With root (skipped otherwise): a loop device written without
 * destructive = true, a region larger than the device, and a filesystem target's scratch file
 * larger than its device.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "loopdev.h"
#include "matrix/matrix.h"
#include "plan.h"
#include "preflight.h"
#include "target/target.h"
#include "tmpdir.h"
#include "util.h"

/* The first target is on line TARGET_LINE of every matrix made here, the next on the next. */
#define TARGET_LINE 7
#define TIMING_LINE 5

struct fx {
	char dir[64];
	char *listing;     /* names, sizes and mtimes of dir's entries, and dir's own mtime */
	struct iom_matrix *m;
	struct iom_plan p;
	struct iom_preflight pf;
	char backing[96], dev[32];
	int loop_fd;
	char *mounted;     /* a read-only tmpfs teardown unmounts */
};

static int setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/iom-preflight-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->loop_fd = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	int rc;

	if (f->mounted) {
		umount(f->mounted);
		free(f->mounted);
	}
	rc = test_tmpdir_remove(f->dir);
	iom_preflight_release(&f->pf);
	if (f->m) {
		iom_plan_release(&f->p);
		iom_matrix_free(f->m);
	}
	if (f->loop_fd >= 0)
		close(f->loop_fd); /* LO_FLAGS_AUTOCLEAR: detaches */
	if (f->backing[0])
		unlink(f->backing);
	free(f->listing);
	free(f);
	return rc == 0 ? 0 : -1;
}

/* Everything a write in dir would change: each entry's name, size and mtime, and dir's. */
static char *listing(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	char *out = xstrdup(""), *next;

	assert_non_null(d);
	assert_int_equal(stat(dir, &st), 0);
	free(out);
	out = xasprintf("dir %ld.%09ld\n", (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	while ((e = readdir(d))) {
		char *p = xasprintf("%s/%s", dir, e->d_name);

		assert_int_equal(lstat(p, &st), 0);
		next = xasprintf("%s%s %lld %ld.%09ld\n", out, e->d_name, (long long)st.st_size,
				 (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		free(out);
		out = next;
		free(p);
	}
	closedir(d);
	return out;
}

/* Parses a matrix whose targets (one per line, from TARGET_LINE) are targets and whose
 * workload is workload, builds its plan, remembers the listing of the fixture's directory. */
static void load(struct fx *f, const char *targets, const char *workload, const char *trace)
{
	char err[IOM_ERRLEN];
	char *text = xasprintf("iomatrix = 1;\n"
			       "name = \"pf\";\n"
			       "workload = { engine = \"null\"; direct = false; %s };\n"
			       "trace = %s;\n"
			       "timing = { warmup = \"0s\"; duration = \"1s\"; };\n"
			       "targets = (\n"
			       "%s\n"
			       ");\n",
			       workload, trace, targets);

	if (iom_matrix_parse("t.cfg", text, NULL, 0, &f->m, err, sizeof(err)) != 0)
		fail_msg("matrix refused: %s\n%s", err, text);
	free(text);
	assert_int_equal(f->m->timing_line, TIMING_LINE);
	assert_int_equal(f->m->targets[0].line, TARGET_LINE);
	if (iom_plan_build(f->m, &f->p, err, sizeof(err)) != 0)
		fail_msg("plan refused: %s", err);
	f->listing = listing(f->dir);
}

static void unload(struct fx *f)
{
	iom_preflight_release(&f->pf);
	iom_plan_release(&f->p);
	iom_matrix_free(f->m);
	f->m = NULL;
	free(f->listing);
	f->listing = NULL;
}

static void check(struct fx *f, const struct iom_preflight_opts *o)
{
	char *after;

	assert_int_equal(iom_preflight_check(&f->p, o, &f->pf), 0);
	after = listing(f->dir);
	assert_string_equal(after, f->listing); /* nothing was written */
	free(after);
}

/* The one problem found: an error (or warning) on line with needle in its message. */
static void expect_one(const struct fx *f, bool error, int line, const char *needle)
{
	if (f->pf.n != 1)
		fail_msg("%zu problems, want 1%s%s", f->pf.n, f->pf.n ? ": " : "",
			 f->pf.n ? f->pf.d[0].msg : "");
	assert_int_equal(f->pf.d[0].error, error);
	assert_int_equal(f->pf.errors, error ? 1 : 0);
	assert_int_equal(f->pf.warnings, error ? 0 : 1);
	assert_int_equal(f->pf.d[0].line, line);
	if (!strstr(f->pf.d[0].msg, needle))
		fail_msg("'%s' lacks '%s'", f->pf.d[0].msg, needle);
}

static uint64_t avail_in(const char *dir)
{
	struct statvfs v;

	assert_int_equal(statvfs(dir, &v), 0);
	return (uint64_t)v.f_bavail * v.f_frsize;
}

static void test_preflight_fine_when_all_fits(void **state)
{
	struct fx *f = *state;
	char *t = xasprintf("  { label = \"a\"; path = \"%s/a.scratch\"; size = \"1M\"; }", f->dir);

	load(f, t, "read_pct = [ 100, 0 ];", "false");
	check(f, NULL);
	assert_int_equal(f->pf.n, 0);
	free(t);
}

static void test_preflight_missing_directory(void **state)
{
	struct fx *f = *state;
	char *t = xasprintf("  { label = \"a\"; path = \"%s/ok.scratch\"; size = \"1M\"; },\n"
			    "  { label = \"b\"; path = \"%s/no/such/b.scratch\"; size = \"1M\"; }",
			    f->dir, f->dir);

	load(f, t, "read_pct = 100;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE + 1, "/no/such' does not exist");
	assert_non_null(strstr(f->pf.d[0].msg, "target 'b'"));
	free(t);
}

static void test_preflight_directory_is_a_file(void **state)
{
	struct fx *f = *state;
	char *file = xasprintf("%s/plain", f->dir);
	char *t = xasprintf("  { label = \"a\"; path = \"%s/x.scratch\"; size = \"1M\"; }", file);
	int fd = open(file, O_CREAT | O_WRONLY, 0644);

	assert_true(fd >= 0);
	close(fd);
	load(f, t, "read_pct = 100;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE, "is not a directory");
	free(t);
	free(file);
}

/* Not writable: mode 0555 for a user, a read-only tmpfs for root (who writes anyway). */
static void test_preflight_directory_not_writable(void **state)
{
	struct fx *f = *state;
	char *sub = xasprintf("%s/ro", f->dir);
	char *t = xasprintf("  { label = \"a\"; path = \"%s/x.scratch\"; size = \"1M\"; }", sub);

	assert_int_equal(mkdir(sub, 0555), 0);
	if (geteuid() == 0) {
		if (mount("iom-preflight", sub, "tmpfs", MS_RDONLY, "size=64k") != 0) {
			free(sub);
			free(t);
			skip();
		}
		f->mounted = xstrdup(sub);
	}
	load(f, t, "read_pct = 100;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE, "is not writable");
	chmod(sub, 0755);
	free(t);
	free(sub);
}

static void test_preflight_scratch_larger_than_free_space(void **state)
{
	struct fx *f = *state;
	char *t = xasprintf("  { label = \"a\"; path = \"%s/a.scratch\"; size = \"1024T\"; }", f->dir);

	load(f, t, "read_pct = 100;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE, "needs 1.0 PiB more on its filesystem");
	free(t);
}

/* Two scratch files that each fit, but not both: the second one's line names both. */
static void test_preflight_space_adds_up(void **state)
{
	struct fx *f = *state;
	uint64_t each = avail_in(f->dir) / 10 * 7 / 4096 * 4096;
	char *t = xasprintf("  { label = \"a\"; path = \"%s/a.scratch\"; size = %llu; },\n"
			    "  { label = \"b\"; path = \"%s/b.scratch\"; size = %llu; }",
			    f->dir, (unsigned long long)each, f->dir, (unsigned long long)each);

	load(f, t, "read_pct = 100;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE + 1, "the scratch files of targets 'a' (");
	assert_non_null(strstr(f->pf.d[0].msg, "'b' ("));
	free(t);
}

/* Several paths: each path of a target with several is checked as a target of its own (a missing
 * directory named, the paths' space adding up on one filesystem), and one file under two
 * names is refused; nothing is written. */
static void test_preflight_each_path(void **state)
{
	struct fx *f = *state;
	uint64_t each = avail_in(f->dir) / 10 * 7 / 4096 * 4096;
	char *t = xasprintf("  { label = \"p\"; paths = [ \"%s/a.scratch\", \"%s/no/b.scratch\" ]; "
			    "size = \"1M\"; }", f->dir, f->dir);

	load(f, t, "read_pct = 100; threads = 2;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE, "/no' does not exist");
	assert_non_null(strstr(f->pf.d[0].msg, "/no/b.scratch"));
	unload(f);
	free(t);

	t = xasprintf("  { label = \"p\"; paths = [ \"%s/a.scratch\", \"%s/b.scratch\" ]; "
		      "size = %llu; }", f->dir, f->dir, (unsigned long long)each);
	load(f, t, "read_pct = 100; threads = 2;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE, "/b.scratch' does not fit");
	assert_non_null(strstr(f->pf.d[0].msg, "/a.scratch' ("));
	unload(f);
	free(t);

	t = xasprintf("  { label = \"p\"; paths = [ \"%s/a.scratch\", \"%s/./a.scratch\" ]; "
		      "size = \"1M\"; }", f->dir, f->dir);
	load(f, t, "read_pct = 100; threads = 2;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE, "are the same file: give each path once");
	free(t);
}

/* An existing file needs only what is not allocated yet: a written one nothing, a sparse one
 * its whole size. */
static void test_preflight_existing_file_counts_what_is_missing(void **state)
{
	struct fx *f = *state;
	char *full = xasprintf("%s/full.scratch", f->dir), *sparse = xasprintf("%s/sparse.scratch",
									     f->dir);
	char *t = xasprintf("  { label = \"a\"; path = \"%s\"; size = \"1M\"; "
			    "overwrite = true; },\n"
			    "  { label = \"b\"; path = \"%s\"; size = \"8T\"; overwrite = true; }",
			    full, sparse);
	static char buf[1 << 20];
	int fd = open(full, O_CREAT | O_WRONLY, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	assert_int_equal(fsync(fd), 0);
	close(fd);
	fd = open(sparse, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	if (ftruncate(fd, 8ll << 40) != 0) { /* a filesystem without 8T files */
		close(fd);
		free(full), free(sparse), free(t);
		skip();
	}
	close(fd);
	load(f, t, "read_pct = 100;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE + 1, "needs 8.0 TiB more");
	free(full);
	free(sparse);
	free(t);
}

/* An existing file without iomatrix's mark is refused at check, as the run would refuse it;
 * with overwrite = true, or carrying the mark, it is fine. */
static void test_preflight_unmarked_file(void **state)
{
	struct fx *f = *state;
	char *path = xasprintf("%s/mine.dat", f->dir);
	char *t = xasprintf("  { label = \"m\"; path = \"%s\"; size = \"4K\"; }", path);
	char *tow = xasprintf("  { label = \"m\"; path = \"%s\"; size = \"4K\"; "
			      "overwrite = true; }", path);
	static const char mark[] = IOM_TARGET_MARK_PREFIX " size=4096";
	static char buf[4096];
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
	assert_int_equal(iom_target_file_marked(path), 0);
	load(f, t, "read_pct = 100;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE, "exists and is not an iomatrix scratch file; set "
		   "overwrite = true in target 'm' to use it");
	unload(f);
	load(f, tow, "read_pct = 100;", "false");
	check(f, NULL);
	assert_int_equal(f->pf.n, 0);
	unload(f);
	if (setxattr(path, IOM_TARGET_MARK_XATTR, mark, strlen(mark), 0) == 0) {
		assert_int_equal(iom_target_file_marked(path), 1);
		load(f, t, "read_pct = 100;", "false");
		check(f, NULL);
		assert_int_equal(f->pf.n, 0);
	} else {
		print_message("no user xattrs here (%s): the marked case is not tried\n",
			      strerror(errno));
	}
	free(path);
	free(t);
	free(tow);
}

static void test_preflight_missing_device(void **state)
{
	struct fx *f = *state;

	load(f, "  { label = \"d\"; device = \"/dev/iomatrix-no-such-disk\"; }", "read_pct = 100;",
	     "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE, "device '/dev/iomatrix-no-such-disk' does not exist");
}

static void test_preflight_character_device(void **state)
{
	struct fx *f = *state;

	load(f, "  { label = \"d\"; path = \"/dev/null\"; }", "read_pct = 100;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE, "neither a regular file nor a block device");
}

static void test_preflight_fs_target_needs_its_device(void **state)
{
	struct fx *f = *state;

	load(f, "  { label = \"d\"; device = \"/dev/iomatrix-no-such-disk\"; destructive = true; "
		"size = \"16M\"; filesystems = [ \"ext4\", \"raw\" ]; }", "read_pct = 0;", "false");
	check(f, NULL);
	assert_int_equal(f->pf.errors, 2); /* d-ext4 and d-raw, both on the target's line */
	for (size_t i = 0; i < f->pf.n; i++) {
		assert_int_equal(f->pf.d[i].line, TARGET_LINE);
		assert_non_null(strstr(f->pf.d[i].msg, "does not exist"));
	}
}

/* On resume only the runs still to do count: a target whose runs are done is not looked at. */
static void test_preflight_resume_counts_pending_runs_only(void **state)
{
	struct fx *f = *state;
	char *t = xasprintf("  { label = \"gone\"; path = \"%s/gone/x.scratch\"; size = \"1M\"; },\n"
			    "  { label = \"b\"; path = \"%s/b.scratch\"; size = \"1M\"; }", f->dir,
			    f->dir);
	struct iom_preflight_opts o = { 0 };
	uint8_t *pending;

	load(f, t, "read_pct = 100;", "false");
	pending = xcalloc(f->p.nruns + 1, 1);
	for (size_t i = 0; i < f->p.nruns; i++)
		pending[f->p.runs[i].index] = f->p.cells[f->p.runs[i].cell].v[IOM_DIM_TARGET] == 1;
	o.pending = pending;
	check(f, &o);
	assert_int_equal(f->pf.n, 0);
	iom_preflight_release(&f->pf);
	memset(pending, 1, f->p.nruns + 1); /* everything to do: the missing directory counts */
	check(f, &o);
	expect_one(f, true, TARGET_LINE, "does not exist");
	free(pending);
	free(t);
}

/* The trace estimate is a warning on the timing line, and only with traces on. */
static void test_preflight_trace_estimate_warns(void **state)
{
	struct fx *f = *state;
	char *t = xasprintf("  { label = \"a\"; path = \"%s/a.scratch\"; size = \"1M\"; }", f->dir);
	char *results = xasprintf("%s/results/study", f->dir);
	struct iom_preflight_opts o = { .results_dir = results, .assumed_iops = 1000000000000ull };

	load(f, t, "read_pct = 100;", "true");
	check(f, &o);
	expect_one(f, false, TIMING_LINE, "the traces of the 1 run to do may need about 7.3 TiB");
	assert_non_null(strstr(f->pf.d[0].msg, f->dir)); /* where: the nearest existing parent */
	iom_preflight_release(&f->pf);
	o.no_trace = true;
	check(f, &o);
	assert_int_equal(f->pf.n, 0);
	iom_preflight_release(&f->pf);
	o.no_trace = false;
	o.assumed_iops = 0; /* the default: 8 bytes × 100000 I/O per second × 1 s fits */
	check(f, &o);
	assert_int_equal(f->pf.n, 0);
	free(results);
	free(t);
}

/* ---- a loop device (root) ---------------------------------------------------------------- */

static bool attach_loop(struct fx *f, off_t bytes)
{
	if (geteuid() != 0)
		return false;
	if (test_loop_backing(f->backing, sizeof(f->backing), "iom-preflight", bytes) < 0)
		return false;
	f->loop_fd = test_loop_attach(f->backing, f->dev, sizeof(f->dev));
	return f->loop_fd >= 0;
}

static void test_preflight_device_write_needs_destructive(void **state)
{
	struct fx *f = *state;
	char *t;

	if (!attach_loop(f, 16 << 20))
		skip();
	t = xasprintf("  { label = \"d\"; path = \"%s\"; }", f->dev);
	load(f, t, "read_pct = [ 100, 67 ];", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE, "(read_pct 67) but not destructive = true");
	free(t);
}

static void test_preflight_device_reads_or_destructive_are_fine(void **state)
{
	struct fx *f = *state;
	char *t;

	if (!attach_loop(f, 16 << 20))
		skip();
	t = xasprintf("  { label = \"r\"; path = \"%s\"; read_pct = 100; }", f->dev);
	load(f, t, "read_pct = 67;", "false"); /* the target's own read_pct: it only reads */
	check(f, NULL);
	assert_int_equal(f->pf.n, 0);
	free(t);
	unload(f);
	t = xasprintf("  { label = \"w\"; path = \"%s\"; destructive = true; }", f->dev);
	load(f, t, "read_pct = 67;", "false");
	check(f, NULL);
	assert_int_equal(f->pf.n, 0);
	free(t);
}

static void test_preflight_device_region_too_large(void **state)
{
	struct fx *f = *state;
	char *t;

	if (!attach_loop(f, 16 << 20))
		skip();
	t = xasprintf("  { label = \"d\"; path = \"%s\"; size = \"32M\"; }", f->dev);
	load(f, t, "read_pct = 100;", "false");
	check(f, NULL);
	expect_one(f, true, TARGET_LINE, "is larger than block device");
	assert_non_null(strstr(f->pf.d[0].msg, "(16.0 MiB, 16777216 bytes)"));
	free(t);
}

static void test_preflight_fs_target_larger_than_device(void **state)
{
	struct fx *f = *state;
	char *t;

	if (!attach_loop(f, 16 << 20))
		skip();
	t = xasprintf("  { label = \"d\"; device = \"%s\"; destructive = true; size = \"64M\"; "
		      "filesystems = [ \"ext4\", \"raw\" ]; }", f->dev);
	load(f, t, "read_pct = 0;", "false");
	check(f, NULL);
	assert_int_equal(f->pf.errors, 2);
	assert_int_equal(f->pf.d[0].line, TARGET_LINE);
	assert_int_equal(f->pf.d[1].line, TARGET_LINE);
	assert_non_null(strstr(f->pf.d[0].msg, "target 'd-ext4': size 64.0 MiB (67108864 bytes), "
				"the scratch file on the new filesystem, is larger than block device"));
	assert_non_null(strstr(f->pf.d[1].msg, "target 'd-raw': size 64.0 MiB (67108864 bytes) is "
				"larger than block device"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_preflight_fine_when_all_fits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_missing_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_each_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_directory_is_a_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_directory_not_writable, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_preflight_scratch_larger_than_free_space, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_preflight_space_adds_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_existing_file_counts_what_is_missing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_unmarked_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_missing_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_character_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_fs_target_needs_its_device, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_preflight_resume_counts_pending_runs_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_preflight_trace_estimate_warns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_device_write_needs_destructive, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_preflight_device_reads_or_destructive_are_fine,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_preflight_device_region_too_large, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_preflight_fs_target_larger_than_device, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
