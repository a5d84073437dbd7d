/* SPDX-License-Identifier: MIT */
/*
 * plan — a validated matrix expanded into the ordered list of runs.
 *
 * 1. Count first. The number of cells is, per target, the product of the sizes of its value
 *    lists, less the cells excludes drop (counted exactly by inclusion–exclusion over the
 *    conditions that apply to the target); times `repeat` that is the number of runs. Every
 *    product is overflow-checked, and a plan over IOM_PLAN_MAX_RUNS is refused with its count
 *    before anything of its size is allocated.
 * 2. Enumerate every target's cartesian product, skipping excluded cells.
 * 3. Order the cells by nesting: each dimension's values are ranked by their first appearance
 *    (targets in file order, each target's values in its order), and cells are sorted by the
 *    ranks of m->order's dimensions, outermost first. Cells are distinct, so the order is total
 *    and does not depend on the sort algorithm.
 * 4. Lay out repetitions (grouped or interleaved), then shuffle with Fisher–Yates when asked.
 * 5. Seed each run from m->seed, the cell's values (the target by its label) and the
 *    repetition, so a cell keeps its seeds when the order or the other cells change — and
 *    when a later iomatrix adds a dimension (see run_seed).
 *
 * The plan's hash is FNV-1a 64 over its TSV form, exactly the bytes `plan --format tsv` prints.
 */
#include "plan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "units.h"
#include "util.h"

/* Beyond this many cells before excludes, enumerating to find the survivors takes too long. */
#define MAX_CELLS_ENUMERATED 200000000ull
/* Inclusion–exclusion over at most this many conditions per target (2^n subsets). */
#define MAX_IE_CONDITIONS 16

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

typedef unsigned __int128 u128;

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= FNV_PRIME;
	}
	return h;
}

/* ---- counting ------------------------------------------------------------------------------ */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The exclude conditions with every value list sorted, for membership by binary search. */
struct sorted_excludes {
	size_t n;
	struct iom_values (*dim)[IOM_DIM_COUNT];
};

static void sort_excludes(const struct iom_matrix *m, struct sorted_excludes *sx)
{
	sx->n = m->nexcludes;
	sx->dim = xcalloc(sx->n ? sx->n : 1, sizeof(*sx->dim));
	for (size_t i = 0; i < sx->n; i++) {
		for (int d = 0; d < IOM_DIM_COUNT; d++) {
			const struct iom_values *src = &m->excludes[i].dim[d];
			struct iom_values *dst = &sx->dim[i][d];

			dst->n = src->n;
			dst->v = xmalloc((src->n ? src->n : 1) * sizeof(int64_t));
			if (src->n)
				memcpy(dst->v, src->v, src->n * sizeof(int64_t));
			qsort(dst->v, dst->n, sizeof(int64_t), cmp_i64);
		}
	}
}

static void free_excludes(struct sorted_excludes *sx)
{
	for (size_t i = 0; i < sx->n; i++)
		for (int d = 0; d < IOM_DIM_COUNT; d++)
			free(sx->dim[i][d].v);
	free(sx->dim);
}

/* Whether v is in the sorted list vals. */
static bool in_values(const struct iom_values *vals, int64_t v)
{
	return bsearch(&v, vals->v, vals->n, sizeof(int64_t), cmp_i64) != NULL;
}

/* Values of target t in dimension d (the target dimension: the target's index alone). */
static void target_values(const struct iom_matrix *m, size_t t, int d, const int64_t **v,
			  size_t *n, int64_t *self)
{
	if (d == IOM_DIM_TARGET) {
		*self = (int64_t)t;
		*v = self;
		*n = 1;
	} else {
		*v = m->targets[t].dim[d].v;
		*n = m->targets[t].dim[d].n;
	}
}

static bool exclude_applies(const struct iom_values *x, size_t t)
{
	return x[IOM_DIM_TARGET].n == 0 || in_values(&x[IOM_DIM_TARGET], (int64_t)t);
}

/* Cells of target t before excludes, saturating at UINT64_MAX. */
static uint64_t target_cells(const struct iom_matrix *m, size_t t)
{
	u128 n = 1;

	for (int d = 1; d < IOM_DIM_COUNT; d++) {
		n *= m->targets[t].dim[d].n;
		if (n > UINT64_MAX)
			return UINT64_MAX;
	}
	return (uint64_t)n;
}

/*
 * Cells of target t that survive the excludes, by inclusion–exclusion. Returns false when there
 * are too many conditions to count this way (the caller then knows only the upper bound).
 */
