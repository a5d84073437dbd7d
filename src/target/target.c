/* SPDX-License-Identifier: MIT */
/*
 * target — scratch files and block devices, made safe to measure.
 *
 * Scratch files are filled with pseudo-random data (rng.h) so that thin-provisioned, compressing
 * or deduplicating storage is measured honestly: every file gets its own seed, so two scratch
 * files never share a block. The fill goes in 1 MiB chunks, O_DIRECT where the filesystem takes
 * it (the tail and refusing filesystems go through the page cache, synced as they go).
 *
 * The mark says "this file is iomatrix's own, and [0, N) of it is filled": the xattr
 * user.iomatrix = "iomatrix scratch v1 size=N", or, where user xattrs are refused, a sidecar file
 * DIR/.NAME.iomatrix carrying the same text plus the file's inode and birth time (so a new file
 * that takes the old one's name is not mistaken for it). The mark is written with N = 0 before
 * the fill starts and advanced every GiB, so an interrupted fill is resumed, never trusted and
 * never refused as "not ours". A fill asked to stop (SIGTERM: the sweep's stop flag) stops
 * between two 1 MiB chunks, syncs, writes the mark at that point and keeps the file.
 *
 * Block devices are written only when the write checks pass (target_safe.c); what is known of
 * the device under a target comes from device.c.

 */
#include "target.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ownfile.h"
#include "rng.h"
#include "util.h"

#define FILL_CHUNK (1u << 20)
#define FILL_ALIGN 4096u
#define FILL_SYNC_EVERY (256ull << 20) /* buffered fill: sync and drop cache this often */
#define FILL_MARK_EVERY (1ull << 30)   /* advance the mark this often */
#define FILL_PROGRESS_NS 250000000ull  /* progress callback at most this often */

/* ---- the mark of scratch files ---------------------------------------------------------- */

struct file_id {
	uint64_t ino, btime_ns; /* btime 0 when the filesystem does not keep one */
};

static struct file_id file_id_of(int fd)
{
	struct file_id id = { 0 };
	struct statx sx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME, &sx) == 0) {
		id.ino = sx.stx_ino;
		if (sx.stx_mask & STATX_BTIME)
			id.btime_ns = (uint64_t)sx.stx_btime.tv_sec * 1000000000u +
				      sx.stx_btime.tv_nsec;
	}
	return id;
}

static char *sidecar_path(const char *path)
{
	char *dir = iom_path_dir(path), *name = xasprintf(".%s.iomatrix", iom_path_base(path));
	char *p = iom_path_join(dir, name);

	free(name);
	free(dir);
	return p;
}

/* 1 and *filled when path (open as fd) carries the mark, 0 when not. */
static int mark_read(const char *path, int fd, uint64_t *filled)
{
	char buf[256], *side, *data = NULL;
	ssize_t n = fgetxattr(fd, IOM_TARGET_MARK_XATTR, buf, sizeof(buf) - 1);
	unsigned long long size, ino, btime;
	struct file_id id;
	size_t len;
	int ok = 0;

	if (n > 0) {
		buf[n] = '\0';
		if (sscanf(buf, IOM_TARGET_MARK_PREFIX " size=%llu", &size) == 1) {
			*filled = size;
			return 1;
		}
	}
	side = sidecar_path(path);
	if (iom_read_file(side, &data, &len) == 0 &&
	    sscanf(data, IOM_TARGET_MARK_PREFIX " size=%llu ino=%llu btime=%llu", &size, &ino,
		   &btime) == 3) {
		id = file_id_of(fd);
		if (id.ino == ino && id.btime_ns == btime) {
			*filled = size;
			ok = 1;
		}
	}
	free(data);
	free(side);
	return ok;
}

int iom_target_file_marked(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	uint64_t filled;
	int r;

	if (fd < 0)
		return -errno;
	r = mark_read(path, fd, &filled);
	close(fd);
	return r;
}

/* Marks path (open as fd) as iomatrix's own with [0, filled) filled. */
static int mark_write(const char *path, int fd, uint64_t filled, char *err, size_t errlen)
{
	char *v = xasprintf(IOM_TARGET_MARK_PREFIX " size=%llu", (unsigned long long)filled);
	int r = 0;

	if (fsetxattr(fd, IOM_TARGET_MARK_XATTR, v, strlen(v), 0) == 0) {
		fsync(fd); /* the mark is durable once set; losing it would only cost a re-fill */
	} else {
		int e = errno;

		if (e == ENOTSUP || e == EOPNOTSUPP) {
			struct file_id id = file_id_of(fd);
			char *side = sidecar_path(path);
			char *sv = xasprintf("%s ino=%llu btime=%llu\n", v,
					     (unsigned long long)id.ino,
					     (unsigned long long)id.btime_ns);

			r = iom_write_file_atomic(side, sv, strlen(sv));
			if (r)
				iom_err(err, errlen, -r, "cannot write the mark of '%s' to '%s': %s",
					path, side, strerror(-r));
			free(sv);
			free(side);
		} else {
			r = iom_err(err, errlen, e, "cannot mark '%s' as an iomatrix scratch file: %s",
				    path, strerror(e));
		}
	}
	free(v);
	return r;
}

/* ---- filling scratch files -------------------------------------------------------------- */

