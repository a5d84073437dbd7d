/* SPDX-License-Identifier: MIT */
/*
 * preflight — a plan checked against this machine before a sweep, writing nothing. See
 * preflight.h for what is checked and how the space estimates are made.
 *
 * Only stat, lstat, access, statvfs and read-only opens (of block devices for BLKGETSIZE64, and
 * of a target or its directory for io_uring.iopoll's check of the device's poll queues) touch
 * the system: no file is created or opened for writing, so nothing here can change a target, a
 * directory's listing or a device.
 */
#include "preflight.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "engine/engine.h"
#include "target/target.h"
#include "util.h"

/* The scratch files that will be created or extended on one filesystem. */
struct fs_need {
	dev_t dev;
	char *where;      /* a directory or file on it, for messages */
	uint64_t avail;   /* free bytes this process may use */
	uint64_t need;    /* the sum of the scratch files' needs */
	size_t over;      /* the target whose need made the sum exceed avail; SIZE_MAX: none */
	uint64_t over_need;
	char *labels;     /* "'a' (1.0 GiB), 'b' (2.0 GiB)" */
	size_t ntargets;
	char *over_path;  /* the path of target over that made it (heap; several paths) */
};

struct pf {
	const struct iom_plan *p;
	const struct iom_matrix *m;
	const struct iom_preflight_opts *o;
	struct iom_preflight *out;
	struct fs_need *fs;
	size_t nfs;
	/* several paths: while one path of a target with several is checked, the target with that
	 * path in place of its own (view_t its index); NULL otherwise */
	const struct iom_target *view;
	size_t view_t;
};

/* Target t as the checks see it: the path being checked of one with several paths. */
static const struct iom_target *target_of(const struct pf *s, size_t t)
{
	return s->view && s->view_t == t ? s->view : &s->m->targets[t];
}

__attribute__((format(printf, 4, 5)))
static void diag(struct pf *s, bool error, int line, const char *fmt, ...)
{
	struct iom_preflight *out = s->out;
	va_list ap;
	char msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	out->d = xrealloc(out->d, (out->n + 1) * sizeof(*out->d));
	out->d[out->n].error = error;
	out->d[out->n].line = line > 0 ? line : 1;
	out->d[out->n].msg = xstrdup(msg);
	out->n++;
	if (error)
		out->errors++;
	else
		out->warnings++;
}

/* "10.0 GiB", "512 KiB", "300 bytes". */
static void human(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)b / 1024;
	size_t u = 0;

	if (b < 1024) {
		snprintf(buf, len, "%" PRIu64 " bytes", b);
		return;
	}
	while (v >= 1024 && u + 1 < IOM_ARRAY_SIZE(unit)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[u]);
}

/* Whether a missing path names a device: under /dev/ and on /dev's own filesystem (not on a
 * mount within it, as /dev/shm, where scratch files go), or without a size to create it. */
static bool is_device_path(const struct iom_target *t)
{
	struct stat d, p;
	char *dir;
	bool dev;

	if (strncmp(t->path, "/dev/", 5) != 0)
		return false;
	if (t->size == 0)
		return true;
	dir = iom_path_dir(t->path);
	dev = stat("/dev", &d) != 0 || stat(dir, &p) != 0 || p.st_dev == d.st_dev;
	free(dir);
	return dev;
}

/* Free bytes on the filesystem holding path: f_bavail, what df shows and an unprivileged write
 * gets (root's reserved blocks are not counted, so check, plan and df agree); false when
 * statvfs fails. */
static bool avail_of(const char *path, uint64_t *avail)
{
	struct statvfs v;

	if (statvfs(path, &v) != 0)
		return false;
	*avail = (uint64_t)v.f_bavail * (uint64_t)v.f_frsize;
	return true;
}

