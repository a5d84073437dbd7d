/* SPDX-License-Identifier: MIT */
/*
 * stage — a target's visit and what one host does around one run. See stage.h.
 *
 * Order of a visit, as sweep.c drives it:
 *   begin_visit (mkfs → mount → scratch file; fstrim/discard) → [before_target hook] →
 *   for each run: before_run (precondition, drop_caches) → [before_run hook] → the target
 *   opened → start_run (verify armed) → the run → after_run (verify ended) →
 *   [after_run hook] → … → [after_target hook] → end_visit (unmount).
 */
#include "stage.h"

#include "engine/engine.h"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "target/fsprep.h"
#include "trace/trace.h"
#include "units.h"
#include "util.h"
#include "verify.h"

/* ---- telling the caller ------------------------------------------------------------------ */

static int tell(struct iom_stage *st, enum iom_stage_kind kind, size_t t, const char *text)
{
	struct iom_stage_event e = { .kind = kind, .target = t, .text = text };

	return st->report ? st->report(st->arg, &e) : 0;
}

__attribute__((format(printf, 4, 5)))
static void tellf(struct iom_stage *st, enum iom_stage_kind kind, size_t t, const char *fmt, ...)
{
	char text[IOM_ERRLEN + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	tell(st, kind, t, text);
}

/* ---- the stage --------------------------------------------------------------------------- */

void iom_stage_init(struct iom_stage *st, const struct iom_plan *p, const char *dir,
		    volatile sig_atomic_t *stop, bool shell_hooks, iom_stage_report_fn report,
		    void *arg)
{
	size_t n = p->m->ntargets;

	memset(st, 0, sizeof(*st));
	st->p = p;
	st->m = p->m;
	st->dir = dir;
	st->stop = stop;
	st->shell_hooks = shell_hooks;
	st->report = report;
	st->arg = arg;
	st->cur = -1;
	st->info = xcalloc(n, sizeof(*st->info));
	st->target_error = xcalloc(n, sizeof(*st->target_error));
	st->preconditioned = xcalloc(n, sizeof(*st->preconditioned));
	st->written_before = xcalloc(n, sizeof(*st->written_before));
	st->changed = xcalloc(n, sizeof(*st->changed));
	st->fs_dev = xcalloc(n, sizeof(*st->fs_dev));
	st->verify = xcalloc(n, sizeof(*st->verify));
	st->mount_dir = xcalloc(n, sizeof(*st->mount_dir));
	st->fs_file = xcalloc(n, sizeof(*st->fs_file));
}

static void forget_info(struct iom_stage *st, size_t t)
{
	if (st->info[t].t) {
		iom_target_info_release(&st->info[t]);
		memset(&st->info[t], 0, sizeof(st->info[t]));
	}
}

/* Unmounts target t's filesystem, if mounted. */
static void unmount_fs(struct iom_stage *st, size_t t)
{
	char msg[IOM_ERRLEN];
	int ret;

	if (!st->mount_dir || !st->mount_dir[t])
		return;
	forget_info(st, t);
	ret = iom_fs_unmount(st->mount_dir[t], 0, msg, sizeof(msg));
	if (ret != 0)
		tell(st, IOM_STAGE_WARN, t, msg);
	free(st->mount_dir[t]);
	st->mount_dir[t] = NULL;
}

void iom_stage_release(struct iom_stage *st)
{
	if (!st->info)
		return;
	for (size_t t = 0; t < st->m->ntargets; t++)
		unmount_fs(st, t);
	for (size_t i = 0; i < st->m->ntargets; i++) {
		if (st->info[i].t)
			iom_target_info_release(&st->info[i]);
		free(st->target_error[i]);
		free(st->mount_dir[i]);
		free(st->fs_file[i].path);
		iom_verify_free(st->verify[i]);
	}
	for (size_t i = 0; i < st->nown; i++)
		free(st->own_uuids[i]);
	free(st->own_uuids);
	free(st->mount_dir);
	free(st->fs_file);
	free(st->info);
	free(st->target_error);
	free(st->preconditioned);
	free(st->written_before);
	free(st->changed);
	free(st->fs_dev);
	free(st->verify);
	free(st->visit_error);
	memset(st, 0, sizeof(*st));
}

bool iom_stage_target_writes(const struct iom_plan *p, size_t t)
{
	for (size_t i = 0; i < p->ncells; i++)
		if ((size_t)p->cells[i].v[IOM_DIM_TARGET] == t && iom_cell_read_pct(p->m, &p->cells[i]) < 100)
			return true;
	return false;
}

int iom_stage_prepare_target(struct iom_stage *st, size_t t, char *err, size_t errlen)
{
	int ret = iom_target_prepare_stoppable(&st->m->targets[t],
					       iom_stage_target_writes(st->p, t), st->stop,
					       &st->info[t], err, errlen);

	if (ret < 0) {
		free(st->target_error[t]);
		st->target_error[t] = xstrdup(err);
		iom_target_info_release(&st->info[t]);
		memset(&st->info[t], 0, sizeof(st->info[t]));
	}
	return ret;
}

int iom_stage_pin_device(struct iom_stage *st, size_t t, char *err, size_t errlen)
{
	int ret = iom_target_device_pin(st->m->targets[t].path, &st->fs_dev[t], err, errlen);

	if (ret < 0) {
		free(st->target_error[t]);
		st->target_error[t] = xstrdup(err);
	}
	return ret;
}

/* Before a filesystem target's mkfs: its path must still lead to the device pinned when the
 * sweep started (a name such as /dev/sdc can go to another disk between two visits). 0, or
 * -ESTALE (the target changed: its remaining runs fail) or -errno with err. */
static int check_fs_device(struct iom_stage *st, size_t t, char *err, size_t errlen)
{
	int ret;

	if (!st->fs_dev[t].rdev)
		return 0; /* not pinned (a stage without a sweep) */
	ret = iom_target_device_check(st->m->targets[t].path, &st->fs_dev[t], err, errlen);
	if (ret == -ESTALE)
		iom_stage_target_changed(st, t, err);
	return ret;
}

static void own_uuid_add(struct iom_stage *st, const char *uuid)
{
	st->own_uuids = xrealloc(st->own_uuids, (st->nown + 2) * sizeof(*st->own_uuids));
	st->own_uuids[st->nown++] = xstrdup(uuid);
	st->own_uuids[st->nown] = NULL;
}

void iom_stage_own_from_journal(struct iom_stage *st, char *const *mkfs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct iom_fs_made made;
		char *dev = NULL;

		if (iom_fs_made_parse(mkfs[i], &dev, &made) == 0 && made.uuid[0])
			own_uuid_add(st, made.uuid);
		free(dev);
	}
}

