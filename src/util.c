/* SPDX-License-Identifier: MIT */
/*
 * util — allocation, clocks, error text, the write loop, mkdir -p and the bounded reader of
 * /proc and /sys files shared by every module.
 */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>


static void out_of_memory(size_t n)
{
	fprintf(stderr, "iomatrix: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		out_of_memory(n);
	return q;
}

void *iom_try_calloc(size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		return NULL;
	return calloc(nmemb ? nmemb : 1, size ? size : 1);
}

void *iom_try_aligned(size_t align, size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size)
		return NULL;
	if (posix_memalign(&p, align, nmemb * size != 0 ? nmemb * size : 1) != 0)
		return NULL;
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p)
		out_of_memory(strlen(s));
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory(0);
	return s;
}

int iom_err(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -(code ? code : EINVAL);
}

uint64_t iom_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void iom_format_utc(char *buf, size_t len, uint64_t wall_ns)
{
	time_t t = (time_t)(wall_ns / 1000000000u);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int iom_fsync_dir(const char *path)
{
	struct stat st;
	char *copy, *dir;
	int fd, ret = 0;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		copy = xstrdup(path);
		dir = copy;
	} else {
		copy = xstrdup(path);
		dir = dirname(copy);
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
	} else {
		if (fsync(fd) < 0 && errno != EINVAL)
			ret = -errno;
		close(fd);
	}
	free(copy);
	return ret;
}

/* The one write loop: write() when off is negative, else pwrite() at off. */
static int write_loop(int fd, const char *p, size_t len, int64_t off)
{
	while (len > 0) {
		ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		if (off >= 0)
			off += n;
	}
	return 0;
}

int iom_write_all(int fd, const void *buf, size_t len)
{
	return write_loop(fd, buf, len, -1);
}

int iom_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	if (off > (uint64_t)INT64_MAX)
		return -EINVAL;
	return write_loop(fd, buf, len, (int64_t)off);
}

int iom_mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	struct stat st;
	int ret = 0;

	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				ret = -errno;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	if (ret == 0 && stat(path, &st) < 0)
		ret = -errno;
	else if (ret == 0 && !S_ISDIR(st.st_mode))
		ret = -ENOTDIR;
	free(p);
	return ret;
}

int iom_mkdir_parent(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int ret = 0;

	if (slash && slash != dir) {
		*slash = '\0';
		ret = iom_mkdir_p(dir);
	}
	free(dir);
	return ret;
}

char *iom_path_dir(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return xstrdup(".");
	while (s > path && s[-1] == '/')
		s--;
	if (s == path)
		return xstrdup("/");
	return xasprintf("%.*s", (int)(s - path), path);
}

const char *iom_path_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

char *iom_path_join(const char *dir, const char *base)
{
	return strcmp(dir, "/") == 0 ? xasprintf("/%s", base) : xasprintf("%s/%s", dir, base);
}

char *iom_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

void iom_unescape_octal(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

int iom_read_file(const char *path, char **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), e = 0;
	size_t cap = 4096, n = 0;
	struct stat st;
	char *buf;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EPERM;
	if (e) {
		close(fd);
		return -e;
	}
	buf = xmalloc(cap);
	for (;;) {
		ssize_t got = read(fd, buf + n, cap - n - 1);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			break;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n >= IOM_PROC_FILE_MAX) {
			e = EFBIG;
			break;
		}
		if (cap - n - 1 == 0) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	close(fd);
	if (e) {
		free(buf);
		return -e;
	}
	buf[n] = '\0';
	*data = buf;
	if (len)
		*len = n;
	return 0;
}

int iom_term_width(int fd, int fallback)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env && *env) {
		char *end;
		long v = strtol(env, &end, 10);

		if (*end == '\0' && v >= 20 && v <= 10000)
			return (int)v;
	}
	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return fallback;
}
