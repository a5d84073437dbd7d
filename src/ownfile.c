/* SPDX-License-Identifier: MIT */
/*
 * ownfile — iomatrix's own files, opened so that nobody else's file is ever written through
 * them (see ownfile.h for what is guaranteed).
 *
 * The one resolver: a path under a pinned directory is walked from the directory's descriptor,
 * each component opened O_DIRECTORY|O_NOFOLLOW, so a link anywhere below the results directory
 * (traces/ pointing elsewhere) stops the walk; any other path has its directory opened as the
 * user wrote it. Either way the caller gets a directory descriptor and a last component, and
 * everything else is an *at() call on them: the last component is looked at without following
 * it (fstatat AT_SYMLINK_NOFOLLOW) before it is opened, opened O_NOFOLLOW|O_NONBLOCK (a FIFO
 * never blocks us), and its descriptor checked again (S_ISREG), which closes the race between
 * the look and the open.
 */
#include "ownfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* Where a path leads: an open directory and the last component in it. */
struct where {
	int dirfd;
	char *copy; /* holds base */
	const char *base;
};

static void where_release(struct where *w)
{
	if (w->dirfd >= 0)
		close(w->dirfd);
	free(w->copy);
	w->dirfd = -1;
	w->copy = NULL;
}

/* The part of path below d, or NULL when path is not under d. */
static const char *under(const struct iom_own_dir *d, const char *path)
{
	size_t n;

	if (!d || d->fd < 0 || !d->path)
		return NULL;
	n = strlen(d->path);
	if (n == 1 && d->path[0] == '/')
		n = 0;
	if (strncmp(path, d->path, n) != 0 || path[n] != '/')
		return NULL;
	path += n;
	while (*path == '/')
		path++;
	return path;
}

/* What a non-regular file is, in words; NULL for a regular file. */
static const char *kind(mode_t m)
{
	if (S_ISREG(m))
		return NULL;
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISDIR(m))
		return "a directory";
	return "not a regular file";
}

/* A path that is not a regular file, in words that say what it is: among iomatrix's own files
 * (how another than IOM_OWN_FOLLOW) something to remove; an input the user names, a wrong path. */
static int refuse(char *err, size_t errlen, const char *path, const char *what,
		  enum iom_own_how how)
{
	int e = strcmp(what, "a directory") == 0 ? EISDIR : EPERM;

	if (how == IOM_OWN_FOLLOW)
		return iom_err(err, errlen, e, "'%s' is %s, not a regular file", path, what);
	return iom_err(err, errlen, e,
		       "'%s' is %s, not a file iomatrix made: iomatrix does not follow links or "
		       "write into special files among its own (remove it)", path, what);
}

/* Finds path's directory (verb says what failed: "cannot read 'PATH'", …). */
static int resolve(const struct iom_own_dir *d, const char *path, const char *verb,
		   struct where *w, char *err, size_t errlen)
{
	const char *rel = under(d, path);
	char *slash;
	int e;

