/* SPDX-License-Identifier: MIT */
/*
 * keys — the one table of matrix keys. Each key has a name, the section it lives in, a type, a
 * unit, a range, a default and a help line; the matrix reader validates with it, `iomatrix help
 * keys` prints it and docs/matrix.md is generated from it. Each row also says where its value
 * lands (an offset into the model of model.h, as fio's .off1) and, for a dimension, the words
 * that name its value in a cell ("qd32", "rnd"). Adding a plain key is one row here plus the
 * code that uses the value (docs/architecture.md, "adding a key").
 *
 * The workload keys are also the dimensions of a study: any of them may be given as a list, and
 * each list is a dimension of the plan. The target is a dimension too (IOM_DIM_TARGET), so a
 * cell is "one value of every dimension". A cell's workload values land, by their rows, in one
 * struct iom_workload, which the run spec and the workers' conf embed.
 */
#ifndef IOM_KEYS_H
#define IOM_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

/* The stored value of a choice: its index, and for a choice spelled "name:%" in the table (which
 * the file writes "name:N%") the percentage N above it. A plain choice's value is its index. */
#define IOM_CHOICE_VALUE(index, pct) ((int64_t)(index) + ((int64_t)(pct) << 8))
#define IOM_CHOICE_INDEX(v) ((v) & 0xff)
#define IOM_CHOICE_PCT(v) ((int64_t)((uint64_t)(v) >> 8))

/* Key flags. */
#define IOM_KEY_REQUIRED 0x1u /* must be given (in its section; `size` only for files) */
#define IOM_KEY_RESERVED 0x2u /* accepted and checked, not acted on by this version */
#define IOM_KEY_MOVED 0x4u    /* an old spelling, still read with a note; help names the new
			       * place, and `help keys` and docs/matrix.md leave it out */
#define IOM_KEY_INT_ONLY 0x8u /* an integer literal: the same number as a string is refused */
#define IOM_KEY_SPARSE 0x10u  /* a dimension added after plans were first recorded: the plan's
			       * TSV (and so its hash) shows its column only when a cell has it
			       * off its default, so older matrices keep their plans and hashes */

/* The characters a string key allows. */
enum iom_chars {
	IOM_CHARS_TEXT,   /* anything but control characters (the zero value) */
	IOM_CHARS_NAME,   /* letters, digits, '.', '_', '-'; not starting with '.' */
	IOM_CHARS_ANY,    /* anything but NUL (shell commands) */
};

enum iom_type {
	IOM_TYPE_SIZE,     /* bytes: 4096, "4K", "1M", "64M" (K, M, G, T are powers of 1024) */
	IOM_TYPE_UINT,     /* a non-negative integer */
	IOM_TYPE_PCT,      /* an integer percentage 0..100 */
	IOM_TYPE_FLOAT,    /* a real number */
	IOM_TYPE_BOOL,     /* true or false */
	IOM_TYPE_ENUM,     /* one of the key's choices; stored as the choice's index */
	IOM_TYPE_DURATION, /* "500ms", "1.5s", "90m", "2h"; stored in nanoseconds */
	IOM_TYPE_STRING,   /* free text */
	IOM_TYPE_LIST,     /* a list of names (order) */
	IOM_TYPE_GROUP,    /* a group or list of groups (targets, workload, timing, …) */
	IOM_TYPE_SPEC,     /* a string the key's own parse turns into one number, and its format
			    * back ("zipf:1.2"): a dimension whose values are not plain numbers */
	IOM_TYPE_RATE,     /* a rate: 2000, "12.5", "none", "max" or a share "50%" (model.h,
			    * IOM_RATE_*); stored in the key's unit times the row's scale */
};


struct iom_key {
	const char *name;
	enum iom_section section;
	enum iom_type type;
	int dim;                    /* an enum iom_dim for workload keys, else -1 */
	const char *unit;           /* for help: "bytes", "ns", "%", … (may be NULL) */
	int64_t min, max;           /* range of numeric types, in the stored unit */
	const char *def;            /* default as the user would write it; NULL: required/none */
	const char *const *choices; /* NULL-terminated, for IOM_TYPE_ENUM */
	const char *help;
	unsigned flags;             /* IOM_KEY_* */
	double fmin, fmax;          /* range of IOM_TYPE_FLOAT */

