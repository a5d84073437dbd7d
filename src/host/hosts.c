/* SPDX-License-Identifier: MIT */
/*
 * hosts — many hosts, one study: the logic above a host backend. See hosts.h.
 */
#include "hosts.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cpu.h"
#include "engine/engine.h"
#include "journal.h"
#include "ownfile.h"
#include "stage.h"
#include "target/target.h"
#include "trace/trace.h"
#include "util.h"

/* A run's deadline beyond twice its watchdog: MPI, the run files, a loaded host */
#define DEADLINE_MARGIN_NS 10000000000ull

bool iom_hosts_launched_many(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE" };
	const char *v;

	for (size_t i = 0; i < IOM_ARRAY_SIZE(vars); i++)
		if ((v = getenv(vars[i])) && atoi(v) > 1)
			return true;
	/* PMIx gives the rank, not the size: any rank but 0 says there are several */
	v = getenv("PMIX_RANK");
	return v && atoi(v) > 0;
}

bool iom_hosts_stdout_is_tty(void)
{
	char path[64], link[256];
	ssize_t n;

	if (!isatty(STDOUT_FILENO))
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/fd/1", (long)getppid());
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return strncmp(link, "/dev/pts/", 9) == 0 || strncmp(link, "/dev/tty", 8) == 0 ||
	       strcmp(link, "/dev/console") == 0;
}

static void short_host(char *buf, size_t len)
{
	char *dot;

	if (gethostname(buf, len) < 0)
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
	if ((dot = strchr(buf, '.')))
		*dot = '\0';
}

/* s with every ${name} replaced by value (heap). */
static char *replace_all(const char *s, const char *name, const char *value)
{
	struct { char *p; size_t n; } out = { xstrdup(""), 0 };
	const char *at;

	while ((at = strstr(s, name))) {
		char *next = xasprintf("%s%.*s%s", out.p, (int)(at - s), s, value);

		free(out.p);
		out.p = next;
		s = at + strlen(name);
	}
	{
		char *next = xasprintf("%s%s", out.p, s);

		free(out.p);
		out.p = next;
	}
	return out.p;
}

void iom_hosts_expand_paths(const struct iom_hosts *h, struct iom_matrix *m)
{
	char host[64], rank[16];

	if (h)
		snprintf(host, sizeof(host), "%s", h->host);
	else
		short_host(host, sizeof(host));
	snprintf(rank, sizeof(rank), "%u", h ? h->rank : 0);
	for (size_t t = 0; t < m->ntargets; t++) {
		char *a, *b;

		/* a target's hosts: where it does not live, this rank leaves it alone; nor does a
		 * rank beyond every `ranks` value of the target prepare what it never measures */
		m->targets[t].absent = m->targets[t].on_rank &&
				       !m->targets[t].on_rank[h ? h->rank : 0];
		{
			const struct iom_values *rk = &m->targets[t].dim[IOM_DIM_RANKS];
			bool used = rk->n == 0;

			for (size_t j = 0; j < rk->n && !used; j++)
				used = rk->v[j] <= 0 || (int64_t)(h ? h->rank : 0) < rk->v[j];
			m->targets[t].absent |= !used;
		}

		/* the path, and each of several paths (path is a copy of the first) */
		for (size_t p = 0; p <= m->targets[t].npaths; p++) {
			char **at = p ? &m->targets[t].paths[p - 1] : &m->targets[t].path;

			if (!*at || !strstr(*at, "${"))
				continue;
			a = replace_all(*at, "${host}", host);
			b = replace_all(a, "${rank}", rank);
			free(a);
			free(*at);
			*at = b;
		}
	}
}

int iom_hosts_share_file(struct iom_hosts *h, const char *path, char **local, char *err,
			 size_t errlen)
{
	char *text = NULL, e[IOM_ERRLEN] = "";
	uint64_t len = 0;
	size_t n = 0;
	int ret = 0;

	*local = NULL;
	if (h->rank == 0) {
		ret = iom_own_read(NULL, path, IOM_OWN_FOLLOW, IOM_OWN_CAP_MATRIX, &text, &n, e,
				   sizeof(e));
		len = ret < 0 ? UINT64_MAX : n;
	}
	if (h->ops->bcast(h->ctx, &len, sizeof(len)) < 0)
		return iom_err(err, errlen, EIO, "cannot share '%s' with the other ranks", path);
	if (len == UINT64_MAX) {
		free(text);
		/* what the path is (a directory, a FIFO) when the own-files module said so */
		return iom_err(err, errlen, ENOENT, "cannot read '%s' on rank 0: %s", path,
			       h->rank != 0 ? "see rank 0"
			       : ret == -EPERM || ret == -EISDIR || ret == -EFBIG ? e
			       : strerror(-ret));
	}
	if (h->rank != 0)
		text = xcalloc(len + 1, 1);
	if (h->ops->bcast(h->ctx, text, len) < 0) {
		free(text);
		return iom_err(err, errlen, EIO, "cannot share '%s' with the other ranks", path);
	}
	if (h->rank == 0) {
		*local = xstrdup(path);
	} else {
		const char *base = strrchr(path, '/');

		*local = xasprintf("%s/%s", h->private_dir, base ? base + 1 : path);
		if ((ret = iom_own_write_atomic(NULL, *local, text, len, err, errlen)) < 0) {
			free(*local);
			*local = NULL;
		}
	}
	free(text);
	return ret < 0 ? ret : 0;
}

int iom_hosts_describe_targets(struct iom_hosts *h, const struct iom_matrix *m, FILE *out)
{
	char mine[64 + 512], *all = NULL;
	int ret = 0;

	if (h->rank == 0) {
		all = xcalloc(h->size, sizeof(mine));
		fprintf(out, "\ntargets by rank:\n");
	}
	for (size_t t = 0; t < m->ntargets && ret == 0; t++) {
		if (m->targets[t].absent) /* its hosts leave this rank out */
			snprintf(mine, sizeof(mine), "(not here: hosts %s%s)", m->targets[t].hosts[0],
				 m->targets[t].nhosts > 1 ? ", …" : "");
		else
			snprintf(mine, sizeof(mine), "%s", m->targets[t].path ? m->targets[t].path : "");
		memcpy(mine + 512, h->host, 64);
		mine[sizeof(mine) - 1] = '\0';
		mine[511] = '\0';
		ret = h->ops->gather(h->ctx, mine, sizeof(mine), all);
		for (unsigned r = 0; ret == 0 && h->rank == 0 && r < h->size; r++)
			fprintf(out, "  rank %u (host %s): %s %s\n", r, all + r * sizeof(mine) + 512,
				m->targets[t].label, all + r * sizeof(mine));
	}
	free(all);
	return ret;
}

int iom_hosts_agree_plan(struct iom_hosts *h, uint64_t hash, char *err, size_t errlen)
{
	uint64_t h0 = hash, differs;

	if (h->ops->bcast(h->ctx, &h0, sizeof(h0)) < 0)
		return iom_err(err, errlen, EIO, "cannot share the plan with the other ranks");
	differs = h0 != hash;
	if (h->ops->allmax(h->ctx, &differs) < 0)
		return iom_err(err, errlen, EIO, "cannot share the plan with the other ranks");
	if (differs)
		return iom_err(err, errlen, EINVAL,
			       "the ranks do not plan the same study (rank 0: plan %016" PRIx64
			       "; this rank %u: %016" PRIx64 "): run the same iomatrix-mpi "
			       "everywhere", h0, h->rank, hash);
	return 0;
}

