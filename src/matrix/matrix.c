/* SPDX-License-Identifier: MIT */
/*
 * matrix — a matrix file read with libconfig into a validated struct iom_matrix.
 *
 * The steps, in order, each in a file of the matrix room (matrix_in.h lists them):
 *   1. the prescan, a small lexer over the raw text in front of libconfig (matrix_lex.c);
 *   2. libconfig parses the text; its syntax errors keep their line, with a hint (matrix_lex.c);
 *   3. --set overrides are applied to the tree (matrix_set.c);
 *   4. validation walks the tree with the key table (keys.c): every key known, every value of
 *      its type and in range (matrix_values.c), the targets (matrix_targets.c), the sections
 *      below, then the checks across keys (matrix_check.c). The first problem found is the one
 *      reported, as "FILE:LINE: message". A plain scalar lands where its row says
 *      (mx_read_landed: one reader per type, the default when the key is missing); what is not
 *      plain — the schema, labels and paths, filesystems lists, cpus, shuffle, submit_batch,
 *      reap_wait, order and compare, hook commands, precondition, exclude — is read by name.
 *
 * Every value of a workload key becomes a list (struct iom_values): a scalar is a list of one,
 * [ … ] and ( … ) are lists, and { from; to; [step] } is a range. Targets receive the effective
 * list of every workload key: their own when they set it, the workload's otherwise.
 */
#include "matrix_in.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist.h"
#include "engine/engine.h"
#include "hooks.h"
#include "ownfile.h"
#include "units.h"
#include "util.h"


static int read_workload(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *g;
	int ret;

	if ((ret = mx_get_group(c, "workload", &g)) < 0)
		return ret;
	if (g && (ret = mx_check_members(c, g, IOM_SEC_WORKLOAD)) < 0)
		return ret;
	m->workload_line = g ? mx_line_of(g) : 1;
	for (int d = 1; d < IOM_DIM_COUNT; d++) {
		const struct iom_key *k = iom_dim_key((enum iom_dim)d);
		const config_setting_t *s = g ? config_setting_get_member(g, k->name) : NULL;
		bool listed;

		if (s) {
			if ((ret = mx_read_values(c, k, s, &m->workload[d], &listed)) < 0)
				return ret;
			m->listed[d] |= listed;
			c->wl_set[d] = s;
		} else {
			m->workload[d].v = xmalloc(sizeof(int64_t));
			m->workload[d].v[0] = mx_default_of(k);
			m->workload[d].n = 1;
		}
	}
	return 0;
}

/* timing.steady ("iops 2% 10s", "iops_slope 0.5% 10s") and timing.warmup_max, for
 * warmup = "steady" only. */
static int read_steady(struct ctx *c, const config_setting_t *g)
{
	struct iom_timing *tm = &c->m->timing;
	const config_setting_t *ss = config_setting_get_member(g, "steady");
	const config_setting_t *sx = config_setting_get_member(g, "warmup_max");
	char *text = NULL, word[16], pct[16], win[24], extra[8], e[IOM_ERRLEN];
	double x = -1;
	uint64_t ns = 0;
	int ret, n;

	if (!tm->warmup_steady) {
		if (ss || sx)
			return mx_fail(c, ss ? ss : sx, "timing.%s is for warmup = \"steady\"",
				    ss ? "steady" : "warmup_max");
		return 0;
	}
	if (ss && (ret = mx_read_string(c, ss, "steady", 48, mx_charset_of(IOM_CHARS_TEXT), &text)) < 0)
		return ret;
	n = sscanf(text ? text : "iops 2% 10s", "%15s %15s %23s %7s", word, pct, win, extra);
	if (n == 3 && (strcmp(word, "iops") == 0 || strcmp(word, "iops_slope") == 0)) {
		const char *end;

		if (iom_decimal_parse(pct, &x, &end) < 0 || strcmp(end, "%") != 0 ||
		    !(x > 0 && x <= 100))
			x = -1;
		if (iom_duration_parse(win, &ns, e, sizeof(e)) < 0 || ns < 2000000000ull ||
		    ns > 3600000000000ull)
			x = -1;
	}
	if (x < 0) {
		ret = mx_fail(c, ss, "timing.steady '%s' is not \"iops PCT%% WINDOW\" or \"iops_slope "
				  "PCT%% WINDOW\" (0 < PCT ≤ 100, a window of 2s to 1h: \"iops 2%% "
				  "10s\")", text);
		free(text);
		return ret;
	}
	tm->steady_slope = strcmp(word, "iops_slope") == 0;
	tm->steady_pct = x;
	tm->steady_window_ns = ns;
	free(text);
	if (tm->warmup_max_ns < tm->steady_window_ns)
		return mx_fail(c, sx ? sx : g, "timing.warmup_max is shorter than the steady-state "
					    "window: steady state could never be seen");
	return 0;
}