	/* Where the value lands: an offset into the struct of the key's section in the model
	 * (matrix.h: top level → struct iom_matrix, targets → struct iom_target, timing →
	 * struct iom_timing, report → struct iom_report_opts, hooks → struct iom_hooks; a
	 * workload key, a dimension, → struct iom_workload above, where a cell's value lands), and
	 * the field's size. The reader stores by type: numbers, bools and choices by size (1: bool,
	 * 4: 32 bits, 8: 64 bits), IOM_TYPE_FLOAT as a double, IOM_TYPE_STRING as a new string
	 * (char *). A missing key lands its default. The matrix reads a dimension's values into
	 * struct iom_values, not by its landing. size 0: no plain landing — a group, the target
	 * dimension, or one of the few keys matrix.c reads by
	 * name (schema, cpus, shuffle, reap_wait, submit_batch, order, compare, labels and paths,
	 * filesystems, hook commands, precondition). */
	size_t off;
	unsigned char size;
	enum iom_chars chars;       /* IOM_TYPE_STRING: the characters allowed; max: the length */

	/* A dimension's value in words (iom_dim_describe, iom_dim_word). */
	const char *describe;       /* in a cell's description: a format of the value as written
				     * ("qd=%s"); NULL: a bool's word, else the value itself */
	const char *word;           /* the short word: a format of the value ("qd%s"); NULL: a
				     * choice's word, else the value itself */
	const char *word_zero;      /* the short word of the value 0, when it is not word's */
	const char *const *words;   /* a choice's short word (bool: false, true); "" for none */
	int word_pos;               /* where the word goes among a cell's words, from 1; 0: after
				     * those with a place, in dimension order */

	/* IOM_TYPE_SPEC: text → number (0 or -errno with "KEY-free" text in err) and back; forms
	 * is the range column of the help ("uniform | zipf:θ | …"). */
	int (*parse)(const char *text, int64_t *v, char *err, size_t errlen);
	void (*format)(int64_t v, char *buf, size_t len);
	const char *forms;
	int64_t scale;              /* IOM_TYPE_RATE: stored units per unit written (0: 1) */
};

/* The offset and size of field f of struct s, for a row's landing: IOM_AT(iom_timing, repeat). */
#define IOM_AT(s, f) .off = offsetof(struct s, f), .size = sizeof(((struct s *)0)->f)

extern const struct iom_key iom_keys[];
extern const size_t iom_nkeys;

/* The key called name in section, or NULL. Targets and exclude conditions also accept every
 * workload key (found in IOM_SEC_WORKLOAD); exclude conditions also accept "target". */
const struct iom_key *iom_key_find(enum iom_section section, const char *name);

/* The key of section whose name is closest to name (edit distance), for "did you mean"; or NULL. */
const struct iom_key *iom_key_closest(enum iom_section section, const char *name);

/* Of the n names in cands, the one closest to name, or NULL when none is close enough to be a
 * likely typo (more than a third of the letters differ). */
const char *iom_closest(const char *name, const char *const *cands, size_t n);

/* The key that defines dimension dim (not IOM_DIM_TARGET). */
const struct iom_key *iom_dim_key(enum iom_dim dim);

/* "target", "block_size", …; iom_dim_from_name returns -1 for an unknown name. */
const char *iom_dim_name(enum iom_dim dim);
int iom_dim_from_name(const char *name);

/* report.metrics' words, in the report's order of metrics (report.h, enum iom_metric; its
 * table iom_metrics has the same names): "iops", "mb_s", "lat_mean_ns", "lat_p99_ns",
 * "cpu_us_per_io", "cpu_busy_pct"; NULL-terminated. */
extern const char *const iom_metric_names[];
/* A list of them ("iops, lat_p99_ns, cpu_busy_pct": commas or blanks between) → a mask, bit k
 * for name k; 0 or -EINVAL with the word that is none of them. */
int iom_metrics_parse(const char *text, int64_t *mask, char *err, size_t errlen);
/* The mask in words, as the list is written ("iops, mb_s"). */
void iom_metrics_format(int64_t mask, char *buf, size_t len);

/* report.correction's words: "holm", "bh", "none" ("?" out of range), and back (-1 for
 * an unknown word). */
const char *iom_correction_name(enum iom_correction c);
int iom_correction_from_name(const char *name);

/* The name of a section as written in a file ("workload", "timing", …). */
const char *iom_section_name(enum iom_section section);

/* The section of the top-level group key called name ("workload" → IOM_SEC_WORKLOAD, also
 * "targets", "timing", "report", "hooks", "exclude"), or -1. */
