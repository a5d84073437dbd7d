/* SPDX-License-Identifier: MIT */
/*
 * study — DIR/study.json: written by the sweep (what makes the study reproducible from its
 * directory alone), read back by resume and the report (docs/results.md).
 */
#ifndef IOM_STUDY_H
#define IOM_STUDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "matrix/matrix.h"
#include "target/target.h"

struct iom_own_dir;
struct iom_override;
struct iom_plan;

/* Provenance of one host of a study of many (study.json "hosts"): the rank's row of a run
 * per target (its host, kernel, CPU; the target's device, driver and scheduler there), borrowed. */
struct iom_study_host {
	uint32_t rank;
	const struct iom_host_row **row;        /* per target of the matrix; NULL: not run there */
};

/* What study.json records; all borrowed from the sweep. */
struct iom_study_record {
	const struct iom_plan *plan;            /* plan->m is the matrix */
	const struct iom_override *ov;          /* the --set overrides, in order */
	size_t nov;
	/* Prepared targets, indexed like plan->m->targets (entries with t == NULL, or all of them
	 * when targets is NULL, are written without device facts). */
	const struct iom_target_info *targets;
	size_t ntargets;
	uint64_t start_wall_ns;                 /* when the sweep started */
	uint64_t end_wall_ns;                   /* when it ended; 0 while it runs */
	const struct iom_study_host *hosts;     /* many hosts: nhosts ranks, in rank order */
	size_t nhosts;
};

/*
 * Writes DIR/study.json whole or not at all: the sweep calls it at the start (end_wall_ns 0)
 * and again at the end. Host, kernel and CPU model are read here (uname, /proc/cpuinfo).
 */
int iom_study_write(const struct iom_own_dir *d, const struct iom_study_record *s, char *err,
		    size_t errlen);

/* A target as study.json records it. */
struct iom_study_target {
	char *label, *path, *filesystem, *controller;
	char *same_as;               /* the label of an earlier target on the same device or
				      * file (allow_same: an A/A test); NULL when none */
	uint64_t size;               /* as configured (0 = whole device) */
	uint64_t region;             /* bytes of the I/O region; 0 when not prepared */
	bool is_block;
	bool has_facts;
	struct iom_device_facts facts;
};

/* study.json as read back. Strings are heap-owned, NULL when absent. */
struct iom_study_info {
	int schema;
	char *tool_version;
	char *name, *description, *matrix_file;
	char *compare;                /* the compared dimension's name */
	uint64_t plan_hash;
	uint32_t nruns, ncells;
	uint64_t seed;
	struct iom_timing timing;
	struct iom_report_opts report;
	char **overrides;             /* "key=value", noverrides entries */
	size_t noverrides;
	char *host, *kernel, *cpu_model;
	unsigned ncpu;
	/* "machine" (machine.h): NULL / 0 when unknown or in older studies */
	char *matrix_commit, *distro, *liburing, *io_uring, *governor, *hypervisor, *cmdline;
	bool matrix_modified;
	uint64_t ram_bytes;
	uint64_t start_wall_ns, end_wall_ns;  /* end 0: the sweep never ended */
	struct iom_study_target *targets;
	size_t ntargets;
};

/* Reads DIR/study.json-style file at path; errors as iom_result_read(). Release always. */
int iom_study_read(const char *path, struct iom_study_info *out, char *err, size_t errlen);
void iom_study_info_release(struct iom_study_info *s);

/* The target labelled label, or NULL. */
const struct iom_study_target *iom_study_target_find(const struct iom_study_info *s,
						     const char *label);

#endif