static bool target_cells_exact(const struct iom_matrix *m, const struct sorted_excludes *sx,
			       size_t t, uint64_t *out)
{
	const struct iom_values *app[MAX_IE_CONDITIONS];
	size_t k = 0;
	__int128 total;

	for (size_t i = 0; i < sx->n; i++) {
		if (!exclude_applies(sx->dim[i], t))
			continue;
		if (k == MAX_IE_CONDITIONS)
			return false;
		app[k++] = sx->dim[i];
	}
	total = (__int128)target_cells(m, t);
	for (uint32_t mask = 1; mask < (1u << k); mask++) {
		u128 prod = 1;
		int bits = __builtin_popcount(mask);

		for (int d = 1; d < IOM_DIM_COUNT && prod; d++) {
			const struct iom_values *vals = &m->targets[t].dim[d];
			uint64_t cnt = 0;

			for (size_t i = 0; i < vals->n; i++) {
				bool all = true;

				for (size_t j = 0; j < k && all; j++)
					if ((mask >> j & 1) && app[j][d].n &&
					    !in_values(&app[j][d], vals->v[i]))
						all = false;
				cnt += all;
			}
			prod *= cnt;
		}
		total += (bits & 1) ? -(__int128)prod : (__int128)prod;
	}
	*out = total < 0 ? 0 : (uint64_t)total;
	return true;
}

/* ---- enumeration ----------------------------------------------------------------------------- */

/* A value → first-appearance rank map of one dimension (sorted by value for bsearch). */
struct rank_entry {
	int64_t value;
	uint32_t rank;
};

static int cmp_rank_entry(const void *a, const void *b)
{
	const struct rank_entry *x = a, *y = b;

	return (x->value > y->value) - (x->value < y->value);
}

struct builder {
	const struct iom_matrix *m;
	struct sorted_excludes sx;
	struct rank_entry *ranks[IOM_DIM_COUNT];
	size_t nranks[IOM_DIM_COUNT];
	int order[IOM_DIM_COUNT];
	uint32_t (*keys)[IOM_DIM_COUNT]; /* per cell: ranks in nesting order */
};

static void build_ranks(struct builder *b)
{
	const struct iom_matrix *m = b->m;

	for (int d = 0; d < IOM_DIM_COUNT; d++) {
		size_t cap = 0, n = 0;
		struct rank_entry *e = NULL;

		for (size_t t = 0; t < m->ntargets; t++) {
			const int64_t *v;
			int64_t self;
			size_t nv;

			target_values(m, t, d, &v, &nv, &self);
			cap += nv;
			e = xrealloc(e, cap * sizeof(*e));
			for (size_t i = 0; i < nv; i++) {
				e[n].value = v[i];
				e[n].rank = (uint32_t)n;
				n++;
			}
		}
		/* Sort by value, keeping the first appearance of each (the lowest rank). */
		if (n) /* (qsort of NULL is undefined even for 0 elements) */
			qsort(e, n, sizeof(*e), cmp_rank_entry);
		{
			size_t w = 0;

			for (size_t i = 0; i < n; i++) {
				if (w && e[w - 1].value == e[i].value) {
					if (e[i].rank < e[w - 1].rank)
						e[w - 1].rank = e[i].rank;
					continue;
				}
				e[w++] = e[i];
			}
			n = w;
		}
		b->ranks[d] = e;
		b->nranks[d] = n;
	}
}

static uint32_t rank_of(const struct builder *b, int d, int64_t v)
{
	struct rank_entry key = { .value = v };
	const struct rank_entry *e = bsearch(&key, b->ranks[d], b->nranks[d], sizeof(key),
					     cmp_rank_entry);

	return e ? e->rank : UINT32_MAX;
}

static bool cell_excluded(const struct sorted_excludes *sx, const struct iom_cell *c)
{
	for (size_t i = 0; i < sx->n; i++) {
		const struct iom_values *x = sx->dim[i];
		bool match = true;

		for (int d = 0; d < IOM_DIM_COUNT && match; d++)
			if (x[d].n && !in_values(&x[d], c->v[d]))
				match = false;
		if (match)
			return true;
	}
	return false;
}

