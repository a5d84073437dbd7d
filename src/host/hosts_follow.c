/* SPDX-License-Identifier: MIT */
/*
 * hosts_follow — a follower's sweep (design in hosts.h): every rank but 0 takes the runs rank 0
 * names, one at a time, through the same one run path (stage.c) and the same hooks, visits and
 * journal of its own, until rank 0 says the end.
 */
#include "hosts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "journal.h"
#include "ownfile.h"
#include "stage.h"
#include "util.h"

/* ---- a follower's sweep ------------------------------------------------------------------ */

struct follower {
	struct iom_hosts *h;
	const struct iom_plan *p;
	struct iom_stage stage;
	char *study_error;       /* its before_study hook failed: each of its runs fails so */
	/* its journal, in a directory of the study's ($TMPDIR/iomatrix-study-HASH-START-rR) that
	 * outlives the invocation: what it made, preconditioned and ran, for a resume */
	struct iom_own_dir jd;
	struct iom_journal j;
	bool journal;
};

/* The follower's journal of the study that began at study_ns: opened (made when new), and on
 * a resume its record replayed: the filesystems it made are its own again, and a target a
 * finished write run of it wrote needs no precondition. A journal that cannot be kept is said,
 * and the follower goes on without (as before there were any). */
static void follow_journal_open(struct follower *f, uint64_t study_ns)
{
	const char *tmp = getenv("TMPDIR");
	struct iom_journal_state js;
	char *path, e[IOM_ERRLEN];
	int ret;

	path = xasprintf("%s/iomatrix-study-%016" PRIx64 "-%" PRIu64 "-r%u",
			 tmp && *tmp ? tmp : "/tmp", f->p->hash, study_ns, f->h->rank);
	ret = iom_own_dir_open(&f->jd, path, IOM_OWN_DIR_CREATE | IOM_OWN_DIR_STRICT, e,
			       sizeof(e));
	memset(&js, 0, sizeof(js));
	if (ret == 0) { /* a journal there: a resume */
		char *jp = xasprintf("%s/journal", path);

		if (access(jp, F_OK) == 0)
			ret = iom_journal_replay(path, f->p->nruns, &js, e, sizeof(e));
		else
			ret = 1;
		free(jp);
	}
	if (ret == 0) {
		iom_stage_own_from_journal(&f->stage, js.mkfs, js.nmkfs);
		for (size_t i = 0; i < f->p->nruns; i++) {
			const struct iom_run *run = &f->p->runs[i];
			const struct iom_cell *c = &f->p->cells[run->cell];

			if ((js.run[run->index] == IOM_RS_DONE || js.run[run->index] == IOM_RS_FAILED)
			    && iom_cell_read_pct(f->p->m, c) < 100)
				iom_stage_set_written(&f->stage, (size_t)c->v[IOM_DIM_TARGET]);
		}
	}
	if (ret >= 0 && (ret = iom_journal_open(&f->j, &f->jd, e, sizeof(e))) == 0) {
		f->journal = true;
		iom_journal_append(&f->j, js.started ? IOM_J_RESUME : IOM_J_STUDY_START, 0, NULL);
	}
	if (ret < 0)
		fprintf(stderr, "iomatrix: rank %u (%s): no journal of its own in '%s' (a resume "
			"will precondition again): %s\n", f->h->rank, f->h->host, path, e);
	iom_journal_state_release(&js);
	free(path);
}

/* At the end: the journal closed, and forgotten when the study is complete. */
static void follow_journal_close(struct follower *f, bool complete)
{
	if (f->journal && complete) {
		char *jp = xasprintf("%s/journal", f->jd.path);
		char *lk = xasprintf("%s/.lock", f->jd.path);

		iom_own_unlink(NULL, jp);
		iom_own_unlink(NULL, lk);
		rmdir(f->jd.path);
		free(jp);
		free(lk);
	}
	if (f->journal)
		iom_journal_close(&f->j);
	iom_own_dir_release(&f->jd);
	f->journal = false;
}

/* A shell hook on this follower (hooks.where = "every"; nothing otherwise), its log kept for
 * rank 0; a study's or target's failure said on stderr. */
