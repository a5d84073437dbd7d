/* SPDX-License-Identifier: MIT */
/*
 * matrix_check — the checks across keys, made once every section is read: what a value means
 * beside another (a rate with a bytes-bound window, a zone that does not fit, a read-only access
 * with writes, a pattern that disagrees with random_pct, an align that direct I/O cannot use).
 * The first problem found is the one reported, on the line of the key that caused it.
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

#include "dist.h"
#include "engine/engine.h"
#include "hooks.h"
#include "units.h"
#include "util.h"

/* The offered load of target i (docs/load.md): a rate needs a duration-bound window (a bytes-bound
 * one ends when the bytes are done, which a rate only stretches), and rate_iops and rate_mb_s
 * are one rate said two ways. */
static int load_checks(struct ctx *c, size_t i, const config_setting_t *sb)
{
	const struct iom_target *t = &c->m->targets[i];
	const struct iom_values *ri = &t->dim[IOM_DIM_RATE_IOPS], *rb = &t->dim[IOM_DIM_RATE_MB_S];
	bool iops = false, mbs = false;

	for (int r = 0; r < 2; r++) {
		const struct iom_values *rv = r ? rb : ri;
		bool share = false, max = false;

		for (size_t j = 0; j < rv->n; j++) {
			share |= IOM_RATE_IS_SHARE(rv->v[j]);
			max |= rv->v[j] == IOM_RATE_MAX;
		}
		if (share && !max)
			return mx_fail(c, mx_set_of(c, i, r ? IOM_DIM_RATE_MB_S : IOM_DIM_RATE_IOPS),
				    "%s has shares of the cell's maximum but no \"max\" (target "
				    "'%s'): list \"max\" first, e.g. [ \"max\", \"50%%\" ]",
				    r ? "rate_mb_s" : "rate_iops", t->label);
		if (share && c->m->shuffle)
			return mx_fail(c, mx_set_of(c, i, r ? IOM_DIM_RATE_MB_S : IOM_DIM_RATE_IOPS),
				    "%s has shares of the cell's maximum (target '%s'), which its "
				    "\"max\" run measures before them, and shuffle puts the runs in a "
				    "random order, so a share could run first: leave shuffle out, or "
				    "give the rates as numbers", r ? "rate_mb_s" : "rate_iops",
				    t->label);
	}
	for (size_t j = 0; j < ri->n; j++)
		iops |= ri->v[j] != IOM_RATE_NONE;
	for (size_t j = 0; j < rb->n; j++)
		mbs |= rb->v[j] != IOM_RATE_NONE;
	if (iops && mbs)
		return mx_fail(c, mx_set_of(c, i, IOM_DIM_RATE_MB_S),
			    "rate_mb_s and rate_iops are both given (target '%s'): give the "
			    "offered load one way", t->label);
	for (size_t j = 0; (iops || mbs) && j < t->dim[IOM_DIM_THINK_TIME].n; j++)
		if (t->dim[IOM_DIM_THINK_TIME].v[j])
			return mx_fail(c, mx_set_of(c, i, IOM_DIM_THINK_TIME),
				    "think_time pauses a closed loop, and %s makes an open one "
				    "(target '%s'): give one of them", iops ? "rate_iops" : "rate_mb_s",
				    t->label);
	if (!iops && !mbs && mx_set_of(c, i, IOM_DIM_PACE_TICK))
		return mx_fail(c, mx_set_of(c, i, IOM_DIM_PACE_TICK),
			    "pace_tick sets how a paced run wakes up, but target '%s' has no "
			    "rate_iops or rate_mb_s: give a rate, or leave pace_tick out", t->label);
	if ((iops || mbs) && c->m->timing.bytes)
		return mx_fail(c, mx_set_of(c, i, iops ? IOM_DIM_RATE_IOPS : IOM_DIM_RATE_MB_S),
			    "%s paces a run, but timing.bytes%s ends it after a number of bytes: a "
			    "rate only makes it longer; give timing.duration with a rate",
			    iops ? "rate_iops" : "rate_mb_s", sb ? "" : " (set)");
	return 0;
}

