/* SPDX-License-Identifier: MIT */
/*
 * resdir — the layout of a results directory: DIR/runs/, DIR/runs/NNNNN.json by plan index,
 * DIR/matrix.cfg as run, and the list of the runs a directory holds. Every file is reached
 * through ownfile (a pinned directory, no link followed).
 */
#include "resdir.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ownfile.h"
#include "util.h"

int iom_results_dir_create(const struct iom_own_dir *d, char *err, size_t errlen)
{
	char *runs = xasprintf("%s/runs", d->path);
	int ret = iom_own_mkdir(d, runs, err, errlen);

	free(runs);
	return ret;
}

char *iom_result_path(const char *dir, uint32_t index)
{
	return xasprintf("%s/runs/%05" PRIu32 ".json", dir, index);
}

int iom_results_write_matrix(const struct iom_own_dir *d, const char *text, char *err,
			     size_t errlen)
{
	char *path = xasprintf("%s/matrix.cfg", d->path);
	int ret = iom_own_write_atomic(d, path, text ? text : "", text ? strlen(text) : 0, err,
				       errlen);

	free(path);
	return ret;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int iom_result_list(const char *dir, uint32_t **idx, size_t *n, char *err, size_t errlen)
{
	char *runs = xasprintf("%s/runs", dir);
	DIR *d = iom_own_opendir(NULL, runs, err, errlen);
	struct dirent *e;
	size_t cap = 64;
	int ret = 0;

	*idx = NULL;
	*n = 0;
	if (!d) {
		ret = -errno;
		free(runs);
		return ret;
	}
	*idx = xmalloc(cap * sizeof(**idx));
	while ((e = readdir(d))) {
		const char *s = e->d_name;
		size_t digits = strspn(s, "0123456789");
		unsigned long v;

		if (digits == 0 || digits > 10 || strcmp(s + digits, ".json") != 0)
			continue;
		v = strtoul(s, NULL, 10);
		if (v > UINT32_MAX)
			continue;
		if (*n == cap) {
			cap *= 2;
			*idx = xrealloc(*idx, cap * sizeof(**idx));
		}
		(*idx)[(*n)++] = (uint32_t)v;
	}
	closedir(d);
	free(runs);
	qsort(*idx, *n, sizeof(**idx), cmp_u32);
	return 0;
}