/* adaptive repetitions: timing.repeat_max and timing.until, checked against repeat and the shuffle. */
static int read_adaptive(struct ctx *c, const config_setting_t *g)
{
	struct iom_timing *tm = &c->m->timing;
	const config_setting_t *su = config_setting_get_member(g, "until");
	const config_setting_t *sm = config_setting_get_member(g, "repeat_max");
	char *until = NULL;
	int ret;

	if (su && (ret = mx_read_string(c, su, "until", 32, mx_charset_of(IOM_CHARS_TEXT), &until)) < 0)
		return ret;
	if (tm->repeat_max && tm->repeat_max <= tm->repeat) {
		free(until);
		return mx_fail(c, sm, "timing.repeat_max %" PRIu32 " is not above repeat %" PRIu32
				   ": it is the most repetitions a cell may get", tm->repeat_max,
			    tm->repeat);
	}
	if (su && !tm->repeat_max) {
		free(until);
		return mx_fail(c, su, "timing.until needs timing.repeat_max (above repeat): it says "
				   "when a cell has had enough rounds");
	}
	if (tm->repeat_max && c->m->shuffle) {
		free(until);
		return mx_fail(c, sm, "timing.repeat_max needs the rounds in order: it does not go "
				   "with shuffle");
	}
	if ((ret = read_steady(c, g)) < 0) {
		free(until);
		return ret;
	}
	tm->until_ci_pct = 0;
	if (until && strcmp(until, "settled") != 0) {
		const char *dend;
		double x = -1;

		if (strncmp(until, "ci ", 3) == 0 &&
		    (iom_decimal_parse(until + 3, &x, &dend) < 0 || strcmp(dend, "%") != 0))
			x = -1;
		if (!(x > 0 && x <= 100)) {
			ret = mx_fail(c, su, "timing.until '%s' is not \"ci PCT%%\" (the 95 %% "
					  "confidence interval of IOPS within ± PCT %% of the mean, "
					  "0 < PCT ≤ 100) or \"settled\"", until);
			free(until);
			return ret;
		}
		tm->until_ci_pct = x;
	}
	free(until);
	return 0;
}

static int read_timing(struct ctx *c)
{
	struct iom_timing *tm = &c->m->timing;
	const config_setting_t *g, *sd, *sb;
	int ret;

	if ((ret = mx_get_group(c, "timing", &g)) < 0)
		return ret;
	if (!g)
		return mx_fail_line(c, 1, "missing required key 'timing' (at least timing = { "
				       "duration = \"10s\"; }; or bytes = \"256M\")");
	c->m->timing_line = mx_line_of(g);
	if ((ret = mx_check_members(c, g, IOM_SEC_TIMING)) < 0)
		return ret;
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);

		if (config_setting_is_aggregate(e))
			return mx_fail(c, e, "timing.%s must be a single value (only workload keys "
					  "can be lists)", config_setting_name(e));
	}
	if ((ret = mx_read_landed_section(c, IOM_SEC_TIMING, g, tm)) < 0)
		return ret;
	sd = config_setting_get_member(g, "duration");
	sb = config_setting_get_member(g, "bytes");
	if (sd && sb)
		return mx_fail(c, config_setting_index(sd) > config_setting_index(sb) ? sd : sb,
			    "timing has both duration and bytes: give exactly one (a measured "
			    "window of time, or of I/O)");
	if (!sd && !sb)
		return mx_fail(c, g, "timing needs duration or bytes (a measured window of time, "
				  "or of I/O)");
	return read_adaptive(c, g);
}

static int read_report(struct ctx *c)
{
	struct iom_report_opts *r = &c->m->report;
	const config_setting_t *g;
	int ret;

	if ((ret = mx_get_group(c, "report", &g)) < 0)
		return ret;
	if (g && (ret = mx_check_members(c, g, IOM_SEC_REPORT)) < 0)
		return ret;
	return mx_read_landed_section(c, IOM_SEC_REPORT, g, r);
}

/* precondition = { pattern = "sequential"; bytes = "2x"; } (bytes: a multiple of the region or
 * a size; a bare string is taken as the bytes). */
static int read_precondition(struct ctx *c, const config_setting_t *s, struct iom_hooks *h)
{
	const config_setting_t *b = s, *pat;
	char sub[IOM_ERRLEN];
	uint64_t bytes;
	int ret;

	if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
		for (int i = 0; i < config_setting_length(s); i++) {
			const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
			const char *n = config_setting_name(e);

			if (strcmp(n, "pattern") != 0 && strcmp(n, "bytes") != 0)
				return mx_fail(c, e, "unknown key '%s' in hooks.precondition (pattern, "
					    "bytes)", n);
		}
		pat = config_setting_get_member(s, "pattern");
		if (pat && (config_setting_type(pat) != CONFIG_TYPE_STRING ||
			    strcmp(config_setting_get_string(pat), "sequential") != 0))
			return mx_fail(c, pat, "hooks.precondition.pattern must be \"sequential\" "
				    "(the only pattern a precondition writes)");
		b = config_setting_get_member(s, "bytes");
		if (!b)
			return mx_fail(c, s, "hooks.precondition needs bytes, e.g. bytes = \"2x\" (twice "
				    "the region) or \"64G\"");
	}
	if (mx_is_int(b)) {
		char num[32];

		snprintf(num, sizeof(num), "%lld", (long long)config_setting_get_int64(b));
		h->precondition = xstrdup(num);
	} else if (config_setting_type(b) == CONFIG_TYPE_STRING) {
		h->precondition = xstrdup(config_setting_get_string(b));
	} else {
		return mx_fail(c, b, "hooks.precondition bytes must be a string such as \"2x\" or "
			    "\"64G\"");
	}
	/* the multiple is checked against a region of 1 GiB: the real region comes later */
	ret = iom_precondition_bytes(h->precondition, 1ull << 30, &bytes, sub, sizeof(sub));
	if (ret < 0)
		return mx_fail(c, b, "hooks.precondition: %s", sub);
	return 0;
}