void iom_stage_set_written(struct iom_stage *st, size_t t)
{
	st->written_before[t] = true;
}

void iom_stage_target_changed(struct iom_stage *st, size_t t, const char *reason)
{
	st->changed[t] = true;
	free(st->target_error[t]);
	st->target_error[t] = xstrdup(reason);
	tell(st, IOM_STAGE_CHANGED, t, reason);
}

/* Opens target t (prepared for writing) for writing as its runs open it (the pinned identity
 * checked; a device held O_EXCL and its write checks repeated), for a built-in that writes.
 * An fd, or -errno with the reason in err (-ESTALE: the target is now unusable). */
static int open_for_builtin(struct iom_stage *st, size_t t, const struct iom_target_info *in,
			    char *err, size_t errlen)
{
	int fd = iom_target_open(in, false, true, err, errlen);

	if (fd == -ESTALE)
		iom_stage_target_changed(st, t, err);
	return fd;
}

/* ---- a visit ----------------------------------------------------------------------------- */

/*
 * Makes target t's filesystem on its device (recorded first, so that only filesystems this
 * study made may be replaced, even after a crash during the mkfs), mounts it, and prepares the
 * scratch file on it (raw: the device itself). 0, or -errno with the reason.
 */
static int make_fs(struct iom_stage *st, size_t t, char *err, size_t errlen)
{
	const struct iom_target *tg = &st->m->targets[t];
	struct iom_fs_made plan, made;
	struct iom_fs_opts fo = { .mkfs_options = tg->mkfs_options, .stop = st->stop };
	char uuid[IOM_FS_UUID_LEN + 1], msg[IOM_ERRLEN], *log;
	bool raw = strcmp(tg->fs_type, "raw") == 0;
	bool writes = iom_stage_target_writes(st->p, t);
	int ret;

	memset(&plan, 0, sizeof(plan));
	forget_info(st, t);
	if ((ret = check_fs_device(st, t, err, errlen)) < 0)
		return ret;
	/* mounts a killed iomatrix left of our own filesystems */
	for (size_t i = 0; i < st->nown; i++)
		if (iom_fs_unmount_stale(tg->path, st->own_uuids[i], msg, sizeof(msg)) < 0)
			tell(st, IOM_STAGE_WARN, t, msg);
	if ((ret = iom_fs_new_uuid(uuid)) < 0)
		return iom_err(err, errlen, -ret, "cannot make a UUID: %s", strerror(-ret));
	snprintf(plan.fstype, sizeof(plan.fstype), "%s", tg->fs_type);
	if (!raw) {
		snprintf(plan.uuid, sizeof(plan.uuid), "%s", uuid);
		snprintf(plan.label, sizeof(plan.label), IOM_FS_LABEL_PREFIX "%.8s", uuid);
	}
	{
		struct iom_stage_event e = { .kind = IOM_STAGE_MKFS, .target = t, .err = err,
					     .errlen = errlen };
		char *detail = iom_fs_made_format(tg->path, &plan);

		e.text = detail;
		ret = st->report ? st->report(st->arg, &e) : 0;
		free(detail);
		if (ret < 0)
			return ret;
	}
	if (!raw)
		own_uuid_add(st, uuid);
	log = xasprintf("%s/hooks/%s.mkfs.log", st->dir, tg->label);
	fo.log_path = log;
	fo.log_dir = st->own;
	fo.own_uuids = (const char *const *)st->own_uuids;
	fo.uuid = uuid;
	tellf(st, IOM_STAGE_SAY, t, "making %s on '%s' for target '%s'\n", tg->fs_type, tg->path,
	      tg->label);
	ret = iom_fs_make(tg->path, tg->fs_type, &fo, &made, err, errlen);
	free(log);
	if (ret == 0)
		ret = check_fs_device(st, t, err, errlen); /* the one mkfs wrote to, still */
	if (ret < 0)
		return ret;
	if (raw)
		return iom_target_prepare_stoppable(tg, writes, st->stop, &st->info[t], err, errlen);
	ret = iom_fs_mount(tg->path, tg->fs_type, tg->mount_options, &st->mount_dir[t], err,
			   errlen);
	if (ret < 0)
		return ret;
	free(st->fs_file[t].path);
	st->fs_file[t] = *tg;
	st->fs_file[t].path = xasprintf("%s/iomatrix.scratch", st->mount_dir[t]);
	st->fs_file[t].destructive = false;
	st->fs_file[t].overwrite = false;
	st->fs_file[t].fs_type = NULL;
	ret = iom_target_prepare_stoppable(&st->fs_file[t], writes, st->stop, &st->info[t], err,
					   errlen);
	if (ret < 0) {
		iom_target_info_release(&st->info[t]); /* whatever prepare left in it */
		memset(&st->info[t], 0, sizeof(st->info[t]));
		unmount_fs(st, t);
	}
	return ret;
}