/* Sorting needs the keys beside the cells; qsort_r keeps the builder out of globals. */
static int cmp_cell_index(const void *a, const void *b, void *arg)
{
	const struct builder *bl = arg;
	const uint32_t *x = bl->keys[*(const uint32_t *)a], *y = bl->keys[*(const uint32_t *)b];

	for (int i = 0; i < IOM_DIM_COUNT; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* Enumerates the surviving cells into p->cells, sorted. ncells is their exact count when exact
 * is set (checked), else an upper bound. */
static int enumerate(struct builder *b, struct iom_plan *p, uint64_t ncells, bool exact)
{
	const struct iom_matrix *m = b->m;
	struct iom_cell *cells = xcalloc(ncells ? ncells : 1, sizeof(*cells));
	uint32_t *idx;
	size_t n = 0;

	b->keys = xcalloc(ncells ? ncells : 1, sizeof(*b->keys));
	for (size_t t = 0; t < m->ntargets; t++) {
		size_t pos[IOM_DIM_COUNT] = { 0 };
		struct iom_cell c;

		for (;;) {
			int d;

			c.v[IOM_DIM_TARGET] = (int64_t)t;
			for (d = 1; d < IOM_DIM_COUNT; d++)
				c.v[d] = m->targets[t].dim[d].v[pos[d]];
			if (!cell_excluded(&b->sx, &c)) {
				if (n == ncells) {
					/* cannot happen: ncells is at least the count */
					free(cells);
					return -EOVERFLOW;
				}
				cells[n] = c;
				for (int i = 0; i < IOM_DIM_COUNT; i++)
					b->keys[n][i] = rank_of(b, b->order[i], c.v[b->order[i]]);
				n++;
			}
			/* odometer: the last dimension turns fastest */
			for (d = IOM_DIM_COUNT - 1; d >= 1; d--) {
				if (++pos[d] < m->targets[t].dim[d].n)
					break;
				pos[d] = 0;
			}
			if (d < 1)
				break;
		}
	}
	if (exact && n != ncells) {
		free(cells);
		return -EOVERFLOW;
	}
	idx = xmalloc((n ? n : 1) * sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, n, sizeof(*idx), cmp_cell_index, b);
	p->cells = xmalloc((n ? n : 1) * sizeof(*p->cells));
	for (size_t i = 0; i < n; i++)
		p->cells[i] = cells[idx[i]];
	p->ncells = n;
	free(idx);
	free(cells);
	return 0;
}

/* What a run's seed takes of each dimension: its default value (def[IOM_DIM_TARGET] unused) and
 * the hash of its name, worked out once per plan. */
struct seed_dims {
	int64_t def[IOM_DIM_COUNT];
	uint64_t name_hash[IOM_DIM_COUNT];
};

static void seed_dims_init(struct seed_dims *sd)
{
	for (int d = 0; d < IOM_DIM_COUNT; d++) {
		const struct iom_key *k = d == IOM_DIM_TARGET ? NULL : iom_dim_key((enum iom_dim)d);
		const char *name = iom_dim_name((enum iom_dim)d);

		sd->def[d] = 0;
		if (k && k->def)
			iom_key_parse_text(k, k->def, &sd->def[d], NULL, 0);
		sd->name_hash[d] = fnv1a(FNV_OFFSET, name, strlen(name));
	}
}

/*
 * A run's seed mixes m->seed, the repetition and each dimension by its name and value. A
 * dimension at its default value is left out, so a dimension added to iomatrix later (with a
 * default that keeps today's behaviour) leaves the seeds of every existing study as they were.
 */
static uint64_t run_seed(const struct iom_matrix *m, const struct iom_cell *c, uint32_t rep,
			 const struct seed_dims *sd)
{
	uint64_t h = iom_mix64(m->seed);

	for (int d = 0; d < IOM_DIM_COUNT; d++) {
		uint64_t v = (uint64_t)c->v[d];

		if (d == IOM_DIM_TARGET) {
			const char *label = m->targets[c->v[d]].label;

			v = fnv1a(FNV_OFFSET, label, strlen(label));
		} else if (c->v[d] == sd->def[d]) {
			continue;
		}
		h = iom_mix64(h ^ iom_mix64(v ^ sd->name_hash[d]));
	}
	return iom_mix64(h ^ rep);
}

static size_t format_tsv_row(const struct iom_plan *p, const struct iom_run *r, char *buf,
			     size_t len);
static size_t format_tsv_header(const struct iom_plan *p, char *buf, size_t len);

/* Which dimensions the TSV and JSON show (plan.h, shown[]). */
static void mark_shown(struct iom_plan *p)
{
	for (int d = 0; d < IOM_DIM_COUNT; d++)
		p->shown[d] = iom_matrix_dim_shown(p->m, (enum iom_dim)d);
}

static uint64_t plan_hash(const struct iom_plan *p)
{
	char row[1024];
	uint64_t h = FNV_OFFSET;
	size_t n = format_tsv_header(p, row, sizeof(row));

	h = fnv1a(h, row, n);
	for (size_t i = 0; i < p->nruns; i++) {
		n = format_tsv_row(p, &p->runs[i], row, sizeof(row));
		h = fnv1a(h, row, n);
	}
	return h;
}

/* Counts the surviving cells of target t by walking its cells (no allocation). */
static uint64_t target_cells_walk(const struct iom_matrix *m, const struct sorted_excludes *sx,
				  size_t t)
{
	size_t pos[IOM_DIM_COUNT] = { 0 };
	struct iom_cell c;
	uint64_t n = 0;

	for (;;) {
		int d;

		c.v[IOM_DIM_TARGET] = (int64_t)t;
		for (d = 1; d < IOM_DIM_COUNT; d++)
			c.v[d] = m->targets[t].dim[d].v[pos[d]];
		n += !cell_excluded(sx, &c);
		for (d = IOM_DIM_COUNT - 1; d >= 1; d--) {
			if (++pos[d] < m->targets[t].dim[d].n)
				break;
			pos[d] = 0;
		}
		if (d < 1)
			return n;
	}
}

/*
 * Step 1: the exact number of cells (*ncells) and checks of the plan's size, from the value lists
 * alone. Returns 0, -E2BIG or -EINVAL with "FILE:LINE: message" in err.
 */
static int count_cells(const struct iom_matrix *m, const struct sorted_excludes *sx,
		       uint64_t *ncells, char *err, size_t errlen)
{
	uint64_t upper = 0, exact = 0;
	bool known = true;
	u128 runs;

	if (m->ntargets == 0)
		return iom_err(err, errlen, EINVAL, "%s:%d: the matrix has no targets", m->file,
			       m->targets_line);
	for (size_t t = 0; t < m->ntargets; t++) {
		uint64_t c = target_cells(m, t), e;

		upper = upper > UINT64_MAX - c ? UINT64_MAX : upper + c;
		if (target_cells_exact(m, sx, t, &e))
			exact = exact > UINT64_MAX - e ? UINT64_MAX : exact + e;
		else if (upper <= MAX_CELLS_ENUMERATED)
			exact += target_cells_walk(m, sx, t); /* many conditions: walk instead */
		else
			known = false;
	}
	if (!known)
		exact = upper;
	runs = (u128)exact * iom_timing_plan_reps(&m->timing);
	if (runs > IOM_PLAN_MAX_RUNS) {
		char count[48];

		if (runs > UINT64_MAX)
			snprintf(count, sizeof(count), "more than 18446744073709551615");
		else
			snprintf(count, sizeof(count), "%s%" PRIu64, known ? "" : "up to ",
				 (uint64_t)runs);
		return iom_err(err, errlen, E2BIG,
			       "%s:%d: the plan has %s runs (%" PRIu64 " cells x %" PRIu32
			       " repetitions), more than the %u a plan may have: use fewer values "
			       "or exclude cells", m->file, m->workload_line, count, exact,
			       iom_timing_plan_reps(&m->timing), IOM_PLAN_MAX_RUNS);
	}
	if (exact == 0)
		return iom_err(err, errlen, EINVAL, "%s:%d: exclude drops every cell: nothing is "
						    "left to run", m->file, m->exclude_line);
	if (upper > MAX_CELLS_ENUMERATED)
		return iom_err(err, errlen, E2BIG, "%s:%d: the matrix has %" PRIu64 " cells before "
						   "excludes, too many to enumerate (at most %llu)",
			       m->file, m->workload_line, upper, MAX_CELLS_ENUMERATED);
	*ncells = exact;
	return 0;
}

int iom_plan_count(const struct iom_matrix *m, size_t *nruns, char *err, size_t errlen)
{
	struct sorted_excludes sx;
	uint64_t ncells = 0;
	int ret;

	sort_excludes(m, &sx);
	ret = count_cells(m, &sx, &ncells, err, errlen);
	free_excludes(&sx);
	if (ret == 0)
		*nruns = (size_t)(ncells * iom_timing_plan_reps(&m->timing));
	return ret;
}

int iom_plan_build(const struct iom_matrix *m, struct iom_plan *p, char *err, size_t errlen)
{
	struct builder b = { .m = m };
	struct seed_dims sd;
	uint64_t exact = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	p->m = m;

	/* 1. count, before allocating anything of the plan's size */
	sort_excludes(m, &b.sx);
	ret = count_cells(m, &b.sx, &exact, err, errlen);
	if (ret < 0) {
		free_excludes(&b.sx);
		return ret;
	}

	/* 2 and 3. enumerate and order */
	for (int i = 0; i < IOM_DIM_COUNT; i++)
		b.order[i] = m->order[i];
	build_ranks(&b);
	ret = enumerate(&b, p, exact, true);
	free_excludes(&b.sx);
	for (int d = 0; d < IOM_DIM_COUNT; d++)
		free(b.ranks[d]);
	free(b.keys);
	if (ret < 0) {
		iom_plan_release(p);
		return iom_err(err, errlen, -ret, "%s: cannot count the plan's cells", m->file);
	}
	for (size_t i = 1; i < p->ncells; i++)
		for (int d = 0; d < IOM_DIM_COUNT; d++)
			if (p->cells[i].v[d] != p->cells[0].v[d])
				p->varies[d] = true;
	mark_shown(p);

	/* 4. repetitions, then the shuffle */
	p->nruns = p->ncells * iom_timing_plan_reps(&m->timing);
	p->runs = xmalloc(p->nruns * sizeof(*p->runs));
	for (size_t i = 0; i < p->nruns; i++) {
		struct iom_run *r = &p->runs[i];

		/* adaptive repetitions come in rounds, every cell's round r before any
		 * cell's round r + 1 */
		if (m->repeat_order == IOM_REPEAT_INTERLEAVED || m->timing.repeat_max) {
			r->cell = (uint32_t)(i % p->ncells);
			r->repetition = (uint32_t)(i / p->ncells) + 1;
		} else {
			r->cell = (uint32_t)(i / m->timing.repeat);
			r->repetition = (uint32_t)(i % m->timing.repeat) + 1;
		}
	}
	if (m->shuffle) {
		struct iom_rng rng;

		iom_rng_seed(&rng, m->shuffle_seed);
		for (size_t i = p->nruns - 1; i > 0; i--) {
			size_t j = (size_t)iom_rng_below(&rng, (uint64_t)i + 1);
			struct iom_run tmp = p->runs[i];

			p->runs[i] = p->runs[j];
			p->runs[j] = tmp;
		}
	}
	/* 5. indices and seeds */
	seed_dims_init(&sd);
	for (size_t i = 0; i < p->nruns; i++) {
		struct iom_run *r = &p->runs[i];

		r->index = (uint32_t)i + 1;
		r->seed = run_seed(m, &p->cells[r->cell], r->repetition, &sd);
	}
	p->hash = plan_hash(p);
	return 0;
}

void iom_plan_release(struct iom_plan *p)
{
	if (!p)
		return;
	free(p->cells);
	free(p->runs);
	memset(p, 0, sizeof(*p));
}

/* ---- describing ---------------------------------------------------------------------------- */

int64_t iom_cell_read_pct(const struct iom_matrix *m, const struct iom_cell *c)
{
	int64_t lo = c->v[IOM_DIM_READ_PCT], a = c->v[IOM_DIM_ACCESS];

	/* a trim changes the target as a write does (and needs it open for writing) */
	if (c->v[IOM_DIM_TRIM_PCT] > 0)
		lo = IOM_MIN(lo, 100 - c->v[IOM_DIM_TRIM_PCT]);
	if (a <= 0 || (size_t)a > m->naccess_specs)
		return lo;
	lo = c->v[IOM_DIM_TRIM_PCT] > 0 ? 100 - c->v[IOM_DIM_TRIM_PCT] : 100;
	for (size_t l = 0; l < m->access_specs[a - 1].nlines; l++) {
		int64_t r = m->access_specs[a - 1].lines[l].read_pct;

		lo = IOM_MIN(lo, r == IOM_ACCESS_INHERIT ? c->v[IOM_DIM_READ_PCT] : r);
	}
	return lo;
}

void iom_cell_value(const struct iom_plan *p, const struct iom_cell *c, enum iom_dim dim,
		    char *buf, size_t len)
{
	if (dim == IOM_DIM_TARGET)
		snprintf(buf, len, "%s", p->m->targets[c->v[IOM_DIM_TARGET]].label);
	else if (dim == IOM_DIM_ACCESS && c->v[dim] > 0 &&
		 (size_t)c->v[dim] <= p->m->naccess_specs)
		snprintf(buf, len, "%s", p->m->access_specs[c->v[dim] - 1].name);
	else if (dim == IOM_DIM_HOST && p->m->host_labels && c->v[dim] >= 0 &&
		 (uint64_t)c->v[dim] < p->m->nranks) /* many hosts: "r1@vm2" */
		snprintf(buf, len, "%s", p->m->host_labels[c->v[dim]]);
	else
		iom_dim_format(dim, c->v[dim], buf, len);
}

void iom_cell_describe(const struct iom_plan *p, const struct iom_cell *c, char *buf, size_t len)
{
	size_t off = 0;
	char v[64];

	iom_cell_value(p, c, IOM_DIM_TARGET, v, sizeof(v));
	off += (size_t)snprintf(buf, len, "%s", v);
	for (int d = 1; d < IOM_DIM_COUNT && off < len; d++) {
		if (!p->varies[d])
			continue;
		if (d == IOM_DIM_ACCESS || d == IOM_DIM_HOST) /* by its name, its label */
			iom_cell_value(p, c, (enum iom_dim)d, v, sizeof(v));
		else
			iom_dim_describe((enum iom_dim)d, c->v[d], v, sizeof(v));
		if (*v)
			off += (size_t)snprintf(buf + off, len - off, " %s", v);
	}
}

uint64_t iom_plan_run_estimate_ns(const struct iom_plan *p, bool *size_bound)
{
	const struct iom_timing *t = &p->m->timing;

	if (size_bound)
		*size_bound = t->bytes != 0;
	return t->warmup_ns + t->duration_ns + t->cooldown_ns + t->rest_ns;
}

uint64_t iom_cell_max_block(const struct iom_matrix *m, const struct iom_cell *c)
{
	int64_t bs = c->v[IOM_DIM_BLOCK_SIZE], a = c->v[IOM_DIM_ACCESS];

	if (a > 0 && (size_t)a <= m->naccess_specs) {
		const struct iom_access_spec *sp = &m->access_specs[a - 1];

		bs = 0;
		for (size_t l = 0; l < sp->nlines; l++)
			bs = IOM_MAX(bs, sp->lines[l].block_size == IOM_ACCESS_INHERIT
						 ? c->v[IOM_DIM_BLOCK_SIZE]
						 : sp->lines[l].block_size);
	}
	return (uint64_t)bs;
}

uint64_t iom_cell_buffer_bytes(const struct iom_matrix *m, const struct iom_cell *c)
{
	return iom_cell_max_block(m, c) * (uint64_t)c->v[IOM_DIM_QUEUE_DEPTH] *
	       (uint64_t)c->v[IOM_DIM_THREADS];
}

/* The cell needing the most buffer memory (the first such), or NULL for an empty plan. */
static const struct iom_cell *largest_cell(const struct iom_plan *p)
{
	const struct iom_cell *best = NULL;

	for (size_t i = 0; i < p->ncells; i++)
		if (!best || iom_cell_buffer_bytes(p->m, &p->cells[i]) >
				     iom_cell_buffer_bytes(p->m, best))
			best = &p->cells[i];
	return best;
}

uint64_t iom_plan_max_buffer_bytes(const struct iom_plan *p)
{
	const struct iom_cell *c = largest_cell(p);

	return c ? iom_cell_buffer_bytes(p->m, c) : 0;
}

/* ---- writing ------------------------------------------------------------------------------- */

static size_t format_tsv_header(const struct iom_plan *p, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "index\trepetition");

	for (int d = 0; d < IOM_DIM_COUNT; d++)
		if (p->shown[d])
			off += (size_t)snprintf(buf + off, len - off, "\t%s", iom_dim_name((enum iom_dim)d));
	off += (size_t)snprintf(buf + off, len - off, "\tseed\n");
	return IOM_MIN(off, len - 1);
}

static size_t format_tsv_row(const struct iom_plan *p, const struct iom_run *r, char *buf,
			     size_t len)
{
	const struct iom_cell *c = &p->cells[r->cell];
	size_t off = (size_t)snprintf(buf, len, "%" PRIu32 "\t%" PRIu32, r->index,
				      r->repetition);
	char v[80];

	for (int d = 0; d < IOM_DIM_COUNT && off < len; d++) {
		if (!p->shown[d])
			continue;
		iom_cell_value(p, c, (enum iom_dim)d, v, sizeof(v));
		off += (size_t)snprintf(buf + off, len - off, "\t%s", v);
	}
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "\t%016" PRIx64 "\n", r->seed);
	return IOM_MIN(off, len - 1);
}