static int read_hooks(struct ctx *c)
{
	struct iom_hooks *h = &c->m->hooks;
	const config_setting_t *g;
	struct {
		const char *name;
		char **dst;
	} fields[] = {
		{ "before_study", &h->before_study }, { "before_target", &h->before_target },
		{ "before_run", &h->before_run },     { "after_run", &h->after_run },
		{ "after_target", &h->after_target }, { "after_study", &h->after_study },
	};
	const config_setting_t *s;
	int ret;

	if ((ret = mx_get_group(c, "hooks", &g)) < 0 || !g)
		return ret;
	h->line = mx_line_of(g);
	if ((ret = mx_check_members(c, g, IOM_SEC_HOOKS)) < 0)
		return ret;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(fields); i++) {
		char sub[IOM_ERRLEN];

		s = config_setting_get_member(g, fields[i].name);
		if (s && (ret = mx_read_string(c, s, fields[i].name, MAX_HOOK, CS_ANY,
					    fields[i].dst)) < 0)
			return ret;
		if (s && iom_hook_check((enum iom_hook_point)i, *fields[i].dst, sub,
					sizeof(sub)) < 0)
			return mx_fail(c, s, "hooks.%s: %s", fields[i].name, sub);
	}
	/* the built-ins drop_caches, fstrim */
	if ((ret = mx_read_landed_section(c, IOM_SEC_HOOKS, g, h)) < 0)
		return ret;
	s = config_setting_get_member(g, "precondition");
	if (s)
		return read_precondition(c, s, h);
	return 0;
}

/* reap_wait: a number of completions (8, "8") into *count, or a fraction of the I/Os in flight
 * ("1/4") into *div, the other 0; "adaptive" (the adaptive wait, worker.h): both 0. */
static int parse_reap_wait(const char *text, uint32_t *count, uint32_t *div)
{
	uint32_t *dst = count;
	unsigned long n;
	char *end;

	*count = *div = 0;
	if (strcmp(text, "adaptive") == 0)
		return 0;
	if (strncmp(text, "1/", 2) == 0) {
		text += 2;
		dst = div;
	}
	if (!isdigit((unsigned char)text[0]))
		return -1;
	n = strtoul(text, &end, 10);
	if (*end || n < 1 || n > IOM_QUEUE_DEPTH_MAX)
		return -1;
	*dst = (uint32_t)n;
	return 0;
}

static int read_reap_wait(struct ctx *c, const config_setting_t *s)
{
	struct iom_matrix *m = c->m;
	char text[32], shown[64];
	const char *str;

	if (!s)
		return parse_reap_wait(iom_key_find(IOM_SEC_IO_URING, "reap_wait")->def,
				       &m->engine.reap_wait, &m->engine.reap_wait_div);
	if (mx_is_int(s)) {
		snprintf(text, sizeof(text), "%lld", (long long)config_setting_get_int64(s));
		str = text;
	} else if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		str = config_setting_get_string(s);
	} else {
		return mx_fail(c, s, "reap_wait must be a number of completions (8) or a fraction of "
				  "the I/Os in flight (\"1/4\") or \"adaptive\", not %s",
			    mx_config_type_name(config_setting_type(s)));
	}
	if (parse_reap_wait(str, &m->engine.reap_wait, &m->engine.reap_wait_div) < 0) {
		mx_shorten(str, shown, sizeof(shown));
		return mx_fail(c, s, "reap_wait '%s' is neither a number of completions from 1 to "
				  "%d (8) nor a fraction \"1/N\" of the I/Os in flight with N "
				  "from 1 to %d (\"1/4\") nor \"adaptive\"", shown,
			    IOM_QUEUE_DEPTH_MAX, IOM_QUEUE_DEPTH_MAX);
	}
	return 0;
}

/*
 * The engines' keys, io_uring = { submit_batch; reap_wait; sqpoll; iopoll; }, landed in
 * m->engine by their rows (reap_wait by its reader); and submit_batch and reap_wait at the top
 * level, their old place, still read with a note in m->notes (set in both places, they are an
 * error).
 */
static int read_io_uring(struct ctx *c)
{
	static const char *const moved[] = { "submit_batch", "reap_wait" };
	const config_setting_t *root = config_root_setting(&c->cfg), *g, *s;
	struct iom_matrix *m = c->m;
	int ret;

	if ((ret = mx_get_group(c, "io_uring", &g)) < 0)
		return ret;
	if (g && (ret = mx_check_members(c, g, IOM_SEC_IO_URING)) < 0)
		return ret;
	if ((ret = mx_read_landed_section(c, IOM_SEC_IO_URING, g, &m->engine)) < 0)
		return ret;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(moved); i++) {
		const config_setting_t *old = config_setting_get_member(root, moved[i]);
		const config_setting_t *now = g ? config_setting_get_member(g, moved[i]) : NULL;
		const struct iom_key *k = iom_key_find(IOM_SEC_IO_URING, moved[i]);
		char *notes;

		if (old && now)
			return mx_fail(c, old, "'%s' is set twice: here at the top level (its old "
					    "place) and as io_uring.%s on line %d; keep io_uring.%s",
				    moved[i], moved[i], mx_line_of(now), moved[i]);
		if (!old)
			continue;
		notes = xasprintf("%s%s:%d: warning: '%s' at the top level is now io_uring.%s\n",
				  m->notes ? m->notes : "", c->file, mx_line_of(old), moved[i],
				  moved[i]);
		free(m->notes);
		m->notes = notes;
		/* the old place read as the new one: the same row, landed from the top level */
		if (k->size && (ret = mx_read_landed(c, k, root, &m->engine)) < 0)
			return ret;
	}
	s = g ? config_setting_get_member(g, "reap_wait") : NULL;
	return read_reap_wait(c, s ? s : config_setting_get_member(root, "reap_wait"));
}

/* ---- access specifications (where each I/O goes) ------------------------------------------ */

static const char *const line_keys[] = { "share", "block_size", "read_pct", "random_pct", "align" };