	w->dirfd = -1;
	w->copy = xstrdup(rel ? rel : path);
	slash = strrchr(w->copy, '/');
	w->base = slash ? slash + 1 : w->copy;
	if (!*w->base || strcmp(w->base, ".") == 0 || strcmp(w->base, "..") == 0) {
		e = EISDIR;
		iom_err(err, errlen, e, "'%s' names a directory, not a file", path);
		goto fail;
	}
	if (!rel) {
		const char *dir = ".";

		if (slash == w->copy)
			dir = "/";
		else if (slash) {
			*slash = '\0';
			dir = w->copy;
		}
		w->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (w->dirfd < 0) {
			e = errno;
			iom_err(err, errlen, e, "cannot %s '%s': %s", verb, path, strerror(e));
			goto fail;
		}
		return 0;
	}
	w->dirfd = fcntl(d->fd, F_DUPFD_CLOEXEC, 0);
	if (w->dirfd < 0) {
		e = errno;
		iom_err(err, errlen, e, "'%s': %s", d->path, strerror(e));
		goto fail;
	}
	if (!slash)
		return 0;
	*slash = '\0';
	for (char *c = w->copy, *next; c; c = next) {
		int fd;

		next = strchr(c, '/');
		if (next)
			*next++ = '\0';
		if (!*c || strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			e = EINVAL;
			iom_err(err, errlen, e, "'%s' leaves '%s' ('..')", path, d->path);
			goto fail;
		}
		fd = openat(w->dirfd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			struct stat st;
			size_t upto = (size_t)(c - w->copy) + strlen(c);

			e = errno;
			if (fstatat(w->dirfd, c, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    !S_ISDIR(st.st_mode)) {
				e = EPERM;
				iom_err(err, errlen, e,
					"'%s/%.*s' is %s, not a directory iomatrix made: iomatrix "
					"does not follow links among its own files (remove it)",
					d->path, (int)upto, rel, kind(st.st_mode));
			} else {
				iom_err(err, errlen, e, "cannot %s '%s': %s", verb, path,
					strerror(e));
			}
			goto fail;
		}
		close(w->dirfd);
		w->dirfd = fd;
	}
	return 0;
fail:
	where_release(w);
	return -e;
}

int iom_own_dir_strict(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;
	uid_t me = geteuid();

	if (fstat(fd, &st) < 0)
		return iom_err(err, errlen, errno, "'%s': %s", path, strerror(errno));
	if (st.st_uid != me && st.st_uid != 0)
		return iom_err(err, errlen, EPERM,
			       "'%s' is owned by uid %u: iomatrix writes results only into a "
			       "directory owned by you (uid %u) or root, which nobody else can "
			       "change under it (chown it, or name a new directory)",
			       path, (unsigned)st.st_uid, (unsigned)me);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !((st.st_mode & S_ISVTX) && st.st_uid == me))
		return iom_err(err, errlen, EPERM,
			       "'%s' is writable by others (mode %04o): iomatrix writes results "
			       "only where nobody else can plant or swap files (chmod go-w '%s', "
			       "or name a directory of your own inside it: -o '%s/NAME')",
			       path, (unsigned)(st.st_mode & 07777), path, path);
	return 0;
}

int iom_own_dir_open(struct iom_own_dir *d, const char *path, unsigned flags, char *err,
		     size_t errlen)
{
	struct stat st;
	size_t n = strlen(path);
	bool made;
	int e;

	d->fd = -1;
	d->path = NULL;
	while (n > 1 && path[n - 1] == '/')
		n--;
	d->path = xasprintf("%.*s", (int)n, path);
	made = (flags & IOM_OWN_DIR_CREATE) && lstat(d->path, &st) < 0 && errno == ENOENT;
	if ((flags & IOM_OWN_DIR_CREATE) && (e = -iom_mkdir_p(d->path)) != 0) {
		iom_err(err, errlen, e, "cannot create '%s': %s", d->path, strerror(e));
		goto fail;
	}
	d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0) {
		e = errno;
		if (lstat(d->path, &st) == 0 && !S_ISDIR(st.st_mode))
			iom_err(err, errlen, e = ENOTDIR, "'%s' is %s, not a directory%s", d->path,
				kind(st.st_mode),
				S_ISLNK(st.st_mode) ? ": name the directory it leads to" : "");
		else
			iom_err(err, errlen, e, "cannot open '%s': %s", d->path, strerror(e));
		goto fail;
	}
	if (fstat(d->fd, &st) < 0) {
		e = errno;
		iom_err(err, errlen, e, "'%s': %s", d->path, strerror(e));
		goto fail;
	}
	/* made here: nobody else may write it, whatever the umask gave */
	if (made && (st.st_mode & (S_IWGRP | S_IWOTH)) &&
	    fchmod(d->fd, st.st_mode & 07755 & ~(mode_t)(S_IWGRP | S_IWOTH)) < 0) {
		e = errno;
		iom_err(err, errlen, e, "cannot chmod '%s': %s", d->path, strerror(e));
		goto fail;
	}
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	if ((flags & IOM_OWN_DIR_STRICT) && (e = -iom_own_dir_strict(d->fd, d->path, err, errlen)))
		goto fail;
	return 0;
fail:
	iom_own_dir_release(d);
	return -e;
}

void iom_own_dir_release(struct iom_own_dir *d)
{
	if (d->fd >= 0 && d->path)
		close(d->fd);
	free(d->path);
	d->path = NULL;
	d->fd = -1;
}

int iom_own_dir_check(const struct iom_own_dir *d, char *err, size_t errlen)
{
	struct stat now;

	if (lstat(d->path, &now) < 0)
		return iom_err(err, errlen, ESTALE,
			       "'%s' is gone (%s) since this sweep opened it", d->path,
			       strerror(errno));
	if (now.st_dev != d->dev || now.st_ino != d->ino)
		return iom_err(err, errlen, ESTALE,
			       "'%s' is no longer the directory this sweep opened (moved, replaced "
			       "or mounted over): its results would go elsewhere", d->path);
	return 0;
}

