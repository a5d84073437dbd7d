/* SPDX-License-Identifier: MIT */
/*
 * Tests of ownfile: nothing iomatrix writes for itself goes through a link, into a FIFO or a
 * device, or outside its pinned directory; reads are bounded and never block; a directory others
 * can write is refused; a pinned directory renamed or replaced is noticed; a tree is removed
 * without following its links.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ownfile.h"
#include "tmpdir.h"
#include "util.h"

/* A victim outside the directory, with its content, for checking it is untouched. */
static char *victim(const char *dir)
{
	char *v = xasprintf("%s/victim", dir);

	assert_int_equal(iom_write_file_atomic(v, "precious\n", 9), 0);
	return v;
}

static void assert_victim(const char *v)
{
	char *text = NULL;

	assert_int_equal(iom_read_file(v, &text, NULL), 0);
	assert_string_equal(text, "precious\n");
	free(text);
}

static void open_res(const char *top, struct iom_own_dir *d, char **res)
{
	char err[IOM_ERRLEN];

	*res = xasprintf("%s/res", top);
	assert_int_equal(iom_own_dir_open(d, *res, IOM_OWN_DIR_CREATE | IOM_OWN_DIR_STRICT, err,
					  sizeof(err)), 0);
}

static void test_ownfile_links_are_refused(void **state)
{
	const char *top = *state;
	char *v = victim(top), *res, *p, err[IOM_ERRLEN];
	static const enum iom_own_how hows[] = { IOM_OWN_READ, IOM_OWN_APPEND, IOM_OWN_LOCK,
						 IOM_OWN_NEW };
	struct iom_own_dir d;

	open_res(top, &d, &res);
	p = xasprintf("%s/journal", res);
	assert_int_equal(symlink(v, p), 0);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(hows); i++) {
		err[0] = '\0';
		assert_true(iom_own_open(&d, p, hows[i], err, sizeof(err)) < 0);
		assert_non_null(strstr(err, "is a symbolic link"));
	}
	assert_true(iom_own_write_atomic(&d, p, "x", 1, err, sizeof(err)) < 0);
	assert_true(iom_own_write_atomic(NULL, p, "x", 1, err, sizeof(err)) < 0);
	assert_victim(v);
	/* FRESH removes the link itself and creates a file of its own */
	int fd = iom_own_open(&d, p, IOM_OWN_FRESH, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	assert_victim(v);
	free(p);
	/* a link as a directory below the pinned one stops the walk */
	p = xasprintf("%s/traces", res);
	assert_int_equal(symlink(top, p), 0);
	free(p);
	p = xasprintf("%s/traces/victim", res);
	assert_true(iom_own_open(&d, p, IOM_OWN_FRESH, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "traces' is a symbolic link"));
	free(p);
	p = xasprintf("%s/traces", res);
	assert_null(iom_own_opendir(&d, p, err, sizeof(err)));
	assert_victim(v);
	free(p);
	/* a hard link is not written */
	p = xasprintf("%s/summary.csv", res);
	assert_int_equal(link(v, p), 0);
	assert_true(iom_own_open(&d, p, IOM_OWN_APPEND, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "hard links"));
	assert_victim(v);
	free(p);
	iom_own_dir_release(&d);
	free(res);
	free(v);
}

static void test_ownfile_special_files_do_not_block(void **state)
{
	const char *top = *state;
	char *res, *p, *data = NULL, err[IOM_ERRLEN];
	struct iom_own_dir d;

	open_res(top, &d, &res);
	p = xasprintf("%s/study.json", res);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(iom_own_read(&d, p, IOM_OWN_READ, 1024, &data, NULL, err, sizeof(err)),
			 -EPERM);
	assert_non_null(strstr(err, "is a FIFO"));
	assert_true(iom_own_open(&d, p, IOM_OWN_APPEND, err, sizeof(err)) < 0);
	assert_int_equal(iom_own_read(NULL, "/dev/zero", IOM_OWN_FOLLOW, 1024, &data, NULL, err,
				      sizeof(err)), -EPERM);
	assert_string_equal(err, "'/dev/zero' is a character device, not a regular file");
	/* an input the user names is said as what it is, never as a file of iomatrix's own */
	assert_int_equal(iom_own_read(NULL, top, IOM_OWN_FOLLOW, 1024, &data, NULL, err,
				      sizeof(err)), -EISDIR);
	assert_non_null(strstr(err, "is a directory, not a regular file"));
	free(p);
	iom_own_dir_release(&d);
	free(res);
}