/* Adds target t's need of bytes on the filesystem of where (device dev). */
static void add_need(struct pf *s, size_t t, dev_t dev, const char *where, uint64_t need)
{
	struct fs_need *f = NULL;
	char h[32], *labels;

	if (need == 0)
		return;
	for (size_t i = 0; i < s->nfs; i++)
		if (s->fs[i].dev == dev)
			f = &s->fs[i];
	if (!f) {
		uint64_t avail;

		if (!avail_of(where, &avail))
			return; /* not knowable: the fill will say */
		s->fs = xrealloc(s->fs, (s->nfs + 1) * sizeof(*s->fs));
		f = &s->fs[s->nfs++];
		memset(f, 0, sizeof(*f));
		f->dev = dev;
		f->where = xstrdup(where);
		f->avail = avail;
		f->over = SIZE_MAX;
	}
	if (f->over == SIZE_MAX && need > f->avail - IOM_MIN(f->need, f->avail)) {
		f->over = t;
		f->over_need = need;
		f->over_path = xstrdup(target_of(s, t)->path);
	}
	f->need = f->need > UINT64_MAX - need ? UINT64_MAX : f->need + need;
	human(need, h, sizeof(h));
	if (s->view && s->view_t == t) /* one of its several paths */
		labels = xasprintf("%s%s'%s' at '%s' (%s)", f->labels ? f->labels : "",
				   f->labels ? ", " : "", s->m->targets[t].label, s->view->path, h);
	else
		labels = f->labels ? xasprintf("%s, '%s' (%s)", f->labels, s->m->targets[t].label, h)
				   : xasprintf("'%s' (%s)", s->m->targets[t].label, h);
	free(f->labels);
	f->labels = labels;
	f->ntargets++;
}

/* Reads the size of block device path into *bytes; false (with an error reported for target
 * t) when it cannot be opened or asked. Read-only: nothing is written. */
static bool device_size(struct pf *s, size_t t, const char *path, uint64_t *bytes)
{
	const struct iom_target *tg = target_of(s, t);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), e;

	if (fd < 0) {
		e = errno;
		diag(s, true, tg->line, "target '%s': cannot open block device '%s': %s", tg->label,
		     path, strerror(e));
		return false;
	}
	*bytes = 0;
	if (ioctl(fd, BLKGETSIZE64, bytes) != 0) {
		e = errno;
		close(fd);
		diag(s, true, tg->line, "target '%s': cannot read the size of block device '%s': %s",
		     tg->label, path, strerror(e));
		return false;
	}
	close(fd);
	return true;
}

/* The region check of a device: size fits, the device is not empty. */
static bool device_region_fits(struct pf *s, size_t t, const char *path, uint64_t bytes,
			       const char *what)
{
	const struct iom_target *tg = target_of(s, t);
	char a[32], b[32];

	if (bytes == 0) {
		diag(s, true, tg->line, "target '%s': block device '%s' is empty (0 bytes)",
		     tg->label, path);
		return false;
	}
	if (tg->size > bytes) {
		human(tg->size, a, sizeof(a));
		human(bytes, b, sizeof(b));
		diag(s, true, tg->line, "target '%s': size %s (%" PRIu64 " bytes)%s is larger than "
		     "block device '%s' (%s, %" PRIu64 " bytes)", tg->label, a, tg->size, what, path,
		     b, bytes);
		return false;
	}
	return true;
}

static void check_block(struct pf *s, size_t t, const char *path, bool writes,
			int64_t write_pct)
{
	const struct iom_target *tg = target_of(s, t);
	uint64_t bytes;

	if (!device_size(s, t, path, &bytes))
		return;
	device_region_fits(s, t, path, bytes, "");
	if (writes && !tg->destructive)
		diag(s, true, tg->line, "target '%s' has cells that write to block device '%s' "
		     "(read_pct %" PRId64 "%s) but not destructive = true, so every one of them "
		     "would fail: set destructive = true in target '%s' if everything on it may be "
		     "destroyed, or keep its cells at read_pct = 100", tg->label, path, write_pct,
		     s->m->hooks.precondition ? ", and the precondition built-in" : "", tg->label);
}

