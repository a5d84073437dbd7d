/* SPDX-License-Identifier: MIT */
/*
 * diskspd — DiskSpd's command line turned into a one-cell study. DiskSpd's flags are one table
 * (diskspd_flags.c: each flag's letters, argument kind, the matrix key it sets and its help
 * line), and the parser, `iomatrix diskspd --help`, the man page's list and the refusals are
 * walks of it:
 * a flag maps onto matrix keys, is accepted with a note where iomatrix does it differently, or
 * is refused with a message naming it. The study is an ordinary matrix (`--matrix` prints it);
 * the command (cmd_diskspd.c) runs it into an ordinary results directory and prints its one run
 * as DiskSpd prints its results (report_run.c).
 */
#ifndef IOM_DISKSPD_H
#define IOM_DISKSPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* DiskSpd's defaults, as its usage text gives them. */
#define IOM_DISKSPD_BLOCK (64u * 1024)
#define IOM_DISKSPD_DURATION 10
#define IOM_DISKSPD_WARMUP 5
#define IOM_DISKSPD_OUTSTANDING 2

/* A parsed `iomatrix diskspd` command line. Strings point into argv unless noted. */
struct iom_diskspd {
	uint64_t block_size;   /* -b, bytes */
	uint64_t duration_s;   /* -d */
	uint64_t warmup_s;     /* -W */
	uint64_t cooldown_s;   /* -C */
	uint64_t outstanding;  /* -o: queue_depth (per thread) */
	uint64_t threads;      /* -t */
	bool random;           /* -r (else sequential, DiskSpd's default) */
	/* where each I/O goes */
	uint64_t align;        /* -r<align>: random offsets on multiples of it; 0: the block size */
	unsigned random_pct;   /* -rs<pct>: the share of random I/Os; 0: -r alone (100) */
	uint64_t thread_stride; /* -T<offset>: sequential thread t starts at t × it */
	bool shared_seq;       /* -si: the threads share one sequential stream */
	unsigned write_pct;    /* -w */
	uint64_t create_size;  /* -c, bytes; 0: not given */
	uint64_t max_size;     /* -f, bytes: the target's region [0, max_size); 0: not given */
	bool direct;           /* -S, -Su, -Sh, -h: the OS cache bypassed (O_DIRECT) */
	bool write_through;    /* -Sh, -Sw, -h: write_through = true (O_DSYNC) */
	const char *data;      /* -Z "zeros", -Zr "random" (the data key); NULL: not given */
	bool seed_given;
	uint64_t seed;         /* -z */
	char *cpus;            /* -a: the CPU list threads are pinned to, round-robin (heap) */
	uint64_t rate_bpms;    /* -g: bytes per millisecond per thread (0: none) … */
	uint64_t rate_iops;    /* … or -g<n>i: I/Os per second per thread */
	uint64_t burst;        /* -i: I/Os per burst (0: none) */
	uint64_t think_ms;     /* -j: milliseconds between bursts */
	const char *target;
	/* several targets: every target on the command line, targets[0] == target (heap array of argv
	 * strings): DiskSpd drives them all at once, -t threads on each; one target with paths */
	const char **targets;
	size_t ntargets;
	char *command;         /* the DiskSpd flags and target as given, space-separated (heap) */
	char **notes;          /* what was accepted but is done differently (heap) */
	size_t nnotes;
	char **own;            /* strings read from a profile (-X) that target(s) point into (heap) */
	size_t nown;
	const char *profile;   /* -X FILE: the XML profile the flags came from (the parse leaves
				* it to be read: iom_import_diskspd_profile) */
	bool print_fio;        /* --print-fio: print the fio job equivalent and exit */
	bool xml_results;      /* -Rxml: the results as DiskSpd's XML (else -Rtext, its text) */

	/* iomatrix's own options (long only: DiskSpd owns the short letters) */
	const char *output;    /* --output DIR */
	bool matrix_only;      /* --matrix */
	bool quiet;            /* --quiet */
	bool no_trace;         /* --no-trace */
	bool overwrite;        /* --overwrite: may take over an existing file */
	bool destructive;      /* --destructive: may write to a block device */
	bool help;             /* --help or -? */
};

/*
 * Parses the arguments after `iomatrix diskspd`. Returns 0 with d filled (release it with
 * iom_diskspd_release()), or -EINVAL with a message naming the offending flag in err; d is
 * released on failure. With --help, d->help is set and nothing else is checked. With -X, only
 * d->profile and iomatrix's own options are set: the caller reads the profile.
 */
int iom_diskspd_parse(int argc, char **argv, struct iom_diskspd *d, char *err, size_t errlen);
void iom_diskspd_release(struct iom_diskspd *d);

/* d at DiskSpd's defaults, as an empty command line leaves it (no target). */
void iom_diskspd_init(struct iom_diskspd *d);

/* Adds a note to d: what was accepted but is done differently (printed, and in the matrix). */
void iom_diskspd_note(struct iom_diskspd *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The matrix of the study, commented flag by flag, notes included. The caller frees it. It is
 * checked by the matrix reader: -EINVAL with the reader's message in err when the flags make
 * an invalid study (say -b1000 with -Sh).
 */
int iom_diskspd_matrix(const struct iom_diskspd *d, char **text, char *err, size_t errlen);

/*
 * The fio job equivalent of d (--print-fio), for `iomatrix import`: its plan is d's. The caller
 * frees it. -EINVAL with err for what has no fio equivalent that imports back (several targets,
 * -T, -si, -a, -i/-j).
 */
int iom_diskspd_fio(const struct iom_diskspd *d, char **text, char *err, size_t errlen);

/* The usage text of `iomatrix diskspd` (the flags it takes and how each maps). */
void iom_diskspd_usage(FILE *out);

/* The DiskSpd flags as a roff list, for the man page's diskspd entry (help diskspd --man:
 * `make docs` puts it in docs/iomatrix.1). */
void iom_diskspd_print_man(FILE *out);

#endif
