/* SPDX-License-Identifier: MIT */
/*
 * journal — append-only, fsync'd event log of a sweep, and its replay for resume.
 * See journal.h for the format.
 *
 * A torn last line (a power cut in the middle of a write, or a write cut short by a full disk)
 * is cut off when the journal is opened again, and an append that fails part-way is undone, so
 * the next event never glues onto a fragment.
 */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ownfile.h"
#include "util.h"

static const char *const event_names[IOM_J_COUNT] = {
	[IOM_J_STUDY_START] = "study-start",
	[IOM_J_RESUME] = "resume",
	[IOM_J_RUN_START] = "run-start",
	[IOM_J_RUN_DONE] = "run-done",
	[IOM_J_RUN_FAILED] = "run-failed",
	[IOM_J_RUN_INTERRUPTED] = "run-interrupted",
	[IOM_J_STUDY_END] = "study-end",
	[IOM_J_NOTE] = "note",
	[IOM_J_MKFS] = "mkfs",
	[IOM_J_DECIDE] = "decide",
	[IOM_J_RUN_SKIPPED] = "run-skipped",
};

const char *iom_journal_event_name(enum iom_journal_event ev)
{
	return (unsigned)ev < IOM_J_COUNT ? event_names[ev] : "?";
}

/* Cuts a torn last line (no newline) off the journal open at fd. 0 or -errno. */
static int cut_torn_tail(int fd)
{
	struct stat st;
	char last, *buf;
	off_t keep;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size == 0)
		return 0;
	if (pread(fd, &last, 1, st.st_size - 1) != 1)
		return -EIO;
	if (last == '\n')
		return 0;
	if ((uint64_t)st.st_size > IOM_OWN_CAP_JOURNAL)
		return -EFBIG;
	buf = xmalloc((size_t)st.st_size);
	if (pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
		free(buf);
		return -EIO;
	}
	for (keep = st.st_size; keep > 0 && buf[keep - 1] != '\n'; keep--)
		;
	free(buf);
	if (ftruncate(fd, keep) < 0 || fsync(fd) < 0)
		return -errno;
	return 0;
}

