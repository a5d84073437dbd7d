/* SPDX-License-Identifier: MIT */
/*
 * fuzz_resdir — libFuzzer harness for the readers of a results directory: the input is a small
 * archive that builds one (files with mutated contents, links to /dev/zero, to a directory
 * outside or to one another, FIFOs, directories where files belong), and everything `resume`
 * and `report` read is then read from it: the journal replayed, runs/ listed and every run file
 * read, study.json, matrix.cfg, and the report's model loaded. Each gives a result or a
 * "PATH: message", never a crash, a leak, a sanitizer report or a read that blocks.
 *
 * The archive: records of [kind][name][len, 2 bytes little-endian][bytes…] — kind % 5 is a
 * file (with the bytes), a link (its target picked by the first byte), a FIFO, a directory or
 * a 6 GiB sparse file; name % the table below. Seeds: tests/fuzz/seeds/resdir-* (see tests/fuzz/run.sh).
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "ownfile.h"
#include "report/report_model.h"
#include "result/resdir.h"
#include "result/result.h"
#include "result/study.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
	"journal", "study.json", "matrix.cfg", "runs", "runs/00001.json", "runs/00002.json",
	"runs/00003.json", "traces", "summary.csv", ".lock", "hooks", "runs/00010.json",
};
static const char *const targets[] = { "/dev/zero", "/", "journal", "runs", "..", "nowhere" };

/* Makes the directories a name needs (runs/ for runs/00001.json). */
static void parent_of(const char *dir, const char *name)
{
	const char *slash = strchr(name, '/');

	if (slash) {
		char *p = xasprintf("%s/%.*s", dir, (int)(slash - name), name);

		(void)mkdir(p, 0755);
		free(p);
	}
}

static void build(const char *dir, const uint8_t *data, size_t size)
{
	while (size >= 4) {
		unsigned kind = data[0] % 5, len = data[2] | (unsigned)data[3] << 8;
		const char *name = names[data[1] % IOM_ARRAY_SIZE(names)];
		char *path = xasprintf("%s/%s", dir, name);
		int fd;

		data += 4;
		size -= 4;
		if (len > size)
			len = (unsigned)size;
		parent_of(dir, name);
		switch (kind) {
		case 0:
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
			if (fd >= 0) {
				if (write(fd, data, len) < 0)
					(void)0;
				close(fd);
			}
			break;
		case 1:
			(void)symlink(targets[(len ? data[0] : 0) % IOM_ARRAY_SIZE(targets)], path);
			break;
		case 2:
			(void)mkfifo(path, 0644);
			break;
		case 3:
			(void)mkdir(path, 0755);
			break;
		default:
			fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0644);
			if (fd >= 0) {
				if (ftruncate(fd, (off_t)6 << 30) < 0)
					(void)0;
				close(fd);
			}
		}
		data += len;
		size -= len;
		free(path);
	}
}

/* What resume and report read. */
static void read_back(const char *dir)
{
	struct iom_journal_state st;
	struct iom_study_info si;
	struct iom_report m;
	uint32_t *idx = NULL;
	size_t n = 0;
	char err[IOM_ERRLEN], *path, *text = NULL;

	(void)iom_journal_replay(dir, 16, &st, err, sizeof(err));
	iom_journal_state_release(&st);
	if (iom_result_list(dir, &idx, &n, err, sizeof(err)) == 0)
		for (size_t i = 0; i < n && i < 16; i++) {
			struct iom_result_file f;

			path = iom_result_path(dir, idx[i]);
			if (iom_result_read(path, &f, err, sizeof(err)) == 0)
				(void)iom_result_cell_get(&f, "block_size");
			iom_result_file_release(&f);
			free(path);
		}
	free(idx);
	path = xasprintf("%s/study.json", dir);
	memset(&si, 0, sizeof(si));
	(void)iom_study_read(path, &si, err, sizeof(err));
	iom_study_info_release(&si);
	free(path);
	path = xasprintf("%s/matrix.cfg", dir);
	if (iom_own_read(NULL, path, IOM_OWN_READ, IOM_OWN_CAP_MATRIX, &text, NULL, err,
			 sizeof(err)) == 0)
		free(text);
	free(path);
	memset(&m, 0, sizeof(m));
	(void)iom_report_load(dir, NULL, &m, err, sizeof(err));
	iom_report_release(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/iom-fuzz-resdir-XXXXXX";

	if (!mkdtemp(dir))
		return 0;
	build(dir, data, size);
	read_back(dir);
	(void)iom_own_rmtree(dir);
	return 0;
}
