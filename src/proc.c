/* SPDX-License-Identifier: MIT */
/*
 * proc — child processes. See proc.h.
 *
 * Programs are started with posix_spawn (safe in a threaded process, and exec failures come
 * back as errors) in a new process group, with default signal dispositions, an empty signal
 * mask, stdin from /dev/null and every descriptor above 2 closed. The parent polls for the exit
 * without reaping (waitid WNOWAIT), so the process group id stays valid until it has killed
 * what it meant to kill.
 */
#include "proc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ownfile.h"
#include "units.h"
#include "util.h"

extern char **environ;

#define TAIL_LINES 10
#define TAIL_BYTES 2048
#define LAST_LINE_MAX 240
#define KILL_GRACE_NS 2000000000ull

void iom_proc_result_release(struct iom_proc_result *r)
{
	free(r->command);
	free(r->tail);
	r->command = r->tail = NULL;
}

/* The environment of a child: ours without stale IOMATRIX_* entries, plus extra. */
static char **build_env(const char *const *extra)
{
	size_t n = 0, x = 0, k = 0;
	char **e;

	while (environ && environ[n])
		n++;
	while (extra && extra[x])
		x++;
	e = xcalloc(n + x + 1, sizeof(*e));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "IOMATRIX_", 9) != 0)
			e[k++] = xstrdup(environ[i]);
	for (size_t i = 0; i < x; i++)
		e[k++] = xstrdup(extra[i]);
	e[k] = NULL;
	return e;
}

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The last lines of [from, to) of fd, at most TAIL_LINES and TAIL_BYTES, control characters
 * replaced, trailing white space dropped. */
static char *read_tail(int fd, off_t from, off_t to)
{
	char buf[TAIL_BYTES + 1];
	off_t start = to - from > TAIL_BYTES ? to - TAIL_BYTES : from;
	ssize_t n = to > start ? pread(fd, buf, (size_t)(to - start), start) : 0;
	size_t len, lines = 0;
	char *p;

	if (n < 0)
		n = 0;
	len = (size_t)n;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ' ||
			   buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\t' || c == '\r')
			buf[i] = ' ';
		else if (c < 0x20 && c != '\n')
			buf[i] = '?';
		else if (c == 0x7f)
			buf[i] = '?';
	}
	p = buf + len;
	while (p > buf) {
		if (p[-1] == '\n' && ++lines == TAIL_LINES)
			break;
		p--;
	}
	/* a cut in the middle of the first line read: drop that partial line */
	if (p == buf && start > from) {
		char *nl = strchr(buf, '\n');

		p = nl ? nl + 1 : buf;
	}
	return xstrdup(p);
}

/* The last line of tail for a message: ": line", or " (no output)". */
static char *last_line(const char *tail)
{
	const char *nl = strrchr(tail, '\n'), *line = nl ? nl + 1 : tail;

	while (*line == ' ')
		line++;
	if (!*line)
		return xstrdup(" (no output)");
	if (strlen(line) > LAST_LINE_MAX) {
		int cut = LAST_LINE_MAX;

		while (cut > 0 && ((unsigned char)line[cut] & 0xc0) == 0x80)
			cut--; /* not inside a UTF-8 character */
		return xasprintf(": %.*s…", cut, line);
	}
	return xasprintf(": %s", line);
}

static const char *signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

static bool plain_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-/=,:+@%", *s))
			return false;
	return true;
}

/* argv as one line for /bin/sh: a word of plain characters as it is, others quoted. */
static char *argv_text(const char *const argv[])
{
	size_t len = 1;
	char *text, *q;

	for (size_t i = 0; argv[i]; i++)
		len += 1 + 2 + 4 * strlen(argv[i]); /* a space, the quotes, each ' as '\'' */
	q = text = xmalloc(len);
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			*q++ = ' ';
		if (plain_word(argv[i])) {
			q = stpcpy(q, argv[i]);
			continue;
		}
		*q++ = '\'';
		for (const char *p = argv[i]; *p; p++)
			q = *p == '\'' ? stpcpy(q, "'\\''") : (*q = *p, q + 1);
		*q++ = '\'';
	}
	*q = '\0';
	return text;
}

/* The log's header: "# what at TIME:" and the command, each of its lines after "# ". */
static char *log_header(const char *what, const char *when, const char *command)
{
	size_t lines = 0;
	char *cmd, *q, *hdr;

	for (const char *p = command; *p; p++)
		lines += *p == '\n';
	q = cmd = xmalloc(strlen(command) + 2 * lines + 1);
	for (const char *p = command; *p; p++)
		q = *p == '\n' ? stpcpy(q, "\n# ") : (*q = *p, q + 1);
	*q = '\0';
	hdr = xasprintf("# %s at %s:\n# %s\n", what, when, cmd);
	free(cmd);
	return hdr;
}