/* A rank's preflight outcome as it travels. */
struct pf_word {
	uint32_t errors;
	char host[64];
	char first[448];
};

/* The write checks of this rank's block devices that will be written (not filesystem targets:
 * those are checked at their visit); the number that fail, the first one's message in first
 * (when empty). Reads only. */
static uint32_t check_devices(const struct iom_plan *p, char *first, size_t len)
{
	const struct iom_matrix *m = p->m;
	uint32_t n = 0;

	for (size_t t = 0; t < m->ntargets; t++) {
		const struct iom_target *tg = &m->targets[t];
		char e[IOM_ERRLEN];
		struct stat st;

		if (tg->absent || tg->fs_type || !tg->destructive || !iom_stage_target_writes(p, t) ||
		    stat(tg->path, &st) < 0 || !S_ISBLK(st.st_mode))
			continue;
		if (iom_target_check_writable("/", tg->path, NULL, e, sizeof(e)) < 0) {
			if (!n && !*first) {
				char *msg = xasprintf("%s:%d: target '%s': %s", m->file, tg->line,
						      tg->label, e);

				snprintf(first, len, "%s", msg); /* cut to what travels */
				free(msg);
			}
			n++;
		}
	}
	return n;
}

int iom_hosts_agree_preflight(struct iom_hosts *h, const struct iom_plan *p,
			      const struct iom_preflight *pf, char *err, size_t errlen)
{
	const struct iom_matrix *m = p->m;
	struct pf_word mine = { .errors = (uint32_t)pf->errors }, *all = NULL;
	uint64_t any;
	int ret = 0;

	snprintf(mine.host, sizeof(mine.host), "%s", h->host);
	for (size_t i = 0; i < pf->n; i++)
		if (pf->d[i].error) {
			snprintf(mine.first, sizeof(mine.first), "%s:%d: %s", m->file, pf->d[i].line,
				 pf->d[i].msg);
			break;
		}
	mine.errors += check_devices(p, mine.first, sizeof(mine.first));
	any = mine.errors;
	if (h->rank == 0)
		all = xcalloc(h->size, sizeof(*all));
	if (h->ops->gather(h->ctx, &mine, sizeof(mine), all) < 0 ||
	    h->ops->allmax(h->ctx, &any) < 0) {
		free(all);
		return iom_err(err, errlen, EIO, "cannot gather the ranks' preflight");
	}
	if (!any) {
		free(all);
		h->agreed = true;
		return 0;
	}
	if (h->rank == 0) {
		size_t off = 0;

		err[0] = '\0';
		for (unsigned r = 0; r < h->size; r++)
			if (all[r].errors && off < errlen)
				off += (size_t)snprintf(err + off, errlen - off,
							"%srank %u (host %s) refused: %s%s",
							off ? "; " : "", r, all[r].host,
							all[r].first, all[r].errors > 1 ?
							" (and more)" : "");
		ret = -EPERM;
	} else {
		ret = iom_err(err, errlen, EPERM, "a rank refused the study (rank 0 says which)");
	}
	free(all);
	return ret;
}

/* Rate (of the cell's dimension dim) as each rank of the run offers it: a share of the max
 * (the max run's aggregate) and, with rate_scope = "total", a number too, split evenly over
 * the ranks that run it; with "rank" a number is each rank's. */
static int64_t split_rate(const struct iom_hosts *h, const struct iom_plan *p,
			  const struct iom_cell *c, int dim, int64_t rate)
{
	unsigned n = 0;
	double v;

	if (rate <= 0 || (!IOM_RATE_IS_SHARE(c->v[dim]) &&
			  p->m->rate_scope != IOM_RATE_SCOPE_TOTAL))
		return rate;
	for (unsigned r = 0; r < h->size; r++)
		n += iom_hosts_takes_part(p, c, r);
	if (n <= 1)
		return rate;
	v = (double)rate / n;
	return v >= 1 ? (int64_t)llround(v) : 1;
}

int iom_hosts_next(struct iom_hosts *h, const struct iom_plan *p, const struct iom_run *run,
		   int rate_ret, int64_t rate_iops, int64_t rate_mb_s)
{
	struct iom_hosts_next_msg m = { .index = run ? run->index : 0, .rate_failed = rate_ret < 0,
			      .study_ns = h->study_ns, .complete = !run && h->complete };

	if (run && rate_ret >= 0) {
		const struct iom_cell *c = &p->cells[run->cell];

		m.rate_iops = split_rate(h, p, c, IOM_DIM_RATE_IOPS, rate_iops);
		m.rate_mb_s = split_rate(h, p, c, IOM_DIM_RATE_MB_S, rate_mb_s);
	}
	h->rate_failed = m.rate_failed;
	h->rate_iops = m.rate_iops;
	h->rate_mb_s = m.rate_mb_s;
	return h->ops->bcast(h->ctx, &m, sizeof(m));
}

/* ---- placement: which ranks do a run's I/O -------------------------------------------- */

bool iom_hosts_takes_part(const struct iom_plan *p, const struct iom_cell *c, unsigned rank)
{
	const struct iom_target *t;

	if (p->m->placement == IOM_PLACE_EACH && c->v[IOM_DIM_HOST] != (int64_t)rank)
		return false;
	if (c->v[IOM_DIM_RANKS] > 0 && (int64_t)rank >= c->v[IOM_DIM_RANKS])
		return false;
	t = &p->m->targets[c->v[IOM_DIM_TARGET]];
	return !t->on_rank || (rank < p->m->nranks && t->on_rank[rank]); /* where it lives */
}

void iom_hosts_begin_run(struct iom_hosts *h, const struct iom_plan *p, const struct iom_run *run)
{
	h->plan = p;
	h->cell = &p->cells[run->cell];
	h->hook_agree = iom_hosts_hooks_everywhere(h, p->m) && p->m->hooks.before_run;
	h->hook_agreed = false;
	/* provenance: the CPU read once; the device anew for each run (iom_hosts_arm), none for
	 * a run that fails before it is armed */
	if (!h->cpu_model[0]) {
		char *model = iom_cpu_model();

		snprintf(h->cpu_model, sizeof(h->cpu_model), "%s", model ? model : "");
		free(model);
	}
	h->device[0] = h->driver[0] = h->scheduler[0] = '\0';
	/* a run's collectives wait at most for the slowest rank's whole run and after_run hook
	 * (each within the watchdog), plus a margin */
	if (h->ops && h->ops->deadline)
		h->ops->deadline(h->ctx, 2 * iom_stage_run_timeout_ns(&p->m->timing) +
				 DEADLINE_MARGIN_NS);
}

bool iom_hosts_hooks_everywhere(const struct iom_hosts *h, const struct iom_matrix *m)
{
	if (!h->hooks_allowed || m->hooks.where != IOM_HOOKS_EVERY)
		return false;
	for (int pt = 0; pt < IOM_HOOK_COUNT; pt++)
		if (iom_stage_hook_cmd(m, (enum iom_hook_point)pt))
			return true;
	return false;
}