/* The open(2) flags of each way to open. */
static int how_flags(enum iom_own_how how)
{
	switch (how) {
	case IOM_OWN_READ:
		return O_RDONLY | O_NOFOLLOW;
	case IOM_OWN_FOLLOW:
		return O_RDONLY;
	case IOM_OWN_APPEND:
		return O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW;
	case IOM_OWN_LOCK:
		return O_RDWR | O_CREAT | O_NOFOLLOW;
	case IOM_OWN_NEW:
	case IOM_OWN_FRESH:
		break;
	}
	return O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW;
}

/* Opens w's last component as how says; path is for messages. */
static int open_at(const struct where *w, const char *path, enum iom_own_how how, char *err,
		   size_t errlen)
{
	int flags = how_flags(how), fd, e;
	bool writes = how != IOM_OWN_READ && how != IOM_OWN_FOLLOW;
	struct stat st;

	if (how == IOM_OWN_FRESH && unlinkat(w->dirfd, w->base, 0) < 0 && errno != ENOENT) {
		e = errno;
		if (fstatat(w->dirfd, w->base, &st, AT_SYMLINK_NOFOLLOW) == 0 && kind(st.st_mode))
			return refuse(err, errlen, path, kind(st.st_mode), how);
		return iom_err(err, errlen, e, "cannot remove '%s': %s", path, strerror(e));
	}
	/* Look before opening, so that a device is never opened at all. */
	if (fstatat(w->dirfd, w->base, &st, how == IOM_OWN_FOLLOW ? 0 : AT_SYMLINK_NOFOLLOW) == 0 &&
	    kind(st.st_mode) && !(how == IOM_OWN_NEW || how == IOM_OWN_FRESH))
		return refuse(err, errlen, path, kind(st.st_mode), how);
	fd = openat(w->dirfd, w->base, flags | O_CLOEXEC | O_NONBLOCK, 0644);
	if (fd < 0) {
		e = errno;
		if (fstatat(w->dirfd, w->base, &st, AT_SYMLINK_NOFOLLOW) == 0 && kind(st.st_mode))
			return refuse(err, errlen, path, kind(st.st_mode), how);
		if (e == EEXIST)
			return iom_err(err, errlen, e, "'%s' exists already: iomatrix creates its own "
				       "files afresh (remove it)", path);
		return iom_err(err, errlen, e, "cannot %s '%s': %s",
			       flags & O_CREAT ? "create" : writes ? "open" : "read", path,
			       strerror(e));
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		return iom_err(err, errlen, e, "'%s': %s", path, strerror(e));
	}
	if (kind(st.st_mode)) {
		close(fd);
		return refuse(err, errlen, path, kind(st.st_mode), how);
	}
	if (writes && st.st_nlink > 1) {
		close(fd);
		return iom_err(err, errlen, EPERM,
			       "'%s' has %lu hard links: iomatrix writes only files of its own "
			       "(remove it)", path, (unsigned long)st.st_nlink);
	}
	if (fcntl(fd, F_SETFL, flags & O_APPEND) < 0) {
		e = errno;
		close(fd);
		return iom_err(err, errlen, e, "'%s': %s", path, strerror(e));
	}
	return fd;
}

int iom_own_open(const struct iom_own_dir *d, const char *path, enum iom_own_how how, char *err,
		 size_t errlen)
{
	struct where w;
	int ret = resolve(d, path, how == IOM_OWN_READ || how == IOM_OWN_FOLLOW ? "read"
			  : how == IOM_OWN_NEW || how == IOM_OWN_FRESH ? "create" : "open",
			  &w, err, errlen);

	if (ret < 0)
		return ret;
	ret = open_at(&w, path, how, err, errlen);
	where_release(&w);
	return ret;
}