static int follow_hook(struct follower *f, enum iom_hook_point pt, const char *what, long t,
		       const struct iom_run *run, char *err, size_t errlen)
{
	uint64_t timeout = run ? iom_stage_run_timeout_ns(&f->p->m->timing) : 3600ull * 1000000000u;
	bool ran = false;
	int ret = iom_stage_hook(&f->stage, pt, what, t, run, timeout, &ran, err, errlen);

	if (ran) {
		char *log = iom_stage_hook_log(&f->stage, what, pt);

		iom_hosts_add_log(f->h, log);
		free(log);
	}
	if (ret < 0 && !run)
		fprintf(stderr, "iomatrix: rank %u (%s): hook %s %s: %s\n", f->h->rank, f->h->host,
			iom_hook_point_name(pt), what, err);
	return ret;
}

static void follow_begin_visit(struct follower *f, size_t t)
{
	char e[IOM_ERRLEN];

	if (iom_stage_begin_visit(&f->stage, t) < 0)
		return;
	if (follow_hook(f, IOM_HOOK_BEFORE_TARGET, f->p->m->targets[t].label, (long)t, NULL, e,
			sizeof(e)) < 0)
		iom_stage_fail_visit(&f->stage, e);
}

static void follow_end_visit(struct follower *f)
{
	char e[IOM_ERRLEN];
	long t = f->stage.cur;

	if (t >= 0 && f->stage.info[t].t)
		(void)follow_hook(f, IOM_HOOK_AFTER_TARGET, f->p->m->targets[t].label, t, NULL, e,
				  sizeof(e));
	iom_stage_end_visit(&f->stage);
}

static int follow_report(void *arg, const struct iom_stage_event *e)
{
	struct follower *f = arg;
	int ret;

	switch (e->kind) {
	case IOM_STAGE_MKFS: /* recorded before it is made, as on rank 0 */
		if (f->journal && (ret = iom_journal_append(&f->j, IOM_J_MKFS, 0, e->text)) < 0)
			return iom_err(e->err, e->errlen, -ret, "cannot write rank %u's journal: %s",
				       f->h->rank, strerror(-ret));
		break;
	case IOM_STAGE_NOTE:
		if (f->journal)
			iom_journal_append(&f->j, IOM_J_NOTE, e->run, e->text);
		break;
	case IOM_STAGE_WARN:
	case IOM_STAGE_FAILED:
	case IOM_STAGE_CHANGED:
		fprintf(stderr, "iomatrix: rank %u (%s): target '%s': %s\n", f->h->rank, f->h->host,
			f->p->m->targets[e->target].label, e->text);
		break;
	default:
		break;
	}
	return 0;
}

/* What a follower adds around a run (iom_stage_run): the ready point, the sync points and,
 * when they run everywhere, the run's hooks (before_run's outcome agreed by every rank). */
static int follow_before(void *arg, const struct iom_run *run, char *err, size_t errlen)
{
	struct follower *f = arg;
	char what[16];
	int ret = iom_hosts_ready(f->h, err, errlen); /* the deadline starts */

	if (ret < 0)
		return ret;
	if (f->study_error)
		ret = iom_err(err, errlen, ECANCELED, "%s", f->study_error);
	snprintf(what, sizeof(what), "%05u", run->index);
	if (ret == 0)
		ret = follow_hook(f, IOM_HOOK_BEFORE_RUN, what,
				  (long)f->p->cells[run->cell].v[IOM_DIM_TARGET], run, err, errlen);
	return iom_hosts_agree_hook(f->h, ret, err, errlen);
}

static int follow_after(void *arg, const struct iom_run *run, char *err, size_t errlen)
{
	struct follower *f = arg;
	char what[16];

	snprintf(what, sizeof(what), "%05u", run->index);
	return follow_hook(f, IOM_HOOK_AFTER_RUN, what,
			   (long)f->p->cells[run->cell].v[IOM_DIM_TARGET], run, err, errlen);
}

static int follow_arm(void *arg, const struct iom_run *run, struct iom_run_spec *spec, char *err,
		      size_t errlen)
{
	(void)run;
	return iom_hosts_arm(((struct follower *)arg)->h, spec, err, errlen);
}

