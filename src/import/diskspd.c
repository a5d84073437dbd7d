/* SPDX-License-Identifier: MIT */
/*
 * diskspd — a parsed DiskSpd command line (diskspd_flags.c) turned into a one-cell matrix, or
 * into the fio job that imports back to the same plan (--print-fio).
 *
 * The matrix is text built here and read back by matrix.c, so `--matrix` prints exactly what
 * runs, and every range is checked by the one key table.
 */
#include "diskspd.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "keys.h"
#include "matrix/matrix.h"
#include "preset.h"
#include "units.h"
#include "util.h"

void iom_diskspd_note(struct iom_diskspd *d, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	d->notes = xrealloc(d->notes, (d->nnotes + 1) * sizeof(*d->notes));
	d->notes[d->nnotes++] = xstrdup(buf);
}

void iom_diskspd_init(struct iom_diskspd *d)
{
	memset(d, 0, sizeof(*d));
	d->block_size = IOM_DISKSPD_BLOCK;
	d->duration_s = IOM_DISKSPD_DURATION;
	d->warmup_s = IOM_DISKSPD_WARMUP;
	d->outstanding = IOM_DISKSPD_OUTSTANDING;
	d->threads = 1;
}

void iom_diskspd_release(struct iom_diskspd *d)
{
	for (size_t i = 0; i < d->nnotes; i++)
		free(d->notes[i]);
	free(d->notes);
	for (size_t i = 0; i < d->nown; i++)
		free(d->own[i]);
	free(d->own);
	free(d->command);
	free(d->cpus);
	free(d->targets);
	memset(d, 0, sizeof(*d));
}

/*
 * Whether a path that does not exist names a block device still to appear: its nearest existing
 * directory is on the filesystem of /dev itself (/dev/sdz, /dev/disk/by-id/…), not a filesystem
 * mounted under it (/dev/shm/x/y.dat is a file to create on tmpfs).
 */
static bool names_device(const char *path)
{
	struct stat dev, st;
	char *dir = xstrdup(path), *slash;
	bool on_dev = false;

	if (strncmp(path, "/dev/", 5) != 0 || stat("/dev", &dev) != 0) {
		free(dir);
		return false;
	}
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (stat(dir, &st) == 0) {
			on_dev = S_ISDIR(st.st_mode) && st.st_dev == dev.st_dev;
			break;
		}
	}
	free(dir);
	return on_dev;
}

/* The scratch file size: -c, else the size of an existing file. */
static int target_size(const struct iom_diskspd *d, const char *path, bool *is_dev,
		       uint64_t *size, char *err, size_t errlen)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	const char *what = exists ? "is a block device" : "names a device that does not exist";

	*is_dev = exists ? S_ISBLK(st.st_mode) : names_device(path);
	*size = d->max_size; /* -f: the region [0, size); 0: all of it */
	if (exists && !S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return iom_err(err, errlen, EINVAL, "'%s' is %s, neither a file nor a block "
			       "device: give a disk, or a file (-c<size> creates one)", path,
			       S_ISCHR(st.st_mode) ? "a character device" :
			       S_ISFIFO(st.st_mode) ? "a FIFO" :
			       S_ISSOCK(st.st_mode) ? "a socket" : "of another kind");
	if (*is_dev) {
		if (d->create_size)
			return iom_err(err, errlen, EINVAL, "-c creates files, and '%s' %s (as in "
				       "DiskSpd, -c conflicts with a device)", path, what);
		if (d->write_pct && !d->destructive)
			return iom_err(err, errlen, EINVAL, "'%s' %s and -w%u writes to it: add "
				       "--destructive to let iomatrix destroy what is on it", path,
				       what, d->write_pct);
		return 0;
	}
	if (exists && S_ISDIR(st.st_mode))
		return iom_err(err, errlen, EINVAL, "'%s' is a directory; give a file in it, e.g. "
			       "'%s/iomatrix-diskspd.dat' with -c1G", path, path);
	if (d->create_size) {
		*size = d->max_size ? d->max_size : d->create_size;
		return 0;
	}
	if (!exists)
		return iom_err(err, errlen, ENOENT, "'%s' does not exist: give -c<size> to create "
			       "it, e.g. -c1G", path);
	if (!S_ISREG(st.st_mode) || st.st_size <= 0)
		return iom_err(err, errlen, EINVAL, "'%s' is not a regular file with data; give "
			       "-c<size>", path);
	if (d->max_size > (uint64_t)st.st_size)
		return iom_err(err, errlen, EINVAL, "-f: a region of %" PRIu64 " bytes is larger "
			       "than '%s' (%lld bytes)", d->max_size, path,
			       (long long)st.st_size);
	*size = d->max_size ? d->max_size : (uint64_t)st.st_size;
	return 0;
}