int iom_hosts_agree_hook(struct iom_hosts *h, int ret, char *err, size_t errlen)
{
	uint64_t v = ret < 0 ? h->size - h->rank : 0; /* the lowest failing rank wins the max */
	unsigned first;

	if (!h->hook_agree || h->hook_agreed)
		return ret;
	h->hook_agreed = true;
	if (h->ops->allmax(h->ctx, &v) < 0)
		return ret < 0 ? ret : iom_err(err, errlen, EIO, "cannot agree on the before_run "
					       "hook with the other ranks");
	if (ret < 0 || v == 0)
		return ret;
	first = h->size - (unsigned)v;
	return iom_err(err, errlen, ECANCELED, "the before_run hook failed on rank %u (host %s)",
		       first, h->names && h->names[first] ? h->names[first] : "?");
}

void iom_hosts_add_log(struct iom_hosts *h, const char *path)
{
	h->pending = xrealloc(h->pending, (h->npending + 1) * sizeof(*h->pending));
	h->pending[h->npending++] = xstrdup(path);
}

int iom_hosts_collect_logs(struct iom_hosts *h, const struct iom_matrix *m,
			   const struct iom_own_dir *rd, const char *dir)
{
	uint64_t n = h->rank ? h->npending : 0;
	char name[256], *all = NULL;
	int ret = 0;

	if (!iom_hosts_hooks_everywhere(h, m) || h->size < 2)
		return 0;
	if (h->ops->allmax(h->ctx, &n) < 0)
		return -EIO;
	if (h->rank == 0) {
		char *hd = xasprintf("%s/hooks", dir);

		(void)iom_own_mkdir(rd, hd, NULL, 0); /* failing, the first log's write says so */
		free(hd);
		all = xcalloc(h->size, sizeof(name));
	}
	for (uint64_t i = 0; i < n && ret == 0; i++) {
		const char *mine = h->rank && i < h->npending ? h->pending[i] : NULL;
		const char *base = mine && strrchr(mine, '/') ? strrchr(mine, '/') + 1 : mine;

		snprintf(name, sizeof(name), "%s", base ? base : "");
		if (h->ops->gather(h->ctx, name, sizeof(name), all) < 0) {
			ret = -EIO;
			break;
		}
		for (unsigned k = 1; k < h->size; k++) {
			int kret = 0;

			if (h->rank == 0) {
				const char *b = all + (size_t)k * sizeof(name);
				size_t len = strlen(b);
				char *path;
				bool got = false;

				if (len > 4 && strcmp(b + len - 4, ".log") == 0)
					len -= 4;
				if (h->invocation)
					path = xasprintf("%s/hooks/%.*s.r%u.resume%u.log", dir,
							 (int)len, b, k, h->invocation);
				else
					path = xasprintf("%s/hooks/%.*s.r%u.log", dir, (int)len, b, k);
				kret = h->ops->recv_file(h->ctx, k, rd, path, &got);
				free(path);
			} else if (h->rank == k) {
				kret = h->ops->send_file(h->ctx, mine && access(mine, F_OK) == 0 ? mine
										  : NULL);
			}
			if (ret == 0)
				ret = kret;
		}
	}
	free(all);
	for (size_t i = 0; i < h->npending; i++) {
		iom_own_unlink(NULL, h->pending[i]);
		free(h->pending[i]);
	}
	free(h->pending);
	h->pending = NULL;
	h->npending = 0;
	return ret;
}

int iom_hosts_collect_journals(struct iom_hosts *h, const struct iom_own_dir *rd,
			       const char *dir)
{
	int ret = 0;

	for (unsigned k = 1; k < h->size && !iom_hosts_lost(h); k++) {
		int kret = 0;

		if (h->rank == 0) {
			char *path = xasprintf("%s/journal.r%u", dir, k);
			bool got = false;

			kret = h->ops->recv_file(h->ctx, k, rd, path, &got);
			free(path);
		} else if (h->rank == k) {
			char *path = dir ? xasprintf("%s/journal", dir) : NULL;

			kret = h->ops->send_file(h->ctx, path && access(path, F_OK) == 0 ? path
										  : NULL);
			free(path);
		}
		if (ret == 0)
			ret = kret;
	}
	return ret;
}

int iom_hosts_ready(struct iom_hosts *h, char *err, size_t errlen)
{
	h->readied = true;
	return h->ops && h->ops->ready ? h->ops->ready(h->ctx, err, errlen) : 0;
}

const char *iom_hosts_lost(const struct iom_hosts *h)
{
	return h->ops && h->ops->lost ? h->ops->lost(h->ctx) : NULL;
}

bool iom_hosts_sits_out(const struct iom_hosts *h)
{
	return h->plan && h->cell && !iom_hosts_takes_part(h->plan, h->cell, h->rank);
}

/* The rows of the ranks that took part in the current run, moved to the front: their number. */
static size_t part_rows(const struct iom_hosts *h, struct iom_host_row *rows)
{
	size_t n = 0;

	for (unsigned r = 0; r < h->size; r++)
		if (!h->plan || !h->cell || iom_hosts_takes_part(h->plan, h->cell, r))
			memmove(&rows[n++], &rows[r], sizeof(*rows));
	return n;
}

static int arm_sync(void *arg, unsigned point, uint64_t not_before, char *err, size_t errlen)
{
	struct iom_hosts *h = arg;
	int ret = h->ops->sync(h->ctx, point, not_before, true, err, errlen);

	h->synced = point + 1;
	return ret;
}

static bool arm_stonewall(void *arg, bool self_done)
{
	struct iom_hosts *h = arg;

	return h->ops->stonewall(h->ctx, self_done);
}

/* ---- provenance per host: the CPU model and the device under the run's target ---- */

/* The device disk ("/dev/sda") in words into h: "QEMU HARDDISK (/dev/sda)", "loop (/dev/loop3
 * on /dev/shm/x)"; "" when there is none (a scratch file on tmpfs); its driver and scheduler. */
static void device_words(const char *disk, struct iom_hosts *h)
{
	char *buf = h->device;
	size_t len = sizeof(h->device);
	struct iom_device_facts f;

	buf[0] = h->driver[0] = h->scheduler[0] = '\0';
	if (!disk || iom_device_facts_read("/", disk, &f) < 0)
		return;
	snprintf(h->driver, sizeof(h->driver), "%s", f.driver ? f.driver : "");
	snprintf(h->scheduler, sizeof(h->scheduler), "%s", f.scheduler ? f.scheduler : "");
	if (f.model)
		snprintf(buf, len, "%s%s%s (%s)", f.vendor ? f.vendor : "", f.vendor ? " " : "",
			 f.model, disk);
	else
		snprintf(buf, len, "%s (%s%s%s)", f.driver ? f.driver : "?", disk,
			 f.backing_file ? " on " : "", f.backing_file ? f.backing_file : "");
	iom_device_facts_release(&f);
}

int iom_hosts_arm(struct iom_hosts *h, struct iom_run_spec *spec, char *err, size_t errlen)
{
	if (h->rate_failed)
		return iom_err(err, errlen, ENOENT, "its rate is a share of the cell's max, which "
			       "rank 0 could not derive (rank 0 says why)");
	spec->wl.rate_iops = h->rate_iops; /* this rank's part of the offered load */
	spec->wl.rate_mb_s = h->rate_mb_s;
	device_words(spec->disk, h);
	spec->sync = arm_sync;
	spec->sync_arg = h;
	spec->sync_early_ns = h->ops->early_ns ? h->ops->early_ns(h->ctx) : 0;
	spec->hosts_out = &h->out;
	/* IOR's stonewalling: a bytes-bound window ends for all when the first rank is done */
	if (spec->timing.bytes && h->ops->stonewall)
		spec->stonewall = arm_stonewall;
	return 0;
}