static void nap(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
}

/* The log of a program run (o->log_path, made afresh; or a memfd), opened for appending with
 * its header written; *out_start where the program's output begins. fd or -errno with err. */
static int open_log(const char *what, const char *command, const struct iom_proc_opts *o,
		    off_t *out_start, char *err, size_t errlen)
{
	char when[32], *hdr;
	int fd, ret;

	if (o->log_path) {
		char *dir = iom_path_dir(o->log_path);

		if (o->log_dir)
			ret = iom_own_mkdir(o->log_dir, dir, err, errlen);
		else if ((ret = iom_mkdir_p(dir)) < 0)
			iom_err(err, errlen, -ret, "cannot create the directory of '%s': %s",
				o->log_path, strerror(-ret));
		free(dir);
		if (ret < 0)
			return ret;
		fd = iom_own_open(o->log_dir, o->log_path, IOM_OWN_FRESH, err, errlen);
		if (fd < 0)
			return fd;
		if (fcntl(fd, F_SETFL, O_APPEND) < 0) {
			ret = errno;
			close(fd);
			return iom_err(err, errlen, ret, "'%s': %s", o->log_path, strerror(ret));
		}
	} else {
		fd = memfd_create("iomatrix-proc", MFD_CLOEXEC);
	}
	if (fd < 0) {
		ret = errno;
		return iom_err(err, errlen, ret, "cannot create the log %s%s%s of %s: %s",
			       o->log_path ? "'" : "", o->log_path ? o->log_path : "(memory)",
			       o->log_path ? "'" : "", what, strerror(ret));
	}
	iom_format_utc(when, sizeof(when), iom_wall_ns());
	hdr = log_header(what, when, command);
	ret = iom_write_all(fd, hdr, strlen(hdr));
	free(hdr);
	if (ret < 0) {
		close(fd);
		return iom_err(err, errlen, -ret, "cannot write the log '%s': %s",
			       o->log_path ? o->log_path : "(memory)", strerror(-ret));
	}
	*out_start = lseek(fd, 0, SEEK_END);
	return fd;
}

/* Starts argv with envp in a process group of its own, stdin /dev/null, stdout and stderr the
 * log fd, every signal at its default and none blocked. 0 (*pid set) or the positive errno of
 * posix_spawn. */