/* What this visit destroyed (a new filesystem, a discard) takes the precondition and the
 * sectors verification knew were written with it: the next write run preconditions again. */
static void forget_written(struct iom_stage *st, size_t t)
{
	st->preconditioned[t] = false;
	st->written_before[t] = false;
	if (st->verify[t])
		iom_verify_forget(st->verify[t]);
}

/* fstrim of a file target's filesystem, or BLKDISCARD of a destructive device's region. 0, or
 * -errno when the target could not be opened for the discard (the visit fails, or the target
 * changed). */
static int trim_path(struct iom_stage *st, size_t t, const struct iom_target_info *in);

/* Each path of target t in turn (one, for a target with one path). */
static int trim(struct iom_stage *st, size_t t)
{
	for (size_t p = 0; p <= st->info[t].nmore; p++) {
		int ret = trim_path(st, t, iom_target_info_path(&st->info[t], p));

		if (ret < 0)
			return ret;
	}
	return 0;
}

static int trim_path(struct iom_stage *st, size_t t, const struct iom_target_info *in)
{
	const char *label = st->m->targets[t].label;
	char err[IOM_ERRLEN], msg[IOM_ERRLEN];
	uint64_t trimmed = 0;
	int ret;

	if (in->is_block && in->t->destructive && !in->id.writable) {
		/* prepared for reading only: the write checks were not made, nothing is written */
		snprintf(msg, sizeof(msg), "'%s' is only read in this study: not discarded",
			 in->path);
		ret = IOM_STAGE_SKIP;
	} else if (in->is_block && in->t->destructive) {
		int fd = open_for_builtin(st, t, in, err, sizeof(err));

		if (fd < 0) {
			if (!st->target_error[t])
				st->visit_error = xstrdup(err);
			return fd;
		}
		ret = iom_stage_discard(fd, in->path, 0, in->region, msg, sizeof(msg));
		close(fd);
		if (ret == 0)
			forget_written(st, t);
	} else if (!in->is_block && in->facts.mount_point) {
		ret = iom_stage_fstrim(in->facts.mount_point, &trimmed, msg, sizeof(msg));
		if (ret == 0)
			forget_written(st, t); /* the free space, not the file: for the SSD's sake */
	} else {
		snprintf(msg, sizeof(msg), "nothing to trim (a device without destructive = "
			 "true, or no mount point known)");
		ret = IOM_STAGE_SKIP;
	}
	if (ret < 0) {
		tellf(st, IOM_STAGE_WARN, t, "fstrim of target '%s' failed: %s", label, msg);
	} else if (ret == IOM_STAGE_SKIP && !st->fstrim_noted) {
		tellf(st, IOM_STAGE_WARN, t, "fstrim of target '%s' skipped: %s", label, msg);
		st->fstrim_noted = true;
	} else if (ret == 0) {
		tellf(st, IOM_STAGE_NOTE, t, "fstrim target '%s' done", label);
	}
	return 0;
}

int iom_stage_begin_visit(struct iom_stage *st, size_t t)
{
	char err[IOM_ERRLEN];

	st->cur = (long)t;
	free(st->visit_error);
	st->visit_error = NULL;
	if (st->changed[t])
		return -ENODEV; /* changed under the sweep: never visited again (target_error) */
	if (st->m->targets[t].fs_type) {
		if (make_fs(st, t, err, sizeof(err)) < 0) {
			free(st->target_error[t]);
			st->target_error[t] = xstrdup(err);
			tell(st, IOM_STAGE_FAILED, t, err);
			return -ENODEV;
		}
		free(st->target_error[t]); /* a failed mkfs of an earlier visit */
		st->target_error[t] = NULL;
		forget_written(st, t);
	}
	if (!st->info[t].t || st->target_error[t])
		return -ENODEV;
	if (st->m->hooks.fstrim)
		return trim(st, t);
	return 0;
}

void iom_stage_fail_visit(struct iom_stage *st, const char *reason)
{
	free(st->visit_error);
	st->visit_error = xstrdup(reason);
}

void iom_stage_end_visit(struct iom_stage *st)
{
	long t = st->cur;

	if (t < 0)
		return;
	st->cur = -1;
	unmount_fs(st, (size_t)t);
}