int iom_section_from_name(const char *name);

/*
 * Stores v, a value of key k in its stored form (bytes, ns, 0/1, choice index), at k's landing
 * in base (the struct of k's section): by k->size. Keys without a plain landing, strings and
 * floats are not stored here. Returns 0, or -EINVAL when k has no integer landing.
 */
int iom_key_store(const struct iom_key *k, void *base, int64_t v);

/* Stores v at dst, a field of size bytes: 1 a bool (v != 0), 4 32 bits, 8 64 bits. Returns 0, or
 * -EINVAL for another size. The store behind iom_key_store. */
int iom_store_int(void *dst, size_t size, int64_t v);

/*
 * A cell's dimension in words. iom_dim_describe writes value as iom_cell_describe shows it
 * ("qd=32", "rd=70%", "random", "buffered"; "" for a word the table leaves out, such as verify
 * off). iom_dim_word writes the short word of the report ("qd32", "rd70", "wr100", "rnd", "4K")
 * for value as a results file records it (a decimal number, a choice's name, "true"/"false");
 * for a dimension the table does not know, or a value that is not of the dimension's type, it
 * writes "dim=value". iom_dim_word_rank is the place of dim's word among a cell's words (0 first);
 * dimensions without a place, known or not, share the last.
 */
void iom_dim_describe(enum iom_dim dim, int64_t value, char *buf, size_t len);
void iom_dim_word(const char *dim, const char *value, char *buf, size_t len);
int iom_dim_word_rank(const char *dim);

/* The filesystems iomatrix can make on a target's device (the values of a target's filesystems
 * list), NULL-terminated: "ext4", "xfs", "btrfs", "raw"; and the same for messages and help:
 * "ext4, xfs, btrfs or raw". fsprep.c makes them, matrix.c checks names against them. */
extern const char *const iom_fs_types[];
extern const char *const iom_fs_types_text;

/* 0 when fstype is one of iom_fs_types; -EINVAL with "unknown filesystem 'zfs' (ext4, xfs,
 * btrfs or raw)" otherwise. */
int iom_fs_check_type(const char *fstype, char *err, size_t errlen);

/*
 * Formats a dimension value as a user writes it: block sizes as "4K"/"64M"/"512", enums by
 * name, booleans as "true"/"false", numbers in decimal. Not for IOM_DIM_TARGET (a label).
 */
void iom_dim_format(enum iom_dim dim, int64_t value, char *buf, size_t len);

/*
 * Parses a scalar written as text ("4K", "random", "true", "1.5s", "70%") for key k and checks
 * its range. Numeric, enum and bool keys only; *v gets the stored form (bytes, ns, choice index,
 * 0/1). Returns 0, or -EINVAL / -ERANGE with a message such as
 *   "block_size 10G is out of range (512 to 64M)" or "pattern 'rand' is not one of random, …".
 */
int iom_key_parse_text(const struct iom_key *k, const char *text, int64_t *v, char *err,
		       size_t errlen);

/* The same range check for a value already in the stored unit; 0 or -ERANGE with err. */
int iom_key_check(const struct iom_key *k, int64_t v, char *err, size_t errlen);

/* Parses and range-checks a real value of an IOM_TYPE_FLOAT key ("0.05", "2%"). */
int iom_key_parse_float(const struct iom_key *k, const char *text, double *v, char *err,
			size_t errlen);
int iom_key_check_float(const struct iom_key *k, double v, char *err, size_t errlen);

/* Formats a stored value of key k as a user writes it ("4K", "1.5s", "random", "true"). */
void iom_key_format(const struct iom_key *k, int64_t v, char *buf, size_t len);

/* Describes the allowed values of k for messages and help: "512 to 64M", "random | sequential". */
void iom_key_range_text(const struct iom_key *k, char *buf, size_t len);

/* The type of k as help names it ("size", "integer", "duration", …). */
const char *iom_type_name(enum iom_type type);

/* Prints the key table for `iomatrix help keys` (text) or docs/matrix.md (markdown). */
void iom_keys_print(FILE *out, bool markdown);
/* The key table for a terminal of width columns: per key a line of name, type, values and
 * default, then its meaning indented beneath; every line wrapped to width. */
void iom_keys_print_wrapped(FILE *out, int width);

/* The key table as roff .TP paragraphs, for the KEYS section of iomatrix-matrix(5). */
void iom_keys_print_man(FILE *out);

#endif