/* An existing regular file: writable when it is written or filled; what its fill still needs. */
static void check_existing_file(struct pf *s, size_t t, const char *path, const struct stat *st,
				bool writes)
{
	const struct iom_target *tg = target_of(s, t);
	uint64_t want = tg->size ? tg->size : (uint64_t)st->st_size;
	uint64_t alloc = (uint64_t)st->st_blocks * 512u;
	uint64_t need = want > alloc ? want - alloc : 0;

	if (!tg->overwrite && iom_target_file_marked(path) == 0) {
		diag(s, true, tg->line, "target '%s': '%s' exists and is not an iomatrix scratch "
		     "file; set overwrite = true in target '%s' to use it", tg->label, path,
		     tg->label);
		return;
	}
	if (want == 0) {
		diag(s, true, tg->line, "target '%s': scratch file '%s' is empty; set size in the "
		     "target to fill it", tg->label, path);
		return;
	}
	if ((writes || need) && access(path, W_OK) != 0)
		diag(s, true, tg->line, "target '%s': scratch file '%s' is not writable (%s), and "
		     "%s", tg->label, path, strerror(errno),
		     writes ? "cells of the target write to it" : "it must be filled to its size");
	add_need(s, t, st->st_dev, path, need);
}

/* A scratch file still to be created: its directory. */
static void check_new_file(struct pf *s, size_t t)
{
	const struct iom_target *tg = target_of(s, t);
	const char *base = iom_path_base(tg->path);
	char *dir;
	struct stat st;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		diag(s, true, tg->line, "target '%s': '%s' names a directory; give a file name for "
		     "the scratch file", tg->label, tg->path);
		return;
	}
	if (tg->size == 0) {
		diag(s, true, tg->line, "target '%s': '%s' does not exist; set size in the target "
		     "to create it", tg->label, tg->path);
		return;
	}
	dir = iom_path_dir(tg->path);
	if (stat(dir, &st) != 0) {
		int e = errno;

		if (e == ENOENT)
			diag(s, true, tg->line, "target '%s': directory '%s' does not exist (the "
			     "scratch file '%s' is created in it; iomatrix makes no directories)",
			     tg->label, dir, tg->path);
		else if (e == ENOTDIR)
			diag(s, true, tg->line, "target '%s': '%s' is not a directory (a part of it is "
			     "a file), so scratch file '%s' cannot be created", tg->label, dir,
			     tg->path);
		else
			diag(s, true, tg->line, "target '%s': cannot look at directory '%s': %s",
			     tg->label, dir, strerror(e));
	} else if (!S_ISDIR(st.st_mode)) {
		diag(s, true, tg->line, "target '%s': '%s' is not a directory, so scratch file '%s' "
		     "cannot be created", tg->label, dir, tg->path);
	} else if (access(dir, W_OK | X_OK) != 0) {
		diag(s, true, tg->line, "target '%s': directory '%s' is not writable (%s), so "
		     "scratch file '%s' cannot be created", tg->label, dir, strerror(errno),
		     tg->path);
	} else {
		add_need(s, t, st.st_dev, dir, tg->size);
	}
	free(dir);
}

