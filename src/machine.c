/* SPDX-License-Identifier: MIT */
/*
 * machine — the facts that make a study repeatable; promises are in machine.h. Every fact is a
 * read of /proc, /sys or /etc, or a child process through proc (git, systemd-detect-virt: argv,
 * no shell, a timeout); one that cannot be had is NULL, never a failure of the study.
 */
#include "machine.h"

#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "proc.h"
#include "util.h"

#ifndef IOM_LIBURING_VERSION
#define IOM_LIBURING_VERSION "?"
#endif

#define CHILD_NS (5ull * 1000000000u)

/* path's first line, trailing blanks cut; NULL when unreadable or empty. */
static char *first_line(const char *path)
{
	char *text = NULL;
	size_t len = 0;

	if (iom_read_file(path, &text, &len) < 0)
		return NULL;
	text[strcspn(text, "\n")] = '\0';
	for (len = strlen(text); len && (text[len - 1] == ' ' || text[len - 1] == '\t'); len--)
		text[len - 1] = '\0';
	if (!*text) {
		free(text);
		return NULL;
	}
	return text;
}

/* The last line a command printed when it exited 0; NULL otherwise. *printed: it printed any. */
static char *run_line(const char *const argv[], bool *printed)
{
	struct iom_proc_opts o = { .timeout_ns = CHILD_NS };
	struct iom_proc_result r = { 0 };
	char err[256], *line = NULL;

	if (printed)
		*printed = false;
	if (iom_proc_run("fact", argv, &o, &r, err, sizeof(err)) == 0 &&
	    r.outcome == IOM_PROC_OK && r.tail) {
		char *t = r.tail, *nl;

		while ((nl = strrchr(t, '\n')) && nl[1] == '\0')
			*nl = '\0';
		if (printed)
			*printed = *t != '\0';
		nl = strrchr(t, '\n');
		line = *t ? xstrdup(nl ? nl + 1 : t) : NULL;
	}
	iom_proc_result_release(&r);
	return line;
}

static char *os_release(void)
{
	char *text = NULL, *p, *out = NULL;
	size_t len = 0;

	if (iom_read_file("/etc/os-release", &text, &len) < 0 &&
	    iom_read_file("/usr/lib/os-release", &text, &len) < 0)
		return NULL;
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, "PRETTY_NAME=", 12) == 0) {
			char *v = p + 12;
			size_t n = strcspn(v, "\n");

			if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
				v++;
				n -= 2;
			}
			out = xasprintf("%.*s", (int)n, v);
			break;
		}
	free(text);
	return out;
}

static char *hypervisor(void)
{
	static const char *const virt[] = { "systemd-detect-virt", NULL };
	char *v = run_line(virt, NULL);
	unsigned a, b, c, d;

	if (v)
		return v;
	if ((v = first_line("/sys/hypervisor/type")))
		return v;
	if (__get_cpuid(1, &a, &b, &c, &d))
		return xstrdup(c & (1u << 31) ? "yes (cpuid's hypervisor bit)" : "none");
	return NULL;
}

void iom_machine_read(struct iom_machine *mc, const char *matrix_file)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	memset(mc, 0, sizeof(*mc));
	if (matrix_file) {
		char *dir = iom_path_dir(matrix_file);
		const char *const head[] = { "git", "-C", dir, "rev-parse", "HEAD", NULL };
		const char *const status[] = { "git", "-C", dir, "status", "--porcelain", "--",
					       iom_path_base(matrix_file), NULL };
		bool printed = false;

		mc->matrix_commit = run_line(head, NULL);
		if (mc->matrix_commit) {
			free(run_line(status, &printed));
			mc->matrix_modified = printed;
		}
		free(dir);
	}
	mc->ram_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
	mc->distro = os_release();
	mc->liburing = xstrdup(IOM_LIBURING_VERSION);
	mc->io_uring = iom_uring_facts();
	mc->governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	mc->hypervisor = hypervisor();
	mc->cmdline = first_line("/proc/cmdline");
}

void iom_machine_release(struct iom_machine *mc)
{
	free(mc->matrix_commit);
	free(mc->distro);
	free(mc->liburing);
	free(mc->io_uring);
	free(mc->governor);
	free(mc->hypervisor);
	free(mc->cmdline);
	memset(mc, 0, sizeof(*mc));
}
