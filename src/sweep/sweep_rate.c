/* SPDX-License-Identifier: MIT */
/*
 * sweep_rate — the offered load's shares (docs/load.md): a cell whose rate is a share of its
 * maximum ("50%") finds its "max" run and derives its rate from that run's recorded result.
 * The conductor asks before each run (sweep.c); resume asks which share runs follow a max run
 * that runs again (sweep_dir.c).
 */
#include "sweep_in.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "result/resdir.h"
#include "result/result.h"
#include "util.h"

/* The dimension of run's rate when it is a share of the cell's max (rate_iops or rate_mb_s),
 * else -1. */
static int share_dim(const struct sweep *s, const struct iom_run *run)
{
	const struct iom_cell *c = &s->p->cells[run->cell];

	if (IOM_RATE_IS_SHARE(c->v[IOM_DIM_RATE_IOPS]))
		return IOM_DIM_RATE_IOPS;
	if (IOM_RATE_IS_SHARE(c->v[IOM_DIM_RATE_MB_S]))
		return IOM_DIM_RATE_MB_S;
	return -1;
}

/* The "max" run a share run derives its rate from: the same cell with rate "max", of this
 * repetition, else the latest before it (an adaptive round may have stopped the max cell: its
 * later runs are journalled run-skipped); NULL when the plan has none (or run is no share). */
const struct iom_run *sweep_share_max(const struct sweep *s, const struct iom_run *run)
{
	const struct iom_cell *c = &s->p->cells[run->cell];
	const struct iom_run *max = NULL;
	int d = share_dim(s, run);

	for (size_t i = 0; d >= 0 && i < s->p->nruns; i++) {
		const struct iom_run *o = &s->p->runs[i];
		const struct iom_cell *oc = &s->p->cells[o->cell];
		bool same = oc->v[d] == IOM_RATE_MAX;

		for (int k = 0; same && k < IOM_DIM_COUNT; k++)
			same = k == d || oc->v[k] == c->v[k];
		if (same && o->repetition <= run->repetition &&
		    s->st.run[o->index] != IOM_RS_SKIPPED &&
		    (!max || o->repetition > max->repetition))
			max = o;
	}
	return max;
}

/*
 * A cell's rate given as a share of its maximum ("50%") is derived here, before the run, from
 * the recorded result of the same cell's "max" run (the same cell with rate "max", of the same
 * repetition): its measured IOPS (rate_iops) or bytes per second (rate_mb_s) times the share —
 * on many ranks the max run's aggregate, which iom_hosts_next splits over the ranks.
 * The max run's file is what a resumed study reads too, so it derives the same rates. "max"
 * itself runs unthrottled (a closed loop). The run's rates into *rate_iops and *rate_mb_s
 * (IOM_RATE_NONE: none); 0, or -ENOENT with why in err when the max run has no ok result (not
 * run yet, or failed).
 */
int sweep_derive_rate(struct sweep *s, const struct iom_run *run, int64_t *rate_iops,
		      int64_t *rate_mb_s, char *err, size_t errlen)
{
	const struct iom_cell *c = &s->p->cells[run->cell];
	int d = c->v[IOM_DIM_RATE_IOPS] != IOM_RATE_NONE ? IOM_DIM_RATE_IOPS : IOM_DIM_RATE_MB_S;
	int64_t *rate = d == IOM_DIM_RATE_IOPS ? rate_iops : rate_mb_s;
	const struct iom_run *max;
	struct iom_result_file f;
	char *path;
	int ret;

	*rate_iops = c->v[IOM_DIM_RATE_IOPS];
	*rate_mb_s = c->v[IOM_DIM_RATE_MB_S];
	if (*rate == IOM_RATE_MAX)
		*rate = IOM_RATE_NONE;
	if (!IOM_RATE_IS_SHARE(*rate))
		return 0;
	max = sweep_share_max(s, run);
	if (!max)
		return iom_err(err, errlen, ENOENT, "run %u: rate %g%% of the cell's max, but the "
			       "plan has no \"max\" run of the cell", run->index,
			       IOM_RATE_SHARE(*rate) * 100);
	path = iom_result_path(s->o->dir, max->index);
	ret = iom_result_read(path, &f, err, errlen);
	free(path);
	if (ret < 0 || f.r.status != IOM_RUN_OK) {
		iom_result_file_release(&f);
		return iom_err(err, errlen, ENOENT, "run %u: its rate is a share of the cell's "
			       "max, measured by run %u, which has no ok result (it has not run "
			       "yet or failed: keep the \"max\" run first, rate_iops inside the "
			       "loop order and the plan unshuffled)", run->index, max->index);
	}
	{
		double base = d == IOM_DIM_RATE_IOPS ? f.r.dir[IOM_DIR_TOTAL].iops
						      : f.r.dir[IOM_DIR_TOTAL].mb_s * 1e6;
		double v = IOM_RATE_SHARE(*rate) * base;

		*rate = v >= 1 ? (int64_t)llround(v) : 1;
	}
	iom_result_file_release(&f);
	return 0;
}
