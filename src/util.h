/* SPDX-License-Identifier: MIT */
/*
 * util — the few helpers every module needs: allocation that aborts on failure (small objects
 * of fixed size only), the one graceful allocation path for everything whose size a matrix
 * controls (iom_try_*: NULL, never an abort), the monotonic clock, error text, the one write
 * loop (iom_write_all), the one mkdir -p, and the bounded reader of /proc and /sys files.
 */
#ifndef IOM_UTIL_H
#define IOM_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define IOM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define IOM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define IOM_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Length of the error buffers handed to functions that can fail with a message. */
#define IOM_ERRLEN 512

/* Exit codes of the iomatrix binary. */
enum {
	IOM_EXIT_OK = 0,
	IOM_EXIT_FAIL = 1,        /* runtime failure, or any run failed */
	IOM_EXIT_USAGE = 2,       /* bad command line or invalid matrix */
	IOM_EXIT_INTERRUPTED = 3, /* stopped by a signal; resumable */
};

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/*
 * The graceful path, for memory whose size a matrix controls (queue depth, threads, block size,
 * trace rings, histograms per thread): nmemb × size bytes — zeroed by iom_try_calloc, left as
 * they are by iom_try_aligned (align: a power of two, at least sizeof(void *)) — or NULL when
 * the product overflows or the memory is not there. Never aborts; the caller fails with -ENOMEM
 * and says what it asked for. Free with free().
 */
void *iom_try_calloc(size_t nmemb, size_t size);
void *iom_try_aligned(size_t align, size_t nmemb, size_t size);
/* printf into a new string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Formats into err (of errlen bytes, may be NULL) and returns -code (code is a positive errno). */
int iom_err(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* CLOCK_MONOTONIC in nanoseconds: the clock of every latency and window iomatrix measures. */
static inline uint64_t iom_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wall-clock time in nanoseconds since the epoch (for records people read). */
uint64_t iom_wall_ns(void);

/* Formats a UTC time as "2026-11-29T23:55:00Z" into buf (at least 21 bytes). */
void iom_format_utc(char *buf, size_t len, uint64_t wall_ns);

/*
 * Writes all len bytes of buf to fd, going on after short writes and EINTR: 0, or -errno
 * (-EIO when the kernel writes nothing). iom_pwrite_all does the same at offset off, with
 * pwrite(), leaving the file offset alone.
 */
int iom_write_all(int fd, const void *buf, size_t len);
int iom_pwrite_all(int fd, const void *buf, size_t len, uint64_t off);

/* mkdir -p: creates path and every missing directory above it (mode 0755). 0 when path is a
 * directory at the end, -ENOTDIR when it is something else, or -errno of the mkdir that
 * failed. iom_mkdir_parent does it for the directory that holds path (nothing for a path
 * without a directory part). */
int iom_mkdir_p(const char *path);
int iom_mkdir_parent(const char *path);

/* The directory of path, a new string ("a/b" → "a", "/a" → "/", "a" → "."); its last
 * component, a pointer into path; and dir and base joined ("/" and "x" → "/x"), a new string. */
char *iom_path_dir(const char *path);
const char *iom_path_base(const char *path);
char *iom_path_join(const char *dir, const char *base);

/* fsyncs the directory that holds path (or path itself when it is a directory). 0 or -errno. */
int iom_fsync_dir(const char *path);

/* Cuts the white space at both ends of s in place; returns where the text now starts. */
char *iom_trim(char *s);

/* Undoes the octal escapes of /proc/self/mountinfo and /proc/swaps ("\040" for a space) in
 * place. */
void iom_unescape_octal(char *s);

/* Reads a whole /proc or /sys file (whose size stat reports as 0) into a new NUL-terminated
 * buffer; *len gets its length. Only a regular file, opened O_NONBLOCK, of less than
 * IOM_PROC_FILE_MAX bytes (else -EPERM, -EFBIG). 0 or -errno. iomatrix's own files are read
 * with iom_own_read (ownfile.h). */
int iom_read_file(const char *path, char **data, size_t *len);
#define IOM_PROC_FILE_MAX (64u << 20)

/* The width to lay text out in, for output on fd: COLUMNS when set to a number (20..10000),
 * else the terminal's width when fd is a terminal, else fallback. */
int iom_term_width(int fd, int fallback);

#endif