/* Checks across keys: direct I/O alignment, block size against target size and bytes. */
/* Whether a cell with access spec a (0: none) and workload read_pct rp does reads only. */
static bool access_reads_only(const struct iom_matrix *m, int64_t a, int64_t rp)
{
	if (a <= 0 || (size_t)a > m->naccess_specs)
		return rp == 100;
	for (size_t l = 0; l < m->access_specs[a - 1].nlines; l++) {
		int64_t r = m->access_specs[a - 1].lines[l].read_pct;

		if ((r == IOM_ACCESS_INHERIT ? rp : r) < 100)
			return false;
	}
	return true;
}

/*
 * Every zone of a zoned distribution holds a block of the target's region, for each block
 * size and alignment of target i's random cells (as the workers build the distribution's
 * table: (region - block) / alignment + 1 offsets); a target without a size is checked when
 * it runs.
 */
static int zones_fit(struct ctx *c, size_t i)
{
	const struct iom_target *t = &c->m->targets[i];
	const struct iom_values *dv = &t->dim[IOM_DIM_DISTRIBUTION];
	const struct iom_values *bs = &t->dim[IOM_DIM_BLOCK_SIZE], *al = &t->dim[IOM_DIM_ALIGN];
	const struct iom_values *pt = &t->dim[IOM_DIM_PATTERN];
	bool random = false;
	char e[IOM_ERRLEN], dtext[64], btext[32], stext[32];

	for (size_t j = 0; j < pt->n; j++)
		random |= pt->v[j] == IOM_PATTERN_RANDOM;
	if (!random || t->size == 0)
		return 0;
	for (size_t d = 0; d < dv->n; d++)
		for (size_t b = 0; b < bs->n; b++)
			for (size_t a = 0; a < (al->n ? al->n : 1); a++) {
				uint64_t bsz = (uint64_t)bs->v[b];
				uint64_t align = al->n && al->v[a] ? (uint64_t)al->v[a] : bsz;

				if (bsz == 0 || align == 0 || t->size < bsz ||
				    iom_dist_fits(dv->v[d], (t->size - bsz) / align + 1, e,
						  sizeof(e)) == 0)
					continue;
				iom_dist_format(dv->v[d], dtext, sizeof(dtext));
				iom_size_format(bsz, btext, sizeof(btext));
				iom_size_format(t->size, stext, sizeof(stext));
				return mx_fail(c, mx_set_of(c, i, IOM_DIM_DISTRIBUTION),
					    "distribution '%s' with block_size %s on target '%s' "
					    "(size %s): %s; give that zone more of the region, or "
					    "use smaller blocks", dtext, btext, t->label, stext, e);
			}
	return 0;
}

/* A target with several paths: one thread per path at least, and no verification. */
static int paths_check(struct ctx *c, size_t i, bool verify)
{
	const struct iom_target *t = &c->m->targets[i];
	const config_setting_t *tw = mx_set_of(c, i, IOM_DIM_THREADS);

	if (!t->npaths)
		return 0;
	if (verify)
		return mx_fail_line(c, t->line, "target '%s': verify is not available for a "
				 "target with several paths (give each path a target of "
				 "its own to verify it)", t->label);
	for (size_t j = 0; j < t->dim[IOM_DIM_THREADS].n; j++)
		if ((uint64_t)t->dim[IOM_DIM_THREADS].v[j] < t->npaths) {
			if (tw)
				return mx_fail(c, tw, "target '%s' has %zu paths but "
					    "threads = %lld: give at least one "
					    "thread per path", t->label, t->npaths,
					    (long long)t->dim[IOM_DIM_THREADS].v[j]);
			return mx_fail_line(c, t->line, "target '%s' has %zu paths but "
					 "threads = %lld: give at least one thread "
					 "per path", t->label, t->npaths,
					 (long long)t->dim[IOM_DIM_THREADS].v[j]);
		}
	return 0;
}

