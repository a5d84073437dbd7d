/* SPDX-License-Identifier: MIT */
/*
 * Tests of util's write loop and mkdir -p: every byte reaches the file (at the offset asked, the
 * file offset left alone by the pwrite form), a failed write says why, mkdir -p makes every
 * missing level and refuses a path that is a file.
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

static void test_util_write_all_writes_everything(void **state)
{
	char *path = xasprintf("%s/f", (char *)*state), *back = NULL;
	size_t len = 3 * 65536 + 17, got = 0;
	char *buf = xmalloc(len);
	int fd;

	for (size_t i = 0; i < len; i++)
		buf[i] = (char)('a' + i % 26);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(iom_write_all(fd, buf, len), 0);
	assert_int_equal(iom_write_all(fd, "", 0), 0);
	close(fd);
	assert_int_equal(iom_read_file(path, &back, &got), 0);
	assert_int_equal(got, len);
	assert_memory_equal(back, buf, len);
	free(back);
	free(buf);
	free(path);
}

static void test_util_pwrite_all_at_offset(void **state)
{
	char *path = xasprintf("%s/f", (char *)*state), *back = NULL;
	size_t got = 0;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(iom_write_all(fd, "0123456789", 10), 0);
	assert_int_equal(iom_pwrite_all(fd, "ab", 2, 4), 0);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 10); /* the file offset is left alone */
	assert_int_equal(iom_pwrite_all(fd, "xy", 2, 12), 0);
	close(fd);
	assert_int_equal(iom_read_file(path, &back, &got), 0);
	assert_int_equal(got, 14);
	assert_memory_equal(back, "0123ab6789\0\0xy", 14);
	free(back);
	free(path);
}

static void test_util_write_all_reports_errno(void **state)
{
	char *path = xasprintf("%s/f", (char *)*state);
	int fd;

	fd = open(path, O_RDONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(iom_write_all(fd, "x", 1), -EBADF);
	assert_int_equal(iom_pwrite_all(fd, "x", 1, 0), -EBADF);
	close(fd);
	assert_int_equal(iom_write_all(-1, "x", 1), -EBADF);
	free(path);
}

static void test_util_mkdir_p_makes_every_level(void **state)
{
	char *deep = xasprintf("%s/a/b/c", (char *)*state);
	char *file = xasprintf("%s/a/b/c/log", (char *)*state);
	char *leaf = xasprintf("%s/x/y/z.log", (char *)*state);
	struct stat st;

	assert_int_equal(iom_mkdir_p(deep), 0);
	assert_int_equal(stat(deep, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(iom_mkdir_p(deep), 0); /* already there: fine */
	assert_int_equal(iom_mkdir_parent(leaf), 0);
	free(leaf);
	leaf = xasprintf("%s/x/y", (char *)*state);
	assert_int_equal(stat(leaf, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(iom_mkdir_parent("nodir.log"), 0); /* no directory part: nothing to do */
	/* a file where a directory should be */
	assert_int_equal(iom_write_file_atomic(file, "x", 1), 0);
	assert_int_equal(iom_mkdir_p(file), -ENOTDIR);
	free(deep);
	deep = xasprintf("%s/below", file);
	assert_int_equal(iom_mkdir_p(deep), -ENOTDIR);
	free(deep);
	free(file);
	free(leaf);
}

/* A path's directory, last component and the join of the two (target and preflight use them). */
static void test_util_path_parts(void **state)
{
	static const struct {
		const char *path, *dir, *base, *joined;
	} cases[] = {
		{ "/a/b", "/a", "b", "/a/b" },   { "/a", "/", "a", "/a" },
		{ "a/b", "a", "b", "a/b" },      { "a", ".", "a", "./a" },
		{ "a//b", "a", "b", "a/b" },     { "/a/b/", "/a/b", "", "/a/b/" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = iom_path_dir(cases[i].path);
		char *joined = iom_path_join(dir, iom_path_base(cases[i].path));

		assert_string_equal(dir, cases[i].dir);
		assert_string_equal(iom_path_base(cases[i].path), cases[i].base);
		assert_string_equal(joined, cases[i].joined);
		free(joined);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST_IN_TMPDIR(test_util_write_all_writes_everything),
		TEST_IN_TMPDIR(test_util_pwrite_all_at_offset),
		TEST_IN_TMPDIR(test_util_write_all_reports_errno),
		TEST_IN_TMPDIR(test_util_mkdir_p_makes_every_level),
		cmocka_unit_test(test_util_path_parts),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