static void check_target(struct pf *s, size_t t, bool writes, int64_t write_pct)
{
	const struct iom_target *tg = target_of(s, t);
	struct stat st, lst;

	if (stat(tg->path, &st) == 0) {
		/* as target.c refuses them: a scratch file is written only under its own name */
		if (lstat(tg->path, &lst) == 0 && S_ISLNK(lst.st_mode) && !S_ISBLK(st.st_mode)) {
			char to[PATH_MAX];
			ssize_t n = readlink(tg->path, to, sizeof(to) - 1);

			to[n > 0 ? n : 0] = '\0';
			diag(s, true, tg->line, "target '%s': '%s' is a symbolic link to '%s': iomatrix "
			     "writes a scratch file only under its own name, never through a link "
			     "(overwrite = true included)", tg->label, tg->path, to);
			return;
		}
		if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
			diag(s, true, tg->line, "target '%s': '%s' is a file with %lu hard links: "
			     "writing it would change the file under its other names too (overwrite "
			     "= true included)", tg->label, tg->path, (unsigned long)st.st_nlink);
			return;
		}
		if (S_ISBLK(st.st_mode))
			check_block(s, t, tg->path, writes, write_pct);
		else if (S_ISREG(st.st_mode))
			check_existing_file(s, t, tg->path, &st, writes);
		else if (S_ISDIR(st.st_mode))
			diag(s, true, tg->line, "target '%s': '%s' is a directory; give a file name "
			     "for the scratch file", tg->label, tg->path);
		else
			diag(s, true, tg->line, "target '%s': '%s' is neither a regular file nor a "
			     "block device", tg->label, tg->path);
		return;
	}
	if (errno != ENOENT) {
		int e = errno;

		if (e == ENOTDIR)
			check_new_file(s, t); /* a part of the path is a file: says so */
		else
			diag(s, true, tg->line, "target '%s': cannot look at '%s': %s", tg->label,
			     tg->path, strerror(e));
		return;
	}
	if (lstat(tg->path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		diag(s, true, tg->line, "target '%s': '%s' is a symbolic link to a missing file",
		     tg->label, tg->path);
		return;
	}
	if (is_device_path(tg)) {
		diag(s, true, tg->line, "target '%s': device '%s' does not exist", tg->label,
		     tg->path);
		return;
	}
	check_new_file(s, t);
}

/* A filesystem-dimension target: the device must be there and hold what goes on it. Its
 * filesystem does not exist yet, so its free space is not asked. */
static void check_fs_target(struct pf *s, size_t t)
{
	const struct iom_target *tg = target_of(s, t);
	bool raw = strcmp(tg->fs_type, "raw") == 0;
	struct stat st;
	uint64_t bytes;

	if (stat(tg->path, &st) != 0) {
		int e = errno;

		diag(s, true, tg->line, "target '%s': device '%s' %s", tg->label, tg->path,
		     e == ENOENT ? "does not exist" : strerror(e));
		return;
	}
	if (!S_ISBLK(st.st_mode)) {
		diag(s, true, tg->line, "target '%s': '%s' is not a block device, and a filesystem "
		     "(%s) is made only on one", tg->label, tg->path, tg->fs_type);
		return;
	}
	if (!device_size(s, t, tg->path, &bytes))
		return;
	device_region_fits(s, t, tg->path, bytes,
			   raw ? "" : ", the scratch file on the new filesystem,");
}

/* Per target, over its runs still to do: whether there are any, whether one writes, and the
 * lowest read_pct (for the message). */
struct use {
	bool used, writes;
	int64_t min_read_pct;
	int polled;           /* an engine that polls completions (io_uring), +1; 0: none */
	bool polled_buffered; /* one of its cells has direct = false */
};

/*
 * io_uring.iopoll on target t, which a polling engine drives: the device's poll queues (for a
 * file, those of its filesystem's device; for a file still to be made, its directory's) are
 * read now, not at 2 a.m. A filesystem-dimension target's filesystem does not exist yet; its
 * runs check it as they start.
 */
