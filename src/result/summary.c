/* SPDX-License-Identifier: MIT */
/*
 * summary — DIR/summary.csv, one row per run: appended (one write, then fsync) after each run
 * so it is current while a long sweep runs, and rewritten whole from runs/NNNNN.json at the end,
 * which drops any torn or duplicate row a crash and a resume may have left. Quoting follows RFC
 * 4180 (csv.h); lines end with LF.
 */
#include "summary.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "ownfile.h"
#include "resdir.h"
#include "result.h"
#include "util.h"

static const char *const csv_metrics[] = {
	"status", "iops", "mb_s", "read_iops", "write_iops", "lat_mean_us", "lat_p99_us",
	"lat_p999_us", "cpu_pct", "cpu_us_per_io", "error",
};

static void csv_header(FILE *f, const struct iom_cell_pair *cell, size_t ncell)
{
	iom_csv_field(f, "index", true);
	iom_csv_field(f, "repetition", false);
	for (size_t i = 0; i < ncell; i++)
		iom_csv_field(f, cell[i].name, false);
	for (size_t i = 0; i < IOM_ARRAY_SIZE(csv_metrics); i++)
		iom_csv_field(f, csv_metrics[i], false);
	iom_csv_end(f);
}

static void csv_row(FILE *f, const struct iom_cell_pair *cell, size_t ncell,
		    const struct iom_run_result *r)
{
	const struct iom_io_stats *t = &r->dir[IOM_DIR_TOTAL];
	int p99 = iom_percentile_index(99), p999 = iom_percentile_index(99.9);

	iom_csv_uint(f, r->index, true);
	iom_csv_uint(f, r->repetition, false);
	for (size_t i = 0; i < ncell; i++)
		iom_csv_field(f, cell[i].value, false);
	iom_csv_field(f, iom_run_status_name(r->status), false);
	if (r->status == IOM_RUN_FAILED) {
		for (size_t i = 2; i < IOM_ARRAY_SIZE(csv_metrics); i++)
			fputc(',', f);
	} else {
		iom_csv_num(f, t->iops);
		iom_csv_num(f, t->mb_s);
		iom_csv_num(f, r->dir[IOM_DIR_READ].iops);
		iom_csv_num(f, r->dir[IOM_DIR_WRITE].iops);
		iom_csv_num(f, t->lat.mean / 1e3);
		iom_csv_num(f, (double)t->lat.pct[p99] / 1e3);
		iom_csv_num(f, (double)t->lat.pct[p999] / 1e3);
		iom_csv_num(f, r->cpu.busy_pct);
		iom_csv_num(f, r->cpu.us_per_io);
	}
	iom_csv_field(f, r->error ? r->error : "", false);
	iom_csv_end(f);
}

int iom_summary_append(const struct iom_own_dir *d, const struct iom_matrix *m,
		       const struct iom_cell *c, const struct iom_run_result *r, char *err,
		       size_t errlen)
{
	char *path = xasprintf("%s/summary.csv", d->path);
	struct iom_result_file cf = { 0 };
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	FILE *f;
	int fd, ret = 0;

	fd = iom_own_open(d, path, IOM_OWN_APPEND, err, errlen);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		ret = iom_err(err, errlen, errno, "cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	cf.ncell = iom_result_cell_pairs(m, c, &cf.cell);
	f = open_memstream(&buf, &len);
	if (!f) {
		ret = iom_err(err, errlen, ENOMEM, "out of memory");
		goto out;
	}
	if (st.st_size == 0)
		csv_header(f, cf.cell, cf.ncell);
	csv_row(f, cf.cell, cf.ncell, r);
	if (fclose(f) != 0) {
		ret = iom_err(err, errlen, ENOMEM, "out of memory");
		goto out;
	}
	ret = iom_write_all(fd, buf, len);
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (ret == 0 && st.st_size == 0)
		ret = iom_own_fsync_dir(d, NULL);
	if (ret < 0)
		iom_err(err, errlen, -ret, "cannot write '%s': %s", path, strerror(-ret));
out:
	if (fd >= 0)
		close(fd);
	iom_result_file_release(&cf);
	free(buf);
	free(path);
	return ret;
}

int iom_summary_rebuild(const struct iom_own_dir *d, char *err, size_t errlen)
{
	const char *dir = d->path;
	uint32_t *idx = NULL;
	size_t n = 0, len = 0, ncell = 0;
	char *buf = NULL, *path;
	FILE *f;
	int ret;

	ret = iom_result_list(dir, &idx, &n, err, errlen);
	if (ret < 0)
		return ret;
	f = open_memstream(&buf, &len);
	if (!f) {
		free(idx);
		return iom_err(err, errlen, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && ret == 0; i++) {
		struct iom_result_file rf;
		char *rp = iom_result_path(dir, idx[i]);

		ret = iom_result_read(rp, &rf, err, errlen);
		if (ret == 0 && i == 0) {
			ncell = rf.ncell;
			csv_header(f, rf.cell, rf.ncell);
		} else if (ret == 0 && rf.ncell != ncell) {
			ret = iom_err(err, errlen, EINVAL,
				      "%s: its cell has %zu dimensions, the first run's has %zu", rp,
				      rf.ncell, ncell);
		}
		if (ret == 0)
			csv_row(f, rf.cell, rf.ncell, &rf.r);
		iom_result_file_release(&rf);
		free(rp);
	}
	if (fclose(f) != 0 && ret == 0)
		ret = iom_err(err, errlen, ENOMEM, "out of memory");
	if (ret == 0) {
		path = xasprintf("%s/summary.csv", dir);
		ret = iom_own_write_atomic(d, path, buf, len, err, errlen);
		free(path);
	}
	free(buf);
	free(idx);
	return ret;
}