/* several targets: the size and kind of every target: all files or all devices; the one size is
 * each file's (the smallest existing file's without -c; a device's region with -f, else 0:
 * each device whole). */
static int targets_size(const struct iom_diskspd *d, bool *is_dev, uint64_t *size, char *err,
			size_t errlen)
{
	int ret = target_size(d, d->targets[0], is_dev, size, err, errlen);

	for (size_t k = 1; k < d->ntargets && ret == 0; k++) {
		bool dev;
		uint64_t sz;

		ret = target_size(d, d->targets[k], &dev, &sz, err, errlen);
		if (ret < 0)
			break;
		if (dev != *is_dev)
			return iom_err(err, errlen, EINVAL, "'%s' is %s and '%s' is not: give all "
				       "files or all block devices", d->targets[k],
				       dev ? "a block device" : "a file", d->targets[0]);
		if (sz < *size)
			*size = sz;
	}
	return ret;
}

/* Appends a printf-formatted piece to the growing string *s. */
static void add(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(char **s, const char *fmt, ...)
{
	va_list ap;
	char *piece, *n;

	va_start(ap, fmt);
	if (vasprintf(&piece, fmt, ap) < 0)
		abort();
	va_end(ap);
	n = xasprintf("%s%s", *s ? *s : "", piece);
	free(piece);
	free(*s);
	*s = n;
}

/* "  key = value;" padded so that the comments line up, then "# comment". */
static void add_key(char **s, const char *kv, const char *comment)
{
	add(s, "  %-32s# %s\n", kv, comment);
}

int iom_diskspd_matrix(const struct iom_diskspd *d, char **text, char *err, size_t errlen)
{
	char label[64], bs[32], size[32], e[IOM_ERRLEN], kv[128], c[128];
	char *qpath, *qdesc, *desc, *t = NULL;
	struct iom_matrix *m = NULL;
	uint64_t fsize;
	bool is_dev;
	int ret;

	*text = NULL;
	if ((ret = targets_size(d, &is_dev, &fsize, err, errlen)) < 0)
		return ret;
	iom_preset_label(d->target, label, sizeof(label));
	iom_size_format(d->block_size, bs, sizeof(bs));
	iom_size_format(fsize, size, sizeof(size));
	qpath = iom_preset_quote(d->target);
	desc = xasprintf("diskspd %s", d->command ? d->command : "");
	qdesc = iom_preset_quote(desc);

	add(&t, "# The study of:  iomatrix %s\n#\n# One cell, run once, as DiskSpd would run it "
		"('iomatrix diskspd --help' tells how\n# each flag maps).\n", desc);
	if (d->nnotes) {
		add(&t, "#\n# Notes:\n");
		for (size_t i = 0; i < d->nnotes; i++)
			add(&t, "#   - %s\n", d->notes[i]);
	}
	add(&t, "\niomatrix = 1;\nname = \"diskspd\";\ndescription = %s;\n", qdesc);
	if (d->seed_given)
		add(&t, "seed = %" PRIu64 ";                         # -z\n", d->seed);
	if (d->cpus)
		add(&t, "cpus = \"%s\";   # -a: thread i on the i-th CPU, round-robin\n", d->cpus);
	if (d->ntargets > 1) { /* several targets: all at once, as DiskSpd runs them */
		add(&t, "\ntargets = (\n  { label = \"%s\"; paths = [ %s", label, qpath);
		for (size_t k = 1; k < d->ntargets; k++) {
			char *q = iom_preset_quote(d->targets[k]);

			add(&t, ", %s", q);
			free(q);
		}
		add(&t, " ];");
	} else {
		add(&t, "\ntargets = (\n  { label = \"%s\"; path = %s;", label, qpath);
	}
	if (is_dev && d->max_size)
		add(&t, " size = \"%s\";%s }   # a block device: -f, its first %s\n", size,
		    d->destructive ? " destructive = true;" : "", size);
	else if (is_dev)
		add(&t, "%s }   # a block device: the whole of it\n",
		    d->destructive ? " destructive = true;" : "");
	else
		add(&t, " size = \"%s\";%s }   # %s\n", size,
		    d->overwrite ? " overwrite = true;" : "",
		    d->max_size ? "-f: the region used (created at it when missing)"
		    : d->create_size ? "-c: created when missing" : "the existing file's size");
	add(&t, ");\n\nworkload = {\n");
	snprintf(kv, sizeof(kv), "block_size = \"%s\";", bs);
	add_key(&t, kv, "-b (DiskSpd's default 64K)");
	snprintf(kv, sizeof(kv), "pattern = \"%s\";", d->random ? "random" : "sequential");
	add_key(&t, kv, d->random ? "-r" : "-s (DiskSpd's default: sequential)");
	if (d->random_pct && d->random_pct < 100) {
		snprintf(kv, sizeof(kv), "random_pct = %u;", d->random_pct);
		add_key(&t, kv, "-rs: the share of random I/Os, the rest sequential");
	}
	if (d->align) {
		char al[32];

		iom_size_format(d->align, al, sizeof(al));
		snprintf(kv, sizeof(kv), "align = \"%s\";", al);
		add_key(&t, kv, "-r<align>: random offsets on multiples of it");
	}
	if (d->thread_stride && !d->shared_seq) {
		char ts[32];

		iom_size_format(d->thread_stride, ts, sizeof(ts));
		snprintf(kv, sizeof(kv), "thread_stride = \"%s\";", ts);
		add_key(&t, kv, "-T: thread t starts at t x stride");
	}
	if (d->shared_seq)
		add_key(&t, "shared_sequential = true;", "-si: the threads share one stream");
	snprintf(kv, sizeof(kv), "read_pct = %u;", 100 - d->write_pct);
	snprintf(c, sizeof(c), "-w%u: %u %% writes", d->write_pct, d->write_pct);
	add_key(&t, kv, c);
	snprintf(kv, sizeof(kv), "queue_depth = %" PRIu64 ";", d->outstanding);
	add_key(&t, kv, "-o: I/Os outstanding per thread");
	snprintf(kv, sizeof(kv), "threads = %" PRIu64 ";", d->threads * (d->ntargets ? d->ntargets : 1));
	if (d->ntargets > 1) {
		snprintf(c, sizeof(c), "-t%" PRIu64 " on each of the %zu targets (thread i on path i "
			 "mod %zu)", d->threads, d->ntargets, d->ntargets);
		add_key(&t, kv, c);
	} else {
		add_key(&t, kv, "-t: threads on the target");
	}
	snprintf(kv, sizeof(kv), "direct = %s;", d->direct ? "true" : "false");
	add_key(&t, kv, d->direct ? "-Sh/-Su/-h: O_DIRECT, the OS cache bypassed"
				  : "no -S: through the OS cache, DiskSpd's default");
	if (d->data) {
		snprintf(kv, sizeof(kv), "data = \"%s\";", d->data);
		add_key(&t, kv, strcmp(d->data, "zeros") == 0 ? "-Z: write buffers of zeros"
							       : "-Zr, -Z<size>: random data");
	}
	if (d->write_through)
		add_key(&t, "write_through = true;", "-Sh/-Sw/-h: O_DSYNC, every write on stable "
			"media (FUA, or a flush of the device's cache)");
	add_key(&t, "engine = \"io_uring\";", "asynchronous, as DiskSpd's completion ports");
	if (d->rate_bpms) {
		/* bytes per ms per thread → 10^6 bytes per s for the run (every thread of every
		 * target file) */
		snprintf(kv, sizeof(kv), "rate_mb_s = \"%.10g\";",
			 (double)d->rate_bpms * (double)(d->threads * (d->ntargets ? d->ntargets : 1)) /
				 1000.0);
		add_key(&t, kv, "-g: bytes per ms per thread, as MB/s of the whole run");
	}
	if (d->rate_iops) {
		snprintf(kv, sizeof(kv), "rate_iops = %" PRIu64 ";",
			 d->rate_iops * d->threads * (d->ntargets ? d->ntargets : 1));
		add_key(&t, kv, "-g…i: I/Os per second per thread, for the whole run");
	}
	if (d->burst && d->think_ms) {
		snprintf(kv, sizeof(kv), "burst = %" PRIu64 ";", d->burst);
		add_key(&t, kv, "-i: I/Os per burst of a thread");
		snprintf(kv, sizeof(kv), "think_time = \"%" PRIu64 "ms\";", d->think_ms);
		add_key(&t, kv, "-j: milliseconds between bursts");
	}
	add(&t, "};\n\ntiming = {\n");
	snprintf(kv, sizeof(kv), "warmup = \"%" PRIu64 "s\";", d->warmup_s);
	add_key(&t, kv, "-W (DiskSpd's default 5)");
	snprintf(kv, sizeof(kv), "duration = \"%" PRIu64 "s\";", d->duration_s);
	add_key(&t, kv, "-d (DiskSpd's default 10)");
	snprintf(kv, sizeof(kv), "cooldown = \"%" PRIu64 "s\";", d->cooldown_s);
	add_key(&t, kv, "-C");
	add(&t, "  repeat = 1;\n};\n");
	free(desc);
	free(qdesc);
	free(qpath);

	ret = iom_matrix_parse("diskspd", t, NULL, 0, &m, e, sizeof(e));
	iom_matrix_free(m);
	if (ret < 0) {
		free(t);
		return iom_err(err, errlen, EINVAL, "these DiskSpd options make an invalid study: %s",
			       e);
	}
	*text = t;
	return 0;
}

int iom_diskspd_fio(const struct iom_diskspd *d, char **text, char *err, size_t errlen)
{
	const char *rw;
	uint64_t fsize;
	bool is_dev;
	char *t = NULL;
	int ret;

	*text = NULL;
	if (d->ntargets > 1)
		return iom_err(err, errlen, EINVAL, "--print-fio: several targets have no fio "
			       "equivalent (fio's filename=a:b makes every job use every file)");
	if (d->thread_stride || d->shared_seq || d->cpus || d->burst || d->think_ms)
		return iom_err(err, errlen, EINVAL, "--print-fio: %s has no fio job equivalent that "
			       "iomatrix imports back", d->thread_stride ? "-T" : d->shared_seq ? "-si"
			       : d->cpus ? "-a" : "-i/-j");
	if ((ret = targets_size(d, &is_dev, &fsize, err, errlen)) < 0)
		return ret;
	if (d->random)
		rw = d->write_pct == 0 ? "randread" : d->write_pct == 100 ? "randwrite" : "randrw";
	else
		rw = d->write_pct == 0 ? "read" : d->write_pct == 100 ? "write" : "rw";
	add(&t, "; The fio job equivalent of:  iomatrix diskspd %s\n", d->command ? d->command : "");
	add(&t, "; 'iomatrix import' of this file gives the plan of that command (same plan hash).\n");
	if (d->cooldown_s)
		add(&t, "; -C%" PRIu64 ": fio has no cool-down (iomatrix's matrix keeps it)\n",
		    d->cooldown_s);
	add(&t, "[diskspd]\nfilename=%s\n", d->target);
	if (fsize)
		add(&t, "size=%" PRIu64 "\n", fsize);
	add(&t, "bs=%" PRIu64 "\nrw=%s\n", d->block_size, rw);
	if (d->write_pct && d->write_pct < 100)
		add(&t, "rwmixread=%u\n", 100 - d->write_pct);
	if (d->random_pct && d->random_pct < 100)
		add(&t, "percentage_random=%u\n", d->random_pct);
	if (d->align)
		add(&t, "blockalign=%" PRIu64 "\n", d->align);
	add(&t, "iodepth=%" PRIu64 "\nnumjobs=%" PRIu64 "\nthread\ngroup_reporting\n"
		"ioengine=io_uring\ndirect=%d\n", d->outstanding, d->threads, d->direct ? 1 : 0);
	if (d->write_through)
		add(&t, "sync=dsync\n");
	if (d->data && strcmp(d->data, "zeros") == 0)
		add(&t, "zero_buffers\n");
	if (d->rate_iops)
		add(&t, "rate_iops=%" PRIu64 "\n", d->rate_iops);
	if (d->rate_bpms)
		add(&t, "rate=%" PRIu64 "\n", d->rate_bpms * 1000);
	if (d->seed_given)
		add(&t, "randseed=%" PRIu64 "\n", d->seed);
	add(&t, "time_based\nruntime=%" PRIu64 "s\nramp_time=%" PRIu64 "s\n", d->duration_s,
	    d->warmup_s);
	*text = t;
	return 0;
}
