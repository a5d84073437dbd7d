/* SPDX-License-Identifier: MIT */
/*
 * ownfile — the one way iomatrix opens, creates, reads back and removes its own files: the
 * results directory and everything in it (run files, study.json, summary.csv, the journal, the
 * lock, traces, hook logs), the MPI ranks' scratch directories, and every output path a user
 * names (report -o, --log, trace exports). Target files and devices are not own files (target.c).
 *
 * A results directory is opened once (O_DIRECTORY|O_NOFOLLOW) into a struct iom_own_dir and
 * pinned: iom_own_dir_check() compares the descriptor with a fresh lstat of the name the user
 * gave, so a rename or a mount over it is caught. A path under a pinned directory is resolved
 * from its descriptor one component at a time, never following a symbolic link; any other path
 * (d NULL, or a path outside d) has its directory part resolved as the user wrote it and only
 * its last component guarded. Files are created O_EXCL|O_NOFOLLOW, temporaries under random
 * names made O_EXCL beside their target and renamed over it; an existing file is opened
 * O_NOFOLLOW|O_NONBLOCK and must be a regular file (one link, when iomatrix writes it). What is
 * refused is named: "'D/journal' is a symbolic link".
 *
 * Every function returns 0 (or a descriptor, a stream) or -errno with the message in err.
 */
#ifndef IOM_OWNFILE_H
#define IOM_OWNFILE_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "util.h"

/* The size caps of what iomatrix reads back, each far above what it writes (a run file of
 * 10,000 intervals and 64 hosts is under 20 MiB, a journal of 100,000 runs under 20 MiB). */
#define IOM_OWN_CAP_RUN     (256u << 20) /* runs/NNNNN.json */
#define IOM_OWN_CAP_STUDY   (64u << 20)  /* study.json */
#define IOM_OWN_CAP_JOURNAL (256u << 20) /* journal */
#define IOM_OWN_CAP_MATRIX  (16u << 20)  /* a matrix file, matrix.cfg as run, a shared file */
#define IOM_OWN_CAP_SMALL   (1u << 20)   /* repetitions.tsv, a target's side file */
#define IOM_OWN_CAP_PROC    IOM_PROC_FILE_MAX /* /proc and /sys files (iom_read_file) */
#define IOM_OWN_CAP_TRACE   ((size_t)16 << 30) /* a rank's trace, sent whole to rank 0 */

/* A directory of iomatrix's own files, opened once and pinned. */
struct iom_own_dir {
	int fd;     /* O_DIRECTORY|O_NOFOLLOW; -1 when not open */
	dev_t dev;  /* identity at open: what iom_own_dir_check compares */
	ino_t ino;
	char *path; /* the name the user gave, trailing slashes removed (heap) */
};

enum {
	IOM_OWN_DIR_CREATE = 1 << 0, /* mkdir -p it first (0755) */
	IOM_OWN_DIR_STRICT = 1 << 1, /* refuse it when others can write it (see iom_own_dir_strict) */
};

/* Opens path as a pinned directory into d (flags: IOM_OWN_DIR_*). A symbolic link as its last
 * component is refused. Release with iom_own_dir_release (safe on a zeroed or released d). */
int iom_own_dir_open(struct iom_own_dir *d, const char *path, unsigned flags, char *err,
		     size_t errlen);
void iom_own_dir_release(struct iom_own_dir *d);

/* 0 when path still names the directory d holds open (same st_dev and st_ino), else -ESTALE
 * with a message naming it: moved, replaced or mounted over since it was opened. */
int iom_own_dir_check(const struct iom_own_dir *d, char *err, size_t errlen);

/* Like ssh's StrictModes: a directory iomatrix writes in must be owned by the invoking user
 * (effective uid) or root, and not group or world writable unless it is sticky and ours.
 * 0 or -EPERM with a message that says how to fix it. fd: the open directory; path: its name. */
int iom_own_dir_strict(int fd, const char *path, char *err, size_t errlen);

/* How iom_own_open opens a file. */
enum iom_own_how {
	IOM_OWN_READ,   /* read an existing regular file (O_RDONLY) */
	IOM_OWN_FOLLOW, /* the same, following symbolic links: an input the user names */
	IOM_OWN_APPEND, /* O_RDWR|O_APPEND, created when missing (journal, summary.csv) */
	IOM_OWN_LOCK,   /* O_RDWR, created when missing, never truncated (.lock) */
	IOM_OWN_NEW,    /* O_RDWR, created O_EXCL: -EEXIST when the name is taken */
	IOM_OWN_FRESH,  /* whatever has the name is unlinked (never followed), then as NEW */
};

/* Opens path (under d when it starts with d->path, else as written; d may be NULL) and returns
 * a descriptor (O_CLOEXEC, blocking) the caller closes, or -errno. */
int iom_own_open(const struct iom_own_dir *d, const char *path, enum iom_own_how how, char *err,
		 size_t errlen);

/* iom_own_open as a stdio stream: mode "r" (READ), "a" (APPEND) or "w" (FRESH). NULL with the
 * message in err; the caller fcloses the stream. */
FILE *iom_own_fopen(const struct iom_own_dir *d, const char *path, const char *mode, char *err,
		    size_t errlen);

/* Writes len bytes to path whole or not at all: a temporary made O_EXCL beside it under a
 * random name (PATH.tmp.PID.XXXXXX), fsync, rename over path, fsync of the directory. The name
 * path, when it exists, must be a regular file or missing (a link there is refused). */
int iom_own_write_atomic(const struct iom_own_dir *d, const char *path, const void *data,
			 size_t len, char *err, size_t errlen);
/* The same for a path outside any pinned directory, without a message. 0 or -errno. */
int iom_write_file_atomic(const char *path, const void *data, size_t len);

/* Reads a whole regular file of at most cap bytes into a new NUL-terminated buffer (*len its
 * length; len may be NULL); how is IOM_OWN_READ or IOM_OWN_FOLLOW. A FIFO or a device is refused
 * without blocking, a larger file with -EFBIG. The caller frees *data. */
int iom_own_read(const struct iom_own_dir *d, const char *path, enum iom_own_how how, size_t cap,
		 char **data, size_t *len, char *err, size_t errlen);

/* mkdir of path (0755; an existing directory is fine, anything else there is refused). */
int iom_own_mkdir(const struct iom_own_dir *d, const char *path, char *err, size_t errlen);

/* Opens the directory path (never through a link) for listing; the caller closedirs it. */
DIR *iom_own_opendir(const struct iom_own_dir *d, const char *path, char *err, size_t errlen);

/* unlink (a missing name is fine) and rename within one directory tree; never follow a link. */
int iom_own_unlink(const struct iom_own_dir *d, const char *path);
int iom_own_rename(const struct iom_own_dir *d, const char *from, const char *to);
/* A hard link to from named to, within one directory tree, neither followed; an existing to is
 * -EEXIST. 0 or -errno. */
int iom_own_link(const struct iom_own_dir *d, const char *from, const char *to);

/* A fresh directory parent/PREFIX-XXXXXX from mkdtemp (0700, never one that existed): the new
 * path (heap), or NULL with the message in err. */
char *iom_own_mkdtemp(const char *parent, const char *prefix, char *err, size_t errlen);

/* Removes path and everything under it, through descriptors (unlinkat), never following a
 * link and never leaving its file system: no shell. A missing path is fine. 0 or -errno. */
int iom_own_rmtree(const char *path);

/* fsync of the directory d or of the one that holds path (d may be NULL). */
int iom_own_fsync_dir(const struct iom_own_dir *d, const char *path);

#endif