/* One line { share = N; block_size = …; … } of access spec `name` into l. */
static int read_access_line(struct ctx *c, const char *name, const config_setting_t *g,
			    struct iom_access_line *l)
{
	int64_t *dst[] = { NULL, &l->block_size, &l->read_pct, &l->random_pct, &l->align };
	const config_setting_t *sh;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return mx_fail(c, g, "a line of access spec '%s' must be a group { share = N; ... }, "
				  "not %s", name, mx_config_type_name(config_setting_type(g)));
	*l = (struct iom_access_line){ .block_size = IOM_ACCESS_INHERIT,
				       .read_pct = IOM_ACCESS_INHERIT,
				       .random_pct = IOM_ACCESS_INHERIT,
				       .align = IOM_ACCESS_INHERIT, .line = mx_line_of(g) };
	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);
		size_t j;

		for (j = 0; j < IOM_ARRAY_SIZE(line_keys); j++)
			if (strcmp(config_setting_name(e), line_keys[j]) == 0)
				break;
		if (j == IOM_ARRAY_SIZE(line_keys))
			return mx_fail(c, e, "unknown key '%s' in a line of access spec '%s' (a line "
					  "takes share, block_size, read_pct, random_pct, align)",
				    config_setting_name(e), name);
		if (j > 0) {
			int ret = mx_read_scalar(c, iom_key_find(IOM_SEC_WORKLOAD, line_keys[j]), e,
					      dst[j]);

			if (ret < 0)
				return ret;
		}
	}
	sh = config_setting_get_member(g, "share");
	if (!sh)
		return mx_fail(c, g, "a line of access spec '%s' needs its share (share = 1 to 100, "
				  "the %% of the I/Os)", name);
	if (!mx_is_int(sh) || config_setting_get_int64(sh) < 1 || config_setting_get_int64(sh) > 100)
		return mx_fail(c, sh, "share must be a whole number from 1 to 100 (the %% of the I/Os "
				   "of access spec '%s')", name);
	l->share = (uint32_t)config_setting_get_int64(sh);
	return 0;
}

static int read_access_specs(struct ctx *c, const config_setting_t *s)
{
	struct iom_matrix *m = c->m;

	if (config_setting_type(s) != CONFIG_TYPE_GROUP)
		return mx_fail(c, s, "access_specs must be a group { NAME = ( { share = N; ... }, ... "
				  "); }, not %s", mx_config_type_name(config_setting_type(s)));
	m->access_specs = xcalloc((size_t)config_setting_length(s) + 1, sizeof(*m->access_specs));
	for (int i = 0; i < config_setting_length(s); i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		struct iom_access_spec *a = &m->access_specs[m->naccess_specs++];
		const char *name = config_setting_name(e);
		unsigned sum = 0;
		int n;

		a->name = xstrdup(name);
		a->line = mx_line_of(e);
		if (strlen(name) > MAX_LABEL || strcmp(name, "none") == 0)
			return mx_fail(c, e, "access spec name '%s' is %s", name,
				    strcmp(name, "none") == 0 ? "reserved (access = \"none\" is no "
								"spec)"
							      : "too long");
		if (config_setting_type(e) != CONFIG_TYPE_LIST)
			return mx_fail(c, e, "access spec '%s' must be a list of lines ( { share = N; "
					  "... }, ... ), not %s", name,
				    mx_config_type_name(config_setting_type(e)));
		n = config_setting_length(e);
		if (n < 1 || n > IOM_ACCESS_MAX_LINES)
			return mx_fail(c, e, "access spec '%s' has %d lines (1 to %d)", name, n,
				    IOM_ACCESS_MAX_LINES);
		a->lines = xcalloc((size_t)n, sizeof(*a->lines));
		for (int j = 0; j < n; j++) {
			int ret = read_access_line(c, name, config_setting_get_elem(e, (unsigned)j),
						   &a->lines[j]);

			if (ret < 0)
				return ret;
			a->nlines++;
			sum += a->lines[j].share;
		}
		if (sum != 100)
			return mx_fail(c, e, "the shares of access spec '%s' add up to %u, not 100", name,
				    sum);
	}
	return 0;
}

/* The top-level scalars that are not plain: shuffle (a seed that also turns the shuffle on) and
 * cpus (a CPU list). Other keys without a landing are read by their own step (submit_batch and
 * reap_wait, the old spelling, by read_io_uring()); 0 for them. */
static int read_top_special(struct ctx *c, const struct iom_key *k, const config_setting_t *s)
{
	struct iom_matrix *m = c->m;
	int64_t v;
	int ret;

	if (strcmp(k->name, "shuffle") == 0 && s) {
		if (!mx_is_int(s))
			return mx_fail(c, s, "shuffle must be a seed (a whole number such as "
					  "shuffle = 7;), not %s",
				    mx_config_type_name(config_setting_type(s)));
		if ((ret = mx_read_scalar(c, k, s, &v)) < 0)
			return ret;
		m->shuffle = true;
		m->shuffle_seed = (uint64_t)v;
	} else if (strcmp(k->name, "access_specs") == 0 && s) {
		return read_access_specs(c, s);
	} else if (strcmp(k->name, "cpus") == 0 && s) {
		char *list = NULL, why[IOM_ERRLEN];

		if ((ret = mx_read_string(c, s, "cpus", MAX_TEXT, CS_TEXT, &list)) < 0)
			return ret;
		ret = iom_cpulist_parse(list, &m->cpus, &m->ncpus, why, sizeof(why));
		free(list);
		if (ret < 0)
			return mx_fail(c, s, "cpus: %s", why);
	}
	return 0;
}

/* The scalars of the top level, in table order: the plain ones by their landing (name,
 * description, seed, repeat_order, trace), the others by name. */