/* fsync_every and trim_pct need an engine that can, writes allowed, and trims no verified data. */
static int flush_trim_check(struct ctx *c, size_t i, bool verify)
{
	const struct iom_matrix *m = c->m;
	const struct iom_target *t = &m->targets[i];
	const struct iom_values *fs = &t->dim[IOM_DIM_FSYNC_EVERY];
	const struct iom_values *tp = &t->dim[IOM_DIM_TRIM_PCT];
	const struct iom_values *en = &t->dim[IOM_DIM_ENGINE];
	const struct iom_values *rp = &t->dim[IOM_DIM_READ_PCT];
	bool flush = false, trim = false, ro = false;

	for (size_t j = 0; j < fs->n; j++)
		flush |= fs->v[j] != 0;
	for (size_t j = 0; j < tp->n; j++)
		trim |= tp->v[j] != 0;
	/* read-only: a cell all of whose I/Os are reads (an access spec's lines where one is
	 * picked, the workload's read_pct where a line leaves it) */
	for (size_t k = 0; k < t->dim[IOM_DIM_ACCESS].n; k++)
		for (size_t j = 0; j < rp->n; j++)
			ro |= access_reads_only(m, t->dim[IOM_DIM_ACCESS].v[k], rp->v[j]);
	for (size_t j = 0; j < en->n && (flush || trim); j++) {
		enum iom_engine_kind k = (enum iom_engine_kind)en->v[j];
		int dim = flush && !iom_engine_has(k, IOM_ENGINE_CAP_FLUSH)
				  ? IOM_DIM_FSYNC_EVERY
				  : trim && !iom_engine_has(k, IOM_ENGINE_CAP_TRIM) ? IOM_DIM_TRIM_PCT
										    : -1;
		const config_setting_t *w;

		if (dim < 0)
			continue;
		w = mx_set_of(c, i, dim);
		return mx_fail(c, w ? w : c->t_set[i][IOM_DIM_ENGINE],
			    "engine %s cannot %s (target '%s'): set engine = "
			    "\"io_uring\" or \"psync\" for %s", iom_engines[k].name,
			    dim == IOM_DIM_FSYNC_EVERY ? "flush (fsync_every)"
						       : "discard (trim_pct)",
			    t->label, iom_dim_name((enum iom_dim)dim));
	}
	if (trim && (ro || verify))
		return mx_fail(c, mx_set_of(c, i, IOM_DIM_TRIM_PCT),
			    "trim_pct discards data (target '%s'): %s", t->label,
			    ro ? "a cell with read_pct = 100 opens the target "
				 "read-only; give read_pct below 100 (the workload's "
				 "or an access line's)"
			       : "verify would find the trimmed sectors gone; set "
				 "verify = false");
	return 0;
}

/* fill_data writes one data pattern; verify's header (offset, sequence, crc) in every sector
 * would make zeros not zeros and every deduplicated block unique. */
static int data_check(struct ctx *c, size_t i, bool verify)
{
	const struct iom_target *t = &c->m->targets[i];
	const config_setting_t *dw = mx_set_of(c, i, IOM_DIM_DATA);

	if (t->fill_data && t->dim[IOM_DIM_DATA].n != 1)
		return mx_fail_line(c, t->line, "target '%s' has fill_data = true and %zu values "
				 "of data: its scratch file is filled once, with one (set data "
				 "on the target, or fill_data = false)", t->label,
				 t->dim[IOM_DIM_DATA].n);
	for (size_t j = 0; verify && j < t->dim[IOM_DIM_DATA].n; j++) {
		int64_t d = IOM_CHOICE_INDEX(t->dim[IOM_DIM_DATA].v[j]);

		if (d == IOM_DATA_ZEROS || d == IOM_DATA_DEDUPE)
			return mx_fail(c, dw ? dw : c->t_set[i][IOM_DIM_VERIFY],
				    "data %s cannot be verified (target '%s'): verify writes a "
				    "header with the offset into every 512-byte sector, so no "
				    "block would be %s; use data = \"random\" or "
				    "\"compressible:N%%\" with verify, or verify = false",
				    d == IOM_DATA_ZEROS ? "\"zeros\"" : "\"dedupe:N%\"", t->label,
				    d == IOM_DATA_ZEROS ? "zeros" : "a repeat of another");
	}
	return 0;
}