/* ---- a run ------------------------------------------------------------------------------- */

static void precondition_progress(void *arg, uint64_t done, uint64_t total)
{
	struct iom_stage *st = arg;
	struct iom_stage_event e = { .kind = IOM_STAGE_PROGRESS, .target = (size_t)st->cur,
				     .done = done, .total = total };

	if (st->report)
		st->report(st->arg, &e);
}

/* The precondition of target t before run, when it is due. 0, or -errno with the reason. */
static int precondition_path(struct iom_stage *st, const struct iom_run *run, size_t t,
			     const struct iom_target_info *in, char *err, size_t errlen);

/* Each path of target t in turn (one, for a target with one path). */
static int precondition(struct iom_stage *st, const struct iom_run *run, size_t t, char *err,
			size_t errlen)
{
	if (st->written_before[t]) {
		st->preconditioned[t] = true;
		return 0;
	}
	for (size_t p = 0; p <= st->info[t].nmore; p++) {
		int ret = precondition_path(st, run, t, iom_target_info_path(&st->info[t], p), err,
					    errlen);

		if (ret < 0) {
			/* not in the state the study asked for: none of its runs measures it
			 * (a stop leaves it to resume, which preconditions again) */
			st->preconditioned[t] = false;
			if (ret != -EINTR && !st->target_error[t])
				st->target_error[t] = xstrdup(err);
			return ret;
		}
	}
	st->preconditioned[t] = true;
	return 0;
}

static int precondition_path(struct iom_stage *st, const struct iom_run *run, size_t t,
			     const struct iom_target_info *in, char *err, size_t errlen)
{
	const char *label = st->m->targets[t].label;
	struct iom_precondition pc = { .region = in->region, .seed = st->m->seed,
				       .progress = precondition_progress, .arg = st,
				       .stop = st->stop };
	uint64_t written = 0;
	char bytes[32], msg[IOM_ERRLEN];
	int ret, fd;

	/* written through the run's own kind of descriptor: the target must still be itself */
	fd = open_for_builtin(st, t, in, err, errlen);
	if (fd < 0)
		return fd;
	ret = iom_precondition_bytes(st->m->hooks.precondition, in->region, &pc.bytes, msg,
				     sizeof(msg));
	if (ret == 0) {
		iom_size_format(pc.bytes, bytes, sizeof(bytes));
		if (st->info[t].nmore)
			tellf(st, IOM_STAGE_SAY, t, "preconditioning target '%s' ('%s'): %s of "
			      "sequential writes\n", label, in->path, bytes);
		else
			tellf(st, IOM_STAGE_SAY, t, "preconditioning target '%s': %s of sequential "
			      "writes\n", label, bytes);
		ret = iom_stage_precondition(fd, in->path, &pc, &written, msg, sizeof(msg));
	}
	close(fd);
	tell(st, IOM_STAGE_PROGRESS_END, t, NULL);
	if (ret < 0)
		return iom_err(err, errlen, -ret, "precondition of target '%s': %s", label, msg);
	{
		struct iom_stage_event e = { .kind = IOM_STAGE_NOTE, .target = t, .run = run->index };
		char note[128];

		snprintf(note, sizeof(note), "precondition target '%s' done: %" PRIu64 " bytes",
			 label, written);
		e.text = note;
		if (st->report)
			st->report(st->arg, &e);
	}
	return 0;
}

/* r failed (or interrupted: ret -EINTR) with err. */
static void run_failed(struct iom_run_result *r, int ret, const char *err)
{
	r->status = ret == -EINTR ? IOM_RUN_INTERRUPTED : IOM_RUN_FAILED;
	free(r->error);
	r->error = xstrdup(err);
}

