/* SPDX-License-Identifier: MIT */
/*
 * tmpdir — a fresh directory for a test, removed afterwards with everything in it. As a cmocka
 * fixture: test_tmpdir_setup makes /tmp/iom-<test binary>-XXXXXX and puts its path (heap) in
 * *state; test_tmpdir_teardown removes the tree and frees the path. test_tmpdir_remove is the
 * removal alone, for fixtures of their own. TEST_IN_TMPDIR(f) is the cmocka table entry of a
 * test f that runs in its own directory (the path in *state).
 */
#ifndef IOM_TEST_TMPDIR_H
#define IOM_TEST_TMPDIR_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ownfile.h"

static inline int test_tmpdir_rm_one(const char *path, const struct stat *st, int flag,
				     struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

/* Removes dir and everything below it (links are removed, not followed). 0, or -1. */
static inline int test_tmpdir_remove(const char *dir)
{
	if (!dir || !dir[0])
		return 0;
	return nftw(dir, test_tmpdir_rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT
		? -1 : 0;
}

/* A new directory /tmp/iom-<this test binary>-XXXXXX; the caller frees the path. NULL when it
 * cannot be made. */
static inline char *test_tmpdir_new(void)
{
	char *path = NULL;

	if (asprintf(&path, "/tmp/iom-%s-XXXXXX", program_invocation_short_name) < 0)
		return NULL;
	if (!mkdtemp(path)) {
		free(path);
		return NULL;
	}
	return path;
}

static inline int test_tmpdir_setup(void **state)
{
	*state = test_tmpdir_new();
	return *state ? 0 : -1;
}

static inline int test_tmpdir_teardown(void **state)
{
	int rc = test_tmpdir_remove(*state);

	free(*state);
	*state = NULL;
	return rc;
}

#define TEST_IN_TMPDIR(f) \
	cmocka_unit_test_setup_teardown(f, test_tmpdir_setup, test_tmpdir_teardown)

/* dir (made when missing) opened as a pinned directory for the writers that take one
 * (ownfile.h): the same one while dir stays the same, else the previous one released. */
static inline const struct iom_own_dir *test_own(const char *dir)
{
	static struct iom_own_dir d = { .fd = -1 };

	if (d.fd >= 0 && strcmp(d.path, dir) == 0)
		return &d;
	iom_own_dir_release(&d);
	if (iom_own_dir_open(&d, dir, IOM_OWN_DIR_CREATE, NULL, 0) < 0) {
		fprintf(stderr, "cannot open '%s' as a results directory\n", dir);
		abort();
	}
	return &d;
}

#endif