static void write_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
		if (*q == '"' || *q == '\\')
			fprintf(out, "\\%c", *q);
		else if (*q < 0x20)
			fprintf(out, "\\u%04x", *q);
		else
			fputc(*q, out);
	}
	fputc('"', out);
}

/* A dimension written as a JSON number: the numeric types of the key table. */
static bool dim_is_number(int d)
{
	const struct iom_key *k = d == IOM_DIM_TARGET ? NULL : iom_dim_key((enum iom_dim)d);

	return k && (k->type == IOM_TYPE_SIZE || k->type == IOM_TYPE_UINT ||
		     k->type == IOM_TYPE_PCT);
}

static void write_json(FILE *out, const struct iom_plan *p)
{
	const struct iom_matrix *m = p->m;
	bool size_bound;
	uint64_t est = iom_plan_run_estimate_ns(p, &size_bound);
	char v[80];

	fprintf(out, "{\n  \"file\": ");
	write_json_string(out, m->file);
	fprintf(out, ",\n  \"name\": ");
	write_json_string(out, m->name);
	fprintf(out, ",\n  \"hash\": \"%016" PRIx64 "\",\n", p->hash);
	fprintf(out, "  \"count\": %zu,\n  \"cells\": %zu,\n  \"repeat\": %" PRIu32 ",\n",
		p->nruns, p->ncells, m->timing.repeat);
	fprintf(out, "  \"repeat_order\": \"%s\",\n",
		m->repeat_order == IOM_REPEAT_INTERLEAVED ? "interleaved" : "grouped");
	if (m->shuffle)
		fprintf(out, "  \"shuffle\": %" PRIu64 ",\n", m->shuffle_seed);
	else
		fprintf(out, "  \"shuffle\": null,\n");
	fprintf(out, "  \"order\": [");
	for (int i = 0, n = 0; i < IOM_DIM_COUNT; i++)
		if (p->shown[m->order[i]])
			fprintf(out, "%s\"%s\"", n++ ? ", " : "", iom_dim_name(m->order[i]));
	fprintf(out, "],\n  \"varies\": [");
	for (int i = 0, n = 0; i < IOM_DIM_COUNT; i++)
		if (p->varies[m->order[i]])
			fprintf(out, "%s\"%s\"", n++ ? ", " : "", iom_dim_name(m->order[i]));
	fprintf(out, "],\n  \"run_estimate_ns\": %" PRIu64 ",\n", est);
	if (size_bound)
		fprintf(out, "  \"estimate_ns\": null,\n  \"size_bound\": true,\n");
	else
		fprintf(out, "  \"estimate_ns\": %" PRIu64 ",\n  \"size_bound\": false,\n",
			(uint64_t)((u128)est * p->nruns > UINT64_MAX ? UINT64_MAX
								      : est * p->nruns));
	fprintf(out, "  \"max_buffer_bytes\": %" PRIu64 ",\n  \"runs\": [\n",
		iom_plan_max_buffer_bytes(p));
	for (size_t i = 0; i < p->nruns; i++) {
		const struct iom_run *r = &p->runs[i];
		const struct iom_cell *c = &p->cells[r->cell];

		fprintf(out, "    {\"index\": %" PRIu32 ", \"repetition\": %" PRIu32
			     ", \"cell\": %" PRIu32, r->index, r->repetition, r->cell);
		for (int d = 0; d < IOM_DIM_COUNT; d++) {
			if (!p->shown[d])
				continue;
			fprintf(out, ", \"%s\": ", iom_dim_name((enum iom_dim)d));
			if (dim_is_number(d)) {
				fprintf(out, "%" PRId64, c->v[d]);
			} else if (d == IOM_DIM_DIRECT) { /* verify, later, is "true"/"false" */
				fprintf(out, "%s", c->v[d] ? "true" : "false");
			} else {
				iom_cell_value(p, c, (enum iom_dim)d, v, sizeof(v));
				write_json_string(out, v);
			}
		}
		fprintf(out, ", \"seed\": \"%016" PRIx64 "\"}%s\n", r->seed,
			i + 1 < p->nruns ? "," : "");
	}
	fprintf(out, "  ]\n}\n");
}