FILE *iom_own_fopen(const struct iom_own_dir *d, const char *path, const char *mode, char *err,
		    size_t errlen)
{
	enum iom_own_how how = mode[0] == 'a' ? IOM_OWN_APPEND : mode[0] == 'w' ? IOM_OWN_FRESH
									      : IOM_OWN_READ;
	int fd = iom_own_open(d, path, how, err, errlen);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, how == IOM_OWN_READ ? "r" : how == IOM_OWN_APPEND ? "a" : "w");
	if (!f) {
		iom_err(err, errlen, errno, "'%s': %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

/* A random suffix for a temporary name (getrandom, else the clock). */
static unsigned long random_word(void)
{
	unsigned long r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (unsigned long)(iom_now_ns() * 0x9e3779b97f4a7c15ull);
	return r;
}

int iom_own_write_atomic(const struct iom_own_dir *d, const char *path, const void *data,
			 size_t len, char *err, size_t errlen)
{
	struct where w;
	struct stat st;
	char *tmp = NULL;
	int fd = -1, ret = resolve(d, path, "write", &w, err, errlen);

	if (ret < 0)
		return ret;
	if (fstatat(w.dirfd, w.base, &st, AT_SYMLINK_NOFOLLOW) == 0 && kind(st.st_mode)) {
		ret = refuse(err, errlen, path, kind(st.st_mode), IOM_OWN_FRESH);
		goto out;
	}
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		free(tmp);
		tmp = xasprintf("%s.tmp.%ld.%06lx", w.base, (long)getpid(), random_word() & 0xffffff);
		fd = openat(w.dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		ret = iom_err(err, errlen, errno, "cannot create a temporary beside '%s': %s", path,
			      strerror(errno));
		goto out;
	}
	ret = iom_write_all(fd, data, len);
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && renameat(w.dirfd, tmp, w.dirfd, w.base) < 0)
		ret = -errno;
	if (ret == 0 && fsync(w.dirfd) < 0 && errno != EINVAL)
		ret = -errno;
	if (ret < 0) {
		unlinkat(w.dirfd, tmp, 0);
		iom_err(err, errlen, -ret, "cannot write '%s': %s", path, strerror(-ret));
	}
out:
	free(tmp);
	where_release(&w);
	return ret;
}

int iom_write_file_atomic(const char *path, const void *data, size_t len)
{
	return iom_own_write_atomic(NULL, path, data, len, NULL, 0);
}

int iom_own_read(const struct iom_own_dir *d, const char *path, enum iom_own_how how, size_t cap,
		 char **data, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t n = 0, size;
	char *buf;
	int fd = iom_own_open(d, path, how == IOM_OWN_FOLLOW ? how : IOM_OWN_READ, err, errlen), e;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || st.st_size < 0) {
		e = errno ? errno : EIO;
		close(fd);
		return iom_err(err, errlen, e, "'%s': %s", path, strerror(e));
	}
	if ((uint64_t)st.st_size > cap)
		goto too_big;
	size = (size_t)st.st_size + 1;
	buf = xmalloc(size + 1);
	for (;;) {
		ssize_t got = read(fd, buf + n, size - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			free(buf);
			close(fd);
			return iom_err(err, errlen, e, "cannot read '%s': %s", path, strerror(e));
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > cap) {
			free(buf);
			goto too_big;
		}
		if (n == size) {
			size = IOM_MIN(size * 2, cap + 1);
			buf = xrealloc(buf, size + 1);
		}
	}
	close(fd);
	buf[n] = '\0';
	*data = buf;
	if (len)
		*len = n;
	return 0;
too_big:
	close(fd);
	return iom_err(err, errlen, EFBIG,
		       "'%s' is larger than %zu MiB, more than iomatrix ever writes there", path,
		       cap >> 20);
}