static int read_top_scalars(struct ctx *c)
{
	const config_setting_t *root = config_root_setting(&c->cfg);
	int ret;

	for (size_t i = 0; i < iom_nkeys; i++) {
		const struct iom_key *k = &iom_keys[i];

		if (k->section != IOM_SEC_TOP)
			continue;
		ret = k->size ? mx_read_landed(c, k, root, c->m)
			      : read_top_special(c, k, config_setting_get_member(root, k->name));
		if (ret < 0)
			return ret;
	}
	return read_io_uring(c);
}

/* Whether dimension d has more than one value somewhere (or was set from the command line). */
static bool is_dimension(const struct ctx *c, int d)
{
	return d == IOM_DIM_TARGET || c->m->listed[d] || c->overridden[d] ||
	       (d == IOM_DIM_HOST && c->m->placement == IOM_PLACE_EACH); /* of every rank */
}

/* A dimension named by a string setting; an error names the closest dimension. */
static int read_dim_name(struct ctx *c, const config_setting_t *s, const char *what, int *dim)
{
	const char *name, *near;
	char shown[64];
	int d;

	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return mx_fail(c, s, "%s must name dimensions as strings, such as \"block_size\", not "
				  "%s", what, mx_config_type_name(config_setting_type(s)));
	name = config_setting_get_string(s);
	d = iom_dim_from_name(name);
	if (d >= 0) {
		*dim = d;
		return 0;
	}
	mx_shorten(name, shown, sizeof(shown));
	{
		const char *names[IOM_DIM_COUNT];

		for (int i = 0; i < IOM_DIM_COUNT; i++)
			names[i] = iom_dim_name((enum iom_dim)i);
		near = iom_closest(name, names, IOM_DIM_COUNT);
	}
	if (near)
		return mx_fail(c, s, "unknown dimension '%s' in %s (did you mean '%s'?)", shown, what,
			    near);
	return mx_fail(c, s, "unknown dimension '%s' in %s (dimensions: target, block_size, "
			  "queue_depth, threads, read_pct, pattern, engine, direct)", shown, what);
}

static int read_order(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *root = config_root_setting(&c->cfg), *s;
	bool named[IOM_DIM_COUNT] = { false };
	size_t n = 0;
	int ret, d;

	s = config_setting_get_member(root, "order");
	if (s) {
		int type = config_setting_type(s);
		int len = type == CONFIG_TYPE_STRING ? 1 : config_setting_length(s);

		if (type != CONFIG_TYPE_STRING && type != CONFIG_TYPE_ARRAY &&
		    type != CONFIG_TYPE_LIST)
			return mx_wrong_type(c, s, mx_top_key("order"));
		if (len == 0)
			return mx_fail(c, s, "order is an empty list: name dimensions, outermost "
					  "first, or leave order out");
		for (int i = 0; i < len; i++) {
			const config_setting_t *e = type == CONFIG_TYPE_STRING
							    ? s : config_setting_get_elem(s, (unsigned)i);

			if ((ret = read_dim_name(c, e, "order", &d)) < 0)
				return ret;
			if (named[d])
				return mx_fail(c, e, "order names '%s' twice", iom_dim_name(d));
			if (!is_dimension(c, d))
				return mx_fail(c, e, "order names '%s', which is not a dimension here "
						  "(it has a single value; give a list to make it "
						  "one)", iom_dim_name(d));
			named[d] = true;
			m->order[n++] = (enum iom_dim)d;
		}
	}
	/* The rest in file order (first line where the key appears), then in table order. */
	while (n < IOM_DIM_COUNT) {
		int best = -1;

		for (d = 0; d < IOM_DIM_COUNT; d++)
			if (!named[d] && (best < 0 || c->dim_line[d] < c->dim_line[best]))
				best = d;
		named[best] = true;
		m->order[n++] = (enum iom_dim)best;
	}

	m->compare = IOM_DIM_TARGET;
	s = config_setting_get_member(root, "compare");
	if (s) {
		if ((ret = read_dim_name(c, s, "compare", &d)) < 0)
			return ret;
		m->compare = (enum iom_dim)d;
	}
	return 0;
}