static int fill_error(const char *path, int code, uint64_t off, uint64_t to, char *err,
		      size_t errlen)
{
	if (code == ENOSPC || code == EDQUOT)
		return iom_err(err, errlen, code,
			       "no space left for scratch file '%s' (%llu bytes needed, %llu "
			       "written)",
			       path, (unsigned long long)to, (unsigned long long)off);
	return iom_err(err, errlen, code, "cannot write scratch file '%s' at offset %llu: %s",
		       path, (unsigned long long)off, strerror(code));
}

/* n bytes of a fill with data other than random (the data key's meanings, 4 KiB at a time):
 * zeros; compressible:N% the first (100 - N) % of each 4 KiB random, the rest zeros; dedupe:N%
 * random 4 KiB blocks, each a copy of the one before with N % chance. */
static void fill_pattern(struct iom_rng *rng, char *buf, size_t n, uint32_t data)
{
	unsigned pct = (unsigned)IOM_MIN(IOM_CHOICE_PCT(data), 100);

	for (size_t off = 0; off < n; off += FILL_ALIGN) {
		size_t len = IOM_MIN((size_t)FILL_ALIGN, n - off);
		size_t keep = len * (100 - pct) / 100;

		switch (IOM_CHOICE_INDEX(data)) {
		case IOM_DATA_ZEROS:
			memset(buf + off, 0, len);
			break;
		case IOM_DATA_COMPRESSIBLE:
			iom_rng_fill(rng, buf + off, keep);
			memset(buf + off + keep, 0, len - keep);
			break;
		default: /* dedupe */
			if (off && iom_rng_below(rng, 100) < pct)
				memcpy(buf + off, buf + off - FILL_ALIGN, len);
			else
				iom_rng_fill(rng, buf + off, len);
			break;
		}
	}
}

int iom_target_fill(int fd, const struct iom_target_fill *f, struct iom_target_fill_end *end)
{
	uint32_t chunk = f->chunk ? f->chunk : FILL_CHUNK;
	uint64_t off = f->from & ~(uint64_t)(FILL_ALIGN - 1), synced = 0, marked = 0;
	uint64_t last = iom_now_ns();
	int fl = fcntl(fd, F_GETFL), r = 0;
	bool direct = false;
	struct iom_rng rng;
	char *buf = NULL;

	memset(end, 0, sizeof(*end));
	end->off = off;
	if (chunk % FILL_ALIGN) {
		end->failed = IOM_FILL_WRITE;
		return -EINVAL;
	}
	if (posix_memalign((void **)&buf, FILL_ALIGN, chunk) != 0) {
		end->failed = IOM_FILL_NOMEM;
		return -ENOMEM;
	}
	/* O_DIRECT on the caller's descriptor for the fill (the same open file, so the same
	 * identity-checked target), off again where refused, and at the end */
	if (f->direct && fl >= 0)
		direct = (fl & O_DIRECT) || fcntl(fd, F_SETFL, fl | O_DIRECT) == 0;
	iom_rng_seed(&rng, f->seed);
	while (end->done < f->bytes) {
		uint64_t left = f->region ? f->region - off : f->bytes - end->done;
		size_t n = (size_t)IOM_MIN((uint64_t)chunk, IOM_MIN(left, f->bytes - end->done));
		size_t put = 0;

		if (f->stop && *f->stop) {
			end->failed = IOM_FILL_STOPPED;
			r = -EINTR;
			break;
		}
		if (direct && (n % FILL_ALIGN || off % FILL_ALIGN)) { /* an unaligned tail */
			fcntl(fd, F_SETFL, fl & ~O_DIRECT);
			direct = false;
		}
		if (__builtin_expect(f->data != IOM_DATA_RANDOM, 0))
			fill_pattern(&rng, buf, n, f->data);
		else
			iom_rng_fill(&rng, buf, n);
		/* with stamp, every 4 KiB of the whole fill differs: its first 8 bytes are its
		 * position */
		for (uint64_t k = 0; f->stamp && k < n; k += FILL_ALIGN) {
			uint64_t stamp = iom_mix64(f->seed ^ (end->done + k));

			memcpy(buf + k, &stamp, IOM_MIN(sizeof(stamp), (size_t)(n - k)));
		}
		while (put < n) {
			ssize_t w = pwrite(fd, buf + put, n - put, (off_t)(off + put));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0 && errno == EINVAL && direct) { /* alignment it will not take */
				fcntl(fd, F_SETFL, fl & ~O_DIRECT);
				direct = false;
				continue;
			}
			if (w <= 0) {
				r = w < 0 ? -errno : -EIO;
				end->failed = w < 0 ? IOM_FILL_WRITE : IOM_FILL_NOTHING;
				break;
			}
			put += (size_t)w;
			end->done += (uint64_t)w;
			end->off = off + put;
		}
		if (r)
			break;
		off += n;
		if (f->region && off >= f->region)
			off = 0;
		end->off = off;
		synced += n;
		marked += n;
		if (!direct && synced >= FILL_SYNC_EVERY) {
			fdatasync(fd);
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			synced = 0;
		}
		if (f->checkpoint && marked >= f->checkpoint_every && end->done < f->bytes) {
			r = f->checkpoint(f->arg, fd, off);
			if (r) {
				end->failed = IOM_FILL_CHECKPOINT;
				break;
			}
			marked = 0;
		}
		if (f->progress && iom_now_ns() - last >= FILL_PROGRESS_NS && end->done < f->bytes) {
			f->progress(f->arg, end->done, f->bytes);
			last = iom_now_ns();
		}
	}
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl);
	free(buf);
	return r;
}