int iom_journal_lock(struct iom_journal *j, const struct iom_own_dir *d, char *err,
		     size_t errlen)
{
	char *path;
	int e;

	j->fd = j->lock_fd = -1;
	path = xasprintf("%s/.lock", d->path);
	j->lock_fd = iom_own_open(d, path, IOM_OWN_LOCK, err, errlen);
	free(path);
	if (j->lock_fd < 0) {
		e = -j->lock_fd;
		j->lock_fd = -1;
		return -e;
	}
	if (flock(j->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		e = errno == EWOULDBLOCK ? EBUSY : errno;
		iom_err(err, errlen, e, "'%s' is in use by another iomatrix process", d->path);
		close(j->lock_fd);
		j->lock_fd = -1;
		return -e;
	}
	return 0;
}

int iom_journal_open_locked(struct iom_journal *j, const struct iom_own_dir *d, char *err,
			    size_t errlen)
{
	char *path = xasprintf("%s/journal", d->path);
	int e;

	j->fd = iom_own_open(d, path, IOM_OWN_APPEND, err, errlen);
	if (j->fd < 0) {
		e = -j->fd;
		j->fd = -1;
		free(path);
		return -e;
	}
	if ((e = -cut_torn_tail(j->fd)) != 0) {
		iom_err(err, errlen, e, "cannot open '%s': %s", path, strerror(e));
		free(path);
		close(j->fd);
		j->fd = -1;
		return -e;
	}
	free(path);
	return iom_own_fsync_dir(d, NULL);
}

int iom_journal_open(struct iom_journal *j, const struct iom_own_dir *d, char *err,
		     size_t errlen)
{
	int ret = iom_journal_lock(j, d, err, errlen);

	if (ret == 0 && (ret = iom_journal_open_locked(j, d, err, errlen)) < 0)
		iom_journal_close(j);
	return ret;
}

void iom_journal_close(struct iom_journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	if (j->lock_fd >= 0)
		close(j->lock_fd); /* releases the flock */
	j->fd = j->lock_fd = -1;
}

int iom_journal_append(struct iom_journal *j, enum iom_journal_event ev, uint32_t index,
		       const char *detail)
{
	char when[32], *line, *p;
	struct stat st;
	size_t len;
	int ret;

	iom_format_utc(when, sizeof(when), iom_wall_ns());
	line = xasprintf("%s\t%s\t%u\t%s\n", when, iom_journal_event_name(ev), index,
			 detail ? detail : "");
	len = strlen(line);
	/* The detail is the fourth field: keep it on one line and free of separators. */
	p = line + strlen(when) + 1;
	p = strchr(p, '\t') + 1;
	p = strchr(p, '\t') + 1;
	for (; p < line + len - 1; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	if (fstat(j->fd, &st) < 0)
		st.st_size = -1;
	ret = iom_write_all(j->fd, line, len);
	if (ret < 0) {
		/* undo a partial line (we hold the lock: nobody else appends) */
		if (st.st_size >= 0 && ftruncate(j->fd, st.st_size) == 0)
			fsync(j->fd);
		free(line);
		return ret;
	}
	free(line);
	return fsync(j->fd) < 0 ? -errno : 0;
}

static int event_from_name(const char *s)
{
	for (int i = 0; i < IOM_J_COUNT; i++)
		if (strcmp(s, event_names[i]) == 0)
			return i;
	return -1;
}

/* The plan a study-start's detail names: "plan HASH runs N" (runs optional). */
static void study_plan(const char *detail, struct iom_journal_state *st)
{
	unsigned long long hash, runs;
	char *end;

	if (strncmp(detail, "plan ", 5) != 0)
		return;
	hash = strtoull(detail + 5, &end, 16);
	if (end == detail + 5 || (*end != '\0' && *end != ' '))
		return;
	st->has_plan = true;
	st->plan_hash = hash;
	if (strncmp(end, " runs ", 6) == 0) {
		runs = strtoull(end + 6, &end, 10);
		if (*end == '\0')
			st->plan_runs = (size_t)runs;
	}
}

int iom_journal_replay(const char *dir, size_t nruns, struct iom_journal_state *st, char *err,
		       size_t errlen)
{
	char *path = xasprintf("%s/journal", dir), *text, *line, *next;
	unsigned lineno = 0;
	size_t len;
	int ret;

	memset(st, 0, sizeof(*st));
	st->nruns = nruns;
	st->run = xcalloc(nruns + 1, 1);
	st->decided = xcalloc(nruns + 1, 1);
	st->decision = xcalloc(nruns + 1, sizeof(*st->decision));
	ret = iom_own_read(NULL, path, IOM_OWN_READ, IOM_OWN_CAP_JOURNAL, &text, &len, err, errlen);
	if (ret < 0) {
		free(path);
		return ret;
	}
	for (line = text; line < text + len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(text + len - line));
		char *f[4] = { 0 };
		unsigned long idx;
		char *end;
		int ev, nf = 0;

		lineno++;
		if (!nl) { /* torn last line: the event never completed */
			st->torn_lines++;
			break;
		}
		*nl = '\0';
		next = nl + 1;
		/* time, event, index, detail: the detail is everything after the third tab */
		f[0] = line;
		for (nf = 1; nf < 4; nf++) {
			char *tab = strchr(f[nf - 1], '\t');

			if (!tab)
				break;
			*tab = '\0';
			f[nf] = tab + 1;
		}
		if (nf < 3) {
			ret = iom_err(err, errlen, EINVAL, "%s:%u: malformed journal line", path,
				      lineno);
			goto out;
		}
		ev = event_from_name(f[1]);
		if (ev == IOM_J_STUDY_START && !st->started) {
			/* before the index is checked: a changed plan is named as such */
			st->started = true;
			study_plan(nf > 3 ? f[3] : "", st);
		}
		idx = strtoul(f[2], &end, 10);
		if (ev < 0 || *end != '\0' || idx > nruns) {
			ret = iom_err(err, errlen, EINVAL,
				      "%s:%u: unknown event or run index out of the plan (%s %s)",
				      path, lineno, f[1], f[2]);
			goto out;
		}
		st->events++;
		switch (ev) {
		case IOM_J_RUN_START:
			/* the last word counts: a run started again (resume redoes a run whose file
			 * was missing or damaged) is pending until it ends again */
			if (st->run[idx] == IOM_RS_DONE)
				st->done--;
			else if (st->run[idx] == IOM_RS_FAILED)
				st->failed--;
			st->run[idx] = IOM_RS_PENDING;
			st->in_progress = (uint32_t)idx;
			break;
		case IOM_J_RUN_DONE:
		case IOM_J_RUN_FAILED:
			if (st->run[idx] == IOM_RS_DONE)
				st->done--;
			else if (st->run[idx] == IOM_RS_FAILED)
				st->failed--;
			st->run[idx] = ev == IOM_J_RUN_DONE ? IOM_RS_DONE : IOM_RS_FAILED;
			if (ev == IOM_J_RUN_DONE)
				st->done++;
			else
				st->failed++;
			if (st->in_progress == idx)
				st->in_progress = 0;
			break;
		case IOM_J_RUN_INTERRUPTED:
			/* cut short: still pending, and the run a resume reruns (in_progress) */
			break;
		case IOM_J_RESUME:
			st->resumes++;
			st->ended = false;
			break;
		case IOM_J_STUDY_END:
			st->ended = true;
			break;
		case IOM_J_DECIDE:
			st->decided[idx] = 1;
			free(st->decision[idx]);
			st->decision[idx] = xstrdup(nf > 3 ? f[3] : "");
			break;
		case IOM_J_RUN_SKIPPED:
			if (st->run[idx] != IOM_RS_SKIPPED)
				st->skipped++;
			st->run[idx] = IOM_RS_SKIPPED;
			break;
		case IOM_J_MKFS:
			st->mkfs = xrealloc(st->mkfs, (st->nmkfs + 1) * sizeof(*st->mkfs));
			st->mkfs[st->nmkfs++] = xstrdup(nf > 3 ? f[3] : "");
			break;
		default:
			break;
		}
	}
	ret = 0;
out:
	free(text);
	free(path);
	return ret;
}

void iom_journal_state_release(struct iom_journal_state *st)
{
	free(st->run);
	st->run = NULL;
	free(st->decided);
	st->decided = NULL;
	for (size_t i = 0; st->decision && i <= st->nruns; i++)
		free(st->decision[i]);
	free(st->decision);
	st->decision = NULL;
	for (size_t i = 0; i < st->nmkfs; i++)
		free(st->mkfs[i]);
	free(st->mkfs);
	st->mkfs = NULL;
	st->nmkfs = 0;
}