static void write_text(FILE *out, const struct iom_plan *p)
{
	const struct iom_matrix *m = p->m;
	const struct iom_timing *tm = &m->timing;
	int cols[IOM_DIM_COUNT], ncols = 0, width[IOM_DIM_COUNT] = { 0 }, wi, wr;
	const struct iom_cell *big = largest_cell(p);
	char v[80], a[32], b[32], cc[64];
	bool size_bound, any_fixed = false;
	uint64_t est = iom_plan_run_estimate_ns(p, &size_bound);

	/* columns: the target, then every dimension that varies, in nesting order */
	cols[ncols++] = IOM_DIM_TARGET;
	for (int i = 0; i < IOM_DIM_COUNT; i++)
		if (m->order[i] != IOM_DIM_TARGET && p->varies[m->order[i]])
			cols[ncols++] = m->order[i];
	for (int i = 0; i < ncols; i++)
		width[i] = (int)strlen(iom_dim_name((enum iom_dim)cols[i]));
	for (size_t c = 0; c < p->ncells; c++) {
		for (int i = 0; i < ncols; i++) {
			iom_cell_value(p, &p->cells[c], (enum iom_dim)cols[i], v, sizeof(v));
			width[i] = IOM_MAX(width[i], (int)strlen(v));
		}
	}
	snprintf(v, sizeof(v), "%zu", p->nruns);
	wi = IOM_MAX(3, (int)strlen(v));
	snprintf(v, sizeof(v), "%" PRIu32, tm->repeat);
	wr = IOM_MAX(3, (int)strlen(v));

	fprintf(out, "plan of %s (%s)\n", m->name, m->file);
	if (m->description)
		fprintf(out, "%s\n", m->description);
	fprintf(out, "fixed:");
	for (int d = 0; d < IOM_DIM_COUNT; d++) {
		if (p->varies[d] || d == IOM_DIM_TARGET || !p->shown[d])
			continue;
		iom_cell_value(p, &p->cells[0], (enum iom_dim)d, v, sizeof(v));
		fprintf(out, " %s=%s", iom_dim_name((enum iom_dim)d), v);
		any_fixed = true;
	}
	fprintf(out, "%s\n", any_fixed ? "" : " (nothing)");
	iom_duration_format(tm->warmup_ns, a, sizeof(a));
	if (tm->bytes) {
		iom_size_format(tm->bytes, b, sizeof(b));
		fprintf(out, "timing: warmup=%s bytes=%s", a, b);
	} else {
		iom_duration_format(tm->duration_ns, b, sizeof(b));
		fprintf(out, "timing: warmup=%s duration=%s", a, b);
	}
	iom_duration_format(tm->cooldown_ns, a, sizeof(a));
	iom_duration_format(tm->rest_ns, b, sizeof(b));
	fprintf(out, " cooldown=%s rest=%s repeat=%" PRIu32 " (%s%s)\n\n", a, b, tm->repeat,
		m->repeat_order == IOM_REPEAT_INTERLEAVED ? "interleaved" :
		tm->repeat_max ? "interleaved: adaptive" : "grouped", /* adaptive: see the layout above */
		m->shuffle ? ", shuffled" : "");

	fprintf(out, "%*s  %*s", wi, "run", wr, "rep");
	for (int i = 0; i < ncols; i++) {
		const char *h = iom_dim_name((enum iom_dim)cols[i]);

		if (dim_is_number(cols[i]))
			fprintf(out, "  %*s", width[i], h);
		else if (i == ncols - 1)
			fprintf(out, "  %s", h);
		else
			fprintf(out, "  %-*s", width[i], h);
	}
	fputc('\n', out);
	for (size_t r = 0; r < p->nruns; r++) {
		const struct iom_run *run = &p->runs[r];
		const struct iom_cell *c = &p->cells[run->cell];

		fprintf(out, "%*" PRIu32 "  %*" PRIu32, wi, run->index, wr, run->repetition);
		for (int i = 0; i < ncols; i++) {
			iom_cell_value(p, c, (enum iom_dim)cols[i], v, sizeof(v));
			if (dim_is_number(cols[i]))
				fprintf(out, "  %*s", width[i], v);
			else if (i == ncols - 1)
				fprintf(out, "  %s", v);
			else
				fprintf(out, "  %-*s", width[i], v);
		}
		fputc('\n', out);
	}

	if (tm->repeat_max) { /* adaptive repetitions */
		size_t lo = p->ncells * tm->repeat;

		iom_duration_human((uint64_t)IOM_MIN((u128)est * lo, (u128)UINT64_MAX), a, sizeof(a));
		iom_duration_human((uint64_t)IOM_MIN((u128)est * p->nruns, (u128)UINT64_MAX), b,
				   sizeof(b));
		fprintf(out, "\nadaptive: %zu to %zu runs (%zu cells x %" PRIu32 " to %" PRIu32
			     " repetitions), %s to %s; further rounds until %s\n", lo, p->nruns,
			p->ncells, tm->repeat, tm->repeat_max, a, b,
			tm->until_ci_pct > 0 ? "the IOPS CI is within the asked %" : "settled");
		if (tm->until_ci_pct > 0)
			fprintf(out, "  (ci %g%%: the 95%% CI of a cell's IOPS within ± %g%% of its "
				     "mean)\n", tm->until_ci_pct, tm->until_ci_pct);
	}
	fprintf(out, "\n%zu runs: %zu cells x %" PRIu32 " repetitions\n", p->nruns, p->ncells,
		iom_timing_plan_reps(tm));
	if (size_bound) {
		iom_size_format(tm->bytes, a, sizeof(a));
		iom_duration_human((uint64_t)IOM_MIN((u128)est * p->nruns, (u128)UINT64_MAX), b,
				   sizeof(b));
		fprintf(out, "estimated time: size-bound (each run measures %s of I/O; warm-up, "
			     "cool-down and rest add %s)\n", a, b);
	} else {
		iom_duration_human((uint64_t)IOM_MIN((u128)est * p->nruns, (u128)UINT64_MAX), a,
				   sizeof(a));
		iom_duration_human(est, b, sizeof(b));
		fprintf(out, "estimated time: %s (%s per run)\n", a, b);
	}
	if (big) {
		iom_size_format(iom_cell_buffer_bytes(m, big), a, sizeof(a));
		iom_size_format(iom_cell_max_block(m, big), b, sizeof(b));
		snprintf(cc, sizeof(cc), "queue_depth %" PRId64 " x threads %" PRId64,
			 big->v[IOM_DIM_QUEUE_DEPTH], big->v[IOM_DIM_THREADS]);
		fprintf(out, "largest buffer memory per run: %s (block_size %s x %s)\n", a, b, cc);
	}
	fprintf(out, "plan hash: %016" PRIx64 "\n", p->hash);
}