int iom_own_mkdir(const struct iom_own_dir *d, const char *path, char *err, size_t errlen)
{
	struct where w;
	struct stat st;
	int ret = resolve(d, path, "create", &w, err, errlen), fd;

	if (ret < 0)
		return ret;
	if (mkdirat(w.dirfd, w.base, 0755) == 0) {
		/* made here: 0755 whatever the umask gave, so that nobody else plants files in it */
		fd = openat(w.dirfd, w.base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fchmod(fd, 0755) < 0)
			ret = iom_err(err, errlen, errno, "cannot chmod '%s': %s", path,
				      strerror(errno));
		if (fd >= 0)
			close(fd);
	} else if (errno != EEXIST) {
		ret = iom_err(err, errlen, errno, "cannot create '%s': %s", path, strerror(errno));
	}
	if (ret == 0 && fstatat(w.dirfd, w.base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		ret = iom_err(err, errlen, errno, "'%s': %s", path, strerror(errno));
	else if (ret == 0 && !S_ISDIR(st.st_mode))
		ret = iom_err(err, errlen, EPERM,
			      "'%s' is %s, not a directory iomatrix made: iomatrix does not follow "
			      "links among its own files (remove it)", path, kind(st.st_mode));
	where_release(&w);
	return ret;
}

DIR *iom_own_opendir(const struct iom_own_dir *d, const char *path, char *err, size_t errlen)
{
	struct where w;
	DIR *dh;
	int fd;

	if (d && d->fd >= 0 && strcmp(path, d->path) == 0) {
		fd = openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		struct stat st;

		if (resolve(d, path, "open", &w, err, errlen) < 0)
			return NULL;
		fd = openat(w.dirfd, w.base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && fstatat(w.dirfd, w.base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode)) {
			iom_err(err, errlen, EPERM,
				"'%s' is %s, not a directory iomatrix made: iomatrix does not "
				"follow links among its own files (remove it)", path,
				kind(st.st_mode));
			where_release(&w);
			errno = EPERM;
			return NULL;
		}
		where_release(&w);
	}
	if (fd < 0) {
		int e = errno;

		iom_err(err, errlen, e, "cannot open '%s': %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	dh = fdopendir(fd);
	if (!dh) {
		int e = errno;

		close(fd);
		iom_err(err, errlen, e, "cannot list '%s': %s", path, strerror(e));
		errno = e;
	}
	return dh;
}

int iom_own_unlink(const struct iom_own_dir *d, const char *path)
{
	struct where w;
	int ret = resolve(d, path, "remove", &w, NULL, 0);

	if (ret < 0)
		return ret;
	if (unlinkat(w.dirfd, w.base, 0) < 0 && errno != ENOENT)
		ret = -errno;
	where_release(&w);
	return ret;
}

int iom_own_rename(const struct iom_own_dir *d, const char *from, const char *to)
{
	struct where a, b;
	int ret = resolve(d, from, "rename", &a, NULL, 0);

	if (ret < 0)
		return ret;
	if ((ret = resolve(d, to, "rename", &b, NULL, 0)) == 0) {
		if (renameat(a.dirfd, a.base, b.dirfd, b.base) < 0 || fsync(b.dirfd) < 0)
			ret = -errno;
		where_release(&b);
	}
	where_release(&a);
	return ret;
}

int iom_own_link(const struct iom_own_dir *d, const char *from, const char *to)
{
	struct where a, b;
	int ret = resolve(d, from, "link", &a, NULL, 0);

	if (ret < 0)
		return ret;
	if ((ret = resolve(d, to, "link", &b, NULL, 0)) == 0) {
		if (linkat(a.dirfd, a.base, b.dirfd, b.base, 0) < 0 || fsync(b.dirfd) < 0)
			ret = -errno;
		where_release(&b);
	}
	where_release(&a);
	return ret;
}

int iom_own_fsync_dir(const struct iom_own_dir *d, const char *path)
{
	struct where w;
	int ret = 0;

	if (d && d->fd >= 0 && (!path || strcmp(path, d->path) == 0))
		return fsync(d->fd) < 0 && errno != EINVAL ? -errno : 0;
	if ((ret = resolve(d, path, "fsync", &w, NULL, 0)) < 0)
		return ret;
	if (fsync(w.dirfd) < 0 && errno != EINVAL)
		ret = -errno;
	where_release(&w);
	return ret;
}

char *iom_own_mkdtemp(const char *parent, const char *prefix, char *err, size_t errlen)
{
	char *path = strcmp(parent, "/") == 0 ? xasprintf("/%s-XXXXXX", prefix)
					      : xasprintf("%s/%s-XXXXXX", parent, prefix);

	if (!mkdtemp(path)) {
		iom_err(err, errlen, errno, "cannot create a directory in '%s': %s", parent,
			strerror(errno));
		free(path);
		return NULL;
	}
	return path;
}

/* Empties the directory open at fd (dev: its file system), closing fd. */
static int empty_dir(int fd, dev_t dev)
{
	DIR *dh = fdopendir(fd);
	struct dirent *de;
	int ret = 0;

	if (!dh) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((de = readdir(dh))) {
		struct stat st;
		int sub, r = 0;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(dh), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = errno == ENOENT ? 0 : -errno;
		} else if (!S_ISDIR(st.st_mode)) {
			if (unlinkat(dirfd(dh), de->d_name, 0) < 0 && errno != ENOENT)
				r = -errno;
		} else if (st.st_dev != dev) {
			r = -EXDEV; /* a mount inside: never descended into */
		} else if ((sub = openat(dirfd(dh), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			r = -errno;
		} else if ((r = empty_dir(sub, dev)) == 0 &&
			   unlinkat(dirfd(dh), de->d_name, AT_REMOVEDIR) < 0) {
			r = -errno;
		}
		if (r < 0 && ret == 0)
			ret = r;
	}
	closedir(dh);
	return ret;
}

int iom_own_rmtree(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ret;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode))
			return unlink(path) < 0 ? -errno : 0;
		return -errno;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if ((ret = empty_dir(fd, st.st_dev)) < 0)
		return ret;
	return rmdir(path) < 0 && errno != ENOENT ? -errno : 0;
}