static void test_ownfile_reads_are_bounded(void **state)
{
	const char *top = *state;
	char *p = xasprintf("%s/big", top), *data = NULL, err[IOM_ERRLEN];
	size_t len = 0;
	int fd = open(p, O_WRONLY | O_CREAT, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 6ll << 30), 0); /* sparse: costs nothing */
	close(fd);
	assert_int_equal(iom_own_read(NULL, p, IOM_OWN_READ, IOM_OWN_CAP_RUN, &data, &len, err,
				      sizeof(err)), -EFBIG);
	assert_non_null(strstr(err, "larger than 256 MiB"));
	assert_int_equal(truncate(p, 5), 0);
	assert_int_equal(iom_own_read(NULL, p, IOM_OWN_READ, 5, &data, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 5);
	free(data);
	assert_int_equal(iom_own_read(NULL, p, IOM_OWN_READ, 4, &data, &len, err, sizeof(err)),
			 -EFBIG);
	free(p);
}

static void test_ownfile_atomic_write_ignores_planted_temporaries(void **state)
{
	const char *top = *state;
	char *v = victim(top), *out = xasprintf("%s/report.html", top), *data = NULL;
	char *planted = xasprintf("%s.tmp.%ld", out, (long)getpid()), err[IOM_ERRLEN];

	assert_int_equal(symlink(v, planted), 0);
	assert_int_equal(iom_own_write_atomic(NULL, out, "<html>", 6, err, sizeof(err)), 0);
	assert_victim(v);
	assert_int_equal(iom_own_read(NULL, out, IOM_OWN_READ, 100, &data, NULL, err, sizeof(err)),
			 0);
	assert_string_equal(data, "<html>");
	free(data);
	free(planted);
	free(out);
	free(v);
}