/* Block sizes: multiples of 512 for direct I/O and verification, no larger than the target or
 * the measured bytes. */
static int block_check(struct ctx *c, size_t i, bool direct, bool verify,
		       const config_setting_t *sb)
{
	const struct iom_matrix *m = c->m;
	const struct iom_target *t = &m->targets[i];
	const struct iom_values *bs = &t->dim[IOM_DIM_BLOCK_SIZE];
	const config_setting_t *where = mx_set_of(c, i, IOM_DIM_BLOCK_SIZE);
	int64_t maxbs = 0;
	char a[32], b[32];

	for (size_t j = 0; j < bs->n; j++) {
		maxbs = IOM_MAX(maxbs, bs->v[j]);
		if (verify && !direct && bs->v[j] % 512 != 0) {
			iom_size_format((uint64_t)bs->v[j], a, sizeof(a));
			return mx_fail(c, where ? where : c->t_set[i][IOM_DIM_VERIFY],
				    "block_size %s is not a multiple of 512, as verify needs "
				    "(target '%s'; a header goes in every 512-byte sector)", a,
				    t->label);
		}
		if (direct && bs->v[j] % 512 != 0) {
			const config_setting_t *w = where;

			/* point at the list element when there is one */
			if (w && config_setting_length(w) > 0 &&
			    config_setting_type(w) != CONFIG_TYPE_GROUP &&
			    j < (size_t)config_setting_length(w))
				w = config_setting_get_elem(w, (unsigned)j);
			iom_size_format((uint64_t)bs->v[j], a, sizeof(a));
			return mx_fail(c, w ? w : c->t_set[i][IOM_DIM_DIRECT],
				    "block_size %s is not a multiple of 512, as direct I/O "
				    "needs (target '%s'; set direct = false or use a multiple "
				    "of 512)", a, t->label);
		}
	}
	if (t->size && (uint64_t)maxbs > t->size) {
		iom_size_format((uint64_t)maxbs, a, sizeof(a));
		iom_size_format(t->size, b, sizeof(b));
		return mx_fail_line(c, t->line, "target '%s' has size %s, smaller than its "
					     "block_size %s", t->label, b, a);
	}
	if (m->timing.bytes && (uint64_t)maxbs > m->timing.bytes) {
		iom_size_format((uint64_t)maxbs, a, sizeof(a));
		iom_size_format(m->timing.bytes, b, sizeof(b));
		return mx_fail(c, sb, "bytes %s is less than block_size %s: a run would do "
				   "no measured I/O", b, a);
	}
	return 0;
}

int mx_cross_checks(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *timing, *sb = NULL;
	int ret;

	timing = config_setting_get_member(config_root_setting(&c->cfg), "timing");
	if (timing)
		sb = config_setting_get_member(timing, "bytes");
	for (size_t i = 0; i < m->ntargets; i++) {
		const struct iom_target *t = &m->targets[i];
		bool direct = false, verify = false;

		for (size_t j = 0; j < t->dim[IOM_DIM_DIRECT].n; j++)
			direct |= t->dim[IOM_DIM_DIRECT].v[j] != 0;
		for (size_t j = 0; j < t->dim[IOM_DIM_VERIFY].n; j++)
			verify |= t->dim[IOM_DIM_VERIFY].v[j] != 0;
		if ((ret = paths_check(c, i, verify)) < 0 ||
		    (ret = flush_trim_check(c, i, verify)) < 0 || (ret = zones_fit(c, i)) < 0 ||
		    (ret = data_check(c, i, verify)) < 0 ||
		    (ret = block_check(c, i, direct, verify, sb)) < 0 ||
		    (ret = load_checks(c, i, sb)) < 0)
			return ret;
	}
	return 0;
}

/* ---- where each I/O goes ------------------------------------------------------------------ */

static bool values_have(const struct iom_values *v, int64_t x)
{
	for (size_t j = 0; j < v->n; j++)
		if (v->v[j] == x)
			return true;
	return false;
}