static void check_iopoll(struct pf *s, size_t t, const struct use *u)
{
	const struct iom_target *tg = target_of(s, t);
	char err[IOM_ERRLEN], *dir = NULL;
	int fd;

	if (!s->m->engine.iopoll || !u->polled || tg->fs_type)
		return;
	fd = open(tg->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT) {
		dir = iom_path_dir(tg->path);
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	free(dir);
	if (fd < 0)
		return; /* what is missing is said by check_target() */
	if (iom_engine_check((enum iom_engine_kind)(u->polled - 1), fd, IOM_ENGINE_IOPOLL,
			     !u->polled_buffered, NULL, err, sizeof(err)) < 0)
		diag(s, true, tg->line, "target '%s': %s", tg->label, err);
	close(fd);
}

static bool run_pending(const struct pf *s, const struct iom_run *r)
{
	return !s->o->pending || s->o->pending[r->index];
}

/* The I/Os run r may do, at the assumed rate for its timed phases. */
static uint64_t run_ios(const struct pf *s, const struct iom_run *r)
{
	const struct iom_timing *tm = &s->m->timing;
	uint64_t iops = s->o->assumed_iops ? s->o->assumed_iops : IOM_PREFLIGHT_ASSUMED_IOPS;
	uint64_t timed_ns = tm->warmup_ns + tm->cooldown_ns + tm->duration_ns, ios;
	double d = (double)timed_ns / 1e9 * (double)iops;

	ios = d >= 1.8e19 ? UINT64_MAX : (uint64_t)d;
	if (tm->bytes) {
		uint64_t bs = (uint64_t)s->p->cells[r->cell].v[IOM_DIM_BLOCK_SIZE];

		uint64_t n = tm->bytes / (bs ? bs : 1);

		ios = ios > UINT64_MAX - n ? UINT64_MAX : ios + n;
	}
	return ios;
}

/* The nearest existing ancestor of dir (dir itself when it exists); the caller frees it. */
static char *existing_ancestor(const char *dir)
{
	char *cur = xstrdup(dir);
	struct stat st;

	while (stat(cur, &st) != 0) {
		char *up;

		if (strcmp(cur, "/") == 0 || strcmp(cur, ".") == 0)
			break;
		up = iom_path_dir(cur);
		free(cur);
		cur = up;
	}
	return cur;
}

static void check_traces(struct pf *s)
{
	const struct iom_matrix *m = s->m;
	uint64_t ios = 0, bytes, avail, scratch = 0, timed_ns;
	size_t nruns = 0;
	char *where, a[32], b[32], c[32], secs[32];
	struct stat st;

	if (!s->o->results_dir || s->o->no_trace || !m->trace)
		return;
	for (size_t i = 0; i < s->p->nruns; i++) {
		const struct iom_run *r = &s->p->runs[i];
		uint64_t n;

		if (!run_pending(s, r))
			continue;
		n = run_ios(s, r);
		ios = ios > UINT64_MAX - n ? UINT64_MAX : ios + n;
		nruns++;
	}
	if (!nruns)
		return;
	bytes = ios > UINT64_MAX / IOM_PREFLIGHT_TRACE_BYTES_PER_IO
			? UINT64_MAX : ios * IOM_PREFLIGHT_TRACE_BYTES_PER_IO;
	where = existing_ancestor(s->o->results_dir);
	if (stat(where, &st) != 0 || !avail_of(where, &avail)) {
		free(where);
		return;
	}
	for (size_t i = 0; i < s->nfs; i++)
		if (s->fs[i].dev == st.st_dev)
			scratch = s->fs[i].need;
	if (scratch > avail || bytes <= avail - scratch) {
		free(where);
		return;
	}
	human(bytes, a, sizeof(a));
	human(avail, b, sizeof(b));
	human(scratch, c, sizeof(c));
	timed_ns = m->timing.warmup_ns + m->timing.duration_ns + m->timing.cooldown_ns;
	snprintf(secs, sizeof(secs), "%.3g s", (double)timed_ns / 1e9);
	diag(s, false, m->timing_line, "the traces of the %zu run%s to do may need about "
	     "%s (an estimate: %u bytes per I/O at an assumed %" PRIu64 " I/O per second over the "
	     "%s of each run's warm-up, measured window and cool-down%s), more than the %s free "
	     "where the results go ('%s')%s%s; set trace = false or run with --no-trace, or put "
	     "the results on a larger filesystem with -o DIR", nruns, nruns == 1 ? "" : "s", a,
	     IOM_PREFLIGHT_TRACE_BYTES_PER_IO,
	     s->o->assumed_iops ? s->o->assumed_iops : (uint64_t)IOM_PREFLIGHT_ASSUMED_IOPS, secs,
	     m->timing.bytes ? ", plus the bytes of each run / its block size" : "", b, where,
	     scratch ? " once the scratch files there take " : "", scratch ? c : "");
	free(where);
}

static void report_space(struct pf *s)
{
	for (size_t i = 0; i < s->nfs; i++) {
		const struct fs_need *f = &s->fs[i];
		const struct iom_target *tg;
		char need[32], avail[32], one[32];

		if (f->over == SIZE_MAX)
			continue;
		tg = &s->m->targets[f->over];
		human(f->need, need, sizeof(need));
		human(f->avail, avail, sizeof(avail));
		human(f->over_need, one, sizeof(one));
		if (f->ntargets == 1)
			diag(s, true, tg->line, "target '%s': scratch file '%s' needs %s more on its "
			     "filesystem, which has %s free (at '%s'): make size smaller or free some "
			     "space", tg->label, f->over_path, one, avail, f->where);
		else
			diag(s, true, tg->line, "target '%s': scratch file '%s' does not fit: the "
			     "scratch files of targets %s on one filesystem need %s in all, and it "
			     "has %s free (at '%s'): make them smaller or free some space", tg->label,
			     f->over_path, f->labels, need, avail, f->where);
	}
}

/* The identity of a path for telling two paths apart: its device and inode (a
 * block device: its rdev), or for a file still to be made its resolved directory and name
 * (heap, into *name). */
static void path_key(const char *path, struct stat *st, bool *exists, char **name)
{
	char *dir = iom_path_dir(path), *rdir;

	*exists = stat(path, st) == 0;
	rdir = realpath(dir, NULL);
	*name = xasprintf("%s/%s", rdir ? rdir : dir, iom_path_base(path));
	free(rdir);
	free(dir);
}

/*
 * Whether paths a and b name one thing under two names: "device" (one st_rdev: a
 * /dev/disk/by-id/ link and its node), "file" (one st_dev/st_ino, or one name still to be
 * created once the directories' links are resolved), or NULL.
 */
static const char *same_thing(const char *a, const char *b)
{
	struct stat sa, sb;
	bool ea, eb, same;
	char *na, *nb;

	path_key(a, &sa, &ea, &na);
	path_key(b, &sb, &eb, &nb);
	if (ea && eb)
		same = S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode)
			       ? sa.st_rdev == sb.st_rdev
			       : sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	else
		same = !ea && !eb && strcmp(na, nb) == 0;
	free(na);
	free(nb);
	return !same ? NULL : ea && S_ISBLK(sa.st_mode) ? "device" : "file";
}