static int spawn(const char *const argv[], char *const envp[], int fd, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int ret;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_adddup2(&fa, fd, 2);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	if (strchr(argv[0], '/'))
		ret = posix_spawn(pid, argv[0], &fa, &at, (char *const *)argv, envp);
	else
		ret = posix_spawnp(pid, argv[0], &fa, &at, (char *const *)argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return ret;
}

/* Waits for pid, started at start: past o's timeout or on o->stop its group gets SIGTERM, and
 * SIGKILL after KILL_GRACE_NS. Reaps it into *status; returns why it was killed (IOM_PROC_OK:
 * it was not), and *wait_ret waitpid's result (< 0: errno says why). */
static enum iom_proc_outcome wait_child(pid_t pid, uint64_t start, const struct iom_proc_opts *o,
					int *status, int *wait_ret)
{
	enum iom_proc_outcome killed_for = IOM_PROC_OK;
	uint64_t deadline = o->timeout_ns ? start + o->timeout_ns : UINT64_MAX, kill_at = 0;
	uint64_t wait_ns = 1000000;
	int ret;

	for (;;) {
		siginfo_t si;
		uint64_t now;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: someone reaped it (SIGCHLD ignored); waitpid says so */
		}
		if (si.si_pid == pid)
			break;
		now = iom_now_ns();
		if (killed_for == IOM_PROC_OK) {
			if (o->stop && *o->stop)
				killed_for = IOM_PROC_INTERRUPTED;
			else if (now >= deadline)
				killed_for = IOM_PROC_TIMED_OUT;
			if (killed_for != IOM_PROC_OK) {
				kill(-pid, SIGTERM);
				kill_at = now + KILL_GRACE_NS;
			}
		} else if (kill_at && now >= kill_at) {
			kill(-pid, SIGKILL);
			kill_at = 0;
		}
		nap(wait_ns);
		wait_ns = IOM_MIN(wait_ns * 2, 20000000ull);
	}
	if (killed_for != IOM_PROC_OK)
		kill(-pid, SIGKILL); /* what is left of the group; the unreaped child keeps its id */
	while ((ret = (int)waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	*wait_ret = ret;
	return killed_for;
}

/* What became of the program (r->outcome and r->status, from waitpid's ret and status and why
 * it was killed), and the message m of a failure. 0 or -errno. */
static int judge(const char *what, const struct iom_proc_opts *o, int ret, int status,
		 enum iom_proc_outcome killed_for, struct iom_proc_result *r, char *m, size_t mlen)
{
	char *msg_tail = NULL;

	if (ret < 0) {
		ret = errno;
		r->outcome = IOM_PROC_EXITED;
		r->status = -1;
		ret = iom_err(m, mlen, ret, "cannot wait for %s: %s", what, strerror(ret));
	} else if (killed_for != IOM_PROC_OK) {
		char t[32];

		r->outcome = killed_for;
		r->status = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
		msg_tail = last_line(r->tail);
		iom_duration_format(o->timeout_ns, t, sizeof(t));
		if (killed_for == IOM_PROC_TIMED_OUT)
			ret = iom_err(m, mlen, ETIMEDOUT, "%s timed out after %s and was killed%s",
				      what, t, msg_tail);
		else
			ret = iom_err(m, mlen, EINTR, "%s was stopped%s", what, msg_tail);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		r->outcome = IOM_PROC_OK;
		r->status = 0;
		ret = 0;
	} else if (WIFEXITED(status)) {
		r->outcome = IOM_PROC_EXITED;
		r->status = WEXITSTATUS(status);
		msg_tail = last_line(r->tail);
		ret = iom_err(m, mlen, EIO, "%s exited with status %d%s", what, r->status,
			      msg_tail);
	} else {
		char s[32];

		r->outcome = IOM_PROC_SIGNALED;
		r->status = WTERMSIG(status);
		msg_tail = last_line(r->tail);
		ret = iom_err(m, mlen, EIO, "%s was killed by %s%s", what,
			      signal_name(r->status, s, sizeof(s)), msg_tail);
	}
	free(msg_tail);
	return ret;
}

/*
 * Runs argv with envp as o says, command being what the log's header shows. Fills r; returns 0
 * or -errno with the message in err.
 */
static int run_program(const char *what, const char *command, const char *const argv[],
		       char *const envp[], const struct iom_proc_opts *o,
		       struct iom_proc_result *r, char *err, size_t errlen)
{
	enum iom_proc_outcome killed_for;
	char m[IOM_ERRLEN], d[32], *line;
	off_t out_start = 0, out_end;
	int fd, ret, status = 0;
	uint64_t start;
	pid_t pid;

	r->outcome = IOM_PROC_NOT_STARTED;
	fd = open_log(what, command, o, &out_start, err, errlen);
	if (fd < 0)
		return fd;
	start = iom_now_ns();
	ret = spawn(argv, envp, fd, &pid);
	if (ret != 0) {
		line = xasprintf("# cannot start '%s': %s\n", argv[0], strerror(ret));
		iom_write_all(fd, line, strlen(line));
		free(line);
		close(fd);
		return iom_err(err, errlen, ret, "cannot start %s ('%s'): %s", what, argv[0],
			       strerror(ret));
	}
	killed_for = wait_child(pid, start, o, &status, &ret);
	r->elapsed_ns = iom_now_ns() - start;
	out_end = lseek(fd, 0, SEEK_END);
	r->tail = read_tail(fd, out_start, out_end);
	ret = judge(what, o, ret, status, killed_for, r, m, sizeof(m));
	iom_duration_human(r->elapsed_ns, d, sizeof(d));
	line = ret == 0 ? xasprintf("# exited with status 0 after %s\n", d)
			: xasprintf("# failed after %s: %s\n", d, m);
	iom_write_all(fd, line, strlen(line));
	free(line);
	if (ret < 0 && o->log_path)
		fdatasync(fd); /* the output of a failure is kept */
	if (ret < 0)
		iom_err(err, errlen, -ret, "%s", m);
	close(fd);
	return ret;
}

int iom_proc_run(const char *what, const char *const argv[], const struct iom_proc_opts *o,
		 struct iom_proc_result *r, char *err, size_t errlen)
{
	static const struct iom_proc_opts none;
	char **envp;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!o)
		o = &none;
	r->command = o->command ? xstrdup(o->command) : argv_text(argv);
	envp = build_env(o->env);
	ret = run_program(what, r->command, argv, envp, o, r, err, errlen);
	free_strv(envp);
	return ret;
}
