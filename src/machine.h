/* SPDX-License-Identifier: MIT */
/*
 * machine — the facts of this machine and of the matrix file that make a study repeatable,
 * recorded in study.json beside host, kernel and CPU: the matrix's git commit and whether it
 * was modified since, RAM, the distribution, liburing and the kernel's io_uring features, the
 * CPU frequency governor, the hypervisor, the kernel command line. `report A B` lists those that
 * differ (report_prov).
 */
#ifndef IOM_MACHINE_H
#define IOM_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

struct iom_machine {
	char *matrix_commit;    /* `git -C DIR rev-parse HEAD` of the matrix's directory; NULL
				 * when the matrix is not in a work tree */
	bool matrix_modified;   /* `git status --porcelain FILE` lists it (with a commit) */
	uint64_t ram_bytes;     /* physical memory */
	char *distro;           /* /etc/os-release PRETTY_NAME */
	char *liburing;         /* the liburing iomatrix was built with ("2.3") */
	char *io_uring;         /* iom_uring_facts() */
	char *governor;         /* cpu0's cpufreq scaling_governor; NULL without cpufreq */
	char *hypervisor;       /* systemd-detect-virt, else /sys/hypervisor/type, else cpuid's
				 * hypervisor bit ("yes"), else "none" */
	char *cmdline;          /* /proc/cmdline */
};

/* Reads the facts, matrix_file the matrix's path (NULL: no git facts). Release with
 * iom_machine_release; every string heap or NULL when unknown. */
void iom_machine_read(struct iom_machine *mc, const char *matrix_file);
void iom_machine_release(struct iom_machine *mc);

#endif