void iom_hosts_row_of(const struct iom_hosts *h, const struct iom_run_result *r, uint64_t t0,
		      uint64_t t1, const struct iom_hist hist[IOM_NDIR], struct iom_host_row *row)
{
	int64_t off = h->ops ? h->ops->offset_ns(h->ctx) : 0;

	memset(row, 0, sizeof(*row));
	row->rank = h->rank;
	snprintf(row->host, sizeof(row->host), "%s", h->host);
	row->status = (int32_t)r->status;
	if (r->error)
		snprintf(row->error, sizeof(row->error), "%s", r->error);
	for (unsigned d = 0; d < IOM_NDIR; d++) {
		row->ios[d] = r->dir[d].ios;
		row->bytes[d] = r->dir[d].bytes;
	}
	row->iops = r->dir[IOM_DIR_TOTAL].iops;
	row->mb_s = r->dir[IOM_DIR_TOTAL].mb_s;
	row->p50_ns = iom_hist_percentile(&hist[IOM_DIR_TOTAL], 50);
	row->p99_ns = iom_hist_percentile(&hist[IOM_DIR_TOTAL], 99);
	row->lat_mean_ns = iom_hist_mean(&hist[IOM_DIR_TOTAL]);
	row->offset_ns = off;
	row->start_ns = t0 ? (uint64_t)((int64_t)t0 - off) : 0;
	row->end_ns = t1 ? (uint64_t)((int64_t)t1 - off) : 0;
	row->busy_pct = r->cpu.busy_pct;
	row->user_s = r->cpu.proc_user_s;
	row->sys_s = r->cpu.proc_sys_s;
	row->stonewalled = r->stonewalled;
	row->trace_records = r->trace.records;
	row->trace_dropped = r->trace.dropped;
	row->stalled = r->stall.stalled;
	if (r->stall.stalled && r->stall.reason)
		snprintf(row->stall_reason, sizeof(row->stall_reason), "%s", r->stall.reason);
	row->steady_asked = r->steady.asked;
	row->steady_reached = r->steady.reached;
	{
		struct utsname u;

		if (uname(&u) == 0)
			snprintf(row->kernel, sizeof(row->kernel), "%.60s %.60s", u.release,
				 u.version);
	}
	/* provenance per host: the CPU and the run's device, as iom_hosts_arm read them */
	snprintf(row->cpu_model, sizeof(row->cpu_model), "%s", h->cpu_model);
	snprintf(row->device, sizeof(row->device), "%s", h->device);
	snprintf(row->driver, sizeof(row->driver), "%s", h->driver);
	snprintf(row->scheduler, sizeof(row->scheduler), "%s", h->scheduler);
	/* how late after the agreed start its window started (its own clock) */
	if (t0 && h->ops && h->ops->start_ns && h->ops->start_ns(h->ctx))
		row->start_late_ns = (int64_t)t0 - (int64_t)h->ops->start_ns(h->ctx);
}

/* The latency figures of a merged histogram (never an average of percentiles). */
static void lat_of(struct iom_lat *l, const struct iom_hist *hh)
{
	l->min = hh->min;
	l->max = hh->max;
	l->mean = iom_hist_mean(hh);
	l->stddev = iom_hist_stddev(hh);
	for (unsigned i = 0; i < IOM_NPCT; i++)
		l->pct[i] = iom_hist_percentile(hh, iom_percentiles[i]);
}