/* No two paths of target t are one file or device. */
static void check_paths_distinct(struct pf *s, size_t t)
{
	const struct iom_target *tg = &s->m->targets[t];

	for (size_t a = 0; a < tg->npaths; a++)
		for (size_t b = 0; b < a; b++) {
			const char *what = same_thing(tg->paths[a], tg->paths[b]);

			if (what) {
				diag(s, true, tg->line, "target '%s': '%s' and '%s' are the same %s: "
				     "give each path once", tg->label, tg->paths[b], tg->paths[a],
				     what);
				return;
			}
		}
}

/*
 * No two targets are one device or file under two names (a link, as /dev/disk/by-id/ names
 * are), unless one of them says allow_same = true: an A/A test, two targets on one device to
 * learn the noise floor (the report then says they are one).
 */
static void check_targets_distinct(struct pf *s, size_t t)
{
	const struct iom_target *tg = &s->m->targets[t];

	for (size_t u = 0; u < t; u++) {
		const struct iom_target *o = &s->m->targets[u];

		if (o->fs_type || o->absent || !o->path || tg->allow_same || o->allow_same)
			continue;
		for (size_t a = 0; a < (tg->npaths ? tg->npaths : 1); a++)
			for (size_t b = 0; b < (o->npaths ? o->npaths : 1); b++) {
				const char *pa = tg->npaths ? tg->paths[a] : tg->path;
				const char *pb = o->npaths ? o->paths[b] : o->path;
				const char *what = same_thing(pa, pb);

				if (what) {
					diag(s, true, tg->line, "target '%s' ('%s') is the same %s "
					     "as target '%s' ('%s'): one %s under two names; set "
					     "allow_same = true on one of them to run it anyway (an "
					     "A/A test of the noise floor)", tg->label, pa, what,
					     o->label, pb, what);
					return;
				}
			}
	}
}