int iom_hosts_follow(struct iom_hosts *h, const struct iom_plan *p, volatile sig_atomic_t *stop,
		     bool no_trace, char *err, size_t errlen)
{
	struct follower f = { .h = h, .p = p, .jd = { .fd = -1 } };
	char e[IOM_ERRLEN];
	bool tried = false, complete = false;
	int ret = 0;

	iom_stage_init(&f.stage, p, h->private_dir, stop, iom_hosts_hooks_everywhere(h, p->m),
		       follow_report, &f);
	f.stage.rank = h->rank;
	f.stage.ranks = h->size;
	f.stage.host = h->host;
	for (size_t t = 0; t < p->m->ntargets; t++) {
		int r = p->m->targets[t].absent ? 0 : p->m->targets[t].fs_type ?
			iom_stage_pin_device(&f.stage, t, e, sizeof(e)) :
			iom_stage_prepare_target(&f.stage, t, e, sizeof(e));

		if (r < 0)
			fprintf(stderr, "iomatrix: rank %u (%s): target '%s': %s\n", h->rank, h->host,
				p->m->targets[t].label, e);
	}
	if (follow_hook(&f, IOM_HOOK_BEFORE_STUDY, "study", -1, NULL, e, sizeof(e)) < 0)
		f.study_error = xasprintf("the before_study hook failed on rank %u: %s", h->rank, e);
	for (;;) {
		struct iom_hosts_next_msg m = { 0 };
		uint32_t index;
		const struct iom_run *run = NULL;
		struct iom_run_result r;
		long t;

		if (h->ops->bcast(h->ctx, &m, sizeof(m)) < 0) {
			ret = iom_err(err, errlen, EIO, "lost rank 0");
			break;
		}
		if ((index = m.index) == 0) {
			complete = m.complete;
			break;
		}
		if (!tried) { /* the first run named: the study is known, its journal too */
			follow_journal_open(&f, m.study_ns);
			tried = true;
		}
		h->rate_failed = m.rate_failed;
		h->rate_iops = m.rate_iops;
		h->rate_mb_s = m.rate_mb_s;
		for (size_t i = 0; i < p->nruns && !run; i++)
			if (p->runs[i].index == index)
				run = &p->runs[i];
		if (!run) {
			ret = iom_err(err, errlen, EINVAL, "rank 0 names run %u, not in this plan",
				      index);
			break;
		}
		t = (long)p->cells[run->cell].v[IOM_DIM_TARGET];
		if (t != f.stage.cur) {
			follow_end_visit(&f);
			if (!p->m->targets[t].absent) /* a target not here: no visit */
				follow_begin_visit(&f, (size_t)t);
		}
		iom_hosts_begin_run(h, p, run);
		if (iom_hosts_sits_out(h)) { /* another rank's run: only the collective calls */
			memset(&r, 0, sizeof(r));
			r.index = run->index;
		} else {
			const struct iom_stage_run_ops ops = { .before = follow_before,
							       .arm = follow_arm, .after = follow_after,
							       .arg = &f };

			if (f.journal)
				iom_journal_append(&f.j, IOM_J_RUN_START, index, NULL);
			iom_stage_run(&f.stage, run, no_trace ? NULL : h->private_dir, &ops, &r);
			if (f.journal)
				iom_journal_append(&f.j, r.status == IOM_RUN_OK ? IOM_J_RUN_DONE :
						   r.status == IOM_RUN_FAILED ? IOM_J_RUN_FAILED :
						   IOM_J_RUN_INTERRUPTED, index,
						   r.status == IOM_RUN_FAILED ? r.error : NULL);
		}
		ret = iom_hosts_run_end(h, NULL, h->private_dir, &r);
		iom_run_result_release(&r);
		if (ret < 0) {
			if (iom_hosts_lost(h))
				iom_err(err, errlen, ETIMEDOUT, "run %u: %s", index,
					iom_hosts_lost(h));
			else
				iom_err(err, errlen, -ret, "cannot send run %u's figures to rank 0",
					index);
			break;
		}
	}
	follow_end_visit(&f);
	if (ret == 0) { /* the end, as rank 0 named it: after_study, then the last logs */
		(void)follow_hook(&f, IOM_HOOK_AFTER_STUDY, "study", -1, NULL, e, sizeof(e));
		if (f.journal && complete)
			iom_journal_append(&f.j, IOM_J_STUDY_END, 0, NULL);
		if (iom_hosts_collect_logs(h, p->m, NULL, h->private_dir) < 0 ||
		    iom_hosts_collect_journals(h, NULL, f.journal ? f.jd.path : NULL) < 0)
			ret = iom_err(err, errlen, EIO, "cannot send the hooks' logs or the journal "
				      "to rank 0");
	}
	follow_journal_close(&f, ret == 0 && complete);
	free(f.study_error);
	iom_stage_release(&f.stage);
	return ret;
}