void iom_stage_run(struct iom_stage *st, const struct iom_run *run, const char *trace_dir,
		   const struct iom_stage_run_ops *ops, struct iom_run_result *r)
{
	const struct iom_matrix *m = st->m;
	const struct iom_cell *c = &st->p->cells[run->cell];
	size_t t = (size_t)c->v[IOM_DIM_TARGET];
	const struct iom_target_info *info = &st->info[t];
	bool writes = iom_cell_read_pct(m, c) < 100, direct = c->v[IOM_DIM_DIRECT] != 0;
	bool dsync = c->v[IOM_DIM_WRITE_THROUGH] != 0;
	struct iom_run_spec spec = { 0 };
	struct iom_worker_hooks hooks = { 0 };
	struct iom_stage_paths paths = { 0 };
	char err[IOM_ERRLEN], cell_text[256], *trace_path = NULL;
	int fd, ret;

	memset(r, 0, sizeof(*r));
	r->index = run->index;
	r->repetition = run->repetition;
	r->seed = run->seed;
	ret = iom_stage_before_run(st, run, err, sizeof(err));
	if (ret == 0 && ops->before)
		ret = ops->before(ops->arg, run, err, sizeof(err));
	if (ret < 0) {
		run_failed(r, ret, err);
		return;
	}
	/* checked against the identity pinned at preparation; a device to be written is held
	 * O_EXCL (no mount can start) until the close below, after the run */
	/* write_through: O_DSYNC on the descriptor, not RWF_DSYNC on each write. Every engine
	 * honours it the same (the kernel sets IOCB_DSYNC from the file for pwrite, libaio and
	 * io_uring alike), the hot path carries nothing per I/O, and an O_DIRECT write to a block
	 * device goes with FUA (a device without FUA: the write, then a flush). */
	fd = iom_target_open_sync(info, direct, writes, dsync, err, sizeof(err));
	if (fd < 0) {
		run_failed(r, fd, err);
		if (fd == -ESTALE)
			iom_stage_target_changed(st, t, err);
		return;
	}
	spec.fd = fd;
	spec.region = info->region;
	/* a target with several paths: the others opened and checked the same way */
	if ((ret = iom_stage_open_paths(st, t, fd, direct, writes, dsync, &paths, &spec, err,
					sizeof(err))) < 0) {
		run_failed(r, ret, err);
		close(fd);
		return;
	}
	spec.irq_drivers = info->facts.irq_names;
	spec.disk = info->facts.device;
	iom_run_spec_set_cell(&spec, c);
	if (spec.wl.access && spec.wl.access <= m->naccess_specs)
		spec.access = &m->access_specs[spec.wl.access - 1];
	spec.timing = m->timing;
	spec.timing.timeout_ns = iom_stage_run_timeout_ns(&m->timing);
	spec.seed = run->seed;
	spec.index = run->index;
	spec.repetition = run->repetition;
	spec.stop = st->stop;
	spec.cpus = m->cpus;
	spec.ncpus = m->ncpus;
	spec.policy = iom_policy_of(&m->engine);
	spec.engine_flags = iom_engine_opts_flags(&m->engine);
	if (m->trace && trace_dir) {
		iom_cell_describe(st->p, c, cell_text, sizeof(cell_text));
		trace_path = iom_trace_path(trace_dir, run->index);
		spec.trace_path = trace_path;
		spec.trace_dir = st->own; /* the pinned results directory, when under it */
		spec.cell_text = cell_text;
	}
	ret = ops->arm ? ops->arm(ops->arg, run, &spec, err, sizeof(err)) : 0;
	if (ret == 0)
		ret = iom_stage_start_run(st, run, &spec, &hooks, err, sizeof(err));
	if (ret < 0) {
		run_failed(r, ret, err);
		free(trace_path);
		iom_stage_close_paths(&paths); /* the other paths, held exclusively when written */
		close(fd);
		return;
	}
	if (ops->running)
		ops->running(ops->arg, true);
	iom_run_execute(&spec, r, err, sizeof(err));
	if (ops->running)
		ops->running(ops->arg, false);
	iom_stage_after_run(st, r);
	free(trace_path);
	iom_stage_close_paths(&paths);
	close(fd);
	if (r->status == IOM_RUN_OK && ops->after &&
	    (ret = ops->after(ops->arg, run, err, sizeof(err))) < 0)
		run_failed(r, ret, err);
}

uint64_t iom_stage_run_timeout_ns(const struct iom_timing *tm)
{
	uint64_t expected;

	if (tm->timeout_ns)
		return tm->timeout_ns;
	expected = (tm->warmup_steady ? tm->warmup_max_ns : tm->warmup_ns) + tm->cooldown_ns +
		   (tm->duration_ns ? tm->duration_ns : tm->bytes / 1000000u * 1000000000u);
	return 2 * expected + 60ull * 1000000000u;
}

int iom_stage_before_run(struct iom_stage *st, const struct iom_run *run, char *err,
			 size_t errlen)
{
	const struct iom_cell *c = &st->p->cells[run->cell];
	size_t t = (size_t)c->v[IOM_DIM_TARGET];
	char msg[IOM_ERRLEN];
	int ret;

	if (!st->info[t].t || st->target_error[t])
		return iom_err(err, errlen, ENODEV, "target '%s' is not usable: %s",
			       st->m->targets[t].label, st->target_error[t]);
	if (st->visit_error)
		return iom_err(err, errlen, EIO, "%s", st->visit_error);
	if (st->m->hooks.precondition && iom_cell_read_pct(st->m, c) < 100 && !st->preconditioned[t] &&
	    (ret = precondition(st, run, t, err, errlen)) < 0)
		return ret;
	if (st->m->hooks.drop_caches) {
		ret = iom_stage_drop_caches(msg, sizeof(msg));
		if (ret < 0)
			return iom_err(err, errlen, -ret, "drop_caches: %s", msg);
		if (ret == IOM_STAGE_SKIP && !st->drop_noted) {
			tellf(st, IOM_STAGE_WARN, t, "drop_caches skipped: %s", msg);
			st->drop_noted = true;
		}
	}
	return 0;
}

int iom_stage_start_run(struct iom_stage *st, const struct iom_run *run, struct iom_run_spec *spec,
			struct iom_worker_hooks *hooks, char *err, size_t errlen)
{
	const struct iom_cell *c = &st->p->cells[run->cell];
	size_t t = (size_t)c->v[IOM_DIM_TARGET];
	bool on = spec->wl.verify && iom_engine_has(spec->wl.engine, IOM_ENGINE_CAP_DATA);