static void rates_of(struct iom_io_stats *st, double secs)
{
	st->iops = secs > 0 ? (double)st->ios / secs : 0;
	st->mb_s = secs > 0 ? (double)st->bytes / secs / 1e6 : 0;
	st->mib_s = secs > 0 ? (double)st->bytes / secs / (1024.0 * 1024.0) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void iom_hosts_aggregate(struct iom_run_result *r, const struct iom_host_row *rows, size_t n,
			 const struct iom_hist hist[IOM_NDIR])
{
	uint64_t first = UINT64_MAX, last = 0;
	double secs, median, *v = xcalloc(n ? n : 1, sizeof(*v)), cpu_s = 0;
	bool failed = false;

	free(r->hosts);
	r->hosts = xcalloc(n ? n : 1, sizeof(*r->hosts));
	memcpy(r->hosts, rows, n * sizeof(*rows));
	r->nhosts = n;
	for (unsigned d = 0; d < IOM_NDIR; d++)
		r->dir[d].ios = r->dir[d].bytes = 0;
	r->cpu.proc_user_s = r->cpu.proc_sys_s = 0;
	for (size_t i = 0; i < n; i++) {
		for (unsigned d = 0; d < IOM_NDIR; d++) {
			r->dir[d].ios += rows[i].ios[d];
			r->dir[d].bytes += rows[i].bytes[d];
		}
		if (rows[i].start_ns)
			first = IOM_MIN(first, rows[i].start_ns);
		last = IOM_MAX(last, rows[i].end_ns);
		r->cpu.proc_user_s += rows[i].user_s;
		r->cpu.proc_sys_s += rows[i].sys_s;
		r->stonewalled |= rows[i].stonewalled != 0;
		/* a window judged stalled or not steady on any rank is the aggregate's */
		if (rows[i].stalled && !r->stall.stalled) {
			r->stall.stalled = true;
			free(r->stall.reason);
			r->stall.reason = xasprintf("rank %u (host %s): %s", rows[i].rank,
						    rows[i].host, rows[i].stall_reason[0]
						    ? rows[i].stall_reason : "stalled");
		}
		if (rows[i].steady_asked) {
			r->steady.reached = (r->steady.asked ? r->steady.reached : true) &&
					    rows[i].steady_reached;
			r->steady.asked = true;
		}
		v[i] = rows[i].iops;
		if (rows[i].status != IOM_RUN_OK && !failed && r->status == IOM_RUN_OK) {
			char *e = xasprintf("rank %u (host %s): %s", rows[i].rank, rows[i].host,
					    rows[i].error[0] ? rows[i].error : "failed");

			free(r->error);
			r->error = e;
			r->status = (enum iom_run_status)rows[i].status;
			failed = true;
		}
	}
	/* the aggregate's window: the first start to the last end, as IOR computes bandwidth */
	secs = first != UINT64_MAX && last > first ? (double)(last - first) / 1e9 : 0;
	r->elapsed_s = secs;
	for (unsigned d = 0; d < IOM_NDIR; d++) {
		struct iom_io_stats *st = &r->dir[d];
		const struct iom_hist *hh = &hist[d];

		rates_of(st, secs);
		lat_of(&st->lat, hh); /* the merged histogram's: never an average of percentiles */
		iom_hist_sparse_release(&r->hist[d]);
		iom_hist_sparse_of(&r->hist[d], hh);
	}
	r->has_hist = true;
	if (secs > 0)
		r->qd_mean = (double)hist[IOM_DIR_TOTAL].sum / (secs * 1e9);
	cpu_s = r->cpu.proc_user_s + r->cpu.proc_sys_s;
	r->cpu.us_per_io = r->dir[IOM_DIR_TOTAL].ios ?
			   cpu_s * 1e6 / (double)r->dir[IOM_DIR_TOTAL].ios : 0;
	/* a straggler: more than 10 % below the hosts' median IOPS */
	qsort(v, n, sizeof(*v), cmp_double);
	median = n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
	for (size_t i = 0; i < n; i++)
		r->hosts[i].straggler = n > 1 && rows[i].iops < 0.9 * median;
	free(v);
	/* the spread of the windows' starts (rank 0's clock): the last minus the first */
	{
		uint64_t late = 0;

		for (size_t i = 0; i < n; i++)
			if (rows[i].start_ns)
				late = IOM_MAX(late, rows[i].start_ns);
		r->start_spread_ns = first != UINT64_MAX ? late - first : 0;
	}
}

/* Every rank's histograms (gathered: rank 0's own first) merged into rank 0's agg, bucket by
 * bucket: what the backend's merge_hist would give, without a second collective over the same
 * data. */
static void merge_gathered(struct iom_hist agg[IOM_NDIR], const struct iom_hist (*all)[IOM_NDIR],
			   unsigned size)
{
	for (unsigned q = 1; q < size; q++)
		for (int d = 0; d < IOM_NDIR; d++)
			iom_hist_merge(&agg[d], &all[q][d]);
}

/* The kept histograms of the n rows of r, from every rank's (hists, rank order), in the rows'
 * order: the ranks that took part. */
static void keep_host_hists(const struct iom_hosts *h, struct iom_run_result *r,
			    const struct iom_hist (*hists)[IOM_NDIR], size_t n)
{
	size_t k = 0;

	if (!n)
		return;
	r->host_hist = xcalloc(n, sizeof(*r->host_hist));
	for (unsigned q = 0; q < h->size && k < n; q++) {
		if (h->plan && h->cell && !iom_hosts_takes_part(h->plan, h->cell, q))
			continue;
		for (int d = 0; d < IOM_NDIR; d++)
			iom_hist_sparse_of(&r->host_hist[k][d], &hists[q][d]);
		k++;
	}
}

/* ---- the figures beyond read, write and total: access lines, paths, load, flushes, trims -- */

/* Their shape in the current run, the same on every rank (from the plan: the cell's access
 * spec, its target's paths, fsync_every and trim_pct, its offered load). */
struct extra_shape {
	size_t nlines, npaths;
	bool xops, paced, verify;
};

static struct extra_shape extra_shape(const struct iom_hosts *h)
{
	struct extra_shape x = { 0 };
	const struct iom_matrix *m;
	const struct iom_cell *c;
	size_t t;

	if (!h->plan || !h->cell)
		return x;
	m = h->plan->m;
	c = h->cell;
	t = (size_t)c->v[IOM_DIM_TARGET];
	if (c->v[IOM_DIM_ACCESS] > 0)
		x.nlines = m->access_specs[c->v[IOM_DIM_ACCESS] - 1].nlines;
	x.npaths = m->targets[t].npaths > 1 ? m->targets[t].npaths : 0;
	x.xops = c->v[IOM_DIM_FSYNC_EVERY] != 0 || c->v[IOM_DIM_TRIM_PCT] != 0;
	x.paced = !h->rate_failed && (h->rate_iops > 0 || h->rate_mb_s > 0);
	x.verify = c->v[IOM_DIM_VERIFY] != 0;
	return x;
}

/* One rank's figures as they travel: this head, then nlines lines, then npaths paths. */
struct extra_head {
	uint8_t has_lines, has_xops, paced, poisson, held;
	char access[64];
	double offered_iops, achieved_iops, max_lag_s;
	uint64_t late_ios;
	struct iom_lat response[IOM_NDIR];
	struct iom_io_stats xops[2];
	uint8_t verify;
	uint64_t vcount[4];      /* sectors written, checked, unwritten; mismatches */
};
struct extra_path {
	struct iom_io_stats dir[IOM_NDIR];
	char path[256];
};

static size_t extra_len(const struct extra_shape *x)
{
	return sizeof(struct extra_head) + x->nlines * sizeof(struct iom_line_stats) +
	       x->npaths * sizeof(struct extra_path);
}

/* This rank's figures of r into buf (extra_len bytes; zero where r has none). */
static void extra_pack(const struct extra_shape *x, const struct iom_run_result *r, char *buf)
{
	struct extra_head *hd = (struct extra_head *)buf;
	struct iom_line_stats *ln = (struct iom_line_stats *)(hd + 1);
	struct extra_path *pa = (struct extra_path *)(ln + x->nlines);

	memset(buf, 0, extra_len(x));
	hd->has_lines = r->nlines == x->nlines && x->nlines;
	if (hd->has_lines) {
		memcpy(ln, r->lines, x->nlines * sizeof(*ln));
		snprintf(hd->access, sizeof(hd->access), "%s", r->access ? r->access : "");
	}
	for (size_t k = 0; k < x->npaths && k < r->npaths; k++) {
		memcpy(pa[k].dir, r->paths[k].dir, sizeof(pa[k].dir));
		snprintf(pa[k].path, sizeof(pa[k].path), "%s", r->paths[k].path ? r->paths[k].path
											: "");
	}
	hd->has_xops = r->has_xops;
	memcpy(hd->xops, r->xops, sizeof(hd->xops));
	hd->paced = r->load.paced;
	hd->poisson = r->load.poisson;
	hd->held = r->load.held;
	hd->offered_iops = r->load.offered_iops;
	hd->achieved_iops = r->load.achieved_iops;
	hd->max_lag_s = r->load.max_lag_s;
	hd->late_ios = r->load.late_ios;
	memcpy(hd->response, r->load.response, sizeof(hd->response));
	hd->verify = r->verify.enabled;
	hd->vcount[0] = r->verify.sectors_written;
	hd->vcount[1] = r->verify.sectors_checked;
	hd->vcount[2] = r->verify.sectors_unwritten;
	hd->vcount[3] = r->verify.mismatches;
}

/* A rank's packed figures into its host row (heap arrays). */
static void extra_row(const struct extra_shape *x, const char *buf, struct iom_host_row *row)
{
	const struct extra_head *hd = (const struct extra_head *)buf;
	const struct iom_line_stats *ln = (const struct iom_line_stats *)(hd + 1);
	const struct extra_path *pa = (const struct extra_path *)(ln + x->nlines);

	if (hd->has_lines) {
		row->lines = xcalloc(x->nlines, sizeof(*row->lines));
		memcpy(row->lines, ln, x->nlines * sizeof(*ln));
		row->nlines = x->nlines;
	}
	if (x->npaths) {
		row->paths = xcalloc(x->npaths, sizeof(*row->paths));
		row->npaths = x->npaths;
		for (size_t k = 0; k < x->npaths; k++) {
			memcpy(row->paths[k].dir, pa[k].dir, sizeof(pa[k].dir));
			row->paths[k].path = xstrdup(pa[k].path);
		}
	}
	row->has_xops = hd->has_xops;
	memcpy(row->xops, hd->xops, sizeof(row->xops));
	row->load.paced = hd->paced;
	row->load.poisson = hd->poisson;
	row->load.held = hd->held;
	row->load.offered_iops = hd->offered_iops;
	row->load.achieved_iops = hd->achieved_iops;
	row->load.max_lag_s = hd->max_lag_s;
	row->load.late_ios = hd->late_ios;
	memcpy(row->load.response, hd->response, sizeof(row->load.response));
	row->verify = hd->verify;
	row->sectors_written = hd->vcount[0];
	row->sectors_checked = hd->vcount[1];
	row->sectors_unwritten = hd->vcount[2];
	row->mismatches = hd->vcount[3];
}

/*
 * The aggregate's lines, paths, flushes, trims and load from the rows (r->hosts, each with its
 * rank's figures) and the merged histograms hh (nlines lines', then the flushes' and trims',
 * then the response times' read, write, total): counts summed, rates over the aggregate's
 * window, latencies from the merged histograms; the offered load is the rows' sum, achieved
 * the aggregate's I/Os (flushes and trims in their places) over its window. A line's or path's
 * values and names are rank 0's, or the first row's when rank 0 sat the run out.
 */
static void extra_aggregate(const struct extra_shape *x, struct iom_run_result *r,
			    const struct iom_hist *hh, const char *access)
{
	double secs = r->elapsed_s;
	const struct iom_host_row *first = NULL;

	for (size_t i = 0; i < r->nhosts && !first; i++)
		if (r->hosts[i].nlines || r->hosts[i].npaths || r->hosts[i].has_xops ||
		    r->hosts[i].load.paced || r->hosts[i].verify)
			first = &r->hosts[i];
	if (!first)
		return;
	if (x->verify) { /* the counts summed; the first mismatches listed are rank 0's */
		struct iom_run_verify *v = &r->verify;

		v->enabled = true;
		v->sectors_written = v->sectors_checked = v->sectors_unwritten = v->mismatches = 0;
		for (size_t i = 0; i < r->nhosts; i++) {
			v->sectors_written += r->hosts[i].sectors_written;
			v->sectors_checked += r->hosts[i].sectors_checked;
			v->sectors_unwritten += r->hosts[i].sectors_unwritten;
			v->mismatches += r->hosts[i].mismatches;
		}
	}
	if (x->nlines && first->nlines) {
		if (r->nlines != x->nlines) {
			free(r->lines);
			r->lines = xcalloc(x->nlines, sizeof(*r->lines));
			memcpy(r->lines, first->lines, x->nlines * sizeof(*r->lines));
			r->nlines = x->nlines;
		}
		if (!r->access)
			r->access = xstrdup(access);
		for (size_t l = 0; l < x->nlines; l++) {
			struct iom_line_stats *ls = &r->lines[l];

			for (int d = 0; d < IOM_NDIR; d++)
				ls->dir[d].ios = ls->dir[d].bytes = 0;
			for (size_t i = 0; i < r->nhosts; i++)
				for (int d = 0; d < IOM_NDIR && l < r->hosts[i].nlines; d++) {
					ls->dir[d].ios += r->hosts[i].lines[l].dir[d].ios;
					ls->dir[d].bytes += r->hosts[i].lines[l].dir[d].bytes;
				}
			for (int d = 0; d < IOM_NDIR; d++)
				rates_of(&ls->dir[d], secs);
			lat_of(&ls->dir[IOM_DIR_TOTAL].lat, &hh[l]);
		}
	}
	if (x->npaths && first->npaths) {
		if (r->npaths != x->npaths) {
			for (size_t k = 0; k < r->npaths; k++)
				free(r->paths[k].path);
			free(r->paths);
			r->paths = xcalloc(x->npaths, sizeof(*r->paths));
			r->npaths = x->npaths;
			for (size_t k = 0; k < x->npaths; k++)
				r->paths[k].path = xstrdup(first->paths[k].path);
		}
		for (size_t k = 0; k < x->npaths; k++)
			for (int d = 0; d < IOM_NDIR; d++) {
				struct iom_io_stats *st = &r->paths[k].dir[d];

				st->ios = st->bytes = 0;
				for (size_t i = 0; i < r->nhosts; i++)
					if (k < r->hosts[i].npaths) {
						st->ios += r->hosts[i].paths[k].dir[d].ios;
						st->bytes += r->hosts[i].paths[k].dir[d].bytes;
					}
				rates_of(st, secs);
			}
	}
	if (x->xops) {
		r->has_xops = true;
		for (int d = 0; d < 2; d++) {
			struct iom_io_stats *st = &r->xops[d];

			st->ios = st->bytes = 0;
			for (size_t i = 0; i < r->nhosts; i++) {
				st->ios += r->hosts[i].xops[d].ios;
				st->bytes += r->hosts[i].xops[d].bytes;
			}
			rates_of(st, secs);
			lat_of(&st->lat, &hh[x->nlines + (size_t)d]);
		}
	}
	if (x->paced) {
		struct iom_run_load *l = &r->load;
		const struct iom_hist *resp = &hh[x->nlines + (x->xops ? 2 : 0)];

		l->paced = true;
		l->poisson = first->load.poisson;
		l->offered_iops = 0;
		l->late_ios = 0;
		l->max_lag_s = 0;
		for (size_t i = 0; i < r->nhosts; i++) {
			l->offered_iops += r->hosts[i].load.offered_iops;
			l->late_ios += r->hosts[i].load.late_ios;
			l->max_lag_s = IOM_MAX(l->max_lag_s, r->hosts[i].load.max_lag_s);
		}
		for (int d = 0; d < IOM_NDIR; d++) {
			lat_of(&l->response[d], &resp[d]);
			iom_hist_sparse_release(&l->response_hist[d]);
			iom_hist_sparse_of(&l->response_hist[d], &resp[d]);
		}
		l->achieved_iops = secs > 0 ? (double)(r->dir[IOM_DIR_TOTAL].ios + r->xops[0].ios +
						       r->xops[1].ios) / secs : 0;
		l->held = iom_load_held(l->offered_iops, l->achieved_iops, secs, l->poisson);
	}
}

/*
 * The figures beyond read, write and total of every rank (collectively; nothing when the
 * run's cell has none): each rank's packed to rank 0 into its row, their latencies merged
 * bucket by bucket, and on rank 0 the aggregate's from them. part: this rank took part.
 */
static int run_extras(struct iom_hosts *h, struct iom_run_result *r, bool part)
{
	struct extra_shape x = extra_shape(h);
	/* the lines' and flushes' histograms (reduced), then a paced run's response times' */
	size_t len = extra_len(&x), nred = x.nlines + (x.xops ? 2 : 0),
	       nh = nred + (x.paced ? IOM_NDIR : 0);
	struct iom_run_result none = { 0 };
	struct iom_hist *hh, (*resp)[IOM_NDIR] = NULL;
	char *mine, *all = NULL;
	int ret = 0;

	if (!x.nlines && !x.npaths && !x.xops && !x.paced && !x.verify)
		return 0;
	mine = xmalloc(len);
	extra_pack(&x, part ? r : &none, mine);
	hh = xcalloc(nh ? nh : 1, sizeof(*hh));
	for (size_t k = 0; k < nh; k++)
		iom_hist_init(&hh[k]);
	if (part && h->out.t0_ns) { /* a window measured: run.c left its histograms */
		for (size_t l = 0; l < x.nlines && l < h->out.nlines && h->out.line_hist; l++)
			hh[l] = h->out.line_hist[l];
		if (x.xops)
			memcpy(&hh[x.nlines], h->out.xhist, sizeof(h->out.xhist));
		for (int d = 0; x.paced && d < IOM_NDIR; d++)
			iom_hist_sparse_merge(&hh[nred + (size_t)d],
					      &r->load.response_hist[d]);
	}
	if (h->rank == 0)
		all = xcalloc(h->size, len);
	/* a paced run: each rank's own response histograms for its row, before they are merged */
	if (x.paced && h->rank == 0)
		resp = xcalloc(h->size, sizeof(*resp));
	/* the response times merged from the rows' on rank 0, not reduced again */
	if (h->ops->gather(h->ctx, mine, len, all) < 0 ||
	    (x.paced && h->ops->gather(h->ctx, &hh[nred], sizeof(*resp), resp) < 0) ||
	    (nred && h->ops->merge_hist(h->ctx, hh, nred) < 0))
		ret = -EIO;
	else if (resp)
		merge_gathered(&hh[nred], resp, h->size);
	if (ret == 0 && h->rank == 0) {
		size_t k = 0;
		const struct iom_cell *c = h->cell;

		for (unsigned q = 0; q < h->size && k < r->nhosts; q++)
			if (iom_hosts_takes_part(h->plan, c, q)) {
				extra_row(&x, all + (size_t)q * len, &r->hosts[k]);
				for (int d = 0; resp && d < IOM_NDIR; d++)
					iom_hist_sparse_of(&r->hosts[k].load.response_hist[d],
							   &resp[q][d]);
				k++;
			}
		extra_aggregate(&x, r, hh, x.nlines ? h->plan->m->access_specs[
				c->v[IOM_DIM_ACCESS] - 1].name : "");
	}
	free(all);
	free(resp);
	free(hh);
	free(mine);
	return ret;
}

/*
 * The aggregate's 1-second intervals (every rank, collectively): each rank's counts and coarse
 * latency groups summed over the ranks, interval by interval (the windows start at the agreed
 * instant, so interval k is the same second everywhere), the latencies of each read off the
 * sum — never an average of the ranks' percentiles. Rank 0's intervals give their lengths.
 */
static int merge_intervals(struct iom_hosts *h, struct iom_run_result *r, bool use)
{
	static const double pcts[2] = { 50, 99 };
	uint64_t n = h->out.t0_ns && use ? h->out.niv : 0, *t;
	int ret;

	if (!h->ops->sum_u64)
		return 0;
	if ((ret = h->ops->allmax(h->ctx, &n)) < 0 || n == 0)
		return ret;
	/* the size of the rows run.c made; every rank sums the same n rows */
	t = xcalloc(n, IOM_RUN_IV_WORDS * sizeof(*t));
	if (h->out.t0_ns && use && h->out.iv_rows)
		memcpy(t, h->out.iv_rows, h->out.niv * IOM_RUN_IV_WORDS * sizeof(*t));
	ret = h->ops->sum_u64(h->ctx, t, n * IOM_RUN_IV_WORDS);
	if (ret == 0 && h->rank == 0) {
		struct iom_interval *iv = xcalloc(n, sizeof(*iv));

		for (uint64_t k = 0; k < n; k++) {
			const uint64_t *row = t + k * IOM_RUN_IV_WORDS;
			uint64_t out[2];

			iv[k].ios[0] = row[0];
			iv[k].ios[1] = row[1];
			iv[k].bytes[0] = row[2];
			iv[k].bytes[1] = row[3];
			iv[k].ns = k < r->nintervals ? r->intervals[k].ns : IOM_INTERVAL_NS;
			iom_hist_coarse_delta(row + 4, pcts, 2, out, &iv[k].lat_ios, &iv[k].max_ns);
			iv[k].p50_ns = out[0];
			iv[k].p99_ns = out[1];
		}
		free(r->intervals);
		r->intervals = iv;
		r->nintervals = n;
		r->has_iv_lat = true;
	}
	free(t);
	return ret;
}

int iom_hosts_run_end(struct iom_hosts *h, const struct iom_own_dir *rd, const char *dir,
		      struct iom_run_result *r)
{
	struct iom_host_row mine, *rows = NULL;
	struct iom_hist (*hists)[IOM_NDIR] = NULL;
	char e[IOM_ERRLEN];
	int ret = 0;

	/* the ready and sync points this run never reached: every rank must pass each of them */
	if (!h->readied)
		(void)iom_hosts_ready(h, e, sizeof(e));
	h->readied = false;
	(void)iom_hosts_agree_hook(h, 0, e, sizeof(e)); /* when this rank never got there */
	h->hook_agree = h->hook_agreed = false;
	while (h->synced < 2) {
		h->ops->sync(h->ctx, h->synced, 0, false, e, sizeof(e));
		h->synced++;
	}
	h->synced = 0;
	if (h->ops->stonewall_end && h->ops->stonewall_end(h->ctx) < 0)
		ret = -EIO;
	if (!h->out.t0_ns) /* no window measured (run.c left nothing, or what it left is old) */
		for (unsigned d = 0; d < IOM_NDIR; d++)
			iom_hist_init(&h->out.hist[d]);
	iom_hosts_row_of(h, r, h->out.t0_ns, h->out.t1_ns, h->out.hist, &mine);
	if (h->rank == 0)
		rows = xcalloc(h->size, sizeof(*rows));
	/* each rank's own histograms for its row, before they are merged into rank 0's */
	if (h->rank == 0)
		hists = xcalloc(h->size, sizeof(h->out.hist));
	if (h->ops->gather(h->ctx, &mine, sizeof(mine), rows) < 0 ||
	    h->ops->gather(h->ctx, h->out.hist, sizeof(h->out.hist), hists) < 0)
		ret = -EIO;
	else if (h->rank == 0) /* the aggregate's: merged here from the rows', no reduction */
		merge_gathered(h->out.hist, hists, h->size);
	if (merge_intervals(h, r, !iom_hosts_sits_out(h)) < 0 && ret == 0)
		ret = -EIO;
	free(h->out.iv_rows);
	h->out.iv_rows = NULL;
	h->out.niv = 0;
	if (ret == 0 && h->rank == 0) { /* the rows of the ranks that took part */
		size_t n = part_rows(h, rows);

		iom_hosts_aggregate(r, rows, n, h->out.hist);
		keep_host_hists(h, r, hists, n);
		if (!n && r->status == IOM_RUN_OK) { /* a target's hosts and ranks = N disjoint */
			free(r->error);
			r->error = xasprintf("no rank of this job runs it: target '%s' lives on none "
					     "of the first %lld ranks", h->plan->m->targets[
					     h->cell->v[IOM_DIM_TARGET]].label,
					     (long long)h->cell->v[IOM_DIM_RANKS]);
			r->status = IOM_RUN_FAILED;
		}
		if (iom_hosts_sits_out(h) && n) { /* rank 0 sat it out: their CPU, not its */
			r->cpu.busy_pct = 0;
			for (size_t i = 0; i < n; i++)
				r->cpu.busy_pct += rows[i].busy_pct / (double)n;
		}
	}
	/* the lines, paths, load, flushes and trims of every rank (after the rows: they land there) */
	if (run_extras(h, r, !iom_hosts_sits_out(h)) < 0 && ret == 0)
		ret = -EIO;
	free(h->out.line_hist);
	h->out.line_hist = NULL;
	h->out.nlines = 0;
	if (ret < 0 && h->rank == 0 && iom_hosts_sits_out(h) && r->status == IOM_RUN_OK) {
		/* rank 0 sat it out and the others' figures did not arrive: nothing measured */
		free(r->error);
		r->error = xstrdup("the ranks that ran it could not send their figures to rank 0");
		r->status = IOM_RUN_FAILED;
	}
	free(rows);
	free(hists);
	/* the followers' traces, one after the other; their directory made here when rank 0
	 * sat the run out (its own trace makes it otherwise) */
	if (h->rank == 0 && h->size > 1) {
		char *tdir = xasprintf("%s/traces", dir);

		(void)iom_own_mkdir(rd, tdir, NULL, 0); /* failing, the first trace's write says so */
		free(tdir);
	}
	/* every follower sends and rank 0 receives each, whatever failed before or on the way
	 * (a rank that stopped halfway would leave the others' sends for the next run): the
	 * first error is the one returned */
	for (unsigned k = 1; k < h->size && !iom_hosts_lost(h); k++) {
		int kret = 0;

		if (h->rank == 0) {
			char *base = iom_trace_path(dir, r->index), *path;
			bool got = false;

			/* NNNNN.trace.gz → NNNNN.rK.trace.gz */
			path = xasprintf("%.*s.r%u.trace.gz", (int)(strlen(base) -
								    strlen(".trace.gz")), base, k);
			kret = h->ops->recv_file(h->ctx, k, rd, path, &got);
			if (k == 1 && r->trace.file) {
				char *p0 = xasprintf("%.*s.r0.trace.gz", (int)(strlen(base) -
								  strlen(".trace.gz")), base);
				int lret;

				iom_own_unlink(rd, p0);
				if ((lret = iom_own_link(rd, r->trace.file, p0)) < 0 && kret == 0)
					kret = lret;
				free(p0);
			}
			free(path);
			free(base);
		} else if (h->rank == k) {
			char *path = iom_trace_path(dir, r->index);

			kret = h->ops->send_file(h->ctx, access(path, F_OK) == 0 ? path : NULL);
			iom_own_unlink(NULL, path);
			free(path);
		}
		if (ret == 0)
			ret = kret;
	}
	/* the followers' hook logs of the run (hooks.where = "every") */
	if (!iom_hosts_lost(h) && h->plan && iom_hosts_collect_logs(h, h->plan->m, rd, dir) < 0 &&
	    ret == 0)
		ret = -EIO;
	if (iom_hosts_lost(h)) { /* the run fails on every rank still alive, saying who is gone */
		free(r->error);
		r->error = xstrdup(iom_hosts_lost(h));
		r->status = IOM_RUN_FAILED;
		ret = -ETIMEDOUT;
	}
	if (h->ops->deadline)
		h->ops->deadline(h->ctx, 0); /* between runs: none */
	memset(&h->out.t0_ns, 0, sizeof(h->out.t0_ns) * 2);
	h->plan = NULL;
	h->cell = NULL;
	return ret;
}

/* ---- trace --merge ----------------------------------------------------------------------- */

struct mrec {
	int64_t t;               /* submitted, rank 0's clock after its trace's start */
	uint64_t lat, offset;
	uint32_t bytes, thread, rank;
	uint8_t op;
};

struct mload {
	struct mrec *v;
	size_t n, cap;
	int64_t base;            /* start_mono - offset - rank 0's start_mono */
	uint32_t rank;
	bool measured_only;
};

static int mload_rec(void *ctx, const struct iom_trace_rec *rec)
{
	struct mload *l = ctx;

	if (l->measured_only && rec->phase != IOM_TRACE_PHASE_MEASURED)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		struct mrec *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM; /* every record of a long run: what memory holds */
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct mrec){ .t = l->base + rec->time_ns, .lat = rec->latency_ns,
				      .offset = rec->offset, .bytes = rec->bytes,
				      .thread = rec->thread, .rank = l->rank, .op = rec->op };
	return 0;
}