/* The scratch fill's checkpoint: what was written synced, the mark advanced to it. */
struct scratch_fill {
	const char *path;
	uint64_t to;
	char *err;
	size_t errlen;
};

static int scratch_checkpoint(void *arg, int fd, uint64_t off)
{
	struct scratch_fill *sf = arg;

	if (fdatasync(fd) != 0)
		return fill_error(sf->path, errno, off, sf->to, sf->err, sf->errlen);
	return mark_write(sf->path, fd, off, sf->err, sf->errlen);
}

/* What a target's scratch fill writes: its one data value with fill_data (matrix.c checks there is
 * one), else random. */
static uint32_t fill_data_of(const struct iom_target *t)
{
	if (!t->fill_data || t->dim[IOM_DIM_DATA].n != 1)
		return IOM_DATA_RANDOM;
	return (uint32_t)t->dim[IOM_DIM_DATA].v[0];
}

/*
 * Fills [from, to) of path (open read-write as fd) with data (random: incompressible), advancing the mark
 * as it goes. from is rounded down to FILL_ALIGN. When *stop (stop may be NULL) becomes set it
 * stops between two chunks (within a chunk's write, and a sync of at most FILL_SYNC_EVERY
 * buffered bytes), syncs what it wrote, advances the mark to it and returns -EINTR: the next
 * prepare resumes from there.
 */
static int fill(const char *path, int fd, uint64_t from, uint64_t to, uint32_t data,
		volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	uint64_t off = from & ~(uint64_t)(FILL_ALIGN - 1);
	struct scratch_fill sf = { .path = path, .to = to, .err = err, .errlen = errlen };
	struct iom_target_fill f = { .from = off, .bytes = to - off, .direct = true, .stop = stop,
				     .checkpoint = scratch_checkpoint, .data = data,
				     .checkpoint_every = FILL_MARK_EVERY, .arg = &sf };
	struct iom_target_fill_end end;
	struct stat st;
	int r;

	r = fallocate(fd, 0, (off_t)off, (off_t)(to - off));
	if (r != 0 && errno != EOPNOTSUPP && errno != ENOSYS)
		return fill_error(path, errno, off, to, err, errlen);
	fstat(fd, &st);
	/* every file its own stream: no two scratch files share a block a deduplicator could
	 * fold */
	f.seed = iom_mix64(iom_wall_ns() ^ ((uint64_t)st.st_ino << 20) ^
			   ((uint64_t)getpid() << 48) ^ off);
	r = iom_target_fill(fd, &f, &end);
	switch (r ? end.failed : IOM_FILL_DONE) {
	case IOM_FILL_DONE:
	case IOM_FILL_CHECKPOINT: /* its message is in err */
		break;
	case IOM_FILL_NOMEM:
		return iom_err(err, errlen, ENOMEM, "cannot allocate the fill buffer for '%s'",
			       path);
	case IOM_FILL_STOPPED:
		if (fdatasync(fd) != 0)
			r = fill_error(path, errno, end.off, to, err, errlen);
		else if ((r = mark_write(path, fd, end.off, err, errlen)) == 0)
			r = iom_err(err, errlen, EINTR,
				    "the fill of scratch file '%s' was stopped at %llu of "
				    "%llu bytes (its mark says so: the next run goes on "
				    "from there)",
				    path, (unsigned long long)end.off, (unsigned long long)to);
		break;
	default:
		r = fill_error(path, -r, end.off, to, err, errlen);
		break;
	}
	if (!r && fsync(fd) != 0)
		r = fill_error(path, errno, to, to, err, errlen);
	if (!r)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return r;
}

/* ---- links ------------------------------------------------------------------------------ */

/* Where the symbolic link at path points, as the link says it ("?" when unreadable). */
static char *link_text(const char *path)
{
	char buf[4096];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	if (n < 0)
		return xstrdup("?");
	buf[n] = '\0';
	return xstrdup(buf);
}

/* "2 hard links (also named '/d/victim.txt')": the file st at path and another name of it in the
 * same directory, when there is one. */
static char *links_text(const char *path, const struct stat *st)
{
	char *dir = iom_path_dir(path), *other = NULL, *out;
	DIR *dh = opendir(dir);
	struct dirent *de;

	while (dh && !other && (de = readdir(dh))) {
		struct stat o;

		if (de->d_ino != st->st_ino || strcmp(de->d_name, iom_path_base(path)) == 0)
			continue;
		if (fstatat(dirfd(dh), de->d_name, &o, AT_SYMLINK_NOFOLLOW) == 0 &&
		    o.st_dev == st->st_dev && o.st_ino == st->st_ino)
			other = strcmp(dir, "/") == 0 ? xasprintf("/%s", de->d_name)
						      : xasprintf("%s/%s", dir, de->d_name);
	}
	if (dh)
		closedir(dh);
	if (other)
		out = xasprintf("%llu hard links (also named '%s')", (unsigned long long)st->st_nlink,
				other);
	else
		out = xasprintf("%llu hard links (its other names are outside '%s')",
				(unsigned long long)st->st_nlink, dir);
	free(other);
	free(dir);
	return out;
}