int iom_preflight_check(const struct iom_plan *p, const struct iom_preflight_opts *o,
			struct iom_preflight *pf)
{
	static const struct iom_preflight_opts none;
	struct pf s = { .p = p, .m = p->m, .o = o ? o : &none, .out = pf };
	struct use *u;

	memset(pf, 0, sizeof(*pf));
	u = xcalloc(p->m->ntargets ? p->m->ntargets : 1, sizeof(*u));
	for (size_t i = 0; i < p->nruns; i++) {
		const struct iom_run *r = &p->runs[i];
		const struct iom_cell *c = &p->cells[r->cell];
		size_t t = (size_t)c->v[IOM_DIM_TARGET];

		if (t >= p->m->ntargets || !run_pending(&s, r) || p->m->targets[t].absent)
			continue; /* absent: many hosts, the target does not live on this rank */
		if (!u[t].used || iom_cell_read_pct(p->m, c) < u[t].min_read_pct)
			u[t].min_read_pct = iom_cell_read_pct(p->m, c);
		u[t].used = true;
		u[t].writes |= iom_cell_read_pct(p->m, c) < 100;
		if (iom_engine_has((enum iom_engine_kind)c->v[IOM_DIM_ENGINE],
				   IOM_ENGINE_CAP_POLLED)) {
			u[t].polled = (int)c->v[IOM_DIM_ENGINE] + 1;
			u[t].polled_buffered |= !c->v[IOM_DIM_DIRECT];
		}
	}
	for (size_t t = 0; t < p->m->ntargets; t++) {
		if (!u[t].used)
			continue;
		if (!p->m->targets[t].path || !*p->m->targets[t].path)
			continue; /* the matrix refuses it */
		if (p->m->targets[t].fs_type) {
			check_fs_target(&s, t);
			check_iopoll(&s, t, &u[t]);
			continue;
		}
		/* each path of a target with several, as a target of its own */
		check_paths_distinct(&s, t);
		check_targets_distinct(&s, t);
		for (size_t k = 0; k < (p->m->targets[t].npaths ? p->m->targets[t].npaths : 1);
		     k++) {
			struct iom_target v = p->m->targets[t];

			if (v.npaths) {
				v.path = v.paths[k];
				v.paths = NULL;
				v.npaths = 0;
				s.view = &v;
				s.view_t = t;
			}
			check_target(&s, t, u[t].writes, u[t].min_read_pct);
			check_iopoll(&s, t, &u[t]);
			s.view = NULL;
		}
	}
	report_space(&s);
	check_traces(&s);
	/* in line order, a line's problems in the order found */
	if (pf->n > 1) {
		struct iom_preflight_diag *sorted = xcalloc(pf->n, sizeof(*sorted));
		size_t k = 0;
		int line = 0;

		/* a stable selection by line: the lists are short */
		while (k < pf->n) {
			int next = 0;

			for (size_t i = 0; i < pf->n; i++)
				if (pf->d[i].line > line && (!next || pf->d[i].line < next))
					next = pf->d[i].line;
			for (size_t i = 0; i < pf->n; i++)
				if (pf->d[i].line == next)
					sorted[k++] = pf->d[i];
			line = next;
		}
		free(pf->d);
		pf->d = sorted;
	}
	for (size_t i = 0; i < s.nfs; i++) {
		free(s.fs[i].where);
		free(s.fs[i].labels);
		free(s.fs[i].over_path);
	}
	free(s.fs);
	free(u);
	return 0;
}

void iom_preflight_release(struct iom_preflight *pf)
{
	if (!pf)
		return;
	for (size_t i = 0; i < pf->n; i++)
		free(pf->d[i].msg);
	free(pf->d);
	memset(pf, 0, sizeof(pf[0]));
}