	st->cur_verify = NULL;
	if (!on) {
		if (spec->wl.read_pct < 100)
			iom_verify_forget(st->verify[t]);
		return 0;
	}
	if (!st->verify[t])
		st->verify[t] = iom_verify_new(spec->region);
	if (st->shell_hooks)
		iom_verify_forget(st->verify[t]);
	if (iom_verify_begin(st->verify[t], run->index, run->seed, spec->wl.threads,
			     spec->wl.block_size, hooks, err, errlen) < 0)
		return -EINVAL;
	spec->hooks = hooks;
	st->cur_verify = st->verify[t];
	return 0;
}

int iom_stage_open_paths(struct iom_stage *st, size_t t, int fd0, bool direct, bool writes,
			 bool dsync, struct iom_stage_paths *ps, struct iom_run_spec *spec,
			 char *err, size_t errlen)
{
	const struct iom_target_info *info = &st->info[t];
	size_t n = info->nmore + 1;

	memset(ps, 0, sizeof(*ps));
	if (!info->nmore)
		return 0;
	ps->fds = xcalloc(n, sizeof(*ps->fds));
	ps->regions = xcalloc(n, sizeof(*ps->regions));
	ps->paths = xcalloc(n, sizeof(*ps->paths));
	for (size_t p = 0; p < n; p++) {
		const struct iom_target_info *in = iom_target_info_path(info, p);
		int fd = p ? iom_target_open_sync(in, direct, writes, dsync, err, errlen) : fd0;

		if (fd < 0) {
			if (fd == -ESTALE)
				iom_stage_target_changed(st, t, err);
			iom_stage_close_paths(ps);
			return fd;
		}
		ps->fds[p] = fd;
		ps->regions[p] = in->region;
		ps->paths[p] = in->path;
		ps->n = (unsigned)p + 1;
	}
	spec->fds = ps->fds;
	spec->regions = ps->regions;
	spec->paths = ps->paths;
	spec->npaths = ps->n;
	return 0;
}

void iom_stage_close_paths(struct iom_stage_paths *ps)
{
	for (unsigned p = 1; p < ps->n; p++)
		close(ps->fds[p]);
	free(ps->fds);
	free(ps->regions);
	free(ps->paths);
	memset(ps, 0, sizeof(*ps));
}

void iom_stage_after_run(struct iom_stage *st, struct iom_run_result *r)
{
	struct iom_verify *v = st->cur_verify;
	uint64_t bad;
	const struct iom_verify_mismatch *f;

	st->cur_verify = NULL;
	if (!v)
		return;
	bad = iom_verify_end(v, r->status == IOM_RUN_OK, &r->verify);
	f = r->verify.nfirst ? &r->verify.first[0] : NULL;
	if (!bad || !f)
		return;
	free(r->error);
	r->error = xasprintf("data verification failed: %" PRIu64 " mismatched sector%s (of %" PRIu64
			     " read); first at offset %" PRIu64 ": expected %s, found %s",
			     bad, bad == 1 ? "" : "s",
			     r->verify.sectors_checked + r->verify.sectors_unwritten, f->offset,
			     f->expected, f->found);
	if (r->status != IOM_RUN_INTERRUPTED)
		r->status = IOM_RUN_FAILED;
}

/* ---- the shell hooks ---------------------------------------------------------------------- */

/* The variables known at the study level and of this rank, plus target t's (t < 0: none),
 * plus run's. */
static void hook_vars(const struct iom_stage *st, long t, const struct iom_run *run,
		      struct iom_hook_vars *v)
{
	memset(v, 0, sizeof(*v));
	iom_hook_vars_set(v, "study.dir", st->dir);
	iom_hook_vars_set(v, "study.name", st->m->name ? st->m->name : "");
	iom_hook_vars_setf(v, "rank", "%u", st->rank);
	iom_hook_vars_setf(v, "ranks", "%u", st->ranks ? st->ranks : 1);
	if (st->host) {
		iom_hook_vars_set(v, "host", st->host);
	} else { /* one host: its short name, as ${host} in a target's path */
		char hn[64], *dot;

		if (gethostname(hn, sizeof(hn)) < 0)
			snprintf(hn, sizeof(hn), "localhost");
		hn[sizeof(hn) - 1] = '\0';
		if ((dot = strchr(hn, '.')))
			*dot = '\0';
		iom_hook_vars_set(v, "host", hn);
	}
	if (t >= 0) {
		const struct iom_target *tg = &st->m->targets[t];
		const struct iom_target_info *in = &st->info[t];

		iom_hook_vars_set(v, "target.label", tg->label);
		iom_hook_vars_set(v, "target.path", in->path ? in->path : tg->path);
		iom_hook_vars_set(v, "target.device", in->facts.device);
		iom_hook_vars_set(v, "target.controller", in->controller);
		iom_hook_vars_set(v, "target.filesystem",
				  tg->filesystem ? tg->filesystem
				  : in->facts.fstype ? in->facts.fstype : in->is_block ? "raw" : "");
		iom_hook_vars_set(v, "target.mount", in->facts.mount_point);
	}
	if (run) {
		const struct iom_cell *c = &st->p->cells[run->cell];

		/* ${cell.NAME} of every dimension (hooks.h): the key table is the list */
		for (int d = 1; d < IOM_DIM_COUNT; d++) {
			char buf[64];

			iom_cell_value(st->p, c, (enum iom_dim)d, buf, sizeof(buf));
			iom_hook_vars_set_cell(v, (enum iom_dim)d, buf);
		}
		iom_hook_vars_setf(v, "run.index", "%u", run->index);
		iom_hook_vars_setf(v, "run.repetition", "%u", run->repetition);
	}
}