static int read_excludes(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *s = config_setting_get_member(config_root_setting(&c->cfg),
							     "exclude");
	int n, ret;

	m->exclude_line = s ? mx_line_of(s) : 1;
	if (!s)
		return 0;
	if (config_setting_type(s) == CONFIG_TYPE_GROUP)
		n = 1;
	else if (config_setting_type(s) == CONFIG_TYPE_LIST)
		n = config_setting_length(s);
	else
		return mx_fail(c, s, "exclude must be a list of conditions ( { threads = 8; "
				  "queue_depth = 64; }, ... ), not %s",
			    mx_config_type_name(config_setting_type(s)));
	if (n > MAX_EXCLUDES)
		return mx_fail(c, s, "%d exclude conditions: at most %d", n, MAX_EXCLUDES);
	m->excludes = xcalloc((size_t)(n ? n : 1), sizeof(*m->excludes));
	for (int i = 0; i < n; i++) {
		const config_setting_t *g = config_setting_type(s) == CONFIG_TYPE_GROUP
						    ? s : config_setting_get_elem(s, (unsigned)i);
		struct iom_exclude *x = &m->excludes[i];

		m->nexcludes = (size_t)i + 1;
		x->line = mx_line_of(g);
		if (config_setting_type(g) != CONFIG_TYPE_GROUP)
			return mx_fail(c, g, "an exclude condition must be a group such as { threads = "
					  "8; queue_depth = 64; }, not %s",
				    mx_config_type_name(config_setting_type(g)));
		if (config_setting_length(g) == 0)
			return mx_fail(c, g, "an empty exclude condition would drop every cell");
		if ((ret = mx_check_members(c, g, IOM_SEC_EXCLUDE)) < 0)
			return ret;
		for (int j = 0; j < config_setting_length(g); j++) {
			const config_setting_t *e = config_setting_get_elem(g, (unsigned)j);
			const struct iom_key *k = iom_key_find(IOM_SEC_EXCLUDE,
							       config_setting_name(e));
			bool listed;

			if (k->dim != IOM_DIM_TARGET) {
				if ((ret = mx_read_values(c, k, e, &x->dim[k->dim], &listed)) < 0)
					return ret;
				continue;
			}
			/* target: a label or a list of labels */
			int len = config_setting_type(e) == CONFIG_TYPE_STRING
					  ? 1 : config_setting_length(e);

			if (config_setting_type(e) != CONFIG_TYPE_STRING &&
			    config_setting_type(e) != CONFIG_TYPE_ARRAY &&
			    config_setting_type(e) != CONFIG_TYPE_LIST)
				return mx_fail(c, e, "target in an exclude condition must be a label "
						  "or a list of labels, not %s",
					    mx_config_type_name(config_setting_type(e)));
			if (len == 0)
				return mx_fail(c, e, "target is an empty list");
			x->dim[IOM_DIM_TARGET].v = xcalloc((size_t)len, sizeof(int64_t));
			for (int l = 0; l < len; l++) {
				const config_setting_t *le = config_setting_type(e) ==
								     CONFIG_TYPE_STRING
							     ? e : config_setting_get_elem(e, (unsigned)l);
				char shown[64];
				int ti;

				if (config_setting_type(le) != CONFIG_TYPE_STRING)
					return mx_fail(c, le, "target labels are strings, not %s",
						    mx_config_type_name(config_setting_type(le)));
				ti = iom_matrix_target_index(m, config_setting_get_string(le));
				if (ti < 0)
					return mx_fail(c, le, "exclude names target '%s', which is not "
							   "the label of a target",
						    mx_shorten(config_setting_get_string(le), shown,
							    sizeof(shown)));
				x->dim[IOM_DIM_TARGET].v[x->dim[IOM_DIM_TARGET].n++] = ti;
			}
		}
	}
	return 0;
}

bool iom_matrix_dim_shown(const struct iom_matrix *m, enum iom_dim d)
{
	const struct iom_key *k = d == IOM_DIM_TARGET ? NULL : iom_dim_key(d);
	int64_t def = 0;

	if (!k || !(k->flags & IOM_KEY_SPARSE))
		return true;
	if (k->def)
		iom_key_parse_text(k, k->def, &def, NULL, 0);
	for (size_t t = 0; t < m->ntargets; t++)
		for (size_t j = 0; j < m->targets[t].dim[d].n; j++)
			if (m->targets[t].dim[d].v[j] != def)
				return true;
	return false;
}

/* ---- many hosts (docs/hosts.md) ----------------------------------------------------------- */

/* hosts = "each" and ranks = N: the host dimension is made by iom_matrix_place, not by hand;
 * each with ranks would say two placements; where the largest ranks value is given. */
static int read_placement(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *root = config_root_setting(&c->cfg), *s;
	int64_t most = 0;

	s = config_setting_get_member(root, "hosts");
	m->placement_line = s ? mx_line_of(s) : 0;
	for (size_t i = 0; i < m->ntargets; i++) {
		const struct iom_values *rk = &m->targets[i].dim[IOM_DIM_RANKS];

		if ((s = mx_set_of(c, i, IOM_DIM_HOST)))
			return mx_fail(c, s, "host is not given by hand: hosts = \"each\" (at the top "
					  "level) makes it the dimension of every rank (an exclude "
					  "condition may name one)");
		for (size_t j = 0; j < rk->n; j++)
			if (rk->v[j] > most) {
				most = rk->v[j];
				m->ranks_line = mx_line_of(mx_set_of(c, i, IOM_DIM_RANKS));
			}
		if (rk->n && rk->v[0] && m->placement == IOM_PLACE_EACH)
			return mx_fail(c, mx_set_of(c, i, IOM_DIM_RANKS),
				    "ranks with hosts = \"each\": each runs a cell on one rank at a "
				    "time; give one of them");
	}
	/* hosts = "each" compares the hosts, unless compare says otherwise (iom_matrix_place) */
	m->compare_default = !config_setting_get_member(root, "compare");
	return 0;
}

static void dim_set_all(struct iom_values *v, unsigned n)
{
	free(v->v);
	v->v = xcalloc(n ? n : 1, sizeof(*v->v));
	for (unsigned i = 0; i < n; i++)
		v->v[i] = (int64_t)i;
	v->n = n ? n : 1;
}

