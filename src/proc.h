/* SPDX-License-Identifier: MIT */
/*
 * proc — child processes: a program started with its argument vector (no shell of ours), its
 * environment, its output in a log file, a time limit and a stop flag, and the last lines of
 * what it printed for the message that names what went wrong. The user's shell hooks (hooks.h)
 * and the mkfs/wipefs tools of fsprep.h run through here.
 *
 * A program runs in its own process group, stdin from /dev/null, stdout and stderr to the log
 * file the caller names (or to memory, kept for the tail only), every descriptor above 2 closed
 * (a program that leaves a process behind never holds the results directory's lock), default
 * signal dispositions and an empty signal mask. One that outlives its timeout, or is still
 * running when the stop flag is set, has its whole process group killed (SIGTERM, then SIGKILL
 * 2 s later). Processes it leaves in the background after it exits are left alone. The caller
 * must not ignore SIGCHLD (the exit status would be lost).
 *
 * Its environment is ours without IOMATRIX_* entries (stale values of an enclosing hook), plus
 * the caller's entries.
 */
#ifndef IOM_PROC_H
#define IOM_PROC_H

#include <signal.h>
#include <stdint.h>
#include <stddef.h>

struct iom_own_dir;

/* How a program is run. Zero is: no log file, no timeout, no stop flag, no extra environment. */
struct iom_proc_opts {
	const char *log_path;         /* output goes to this file (made afresh, never through a
				       * link; its directory made), after a header line naming the
				       * command; NULL: kept in memory for the tail only */
	const struct iom_own_dir *log_dir; /* the pinned directory log_path is under, or NULL */
	uint64_t timeout_ns;          /* 0: none */
	volatile sig_atomic_t *stop;  /* when it becomes set the process group is killed */
	const char *const *env;       /* NULL-terminated "NAME=value" entries added; may be NULL */
	const char *command;          /* the command as the log header and r->command show it;
				       * NULL: argv, quoted for /bin/sh where needed */
};

enum iom_proc_outcome {
	IOM_PROC_OK,          /* exited with status 0 */
	IOM_PROC_EXITED,      /* exited with a non-zero status */
	IOM_PROC_SIGNALED,    /* killed by a signal it did not get from us */
	IOM_PROC_TIMED_OUT,   /* killed by us at its timeout */
	IOM_PROC_INTERRUPTED, /* killed by us when the stop flag was set */
	IOM_PROC_NOT_STARTED, /* it could not start (or, for a hook, its template did not expand) */
};

struct iom_proc_result {
	enum iom_proc_outcome outcome;
	int status;          /* the exit status (EXITED, OK) or the signal (SIGNALED) */
	uint64_t elapsed_ns;
	char *command;       /* the command as run; heap, NULL when there was none */
	char *tail;          /* the last lines of its output (at most 10 lines, 2 KiB), control
			      * characters replaced by '?'; heap, "" when it printed nothing */
};

/* Frees what a result holds (safe on a zeroed or released one). */
void iom_proc_result_release(struct iom_proc_result *r);

/*
 * Runs the program argv[0] (a path, or a name looked up in PATH) with argv as o says, and waits
 * for it; what names it in messages ("mkfs.ext4 on '/dev/sdb'", "hook before_run"). r is the
 * caller's storage (release it whatever the return). Returns 0 when it exited with status 0;
 * otherwise -errno with a message in err that names what, what happened and the last line of
 * its output:
 *   -EIO        "<what> exited with status 3: <last line>" / "… was killed by SIGSEGV: …"
 *   -ETIMEDOUT  "<what> timed out after 1s and was killed: <last line>"
 *   -EINTR      "<what> was stopped: …"
 *   other       "cannot start <what> ('<argv[0]>'): …", or the log could not be made
 * ("(no output)" replaces ": <last line>" when it printed nothing.)
 */
int iom_proc_run(const char *what, const char *const argv[], const struct iom_proc_opts *o,
		 struct iom_proc_result *r, char *err, size_t errlen);

#endif