/* ---- prepare ---------------------------------------------------------------------------- */

/*
 * Resolves t->path: its real path and stat when it exists; else the absolute path it would be
 * created at, after checking that its directory exists. A symbolic link is followed only to a
 * block device: a scratch file is written under its own name, never through a link.
 */
static int resolve(const struct iom_target *t, char **out, struct stat *st, bool *exists,
		   char *err, size_t errlen)
{
	char *real, *dir, *rdir;
	const char *base;
	struct stat lst;
	int e;

	*exists = false;
	if (lstat(t->path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		char *to = link_text(t->path);

		if (stat(t->path, st) != 0) {
			e = errno;
			if (e == ENOENT)
				iom_err(err, errlen, ENOENT,
					"'%s' of target '%s' is a symbolic link to a missing file "
					"('%s')",
					t->path, t->label, to);
			else
				iom_err(err, errlen, e, "cannot open '%s': %s", t->path,
					strerror(e));
			free(to);
			return -e;
		}
		if (!S_ISBLK(st->st_mode)) {
			iom_err(err, errlen, ELOOP,
				"'%s' of target '%s' is a symbolic link to '%s': iomatrix writes a "
				"scratch file only under its own name, never through a link "
				"(overwrite = true included); give the path of a file of its own",
				t->path, t->label, to);
			free(to);
			return -ELOOP;
		}
		free(to); /* /dev/disk/by-id/… and the like: the device it names */
	}
	real = realpath(t->path, NULL);
	if (real) {
		if (stat(real, st) != 0) {
			e = errno;
			free(real);
			return iom_err(err, errlen, e, "cannot open '%s': %s", t->path,
				       strerror(e));
		}
		if (!S_ISBLK(st->st_mode)) {
			/* A file keeps its own last name, never the one realpath() found: a link
			 * swapped in after the lstat() above would lead to another file. Every open
			 * of it is O_NOFOLLOW, so a link there later is refused. */
			char *d = iom_path_dir(t->path);
			char *rd = realpath(d, NULL);

			free(real);
			free(d);
			if (!rd)
				return iom_err(err, errlen, errno, "cannot open '%s': %s", t->path,
					       strerror(errno));
			real = iom_path_join(rd, iom_path_base(t->path));
			free(rd);
			if (lstat(real, st) != 0) {
				e = errno;
				iom_err(err, errlen, e, "cannot open '%s' of target '%s': %s", real,
					t->label, strerror(e));
				free(real);
				return -e;
			}
			if (S_ISLNK(st->st_mode)) {
				iom_err(err, errlen, ELOOP, "'%s' of target '%s' became a symbolic "
					"link while it was being prepared; iomatrix writes a scratch "
					"file only under its own name", real, t->label);
				free(real);
				return -ELOOP;
			}
		}
		*out = real;
		*exists = true;
		return 0;
	}
	e = errno;
	if (e != ENOENT)
		return iom_err(err, errlen, e, "cannot open '%s': %s", t->path, strerror(e));
	base = iom_path_base(t->path);
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return iom_err(err, errlen, EISDIR,
			       "'%s' of target '%s' names a directory; give a file name for the "
			       "scratch file",
			       t->path, t->label);
	dir = iom_path_dir(t->path);
	rdir = realpath(dir, NULL);
	if (!rdir) {
		e = errno;
		iom_err(err, errlen, e, "directory '%s' of target '%s' %s", dir, t->label,
			e == ENOENT ? "does not exist" : strerror(e));
		free(dir);
		return -e;
	}
	if (stat(rdir, &lst) != 0 || !S_ISDIR(lst.st_mode)) {
		iom_err(err, errlen, ENOTDIR, "'%s' of target '%s' is not a directory", dir,
			t->label);
		free(dir);
		free(rdir);
		return -ENOTDIR;
	}
	*out = iom_path_join(rdir, base);
	free(dir);
	free(rdir);
	return 0;
}


static int prepare_new_file(const struct iom_target *t, struct iom_target_info *info, char *err,
			    size_t errlen)
{
	int fd, r;

	if (t->size == 0)
		return iom_err(err, errlen, EINVAL,
			       "'%s' does not exist; set size in target '%s' to create it",
			       info->path, t->label);
	fd = open(info->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return iom_err(err, errlen, errno, "cannot create scratch file '%s': %s",
			       info->path, strerror(errno));
	r = mark_write(info->path, fd, 0, err, errlen);
	if (!r)
		r = fill(info->path, fd, 0, t->size, fill_data_of(t), info->stop, err, errlen);
	if (!r)
		r = mark_write(info->path, fd, t->size, err, errlen);
	if (!r) {
		struct stat st;

		if (fstat(fd, &st) == 0) {
			info->id.dev = st.st_dev;
			info->id.ino = st.st_ino;
			info->id.btime_ns = file_id_of(fd).btime_ns;
			info->id.marked = true;
		} else {
			r = iom_err(err, errlen, errno, "cannot stat '%s': %s", info->path,
				    strerror(errno));
		}
	}
	close(fd);
	if (r == -EINTR) /* stopped: kept, with its mark, for the next run to fill on */
		return r;
	if (r) { /* leave nothing half-made behind */
		char *side = sidecar_path(info->path);

		unlink(info->path);
		unlink(side);
		free(side);
		return r;
	}
	info->region = t->size;
	info->filled = true;
	return 0;
}

static int prepare_existing_file(const struct iom_target *t, const struct stat *st,
				 struct iom_target_info *info, char *err, size_t errlen)
{
	uint64_t filled = 0, have, want;
	bool writable = true;
	struct stat fst;
	int fd, marked, r = 0;

	fd = open(info->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		writable = false;
		fd = open(info->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd < 0 && errno == ELOOP) {
		char *to = link_text(info->path);

		r = iom_err(err, errlen, ELOOP,
			    "'%s' of target '%s' became a symbolic link to '%s' while it was being "
			    "prepared; iomatrix writes a scratch file only under its own name",
			    info->path, t->label, to);
		free(to);
		return r;
	}
	if (fd < 0)
		return iom_err(err, errlen, errno, "cannot open '%s': %s", info->path,
			       strerror(errno));
	if (fstat(fd, &fst) != 0 || fst.st_dev != st->st_dev || fst.st_ino != st->st_ino) {
		close(fd);
		return iom_err(err, errlen, EAGAIN,
			       "'%s' of target '%s' was replaced while it was being prepared",
			       info->path, t->label);
	}
	if (fst.st_nlink > 1) {
		char *links = links_text(info->path, &fst);

		r = iom_err(err, errlen, EMLINK,
			    "'%s' of target '%s' is a file with %s: writing it would change the "
			    "file under its other name too, so it is refused (overwrite = true "
			    "included); give the path of a file of its own",
			    info->path, t->label, links);
		free(links);
		close(fd);
		return r;
	}
	info->id.dev = fst.st_dev;
	info->id.ino = fst.st_ino;
	info->id.btime_ns = file_id_of(fd).btime_ns;
	marked = mark_read(info->path, fd, &filled);
	if (!marked && !t->overwrite) {
		close(fd);
		return iom_err(err, errlen, EEXIST,
			       "'%s' exists and is not an iomatrix scratch file; set overwrite = "
			       "true in target '%s' to use it",
			       info->path, t->label);
	}
	have = marked ? IOM_MIN(filled, (uint64_t)st->st_size) : 0;
	want = t->size ? t->size : marked ? have : (uint64_t)st->st_size;
	if (want == 0) {
		close(fd);
		return iom_err(err, errlen, EINVAL,
			       "scratch file '%s' is empty; set size in target '%s' to fill it",
			       info->path, t->label);
	}
	if (have < want) {
		if (!writable) {
			close(fd);
			return iom_err(err, errlen, EACCES, "cannot fill scratch file '%s': %s",
				       info->path, strerror(EACCES));
		}
		if (!marked) /* taking it over: ours from now on, even if the fill stops */
			r = mark_write(info->path, fd, 0, err, errlen);
		if (!r)
			r = fill(info->path, fd, have, want, fill_data_of(t), info->stop, err,
				 errlen);
		if (!r)
			r = mark_write(info->path, fd, want, err, errlen);
		info->filled = true;
	}
	close(fd);
	if (!r) {
		info->region = want;
		info->id.marked = true; /* it was, or it is now */
	}
	return r;
}

static int prepare_block(const struct iom_target *t, bool will_write,
			 struct iom_target_info *info, char *err, size_t errlen)
{
	uint64_t bytes = 0;
	int fd = open(info->path, O_RDONLY | O_CLOEXEC), r;
	struct stat st;

	if (fd < 0)
		return iom_err(err, errlen, errno, "cannot open block device '%s': %s", info->path,
			       strerror(errno));
	r = ioctl(fd, BLKGETSIZE64, &bytes);
	if (r != 0 || fstat(fd, &st) != 0) {
		r = iom_err(err, errlen, errno, "cannot read the size of '%s': %s", info->path,
			    strerror(errno));
		close(fd);
		return r;
	}
	info->id.rdev = st.st_rdev;
	info->id.bytes = bytes;
	info->id.diskseq = iom_device_diskseq(fd, st.st_rdev);
	close(fd);
	if (t->size > bytes)
		return iom_err(err, errlen, EINVAL,
			       "size %llu of target '%s' is larger than block device '%s' (%llu "
			       "bytes)",
			       (unsigned long long)t->size, t->label, info->path,
			       (unsigned long long)bytes);
	info->region = t->size ? t->size : bytes;
	if (info->region == 0)
		return iom_err(err, errlen, EINVAL, "block device '%s' of target '%s' is empty",
			       info->path, t->label);
	if (!will_write)
		return 0;
	if (!t->destructive)
		return iom_err(err, errlen, EPERM,
			       "refusing to write to block device '%s': set destructive = true in "
			       "target '%s' if everything on it may be destroyed",
			       info->path, t->label);
	r = iom_target_check_writable("/", info->path, NULL, err, errlen);
	info->id.writable = r == 0;
	return r;
}

int iom_target_prepare(const struct iom_target *t, bool will_write, struct iom_target_info *info,
		       char *err, size_t errlen)
{
	return iom_target_prepare_stoppable(t, will_write, NULL, info, err, errlen);
}

static int prepare_one(const struct iom_target *t, bool will_write, volatile sig_atomic_t *stop,
		       struct iom_target_info *info, char *err, size_t errlen)
{
	struct stat st;
	bool exists;
	int r;

	memset(info, 0, sizeof(*info));
	info->t = t;
	info->stop = stop;
	info->facts.rotational = -1;
	if (!t->path || !*t->path)
		return iom_err(err, errlen, EINVAL, "target '%s' has no path",
			       t->label ? t->label : "?");
	r = resolve(t, &info->path, &st, &exists, err, errlen);
	if (r)
		return r;
	if (!exists) {
		r = prepare_new_file(t, info, err, errlen);
	} else if (S_ISBLK(st.st_mode)) {
		info->is_block = true;
		r = prepare_block(t, will_write, info, err, errlen);
	} else if (S_ISREG(st.st_mode)) {
		r = prepare_existing_file(t, &st, info, err, errlen);
	} else if (S_ISDIR(st.st_mode)) {
		r = iom_err(err, errlen, EISDIR,
			    "'%s' of target '%s' is a directory; give a file name for the scratch "
			    "file",
			    t->path, t->label);
	} else {
		r = iom_err(err, errlen, EINVAL,
			    "'%s' of target '%s' is neither a regular file nor a block device",
			    t->path, t->label);
	}
	if (r)
		return r;
	iom_device_facts_read("/", info->path, &info->facts);
	if (t->controller && *t->controller && strcmp(t->controller, "auto") != 0)
		info->controller = xstrdup(t->controller);
	else if (info->facts.driver)
		info->controller = xstrdup(info->facts.driver);
	return 0;
}

/* several paths: target t with path p of its paths in place of its own (borrowed strings). */
static struct iom_target path_view(const struct iom_target *t, size_t p)
{
	struct iom_target v = *t;

	v.path = t->paths[p];
	v.paths = NULL;
	v.npaths = 0;
	return v;
}

/* several paths: the pass over a target's paths that writes nothing: each resolves as a single
 * path does, all of one kind, none the same file or device as another. 0, or -errno naming
 * the path. */
static int check_paths(const struct iom_target *t, char *err, size_t errlen)
{
	char **real = xcalloc(t->npaths, sizeof(*real));
	struct stat *st = xcalloc(t->npaths, sizeof(*st));
	bool *exists = xcalloc(t->npaths, sizeof(*exists));
	int r = 0;

	for (size_t p = 0; p < t->npaths && !r; p++) {
		struct iom_target v = path_view(t, p);

		r = resolve(&v, &real[p], &st[p], &exists[p], err, errlen);
		if (r)
			break;
		if (exists[p] && !S_ISBLK(st[p].st_mode) && !S_ISREG(st[p].st_mode)) {
			r = iom_err(err, errlen, EINVAL, "'%s' of target '%s' is neither a regular "
				    "file nor a block device", t->paths[p], t->label);
			break;
		}
		if (exists[p] && S_ISREG(st[p].st_mode)) {
			/* what prepare would refuse of an existing file, before another path of
			 * the target is created or filled: a second hard link, no mark */
			int fd = open(real[p], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			uint64_t filled = 0;

			if (fd < 0) {
				r = iom_err(err, errlen, errno, "cannot open '%s': %s", real[p],
					    strerror(errno));
				break;
			}
			if (st[p].st_nlink > 1)
				r = iom_err(err, errlen, EMLINK, "'%s' of target '%s' is a file with "
					    "%ju links: writing it would change the file under its "
					    "other name too, so it is refused (overwrite = true "
					    "included); give the path of a file of its own", real[p],
					    t->label, (uintmax_t)st[p].st_nlink);
			else if (!t->overwrite && !mark_read(real[p], fd, &filled))
				r = iom_err(err, errlen, EEXIST, "'%s' exists and is not an iomatrix "
					    "scratch file; set overwrite = true in target '%s' to use "
					    "it", real[p], t->label);
			close(fd);
			if (r)
				break;
		}
		for (size_t q = 0; q < p && !r; q++) {
			bool blk_p = exists[p] && S_ISBLK(st[p].st_mode);
			bool blk_q = exists[q] && S_ISBLK(st[q].st_mode);

			if (blk_p != blk_q)
				r = iom_err(err, errlen, EINVAL, "target '%s' mixes files and devices: "
					    "'%s' is %s, '%s' is not", t->label, t->paths[p],
					    blk_p ? "a block device" : "a file", t->paths[q]);
			else if (strcmp(real[p], real[q]) == 0 ||
				 (exists[p] && exists[q] &&
				  (blk_p ? st[p].st_rdev == st[q].st_rdev
					 : (st[p].st_dev == st[q].st_dev &&
					    st[p].st_ino == st[q].st_ino))))
				r = iom_err(err, errlen, EINVAL, "'%s' and '%s' of target '%s' are "
					    "the same %s: give each path once", t->paths[q],
					    t->paths[p], t->label, blk_p ? "device" : "file");
		}
	}
	for (size_t p = 0; p < t->npaths; p++)
		free(real[p]);
	free(real);
	free(st);
	free(exists);
	return r;
}

int iom_target_prepare_stoppable(const struct iom_target *t, bool will_write,
				 volatile sig_atomic_t *stop, struct iom_target_info *info,
				 char *err, size_t errlen)
{
	int r;

	if (t->npaths < 2)
		return prepare_one(t, will_write, stop, info, err, errlen);
	/* several paths: every path checked before any is written, then each prepared in turn */
	memset(info, 0, sizeof(*info));
	info->t = t;
	if ((r = check_paths(t, err, errlen)) < 0)
		return r;
	if ((r = prepare_one(t, will_write, stop, info, err, errlen)) < 0)
		return r;
	info->view = xcalloc(t->npaths - 1, sizeof(*info->view));
	info->more = xcalloc(t->npaths - 1, sizeof(*info->more));
	for (size_t k = 0; k + 1 < t->npaths; k++) {
		info->view[k] = path_view(t, k + 1);
		info->nmore = k + 1;
		r = prepare_one(&info->view[k], will_write, stop, &info->more[k], err, errlen);
		if (r < 0)
			return r;
		if (info->more[k].is_block != info->is_block)
			return iom_err(err, errlen, EINVAL, "target '%s' mixes files and devices "
				       "('%s' and '%s')", t->label, t->paths[0], t->paths[k + 1]);
	}
	return 0;
}

const struct iom_target_info *iom_target_info_path(const struct iom_target_info *info, size_t p)
{
	return p == 0 ? info : &info->more[p - 1];
}

void iom_target_info_release(struct iom_target_info *info)
{
	if (!info)
		return;
	for (size_t k = 0; k < info->nmore; k++)
		iom_target_info_release(&info->more[k]);
	free(info->more);
	free(info->view);
	info->more = NULL;
	info->view = NULL;
	info->nmore = 0;
	free(info->path);
	free(info->controller);
	iom_device_facts_release(&info->facts);
	info->path = NULL;
	info->controller = NULL;
}

/* ---- open ------------------------------------------------------------------------------- */

static const char *fs_name(long type)
{
	switch (type) {
	case TMPFS_MAGIC: return "tmpfs";
	case RAMFS_MAGIC: return "ramfs";
	case OVERLAYFS_SUPER_MAGIC: return "overlayfs";
	case FUSE_SUPER_MAGIC: return "a FUSE filesystem";
	case NFS_SUPER_MAGIC: return "NFS";
	case MSDOS_SUPER_MAGIC: return "FAT";
	default: return NULL;
	}
}

/* Checks that fd is the scratch file info was prepared with. 0, or -ESTALE with what changed. */
static int verify_file(const struct iom_target_info *info, int fd, char *err, size_t errlen)
{
	uint64_t filled = 0;
	struct stat st;
	int r = 0;

	if (fstat(fd, &st) != 0)
		return iom_err(err, errlen, errno, "cannot stat '%s': %s", info->path,
			       strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_dev != info->id.dev || st.st_ino != info->id.ino ||
	    file_id_of(fd).btime_ns != info->id.btime_ns)
		return iom_err(err, errlen, ESTALE,
			       "'%s' is no longer the scratch file the sweep started with: another "
			       "file took its name",
			       info->path);
	if (st.st_nlink > 1) {
		char *links = links_text(info->path, &st);

		r = iom_err(err, errlen, ESTALE,
			    "'%s' now has %s; the scratch file had a single name when the sweep "
			    "started",
			    info->path, links);
		free(links);
		return r;
	}
	if (info->id.marked && mark_read(info->path, fd, &filled) != 1)
		return iom_err(err, errlen, ESTALE,
			       "'%s' no longer carries iomatrix's mark (%s); it did when the sweep "
			       "started",
			       info->path, IOM_TARGET_MARK_XATTR);
	if ((uint64_t)st.st_size < info->region)
		return iom_err(err, errlen, ESTALE,
			       "'%s' is now %llu bytes, shorter than the %llu bytes of its region "
			       "when the sweep started",
			       info->path, (unsigned long long)st.st_size,
			       (unsigned long long)info->region);
	return 0;
}

/* Checks that fd is the device info was prepared with. 0, or -ESTALE with what changed. */
static int verify_block(const struct iom_target_info *info, int fd, char *err, size_t errlen)
{
	uint64_t bytes = 0, seq;
	struct stat st;

	if (fstat(fd, &st) != 0)
		return iom_err(err, errlen, errno, "cannot stat '%s': %s", info->path,
			       strerror(errno));
	if (!S_ISBLK(st.st_mode) || st.st_rdev != info->id.rdev)
		return iom_err(err, errlen, ESTALE,
			       "'%s' is no longer the device the sweep started with (now %u:%u, "
			       "was %u:%u)",
			       info->path, major(st.st_rdev), minor(st.st_rdev),
			       major(info->id.rdev), minor(info->id.rdev));
	seq = iom_device_diskseq(fd, st.st_rdev);
	if (info->id.diskseq && seq && seq != info->id.diskseq)
		return iom_err(err, errlen, ESTALE,
			       "'%s' is no longer the device the sweep started with: its disk "
			       "sequence number is now %llu, was %llu (the name went to another "
			       "disk, or the loop device was attached again)",
			       info->path, (unsigned long long)seq,
			       (unsigned long long)info->id.diskseq);
	if (ioctl(fd, BLKGETSIZE64, &bytes) != 0)
		return iom_err(err, errlen, errno, "cannot read the size of '%s': %s", info->path,
			       strerror(errno));
	if (bytes != info->id.bytes)
		return iom_err(err, errlen, ESTALE,
			       "'%s' is now %llu bytes; it was %llu when the sweep started",
			       info->path, (unsigned long long)bytes,
			       (unsigned long long)info->id.bytes);
	return 0;
}

int iom_target_device_pin(const char *path, struct iom_target_identity *id, char *err,
			  size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;

	memset(id, 0, sizeof(*id));
	if (fd < 0)
		return iom_err(err, errlen, errno, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISBLK(st.st_mode))
		r = iom_err(err, errlen, ENOTBLK, "'%s' is not a block device", path);
	else if (ioctl(fd, BLKGETSIZE64, &id->bytes) != 0)
		r = iom_err(err, errlen, errno, "cannot read the size of '%s': %s", path,
			    strerror(errno));
	if (!r) {
		id->rdev = st.st_rdev;
		id->diskseq = iom_device_diskseq(fd, st.st_rdev);
	}
	close(fd);
	return r;
}

int iom_target_device_check(const char *path, const struct iom_target_identity *id, char *err,
			    size_t errlen)
{
	struct iom_target_info info = { .path = (char *)path, .is_block = true, .id = *id };
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0) {
		int e = errno;

		return iom_err(err, errlen, e == ENOENT ? ESTALE : e, "cannot open '%s': %s%s",
			       path, strerror(e),
			       e == ENOENT ? " (the device the sweep started with is gone)" : "");
	}
	r = verify_block(&info, fd, err, errlen);
	close(fd);
	return r;
}


/* Why an exclusive open of the device failed with EBUSY: -ESTALE with what changed. */
static int busy_reason(const struct iom_target_info *info, char *err, size_t errlen)
{
	int fd = open(info->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), r = 0;

	if (fd >= 0) {
		r = verify_block(info, fd, err, errlen);
		if (!r && iom_target_recheck_writable(info->path, info->id.rdev, fd, err, errlen) == -ESTALE)
			r = -ESTALE;
		close(fd);
	}
	if (r)
		return r;
	return iom_err(err, errlen, ESTALE,
		       "'%s' is now in use: the kernel refused an exclusive open (a mount, swap, "
		       "RAID, device-mapper or another program holds it); it was not when the "
		       "sweep started",
		       info->path);
}

static int direct_refused(const struct iom_target_info *info, char *err, size_t errlen)
{
	struct statfs sfs;
	const char *name = NULL;

	if (!info->is_block && statfs(info->path, &sfs) == 0)
		name = fs_name((long)sfs.f_type);
	return iom_err(err, errlen, EINVAL, "'%s' does not support O_DIRECT (%s); set direct = false",
		       info->path, name ? name : "its filesystem refuses it");
}

int iom_target_open(const struct iom_target_info *info, bool direct, bool will_write, char *err,
		    size_t errlen)
{
	return iom_target_open_sync(info, direct, will_write, false, err, errlen);
}

int iom_target_open_sync(const struct iom_target_info *info, bool direct, bool will_write,
			 bool dsync, char *err, size_t errlen)
{
	bool excl = info->is_block && will_write;
	/* a device to be written is probed (libblkid reads unaligned) before O_DIRECT is set */
	bool late_direct = direct && excl;
	/* O_DSYNC only at open: fcntl(F_SETFL) cannot set it, and probing is not affected */
	int flags = (will_write ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW |
		    (excl ? O_EXCL : 0) | (direct && !late_direct ? O_DIRECT : 0) |
		    (dsync && will_write ? O_DSYNC : 0);
	int fd = open(info->path, flags | O_NOATIME), e, r;

	if (fd < 0 && errno == EPERM) /* O_NOATIME needs ownership or CAP_FOWNER */
		fd = open(info->path, flags);
	if (fd < 0) {
		e = errno;
		if (e == ELOOP) {
			char *to = link_text(info->path);

			r = iom_err(err, errlen, ESTALE,
				    "'%s' is now a symbolic link to '%s'; it was %s itself when the "
				    "sweep started",
				    info->path, to, info->is_block ? "the device" : "the scratch file");
			free(to);
			return r;
		}
		if (e == ENOENT)
			return iom_err(err, errlen, ESTALE,
				       "'%s' no longer exists; it was %s when the sweep started",
				       info->path, info->is_block ? "a device" : "the scratch file");
		if (e == EBUSY && excl)
			return busy_reason(info, err, errlen);
		if (e == EINVAL && direct)
			return direct_refused(info, err, errlen);
		return iom_err(err, errlen, e, "cannot open '%s': %s", info->path, strerror(e));
	}
	r = info->is_block ? verify_block(info, fd, err, errlen) : verify_file(info, fd, err, errlen);
	if (!r && excl) {
		if (!info->id.writable) /* the caller's mistake: prepared for reading only */
			r = iom_err(err, errlen, EPERM,
				    "refusing to write to block device '%s': it was prepared for "
				    "reading only",
				    info->path);
		else
			r = iom_target_recheck_writable(info->path, info->id.rdev, fd, err, errlen);
	}
	if (!r && late_direct) {
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_DIRECT) != 0)
			r = direct_refused(info, err, errlen);
	}
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