/* pattern = "sequential" is random_pct = 0: the two may not disagree within one target; align
 * is a multiple of 512 where the I/O is direct. */
int mx_check_placement(struct ctx *c)
{
	struct iom_matrix *m = c->m;

	for (size_t i = 0; i < m->ntargets; i++) {
		const struct iom_target *t = &m->targets[i];
		const struct iom_values *rp = &t->dim[IOM_DIM_RANDOM_PCT];

		if (!values_have(&t->dim[IOM_DIM_PATTERN], IOM_PATTERN_SEQUENTIAL))
			continue;
		for (size_t j = 0; j < rp->n; j++)
			if (rp->v[j] != 100)
				return mx_fail(c, mx_set_of(c, i, IOM_DIM_RANDOM_PCT),
					    "random_pct %lld conflicts with pattern = \"sequential\" "
					    "(target '%s'): sequential is random_pct = 0; give "
					    "pattern = \"random\" with random_pct, or pattern alone",
					    (long long)rp->v[j], t->label);
	}
	for (size_t i = 0; i < m->ntargets; i++) {
		const struct iom_target *t = &m->targets[i];
		const struct iom_values *al = &t->dim[IOM_DIM_ALIGN];
		char a[32];

		bool direct = values_have(&t->dim[IOM_DIM_DIRECT], 1);

		if (!direct && !values_have(&t->dim[IOM_DIM_VERIFY], 1))
			continue;
		for (size_t j = 0; j < al->n; j++) {
			if (al->v[j] % 512 == 0)
				continue;
			iom_size_format((uint64_t)al->v[j], a, sizeof(a));
			return mx_fail(c, mx_set_of(c, i, IOM_DIM_ALIGN),
				    "align %s is not a multiple of 512, as %s needs (target '%s'; "
				    "use a multiple of 512)", a,
				    direct ? "direct I/O" : "verify", t->label);
		}
	}
	return 0;
}

/* A run with an access spec: duration-bound, unverified, its lines' sizes fit the target. */
int mx_check_access(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *root = config_root_setting(&c->cfg);

	for (size_t i = 0; i < m->ntargets; i++) {
		const struct iom_target *t = &m->targets[i];
		const struct iom_values *ac = &t->dim[IOM_DIM_ACCESS];
		const config_setting_t *where = mx_set_of(c, i, IOM_DIM_ACCESS);
		bool direct = values_have(&t->dim[IOM_DIM_DIRECT], 1);

		for (size_t j = 0; j < ac->n; j++) {
			const struct iom_access_spec *a;

			if (ac->v[j] == 0)
				continue;
			a = &m->access_specs[ac->v[j] - 1];
			if (m->timing.bytes)
				return mx_fail(c, where, "access '%s': a run with an access spec is "
						      "duration-bound (timing.duration, not bytes)",
					    a->name);
			if (values_have(&t->dim[IOM_DIM_VERIFY], 1))
				return mx_fail(c, where, "access '%s' with verify: verify checks one "
						      "block size; run it without an access spec",
					    a->name);
			for (size_t l = 0; l < a->nlines; l++) {
				const struct iom_access_line *ln = &a->lines[l];
				char b[32];

				if (ln->block_size == IOM_ACCESS_INHERIT)
					continue;
				iom_size_format((uint64_t)ln->block_size, b, sizeof(b));
				if (direct && ln->block_size % 512 != 0)
					return mx_fail_line(c, ln->line, "block_size %s of access spec "
						"'%s' is not a multiple of 512, as direct I/O needs "
						"(target '%s')", b, a->name, t->label);
				if (t->size && (uint64_t)ln->block_size > t->size)
					return mx_fail_line(c, ln->line, "block_size %s of access spec "
						"'%s' is larger than target '%s'", b, a->name,
						t->label);
				if (direct && ln->align != IOM_ACCESS_INHERIT && ln->align % 512)
					return mx_fail_line(c, ln->line, "align of access spec '%s' is "
						"not a multiple of 512, as direct I/O needs", a->name);
			}
		}
	}
	(void)root;
	return 0;
}