static int cmp_mrec(const void *a, const void *b)
{
	const struct mrec *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

#define MERGE_MAX_RANKS 4096

int iom_hosts_trace_merge(const char *path, const char *out, bool measured_only, char *err,
			  size_t errlen)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t dirlen = (size_t)(base - path), digits = strspn(base, "0123456789"), nhosts = 0;
	int64_t *off = xcalloc(MERGE_MAX_RANKS, sizeof(*off)), start0 = 0;
	struct mload l = { .measured_only = measured_only };
	char *json, e[IOM_ERRLEN];
	FILE *f = NULL;
	int ret = 0;

	if (!digits || base[digits] != '.' || dirlen < strlen("traces/") ||
	    strncmp(path + dirlen - strlen("traces/"), "traces/", strlen("traces/")) != 0) {
		free(off);
		return iom_err(err, errlen, EINVAL, "%s: --merge takes a trace in a results "
			       "directory's traces/ (DIR/traces/NNNNN.rR.trace.gz)", path);
	}
	json = xasprintf("%.*sruns/%.*s.json", (int)(dirlen - strlen("traces/")), path,
			 (int)digits, base);
	ret = iom_result_host_offsets(json, off, MERGE_MAX_RANKS, &nhosts, e, sizeof(e));
	if (ret == 0 && !nhosts)
		ret = iom_err(e, sizeof(e), EINVAL, "%s: no hosts: not a run of many hosts", json);
	if (ret < 0)
		iom_err(err, errlen, -ret, "%s", e);
	for (uint32_t r = 0; ret == 0 && r < nhosts && r < MERGE_MAX_RANKS; r++) {
		char *tp = xasprintf("%.*s%.*s.r%u.trace.gz", (int)dirlen, path, (int)digits, base, r);
		struct iom_trace_header hdr = { 0 };
		struct iom_trace_reader *rd;

		/* the header first: its start, for the base of its records */
		ret = iom_trace_reader_open(tp, &rd, err, errlen);
		if (ret == 0) {
			hdr = *iom_trace_reader_header(rd);
			if (r == 0)
				start0 = (int64_t)hdr.start_mono_ns;
			l.base = (int64_t)hdr.start_mono_ns - off[r] - start0;
			l.rank = r;
			iom_trace_reader_free(rd);
			memset(&hdr, 0, sizeof(hdr));
			ret = iom_trace_read(tp, &hdr, mload_rec, &l, err, errlen);
			free(hdr.cell);
		}
		free(tp);
	}
	if (ret == 0) {
		qsort(l.v, l.n, sizeof(*l.v), cmp_mrec);
		f = !out || strcmp(out, "-") == 0 ? stdout : iom_own_fopen(NULL, out, "w", err, errlen);
		if (!f)
			ret = -EPERM;
	}
	if (ret == 0) {
		fprintf(f, "time_ns,rank,latency_ns,op,offset,bytes,thread\n");
		for (size_t i = 0; i < l.n; i++)
			fprintf(f, "%" PRId64 ",%u,%" PRIu64 ",%s,%" PRIu64 ",%u,%u\n", l.v[i].t,
				l.v[i].rank, l.v[i].lat, l.v[i].op ? "write" : "read", l.v[i].offset,
				l.v[i].bytes, l.v[i].thread);
		if ((f == stdout ? fflush(f) : fclose(f)) != 0)
			ret = iom_err(err, errlen, EIO, "cannot write '%s'", out ? out : "-");
	}
	free(l.v);
	free(json);
	free(off);
	return ret;
}