char *iom_stage_hook_log(const struct iom_stage *st, const char *what, enum iom_hook_point pt)
{
	if (st->invocation)
		return xasprintf("%s/hooks/%s.%s.resume%u.log", st->dir, what,
				 iom_hook_point_name(pt), st->invocation);
	return xasprintf("%s/hooks/%s.%s.log", st->dir, what, iom_hook_point_name(pt));
}

int iom_stage_hook(struct iom_stage *st, enum iom_hook_point pt, const char *what, long t,
		   const struct iom_run *run, uint64_t timeout_ns, bool *ran, char *err,
		   size_t errlen)
{
	const char *cmd = iom_stage_hook_cmd(st->m, pt);
	struct iom_proc_result hr = { 0 };
	struct iom_hook_vars v;
	struct iom_hook_opts ho = { .timeout_ns = timeout_ns, .stop = st->stop };
	char *log, msg[IOM_ERRLEN];
	int ret;

	*ran = false;
	if (!cmd || !st->shell_hooks)
		return 0;
	*ran = true;
	hook_vars(st, t, run, &v);
	log = iom_stage_hook_log(st, what, pt);
	ho.log_path = log;
	ho.log_dir = st->own;
	ret = iom_hook_run(pt, cmd, &v, &ho, &hr, msg, sizeof(msg));
	if (ret < 0)
		iom_err(err, errlen, -ret, "%s (output in %s)", msg, log + strlen(st->dir) + 1);
	iom_proc_result_release(&hr);
	iom_hook_vars_release(&v);
	free(log);
	return ret;
}

/* ---- the plan's text --------------------------------------------------------------------- */

const char *iom_stage_hook_cmd(const struct iom_matrix *m, enum iom_hook_point pt)
{
	const struct iom_hooks *h = &m->hooks;

	switch (pt) {
	case IOM_HOOK_BEFORE_STUDY: return h->before_study;
	case IOM_HOOK_BEFORE_TARGET: return h->before_target;
	case IOM_HOOK_BEFORE_RUN: return h->before_run;
	case IOM_HOOK_AFTER_RUN: return h->after_run;
	case IOM_HOOK_AFTER_TARGET: return h->after_target;
	case IOM_HOOK_AFTER_STUDY: return h->after_study;
	default: return NULL;
	}
}

void iom_stage_desc_of(const struct iom_matrix *m, bool allowed, struct iom_stage_desc *d)
{
	memset(d, 0, sizeof(*d));
	for (int pt = 0; pt < IOM_HOOK_COUNT; pt++)
		d->cmd[pt] = iom_stage_hook_cmd(m, (enum iom_hook_point)pt);
	d->allowed = allowed;
	d->drop_caches = m->hooks.drop_caches;
	d->fstrim = m->hooks.fstrim;
	d->precondition = m->hooks.precondition;
}

bool iom_stage_desc_any(const struct iom_stage_desc *d)
{
	for (int i = 0; i < IOM_HOOK_COUNT; i++)
		if (d->cmd[i])
			return true;
	return d->drop_caches || d->fstrim || d->precondition;
}

