/* SPDX-License-Identifier: MIT */
/*
 * matrix_in — the inside of the matrix room, shared by its files and by nothing else: the state of
 * one reading (struct ctx) and the helpers each step uses. The room reads a matrix file in four
 * steps, one file each, and matrix.c holds the model's sections:
 *
 *   matrix_lex.c     step 1 and 2: the prescan lexer in front of libconfig, and libconfig's
 *                    syntax errors with their hints
 *   matrix_set.c     step 3: --set overrides applied to the tree
 *   matrix_values.c  messages ("FILE:LINE: ..."), and one value of a key read and range-checked:
 *                    scalars, lists, ranges, strings, the landed plain keys
 *   matrix_targets.c the targets: labels, paths, filesystems, hosts, the effective lists
 *   matrix_check.c   the checks across keys, once every section is read
 *   matrix.c         the sections (workload, timing, report, hooks, io_uring, access, order,
 *                    exclude, placement) and the whole: parse, validate, free
 *
 * Only the matrix room includes <libconfig.h>, and only through this header.
 */
#ifndef IOM_MATRIX_IN_H
#define IOM_MATRIX_IN_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "matrix.h"
#include "model.h"

#define MAX_TARGETS 1024
#define MAX_VALUES (1u << 20) /* values in one dimension */
#define MAX_EXCLUDES 4096
#define MAX_LABEL 64
#define MAX_TEXT 1024
#define MAX_PATH_LEN 4095
#define MAX_HOOK 8192

struct ctx {
	const char *file;
	char *err;
	size_t errlen;
	config_t cfg;
	struct iom_matrix *m;
	/* First line where each dimension's key appears in the file (INT_MAX: nowhere). */
	int dim_line[IOM_DIM_COUNT];
	bool overridden[IOM_DIM_COUNT];
	/* Where each dimension was set: in the workload, and per target (NULL: inherited). */
	const config_setting_t *wl_set[IOM_DIM_COUNT];
	const config_setting_t *(*t_set)[IOM_DIM_COUNT];
	/* Each target's filesystems = [ … ] (NULL-terminated; NULL when not given), until the
	 * targets are expanded. */
	char ***fs_list;
	size_t nfs_list;
};

/* ---- messages (matrix_values.c) ------------------------------------------------------------ */

/* Where target i's dimension d was set: its own setting, else the workload's (NULL: default). */
static inline const config_setting_t *mx_set_of(const struct ctx *c, size_t i, int d)
{
	return c->t_set[i][d] ? c->t_set[i][d] : c->wl_set[d];
}

static inline const struct iom_key *mx_top_key(const char *name)
{
	return iom_key_find(IOM_SEC_TOP, name);
}

/* Quotes at most 40 characters of s into buf (10 kB labels make poor messages). */
const char *mx_shorten(const char *s, char *buf, size_t len);
/* The line a setting (or its nearest parent with one) is on; 1 when none is. */
int mx_line_of(const config_setting_t *s);
/* "FILE:LINE: message" (or "FILE: --set K=V: message") into c->err; returns -EINVAL. */
__attribute__((format(printf, 3, 4)))
int mx_fail(struct ctx *c, const config_setting_t *s, const char *fmt, ...);
/* As mx_fail(), at a line of the text (the prescan and libconfig's errors). */
__attribute__((format(printf, 3, 4)))
int mx_fail_line(struct ctx *c, int line, const char *fmt, ...);
/* As mx_fail(), naming the override: "FILE: --set K=V: message". */
__attribute__((format(printf, 3, 4)))
int mx_fail_override(struct ctx *c, const struct iom_override *ov, const char *fmt, ...);
const char *mx_config_type_name(int type);
int mx_wrong_type(struct ctx *c, const config_setting_t *s, const struct iom_key *k);
int mx_unknown_key(struct ctx *c, const config_setting_t *s, enum iom_section sec);

/* ---- values (matrix_values.c) -------------------------------------------------------------- */

enum charset { CS_NAME, CS_TEXT, CS_ANY };

bool mx_is_int(const config_setting_t *s);
int mx_read_scalar(struct ctx *c, const struct iom_key *k, const config_setting_t *s, int64_t *v);
/* Every value of a workload key as a list: a scalar, [ … ], ( … ) or { from; to; [step] }. */
int mx_read_values(struct ctx *c, const struct iom_key *k, const config_setting_t *s,
		   struct iom_values *out, bool *listed);
void mx_values_copy(struct iom_values *dst, const struct iom_values *src);
void mx_values_free(struct iom_values *v);
bool mx_values_equal(const struct iom_values *a, const struct iom_values *b);
int64_t mx_default_of(const struct iom_key *k);
/* A string value of 1..maxlen bytes in charset cs; *out is the caller's to free. */
int mx_read_string(struct ctx *c, const config_setting_t *s, const char *what, size_t maxlen,
		   enum charset cs, char **out);
enum charset mx_charset_of(enum iom_chars chars);
/* A plain key read where its row lands (IOM_AT) in base; its default when g lacks it. */
int mx_read_landed(struct ctx *c, const struct iom_key *k, const config_setting_t *g, void *base);
int mx_read_landed_section(struct ctx *c, enum iom_section sec, const config_setting_t *g,
			   void *base);
int mx_check_members(struct ctx *c, const config_setting_t *g, enum iom_section sec);
int mx_get_group(struct ctx *c, const char *name, const config_setting_t **g);

/* ---- the steps and the sections of other files ---------------------------------------------- */

int mx_prescan(struct ctx *c, const char *text, char **out);		/* matrix_lex.c */
int mx_parse_text(struct ctx *c, const char *text);			/* matrix_lex.c */
int mx_apply_override(struct ctx *c, const struct iom_override *ov);	/* matrix_set.c */
int mx_read_targets(struct ctx *c);					/* matrix_targets.c */
void mx_free_fs_lists(struct ctx *c);					/* matrix_targets.c */
int mx_cross_checks(struct ctx *c);					/* matrix_check.c */
int mx_check_placement(struct ctx *c);					/* matrix_check.c */
int mx_check_access(struct ctx *c);					/* matrix_check.c */

#endif