int iom_matrix_place(struct iom_matrix *m, unsigned nranks, const char *const *hosts, char *err,
		     size_t errlen)
{
	char here[64];

	if (!nranks)
		nranks = 1;
	m->nranks = nranks;
	m->rank_hosts = xcalloc(nranks, sizeof(*m->rank_hosts));
	for (unsigned r = 0; r < nranks; r++) {
		if (hosts) {
			m->rank_hosts[r] = xstrdup(hosts[r]);
			continue;
		}
		if (gethostname(here, sizeof(here)) < 0)
			snprintf(here, sizeof(here), "localhost");
		here[sizeof(here) - 1] = '\0';
		if (strchr(here, '.'))
			*strchr(here, '.') = '\0';
		m->rank_hosts[r] = xstrdup(here);
	}
	for (size_t t = 0; t < m->ntargets; t++) {
		struct iom_target *tg = &m->targets[t];
		unsigned n = 0;

		if (!tg->nhosts)
			continue;
		free(tg->on_rank);
		tg->on_rank = xcalloc(nranks, 1);
		for (unsigned r = 0; r < nranks; r++) {
			char sel[32];

			snprintf(sel, sizeof(sel), "rank:%u", r);
			for (size_t k = 0; k < tg->nhosts && !tg->on_rank[r]; k++)
				tg->on_rank[r] = strcmp(tg->hosts[k], sel) == 0 ||
						 strcmp(tg->hosts[k], m->rank_hosts[r]) == 0;
			n += tg->on_rank[r];
		}
		if (!n)
			return iom_err(err, errlen, EINVAL, "%s:%d: target '%s' lives on no rank "
				       "of this job (its hosts: %s%s; rank 0 is on %s)", m->file,
				       tg->hosts_line, tg->label, tg->hosts[0],
				       tg->nhosts > 1 ? ", …" : "", m->rank_hosts[0]);
	}
	if (m->placement == IOM_PLACE_EACH) {
		m->host_labels = xcalloc(nranks, sizeof(*m->host_labels));
		for (unsigned r = 0; r < nranks; r++)
			m->host_labels[r] = xasprintf("r%u@%s", r, m->rank_hosts[r]);
		dim_set_all(&m->workload[IOM_DIM_HOST], nranks);
		for (size_t t = 0; t < m->ntargets; t++)
			dim_set_all(&m->targets[t].dim[IOM_DIM_HOST], nranks);
		m->listed[IOM_DIM_HOST] = nranks > 1;
		if (nranks > 1 && m->compare_default)
			m->compare = IOM_DIM_HOST;
		/* a target's cells only on the ranks where it lives */
		for (size_t t = 0; t < m->ntargets; t++)
			for (unsigned r = 0; m->targets[t].on_rank && r < nranks; r++) {
				struct iom_exclude *x;

				if (m->targets[t].on_rank[r])
					continue;
				m->excludes = xrealloc(m->excludes, (m->nexcludes + 1) *
						       sizeof(*m->excludes));
				x = &m->excludes[m->nexcludes++];
				memset(x, 0, sizeof(*x));
				x->line = m->targets[t].hosts_line;
				x->dim[IOM_DIM_TARGET].v = xcalloc(1, sizeof(int64_t));
				x->dim[IOM_DIM_TARGET].v[0] = (int64_t)t;
				x->dim[IOM_DIM_TARGET].n = 1;
				x->dim[IOM_DIM_HOST].v = xcalloc(1, sizeof(int64_t));
				x->dim[IOM_DIM_HOST].v[0] = (int64_t)r;
				x->dim[IOM_DIM_HOST].n = 1;
			}
	}
	for (size_t t = 0; t < m->ntargets; t++) {
		const struct iom_values *rk = &m->targets[t].dim[IOM_DIM_RANKS];

		for (size_t j = 0; j < rk->n; j++)
			if (rk->v[j] > (int64_t)nranks)
				return iom_err(err, errlen, EINVAL, "%s:%d: ranks %lld is more than "
					       "the %u rank%s of this job%s (target '%s')", m->file,
					       m->ranks_line ? m->ranks_line : m->workload_line,
					       (long long)rk->v[j], nranks, nranks == 1 ? "" : "s",
					       hosts ? "" : ": plain iomatrix is one host; start "
					       "iomatrix-mpi under mpirun with as many ranks",
					       m->targets[t].label);
	}
	return 0;
}

/* ---- the whole ----------------------------------------------------------------------------- */

static void note_line(struct ctx *c, int d, const config_setting_t *s)
{
	int line = mx_line_of(s);

	if (line < c->dim_line[d])
		c->dim_line[d] = line;
}

/* Records where each dimension first appears in the file, before overrides move anything. */
static void record_dim_lines(struct ctx *c)
{
	const config_setting_t *root = config_root_setting(&c->cfg), *s;

	for (int d = 0; d < IOM_DIM_COUNT; d++)
		c->dim_line[d] = INT_MAX - IOM_DIM_COUNT + d;
	s = config_setting_get_member(root, "targets");
	if (s)
		note_line(c, IOM_DIM_TARGET, s);
	s = config_setting_get_member(root, "workload");
	for (int d = 1; s && config_setting_is_group(s) && d < IOM_DIM_COUNT; d++) {
		const config_setting_t *e = config_setting_get_member(s, iom_dim_name(d));

		if (e)
			note_line(c, d, e);
	}
	s = config_setting_get_member(root, "targets");
	for (int i = 0; s && config_setting_is_list(s) && i < config_setting_length(s); i++) {
		const config_setting_t *t = config_setting_get_elem(s, (unsigned)i);

		for (int d = 1; config_setting_is_group(t) && d < IOM_DIM_COUNT; d++) {
			const config_setting_t *e = config_setting_get_member(t, iom_dim_name(d));

			if (e)
				note_line(c, d, e);
		}
	}
}

static int validate(struct ctx *c)
{
	const config_setting_t *root = config_root_setting(&c->cfg), *s;
	int ret;

	/* The schema first: a file of another schema may use keys this one does not know. */
	s = config_setting_get_member(root, "iomatrix");
	if (!s)
		return mx_fail_line(c, 1, "missing required key 'iomatrix' (the schema version: write "
				       "iomatrix = 1; at the top)");
	if (!mx_is_int(s))
		return mx_fail(c, s, "iomatrix must be the schema version 1, not %s",
			    mx_config_type_name(config_setting_type(s)));
	if (config_setting_get_int64(s) != IOM_MATRIX_SCHEMA)
		return mx_fail(c, s, "schema version %lld: this iomatrix reads schema %d",
			    (long long)config_setting_get_int64(s), IOM_MATRIX_SCHEMA);
	c->m->schema = IOM_MATRIX_SCHEMA;
	for (int i = 0; i < config_setting_length(root); i++) {
		const config_setting_t *e = config_setting_get_elem(root, (unsigned)i);
		const struct iom_key *k = mx_top_key(config_setting_name(e));

		if (!k)
			return mx_unknown_key(c, e, IOM_SEC_TOP);
	}
	if ((ret = read_top_scalars(c)) < 0 || (ret = read_workload(c)) < 0 ||
	    (ret = mx_read_targets(c)) < 0 || (ret = read_timing(c)) < 0 ||
	    (ret = read_order(c)) < 0 || (ret = read_excludes(c)) < 0 ||
	    (ret = read_report(c)) < 0 || (ret = read_hooks(c)) < 0 ||
	    (ret = mx_cross_checks(c)) < 0 || (ret = mx_check_placement(c)) < 0 ||
	    (ret = mx_check_access(c)) < 0 || (ret = read_placement(c)) < 0)
		return ret;
	return 0;
}