static void test_ownfile_shared_directories_are_refused(void **state)
{
	const char *top = *state;
	char *p = xasprintf("%s/shared", top), err[IOM_ERRLEN];
	struct iom_own_dir d;

	assert_int_equal(mkdir(p, 0777), 0);
	assert_int_equal(chmod(p, 0777), 0);
	assert_int_equal(iom_own_dir_open(&d, p, IOM_OWN_DIR_STRICT, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by others (mode 0777)"));
	assert_non_null(strstr(err, "chmod go-w"));
	assert_int_equal(chmod(p, 01777), 0); /* sticky and ours: like /tmp, fine */
	assert_int_equal(iom_own_dir_open(&d, p, IOM_OWN_DIR_STRICT, err, sizeof(err)), 0);
	iom_own_dir_release(&d);
	if (geteuid() == 0) {
		assert_int_equal(chmod(p, 0755), 0);
		assert_int_equal(chown(p, 4242, 4242), 0);
		assert_int_equal(iom_own_dir_open(&d, p, IOM_OWN_DIR_STRICT, err, sizeof(err)),
				 -EPERM);
		assert_non_null(strstr(err, "owned by uid 4242"));
	}
	free(p);
}

static void test_ownfile_pinned_directory_moved_is_noticed(void **state)
{
	const char *top = *state;
	char *res, *aside = xasprintf("%s/aside", top), err[IOM_ERRLEN];
	struct iom_own_dir d;

	open_res(top, &d, &res);
	assert_int_equal(iom_own_dir_check(&d, err, sizeof(err)), 0);
	assert_int_equal(rename(res, aside), 0);
	assert_int_equal(mkdir(res, 0755), 0);
	assert_int_equal(iom_own_dir_check(&d, err, sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, "no longer the directory"));
	assert_int_equal(rmdir(res), 0);
	assert_int_equal(iom_own_dir_check(&d, err, sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, "is gone"));
	iom_own_dir_release(&d);
	free(aside);
	free(res);
}

static void test_ownfile_rmtree_never_follows(void **state)
{
	const char *top = *state;
	char *v = victim(top), *t, *p, err[IOM_ERRLEN];
	struct stat st;

	t = iom_own_mkdtemp(top, "iomatrix-rank1-1", err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(stat(t, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	p = xasprintf("%s/traces", t);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = xasprintf("%s/traces/00001.trace.gz", t);
	assert_int_equal(symlink(v, p), 0);
	free(p);
	p = xasprintf("%s/up", t);
	assert_int_equal(symlink(top, p), 0);
	free(p);
	assert_int_equal(iom_own_rmtree(t), 0);
	assert_int_equal(lstat(t, &st), -1);
	assert_victim(v);
	assert_int_equal(iom_own_rmtree(t), 0); /* gone already: fine */
	free(t);
	free(v);
}

/* A hard link made under the pinned directory: made beside its source, never through a link
 * as a directory below it, never over a name that is taken. */
static void test_ownfile_link_stays_under_the_pin(void **state)
{
	const char *top = *state;
	char *v = victim(top), *res, *from, *to, *other, err[IOM_ERRLEN];
	struct iom_own_dir d;
	struct stat a, b;

	open_res(top, &d, &res);
	from = xasprintf("%s/00001.trace.gz", res);
	to = xasprintf("%s/00001.r0.trace.gz", res);
	assert_int_equal(iom_own_write_atomic(&d, from, "trace", 5, err, sizeof(err)), 0);
	assert_int_equal(iom_own_link(&d, from, to), 0);
	assert_int_equal(stat(from, &a), 0);
	assert_int_equal(stat(to, &b), 0);
	assert_true(a.st_ino == b.st_ino && b.st_nlink == 2);
	assert_int_equal(iom_own_link(&d, from, to), -EEXIST);
	/* traces/ a link to another directory: nothing is made there */
	other = xasprintf("%s/other", top);
	assert_int_equal(mkdir(other, 0755), 0);
	free(to);
	to = xasprintf("%s/traces", res);
	assert_int_equal(symlink(other, to), 0);
	free(to);
	to = xasprintf("%s/traces/00001.r0.trace.gz", res);
	assert_true(iom_own_link(&d, from, to) < 0);
	free(to);
	to = xasprintf("%s/00001.r0.trace.gz", other);
	assert_int_equal(access(to, F_OK), -1);
	assert_victim(v);
	iom_own_dir_release(&d);
	free(to);
	free(other);
	free(from);
	free(res);
	free(v);
}

static void test_ownfile_made_whatever_the_umask(void **state)
{
	const char *top = *state;
	char *res = xasprintf("%s/new/res", top), *runs = xasprintf("%s/new/res/runs", top);
	char err[IOM_ERRLEN];
	struct iom_own_dir d;
	struct stat st;
	mode_t old = umask(002);

	assert_int_equal(iom_own_dir_open(&d, res, IOM_OWN_DIR_CREATE | IOM_OWN_DIR_STRICT, err,
					  sizeof(err)), 0);
	assert_int_equal(iom_own_mkdir(&d, runs, err, sizeof(err)), 0);
	umask(old);
	assert_int_equal(stat(res, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0755);
	assert_int_equal(stat(runs, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0755);
	iom_own_dir_release(&d);
	free(runs);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST_IN_TMPDIR(test_ownfile_links_are_refused),
		TEST_IN_TMPDIR(test_ownfile_special_files_do_not_block),
		TEST_IN_TMPDIR(test_ownfile_reads_are_bounded),
		TEST_IN_TMPDIR(test_ownfile_atomic_write_ignores_planted_temporaries),
		TEST_IN_TMPDIR(test_ownfile_shared_directories_are_refused),
		TEST_IN_TMPDIR(test_ownfile_pinned_directory_moved_is_noticed),
		TEST_IN_TMPDIR(test_ownfile_rmtree_never_follows),
		TEST_IN_TMPDIR(test_ownfile_made_whatever_the_umask),
		TEST_IN_TMPDIR(test_ownfile_link_stays_under_the_pin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