int iom_plan_write(FILE *out, const struct iom_plan *p, enum iom_plan_format fmt)
{
	char row[1024];

	switch (fmt) {
	case IOM_PLAN_TSV:
		fwrite(row, 1, format_tsv_header(p, row, sizeof(row)), out);
		for (size_t i = 0; i < p->nruns; i++)
			fwrite(row, 1, format_tsv_row(p, &p->runs[i], row, sizeof(row)), out);
		break;
	case IOM_PLAN_JSON:
		write_json(out, p);
		break;
	default:
		write_text(out, p);
		break;
	}
	if (fflush(out) != 0 || ferror(out))
		return -(errno ? errno : EIO);
	return 0;
}

void iom_plan_cost(const struct iom_plan *p, const struct iom_plan_rate *rates, size_t n,
		   double default_iops, double bytes_per_io, double max_mb_s,
		   struct iom_plan_cost *out)
{
	const struct iom_timing *tm = &p->m->timing;
	double around = (double)(tm->warmup_ns + tm->cooldown_ns) / 1e9;

	memset(out, 0, sizeof(*out));
	for (size_t r = 0; r < p->nruns; r++) {
		const struct iom_cell *c = &p->cells[p->runs[r].cell];
		uint64_t bs = (uint64_t)c->v[IOM_DIM_BLOCK_SIZE];
		double iops = default_iops, window, ios;
		bool measured = false;

		for (size_t i = 0; i < n; i++)
			if (rates[i].block_size == bs && rates[i].iops > 0) {
				iops = rates[i].iops;
				measured = true;
			}
		if (!measured && max_mb_s > 0 && bs && iops * (double)bs > max_mb_s * 1e6)
			iops = max_mb_s * 1e6 / (double)bs;
		/* an absolute offered load is the most a paced run does (a share of a max is
		 * known only when the plan runs) */
		if (c->v[IOM_DIM_RATE_IOPS] > 0)
			iops = IOM_MIN(iops, (double)c->v[IOM_DIM_RATE_IOPS]);
		if (c->v[IOM_DIM_RATE_MB_S] > 0 && bs)
			iops = IOM_MIN(iops, (double)c->v[IOM_DIM_RATE_MB_S] / (double)bs);
		if (tm->bytes) {
			ios = (double)tm->bytes / (double)(bs ? bs : 1);
			window = iops > 0 ? ios / iops : 0;
			out->bound_s += window;
		} else {
			window = (double)tm->duration_ns / 1e9;
			ios = window * iops;
		}
		ios += around * iops;
		out->timed_s += window + around;
		if (p->m->trace)
			out->trace_bytes += ios * bytes_per_io;
	}
}