/* The file's name without directory and .cfg: the default study name. */
static char *default_name(const char *file)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	size_t n = strlen(base);

	if (n > 4 && strcmp(base + n - 4, ".cfg") == 0)
		n -= 4;
	return xasprintf("%.*s", (int)IOM_MIN(n, (size_t)MAX_LABEL), base);
}

static char *render(const config_t *cfg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return xstrdup("");
	config_write(cfg, f);
	fclose(f);
	return buf ? buf : xstrdup("");
}

int iom_matrix_parse(const char *name, const char *text, const struct iom_override *ov,
		     size_t nov, struct iom_matrix **out, char *err, size_t errlen)
{
	struct ctx c = { .file = name ? name : "(matrix)", .err = err, .errlen = errlen };
	int ret;

	*out = NULL;
	c.m = xcalloc(1, sizeof(*c.m));
	c.m->file = xstrdup(c.file);
	config_init(&c.cfg);
	if ((ret = mx_parse_text(&c, text ? text : "")) < 0)
		goto fail;
	record_dim_lines(&c);
	for (size_t i = 0; i < nov; i++)
		if ((ret = mx_apply_override(&c, &ov[i])) < 0)
			goto fail;
	if ((ret = validate(&c)) < 0)
		goto fail;
	if (!c.m->name)
		c.m->name = default_name(c.file);
	c.m->as_run = nov ? render(&c.cfg) : xstrdup(text);
	config_destroy(&c.cfg);
	free(c.t_set);
	mx_free_fs_lists(&c);
	*out = c.m;
	return 0;
fail:
	config_destroy(&c.cfg);
	free(c.t_set);
	mx_free_fs_lists(&c);
	iom_matrix_free(c.m);
	return ret;
}

int iom_matrix_load(const char *path, const struct iom_override *ov, size_t nov,
		    struct iom_matrix **out, char *err, size_t errlen)
{
	char *text, e[IOM_ERRLEN];
	size_t len;
	int ret;

	*out = NULL;
	/* a FIFO or a device is refused without blocking, a huge file without reading it */
	ret = iom_own_read(NULL, path, IOM_OWN_FOLLOW, IOM_OWN_CAP_MATRIX, &text, &len, e,
			   sizeof(e));
	if (ret < 0)
		return iom_err(err, errlen, -ret, "%s: cannot read the matrix: %s", path,
			       ret == -EPERM || ret == -EISDIR || ret == -EFBIG ? e : strerror(-ret));
	if (strlen(text) != len) {
		free(text);
		return iom_err(err, errlen, EINVAL, "%s:1: not a text file (it contains a NUL "
						    "byte)", path);
	}
	ret = iom_matrix_parse(path, text, ov, nov, out, err, errlen);
	free(text);
	return ret;
}

void iom_matrix_free(struct iom_matrix *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ntargets; i++) {
		struct iom_target *t = &m->targets[i];

		free(t->label);
		free(t->path);
		for (size_t p = 0; p < t->npaths; p++)
			free(t->paths[p]);
		free(t->paths);
		free(t->filesystem);
		free(t->controller);
		free(t->fs_type);
		free(t->mkfs_options);
		free(t->mount_options);
		for (size_t h = 0; h < t->nhosts; h++)
			free(t->hosts[h]);
		free(t->hosts);
		free(t->on_rank);
		for (int d = 0; d < IOM_DIM_COUNT; d++)
			mx_values_free(&t->dim[d]);
	}
	free(m->targets);
	for (size_t i = 0; i < m->nexcludes; i++)
		for (int d = 0; d < IOM_DIM_COUNT; d++)
			mx_values_free(&m->excludes[i].dim[d]);
	free(m->excludes);
	for (size_t i = 0; i < m->naccess_specs; i++) {
		free(m->access_specs[i].name);
		free(m->access_specs[i].lines);
	}
	free(m->access_specs);
	for (int d = 0; d < IOM_DIM_COUNT; d++)
		mx_values_free(&m->workload[d]);
	free(m->hooks.before_study);
	free(m->hooks.before_target);
	free(m->hooks.before_run);
	free(m->hooks.after_run);
	free(m->hooks.after_target);
	free(m->hooks.after_study);
	free(m->hooks.precondition);
	free(m->file);
	free(m->as_run);
	free(m->name);
	free(m->description);
	free(m->cpus);
	free(m->notes);
	for (unsigned r = 0; r < m->nranks; r++) {
		free(m->rank_hosts ? m->rank_hosts[r] : NULL);
		free(m->host_labels ? m->host_labels[r] : NULL);
	}
	free(m->rank_hosts);
	free(m->host_labels);
	free(m);
}

int iom_matrix_target_index(const struct iom_matrix *m, const char *label)
{
	for (size_t i = 0; label && i < m->ntargets; i++)
		if (m->targets[i].label && strcmp(m->targets[i].label, label) == 0)
			return (int)i;
	return -1;
}