int iom_stage_describe(FILE *out, const struct iom_stage_desc *d)
{
	bool cmds = false;

	for (int i = 0; i < IOM_HOOK_COUNT; i++)
		cmds |= d->cmd[i] != NULL;
	if (cmds) {
		fprintf(out, "hooks (shell commands, %s):\n",
			d->allowed ? "allowed by --allow-hooks" : "run only with --allow-hooks");
		for (int i = 0; i < IOM_HOOK_COUNT; i++) {
			if (!d->cmd[i])
				continue;
			fprintf(out, "  %-14s ", iom_hook_point_name((enum iom_hook_point)i));
			for (const char *p = d->cmd[i]; *p; p++) {
				if (*p == '\n')
					fprintf(out, "\n  %-14s ", "");
				else
					fputc(*p, out);
			}
			fputc('\n', out);
		}
	}
	if (d->drop_caches || d->fstrim || d->precondition) {
		fprintf(out, "preparation (built-in):\n");
		if (d->precondition)
			fprintf(out, "  %-14s sequential writes of %s%s before a target's first "
				     "writing run (again after an fstrim or mkfs)\n", "precondition",
				d->precondition,
				     strchr(d->precondition, 'x') || strchr(d->precondition, 'X')
					     ? " the region" : "");
		if (d->fstrim)
			fprintf(out, "  %-14s at each visit of a target, before its first run\n",
				"fstrim");
		if (d->drop_caches)
			fprintf(out, "  %-14s before each run (needs root)\n", "drop_caches");
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- built-ins -------------------------------------------------------------------------- */

int iom_stage_drop_caches(char *msg, size_t msglen)
{
	static const char path[] = "/proc/sys/vm/drop_caches";
	int fd, e = 0;

	sync();
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
	} else {
		if (write(fd, "3", 1) != 1)
			e = errno ? errno : EIO;
		close(fd);
	}
	if (!e)
		return 0;
	if (e == EACCES || e == EPERM) {
		iom_err(msg, msglen, e, "cannot drop the page cache: writing '%s' needs root", path);
		return IOM_STAGE_SKIP;
	}
	if (e == EROFS) {
		iom_err(msg, msglen, e, "cannot drop the page cache: '%s' is read-only here (a "
					"container?)", path);
		return IOM_STAGE_SKIP;
	}
	return iom_err(msg, msglen, e, "cannot drop the page cache: '%s': %s", path, strerror(e));
}

static bool not_supported(int e)
{
	return e == EOPNOTSUPP || e == ENOTSUP || e == ENOTTY || e == ENOSYS;
}

int iom_stage_fstrim(const char *mount_point, uint64_t *trimmed, char *msg, size_t msglen)
{
	struct fstrim_range range = { .start = 0, .len = UINT64_MAX, .minlen = 0 };
	int fd, e;

	if (trimmed)
		*trimmed = 0;
	fd = open(mount_point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		return iom_err(msg, msglen, e, "cannot open '%s': %s", mount_point, strerror(e));
	}
	if (ioctl(fd, FITRIM, &range) == 0) {
		close(fd);
		if (trimmed)
			*trimmed = range.len;
		return 0;
	}
	e = errno;
	close(fd);
	if (not_supported(e)) {
		iom_err(msg, msglen, e, "the filesystem at '%s' does not support trimming", mount_point);
		return IOM_STAGE_SKIP;
	}
	if (e == EPERM || e == EACCES) {
		iom_err(msg, msglen, e, "trimming the filesystem at '%s' needs root", mount_point);
		return IOM_STAGE_SKIP;
	}
	return iom_err(msg, msglen, e, "cannot trim the filesystem at '%s': %s", mount_point,
		       strerror(e));
}

int iom_stage_discard(int fd, const char *device, uint64_t offset, uint64_t length, char *msg,
		      size_t msglen)
{
	uint64_t size = 0, range[2];
	int e;

	if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
		e = errno;
		if (e == ENOTTY)
			return iom_err(msg, msglen, ENOTBLK, "'%s' is not a block device", device);
		return iom_err(msg, msglen, e, "cannot read the size of '%s': %s", device,
			       strerror(e));
	}
	if (offset > size || (length && length > size - offset))
		return iom_err(msg, msglen, EINVAL, "cannot discard beyond the end of '%s'", device);
	range[0] = offset;
	range[1] = length ? length : size - offset;
	if (range[1] == 0 || ioctl(fd, BLKDISCARD, range) == 0)
		return 0;
	e = errno;
	if (not_supported(e)) {
		iom_err(msg, msglen, e, "'%s' does not support discard", device);
		return IOM_STAGE_SKIP;
	}
	return iom_err(msg, msglen, e, "cannot discard '%s': %s", device, strerror(e));
}

/* ---- the precondition -------------------------------------------------------------------- */

int iom_stage_precondition(int fd, const char *path, const struct iom_precondition *pc,
			   uint64_t *written, char *err, size_t errlen)
{
	uint32_t bs = pc->block_size ? pc->block_size : 1u << 20;
	struct iom_target_fill f = { .bytes = pc->bytes, .region = pc->region, .chunk = bs,
				     .seed = pc->seed, .stamp = true,
				     .direct = pc->region % 4096 == 0, .stop = pc->stop,
				     .progress = pc->progress, .arg = pc->arg };
	struct iom_target_fill_end end;
	char d[24], t[24];
	int ret;

	if (written)
		*written = 0;
	if (bs % 4096)
		return iom_err(err, errlen, EINVAL,
			       "precondition block size %u is not a multiple of 4096", bs);
	if (pc->region == 0)
		return iom_err(err, errlen, EINVAL, "cannot precondition '%s': its region is empty",
			       path);
	ret = iom_target_fill(fd, &f, &end);
	if (written)
		*written = end.done;
	switch (ret ? end.failed : IOM_FILL_DONE) {
	case IOM_FILL_DONE:
		break;
	case IOM_FILL_STOPPED:
		iom_size_format(end.done, d, sizeof(d));
		iom_size_format(pc->bytes, t, sizeof(t));
		return iom_err(err, errlen, EINTR, "preconditioning '%s' was stopped after %s of %s",
			       path, d, t);
	case IOM_FILL_NOMEM:
		return iom_err(err, errlen, ENOMEM, "cannot allocate %u bytes to precondition '%s'",
			       bs, path);
	case IOM_FILL_NOTHING:
		return iom_err(err, errlen, ENOSPC, "preconditioning '%s': write at offset %" PRIu64
			       " wrote nothing", path, end.off);
	default:
		return iom_err(err, errlen, -ret, "preconditioning '%s': write at offset %" PRIu64
			       " failed: %s", path, end.off, strerror(-ret));
	}
	if (fdatasync(fd) < 0 && errno != EINVAL) {
		ret = errno;
		return iom_err(err, errlen, ret, "cannot sync '%s' after preconditioning: %s", path,
			       strerror(ret));
	}
	if (pc->progress)
		pc->progress(pc->arg, end.done, pc->bytes);
	return 0;
}
