/* SPDX-License-Identifier: MIT */
/*
 * cmd_run — the commands that take a matrix: `check` (is the file valid, can this machine run
 * it), `plan` (its ordered runs), `run` (a sweep into a new results directory) and `resume`
 * (carry on an interrupted one). Each loads the matrix into a plan, runs preflight before
 * anything is written, and maps what failed to an exit code through cmd.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "cmd.h"
#include "host/hosts.h"
#include "journal.h"
#include "matrix/matrix.h"
#include "ownfile.h"
#include "plan.h"
#include "preflight.h"
#include "report/report.h"
#include "result/resdir.h"
#include "result/result.h"
#include "stage.h"
#include "sweep/sweep.h"
#include "target/fsprep.h"
#include "units.h"
#include "util.h"

/* Warns (this machine only: the matrix stays valid) about a filesystem of the matrix whose mkfs
 * is not installed, so that it shows before a night starts rather than at its target's turn. */
static void warn_missing_mkfs(const struct iom_matrix *m)
{
	for (size_t t = 0; t < m->ntargets; t++) {
		const char *fs = m->targets[t].fs_type;
		char err[IOM_ERRLEN], *path = NULL;
		bool seen = false;

		for (size_t u = 0; fs && u < t; u++)
			seen |= m->targets[u].fs_type && strcmp(m->targets[u].fs_type, fs) == 0;
		if (!fs || seen || strcmp(fs, "raw") == 0)
			continue;
		if (iom_fs_tool_find(fs, NULL, NULL, &path, err, sizeof(err)) < 0)
			fprintf(stderr, "%s:%d: warning: target '%s': %s\n", m->file, m->targets[t].line,
				m->targets[t].label, err);
		free(path);
	}
}

/* Whether this machine can run the plan of m (preflight.h), into pf: 0, or -errno with err when
 * the plan cannot be built. */
static int check_machine(const struct iom_matrix *m, struct iom_preflight *pf, char *err,
			 size_t errlen)
{
	struct iom_preflight_opts po = { 0 };
	struct iom_plan p;
	char *dir;
	int ret;

	memset(pf, 0, sizeof(*pf));
	ret = iom_plan_build(m, &p, err, errlen);
	if (ret < 0)
		return ret;
	dir = iom_sweep_default_dir(m); /* where `run` puts the results without -o */
	po.results_dir = dir;
	ret = iom_preflight_check(&p, &po, pf);
	free(dir);
	iom_plan_release(&p);
	return ret;
}

int iom_cmd_check(struct cli *cli)
{
	int code = IOM_EXIT_OK;

	for (int i = 0; i < cli->nargs; i++) {
		struct iom_preflight pf = { 0 };
		struct iom_matrix *m;
		char err[IOM_ERRLEN];
		size_t nruns = 0;

		iom_matrix_load(cli->args[i], cli->ov, cli->nov, &m, err, sizeof(err));
		/* many hosts: the job's ranks (plain iomatrix: one), as the plan has them */
		if (m && iom_matrix_place(m, cli->hosts ? cli->hosts->size : 1, cli->hosts &&
					  cli->hosts->names ? (const char *const *)cli->hosts->names :
					  NULL, err, sizeof(err)) < 0) {
			iom_matrix_free(m);
			m = NULL;
		}
		if (m)
			iom_hosts_expand_paths(cli->hosts, m); /* ${host}, ${rank}: this rank's */
		if (!m || iom_plan_count(m, &nruns, err, sizeof(err)) < 0 ||
		    (!cli->given[OPT_MATRIX_ONLY] && check_machine(m, &pf, err, sizeof(err)) < 0)) {
			iom_cmd_print_error(err);
			iom_matrix_free(m);
			code = IOM_EXIT_USAGE;
			continue;
		}
		iom_cmd_print_matrix_notes(m);
		if (pf.errors) {
			fflush(stdout);
			iom_cmd_print_preflight(m, &pf, NULL);
			fprintf(stderr, "%s: the matrix is valid (%zu run%s), but this machine "
				"cannot run it: %zu problem%s above ('iomatrix check --matrix-only' "
				"checks the file alone)\n", cli->args[i], nruns, nruns == 1 ? "" : "s",
				pf.errors,
				pf.errors == 1 ? "" : "s");
			code = IOM_EXIT_USAGE;
		} else {
			printf("%s: valid, %zu run%s\n", cli->args[i], nruns, nruns == 1 ? "" : "s");
			fflush(stdout);
			iom_cmd_print_preflight(m, &pf, NULL);
		}
		warn_missing_mkfs(m);
		iom_preflight_release(&pf);
		iom_matrix_free(m);
	}
	return iom_cmd_finish(code);
}

/* "10.0 GiB", "512 KiB", "300 bytes". */
static void human(double b, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = b / 1024;
	size_t u = 0;

	if (b < 1024) {
		snprintf(buf, len, "%.0f bytes", b);
		return;
	}
	while (v >= 1024 && u + 1 < IOM_ARRAY_SIZE(unit)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[u]);
}

/* The free bytes of the filesystem of path's nearest existing ancestor (into *where, heap);
 * false when unknown. */
static bool free_space(const char *path, char **where, double *avail)
{
	char *cur = xstrdup(path);
	struct statvfs vs;
	struct stat st;

	while (stat(cur, &st) != 0 && strcmp(cur, "/") != 0 && strcmp(cur, ".") != 0) {
		char *up = iom_path_dir(cur);

		free(cur);
		cur = up;
	}
	*where = cur;
	if (statvfs(cur, &vs) != 0)
		return false;
	*avail = (double)vs.f_bavail * (double)vs.f_frsize;
	return true;
}

/* Whether the scratch file path lies on the filesystem where m's results go by default. */
static bool on_results_fs(const char *path, const struct iom_matrix *m)
{
	char *results = iom_sweep_default_dir(m), *rw = NULL, *pw = NULL;
	struct stat rs, ps;
	double unused;
	bool same;

	free_space(results, &rw, &unused);
	free_space(path, &pw, &unused);
	same = stat(rw, &rs) == 0 && stat(pw, &ps) == 0 && rs.st_dev == ps.st_dev;
	free(results);
	free(rw);
	free(pw);
	return same;
}

/* A previous study's figures for `plan --like DIR`: IOPS per block size, trace bytes per I/O. */
struct like {
	struct iom_plan_rate *rate;
	size_t *count, n;
	double bpi_sum;
	size_t bpi_n, runs;
};

static int read_like(const char *dir, struct like *l, char *err, size_t errlen)
{
	uint32_t *idx = NULL;
	size_t nidx = 0;
	int ret = iom_result_list(dir, &idx, &nidx, err, errlen);

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; ret == 0 && i < nidx; i++) {
		char *path = iom_result_path(dir, idx[i]);
		struct iom_result_file f;
		const char *bs_text;
		uint64_t bs = 0;
		char e[IOM_ERRLEN];
		size_t k;

		if (iom_result_read(path, &f, e, sizeof(e)) == 0 && f.r.status == IOM_RUN_OK &&
		    (bs_text = iom_result_cell_get(&f, "block_size")) &&
		    iom_size_parse(bs_text, &bs, e, sizeof(e)) == 0) {
			for (k = 0; k < l->n && l->rate[k].block_size != bs; k++)
				;
			if (k == l->n) {
				l->rate = xrealloc(l->rate, (l->n + 1) * sizeof(*l->rate));
				l->count = xrealloc(l->count, (l->n + 1) * sizeof(*l->count));
				l->rate[k] = (struct iom_plan_rate){ .block_size = bs };
				l->count[k] = 0;
				l->n++;
			}
			l->rate[k].iops += f.r.dir[IOM_DIR_TOTAL].iops;
			l->count[k]++;
			if (f.r.trace.file && f.r.trace.bytes_per_io > 0) {
				l->bpi_sum += f.r.trace.bytes_per_io;
				l->bpi_n++;
			}
			l->runs++;
		}
		iom_result_file_release(&f);
		free(path);
	}
	free(idx);
	for (size_t k = 0; k < l->n; k++)
		l->rate[k].iops /= (double)l->count[k];
	if (ret == 0 && !l->runs)
		ret = iom_err(err, errlen, ENOENT, "--like '%s': no finished run with a block size "
			      "there", dir);
	return ret;
}

/*
 * What the plan may cost, beneath the plan text: the trace estimate (bytes per I/O × an I/O
 * rate, both said: assumed, or --like's), the scratch files and the free space, the time of a
 * bytes-bound plan, and a warning when the traces may not fit where the results go.
 */
static int print_costs(struct cli *cli, const struct iom_matrix *m, const struct iom_plan *p)
{
	struct like l = { 0 };
	struct iom_plan_cost cost;
	double bpi = IOM_PLAN_ASSUMED_BYTES_PER_IO, avail = 0, scratch = 0, mean_iops = 0;
	double scratch_there = 0; /* on the filesystem of the results */
	char a[32], b[32], err[IOM_ERRLEN], *results, *where = NULL, rate[160];
	size_t nfiles = 0;
	bool have_free;

	if (cli->given[OPT_LIKE]) {
		if (read_like(cli->value[OPT_LIKE], &l, err, sizeof(err)) < 0) {
			fprintf(stderr, "iomatrix: %s\n", err);
			return -EINVAL;
		}
		if (l.bpi_n)
			bpi = l.bpi_sum / (double)l.bpi_n;
		for (size_t k = 0; k < l.n; k++)
			mean_iops += l.rate[k].iops / (double)l.n;
		snprintf(rate, sizeof(rate), "%.3g bytes per I/O%s and the IOPS per block size of "
			 "%zu run%s in %s (%.0f IOPS on average)", bpi, l.bpi_n ? "" : " (assumed)",
			 l.runs, l.runs == 1 ? "" : "s", cli->value[OPT_LIKE], mean_iops);
	} else {
		mean_iops = IOM_PLAN_ASSUMED_IOPS;
		snprintf(rate, sizeof(rate), "an assumed %.0f bytes per I/O at %.0f IOPS, at most "
			 "%.0f MB/s; give --like DIR for a previous study's figures", bpi, mean_iops,
			 IOM_PLAN_ASSUMED_MAX_MB_S);
	}
	iom_plan_cost(p, l.rate, l.n, mean_iops, bpi, IOM_PLAN_ASSUMED_MAX_MB_S, &cost);
	putchar('\n');
	if (m->trace) {
		human(cost.trace_bytes, a, sizeof(a));
		printf("trace estimate: %s for %zu run%s (%s)\n", a, p->nruns,
		       p->nruns == 1 ? "" : "s", rate);
	} else {
		printf("trace estimate: none (trace = false)\n");
	}
	for (size_t t = 0; t < m->ntargets; t++) {
		const struct iom_target *tg = &m->targets[t];

		/* size applies to each of several paths */
		for (size_t i = 0; i < (tg->npaths ? tg->npaths : 1); i++) {
			struct stat st;

			const char *path = tg->npaths ? tg->paths[i] : tg->path;

			if (stat(path, &st) == 0 && S_ISBLK(st.st_mode))
				continue;
			scratch += (double)tg->size;
			nfiles++;
			if (on_results_fs(path, m))
				scratch_there += (double)tg->size;
		}
	}
	human(scratch, a, sizeof(a));
	printf("scratch space: %s in %zu scratch file%s\n", a, nfiles, nfiles == 1 ? "" : "s");
	results = iom_sweep_default_dir(m);
	have_free = free_space(results, &where, &avail);
	if (have_free) {
		human(avail, b, sizeof(b));
		printf("free space: %s where the results go ('%s')\n", b, where);
	} else {
		printf("free space: unknown where the results go ('%s')\n", where);
	}
	if (m->timing.bytes) {
		iom_duration_human((uint64_t)(cost.bound_s * 1e9), a, sizeof(a));
		iom_duration_human((uint64_t)(cost.timed_s * 1e9), b, sizeof(b));
		printf("size-bound time estimate: %s of measured windows, %s with warm-up and "
		       "cool-down (at %s)\n", a, b, cli->given[OPT_LIKE] ? "the IOPS of --like's "
		       "runs per block size" : "an assumed 100000 IOPS per block size, at most "
		       "1000 MB/s");
	}
	/* one warning for the results' filesystem: the traces and the scratch files there */
	if (m->trace && have_free && cost.trace_bytes + scratch_there > avail) {
		char c[32];

		human(cost.trace_bytes, a, sizeof(a));
		human(avail, b, sizeof(b));
		human(scratch_there, c, sizeof(c));
		fprintf(stderr, "%s: warning: the trace estimate (%s)%s%s%s exceeds the free space "
			"where the results go (%s in '%s'); set trace = false, run with --no-trace, "
			"or put the results on a larger filesystem with -o DIR\n", m->file, a,
			scratch_there > 0 ? " with the scratch files there (" : "",
			scratch_there > 0 ? c : "", scratch_there > 0 ? ")" : "", b, where);
	}
	free(where);
	free(results);
	free(l.rate);
	free(l.count);
	return 0;
}

/* `plan` under iomatrix-mpi with several ranks: rank 0 prints the plan, then where every
 * target lives on each rank (its ${host} and ${rank} expanded there). */
static int plan_hosts(struct cli *cli, enum iom_plan_format fmt)
{
	struct iom_hosts *h = cli->hosts;
	struct iom_matrix *m;
	struct iom_plan p;
	char err[IOM_ERRLEN], *local;
	int ret;

	if (iom_hosts_share_file(h, cli->args[0], &local, err, sizeof(err)) < 0) {
		iom_cmd_print_error(err);
		return IOM_EXIT_USAGE;
	}
	ret = iom_cmd_load_plan(cli, local, &m, &p);
	free(local);
	if (ret != 0)
		return ret;
	ret = h->rank == 0 ? iom_plan_write(stdout, &p, fmt) : 0;
	iom_hosts_expand_paths(h, m);
	if (fmt == IOM_PLAN_TEXT && iom_hosts_describe_targets(h, m, stdout) < 0)
		ret = -EIO;
	iom_plan_release(&p);
	iom_matrix_free(m);
	if (ret < 0) {
		fprintf(stderr, "iomatrix: cannot write the plan: %s\n", strerror(-ret));
		return IOM_EXIT_FAIL;
	}
	return iom_cmd_finish(IOM_EXIT_OK);
}

int iom_cmd_plan(struct cli *cli)
{
	enum iom_plan_format fmt = IOM_PLAN_TEXT;
	struct iom_matrix *m;
	struct iom_plan p;
	int ret;

	if (cli->given[OPT_FORMAT]) {
		const char *f = cli->value[OPT_FORMAT];

		if (strcmp(f, "text") == 0)
			fmt = IOM_PLAN_TEXT;
		else if (strcmp(f, "tsv") == 0)
			fmt = IOM_PLAN_TSV;
		else if (strcmp(f, "json") == 0)
			fmt = IOM_PLAN_JSON;
		else
			return iom_cmd_usage_error("unknown format '%s' (use text, tsv or json)",
						   f);
	}
	if (cli->hosts && cli->hosts->size > 1)
		return plan_hosts(cli, fmt);
	if ((ret = iom_cmd_load_plan(cli, cli->args[0], &m, &p)) != 0)
		return ret;
	ret = iom_plan_write(stdout, &p, fmt);
	if (ret == 0 && fmt == IOM_PLAN_TEXT) {
		struct iom_stage_desc d;

		iom_stage_desc_of(m, cli->given[OPT_ALLOW_HOOKS], &d);
		if (iom_stage_desc_any(&d)) {
			putchar('\n');
			ret = iom_stage_describe(stdout, &d);
		}
		if (ret == 0 && print_costs(cli, m, &p) < 0) {
			iom_plan_release(&p);
			iom_matrix_free(m);
			return IOM_EXIT_USAGE;
		}
	}
	iom_plan_release(&p);
	iom_matrix_free(m);
	if (ret < 0) {
		fprintf(stderr, "iomatrix: cannot write the plan: %s\n", strerror(-ret));
		return IOM_EXIT_FAIL;
	}
	return iom_cmd_finish(IOM_EXIT_OK);
}

static int sweep_logged(const struct iom_plan *p, const char *dir,
			const struct iom_sweep_opts *po);

/*
 * The preflight of `run` and `resume` (preflight.h), into pf: on resume only the runs the
 * journal leaves to do count, and a complete study or a journal that cannot be read is left to
 * the sweep, which says so. Reads only: nothing is written.
 */
static void preflight_sweep(const struct iom_plan *p, const char *dir, bool resume, bool no_trace,
			    struct iom_preflight *pf)
{
	struct iom_preflight_opts po = { .results_dir = dir, .no_trace = no_trace };
	struct iom_journal_state st;
	char err[IOM_ERRLEN];
	uint8_t *pending = NULL;

	memset(pf, 0, sizeof(*pf));
	if (resume) {
		if (iom_journal_replay(dir, p->nruns, &st, err, sizeof(err)) < 0 || st.ended) {
			iom_journal_state_release(&st);
			return;
		}
		pending = xcalloc(p->nruns + 1, 1);
		for (size_t i = 1; i <= p->nruns; i++)
			pending[i] = st.run[i] == IOM_RS_PENDING;
		po.pending = pending;
		iom_journal_state_release(&st);
	}
	iom_preflight_check(p, &po, pf);
	free(pending);
}

/* Runs plan p into dir (new or resumed); prints the winners table; returns the exit code. */
static int sweep(struct cli *cli, const struct iom_plan *p, const char *dir, bool resume)
{
	struct iom_sweep_opts o = {
		.dir = dir,
		.resume = resume,
		.quiet = cli->given[OPT_QUIET],
		.out = stdout,
		.ov = cli->ov,
		.nov = cli->nov,
		.no_trace = cli->given[OPT_NO_TRACE],
		.allow_hooks = cli->given[OPT_ALLOW_HOOKS],
		.tty = -1,
		.metrics = cli->given[OPT_METRICS] ? cli->value[OPT_METRICS] : NULL,
		.live = cli->given[OPT_LIVE] ? cli->value[OPT_LIVE] : NULL,
	};
	struct iom_preflight pf;
	char err[IOM_ERRLEN];
	int ret;

	if (cli->hosts) /* iomatrix-mpi: a status line only where mpirun's output is a terminal */
		o.tty = iom_hosts_stdout_is_tty() ? 1 : 0;
	if (iom_sweep_has_shell_hooks(p->m) && !o.allow_hooks) {
		fprintf(stderr, "%s:%d: this matrix has shell hooks, which run only with "
			"--allow-hooks (a matrix file can come from anyone: running its commands "
			"must be your choice; 'iomatrix plan' shows them)\n", p->m->file,
			p->m->hooks.line);
		return IOM_EXIT_USAGE;
	}
	/* before anything is written or said: a new study's directory is empty */
	if (!resume && (ret = iom_sweep_check_new_dir(dir, err, sizeof(err))) < 0) {
		fprintf(stderr, "iomatrix: %s\n", err);
		return iom_cmd_exit(ret, IOM_IN_REFUSED);
	}
	/* before anything is written: the results directory, the log, a scratch file */
	preflight_sweep(p, dir, resume, o.no_trace, &pf);
	if (cli->hosts && cli->hosts->size > 1) {
		/* every rank's own targets: a refusal anywhere stops every rank */
		o.hosts = cli->hosts;
		if (iom_hosts_agree_preflight(cli->hosts, p, &pf, err, sizeof(err)) < 0) {
			if (pf.errors)
				iom_cmd_print_preflight(p->m, &pf, NULL);
			fprintf(stderr, "iomatrix: %s; nothing was written\n", err);
			iom_preflight_release(&pf);
			return IOM_EXIT_USAGE;
		}
	}
	if (pf.errors) {
		iom_cmd_print_preflight(p->m, &pf, NULL);
		fprintf(stderr, "iomatrix: %zu problem%s above keep%s this sweep from running; "
			"nothing was written%s\n", pf.errors, pf.errors == 1 ? "" : "s",
			pf.errors == 1 ? "s" : "", resume ? "" : " ('iomatrix check MATRIX' checks "
			"again once they are fixed)");
		iom_preflight_release(&pf);
		return IOM_EXIT_USAGE;
	}
	if (cli->given[OPT_LOG]) {
		char e[IOM_ERRLEN];

		o.log = iom_own_fopen(NULL, cli->value[OPT_LOG], "a", e, sizeof(e));
		if (!o.log) {
			fprintf(stderr, "iomatrix: cannot open the log: %s\n", e);
			iom_preflight_release(&pf);
			return IOM_EXIT_USAGE;
		}
	}
	iom_cmd_print_preflight(p->m, &pf, o.log); /* the warnings */
	iom_preflight_release(&pf);
	ret = sweep_logged(p, dir, &o);
	if (o.log)
		fclose(o.log);
	return ret;
}

/* The body of sweep(), once the options are ready and the log open. */
static int sweep_logged(const struct iom_plan *p, const char *dir, const struct iom_sweep_opts *po)
{
	struct iom_sweep_opts o = *po;
	struct iom_sweep_outcome res;
	char err[IOM_ERRLEN];
	int ret;

	o.stop = iom_cmd_stop_on_signals();
	if (!o.quiet)
		printf("%s: %zu run%s into %s\n", p->m->file, p->nruns, p->nruns == 1 ? "" : "s", dir);
	ret = iom_sweep_execute(p, &o, &res, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "iomatrix: %s\n", err);
		if (o.log)
			fprintf(o.log, "error: %s\n", err);
		/* hooks not allowed, or resume of a changed plan: what the user asked is refused */
		if (res.plan_changed)
			return IOM_EXIT_USAGE;
		return iom_cmd_exit(ret, IOM_IN_REFUSED);
	}
	if (res.interrupted) {
		size_t nd = res.ok + res.stalled + res.unsteady + res.failed;

		if (res.lost) {
			fprintf(stderr, "iomatrix: %s; the sweep stopped after %zu run%s; carry on "
				"with: mpirun … iomatrix-mpi resume %s%s\n", iom_hosts_lost(o.hosts),
				nd, nd == 1 ? "" : "s", dir, o.allow_hooks ? " --allow-hooks" : "");
			if (o.log)
				fprintf(o.log, "%s; the sweep stopped after %zu run%s\n",
					iom_hosts_lost(o.hosts), nd, nd == 1 ? "" : "s");
			return iom_cmd_finish(IOM_EXIT_FAIL);
		}
		fprintf(stderr, "iomatrix: interrupted after %zu run%s; carry on with: %siomatrix%s "
			"resume %s%s\n", nd, nd == 1 ? "" : "s", o.hosts ? "mpirun … " : "",
			o.hosts ? "-mpi" : "", dir, o.allow_hooks ? " --allow-hooks" : "");
		if (o.log)
			fprintf(o.log, "interrupted after %zu run%s; carry on with: iomatrix resume "
				"%s%s\n", nd, nd == 1 ? "" : "s", dir,
				o.allow_hooks ? " --allow-hooks" : "");
		return iom_cmd_finish(iom_cmd_outcome(true, false));
	}
	putchar('\n');
	ret = iom_report_after_sweep(stdout, dir, err, sizeof(err));
	if (ret < 0)
		fprintf(stderr, "iomatrix: %s\n", err);
	/* as the report's first line counts them: a stalled run is left out, not ok */
	printf("\n%zu run%s ok, ", res.ok, res.ok == 1 ? "" : "s");
	if (res.stalled + res.unsteady)
		printf("%zu left out (%s), ", res.stalled + res.unsteady,
		       !res.unsteady ? "stalled" : !res.stalled ? "steady state not reached" :
		       "stalled or not steady");
	printf("%zu failed%s; results in %s\n", res.failed, res.skipped ? " (resumed)" : "", dir);
	return iom_cmd_finish(iom_cmd_outcome(false, ret < 0 || res.failed));
}

/*
 * A follower of iomatrix-mpi (rank > 0): the same checks as rank 0's sweep() (each rank's own
 * targets), then the runs rank 0 names (hosts.h). The exit code.
 */
static int follow(struct cli *cli, const struct iom_plan *p)
{
	struct iom_hosts *h = cli->hosts;
	struct iom_preflight pf;
	char err[IOM_ERRLEN];
	int ret;

	if (iom_sweep_has_shell_hooks(p->m) && !cli->given[OPT_ALLOW_HOOKS])
		return IOM_EXIT_USAGE; /* rank 0 says why */
	preflight_sweep(p, h->private_dir, false, cli->given[OPT_NO_TRACE], &pf);
	ret = iom_hosts_agree_preflight(h, p, &pf, err, sizeof(err));
	if (pf.errors) {
		fprintf(stderr, "iomatrix: rank %u (host %s):\n", h->rank, h->host);
		iom_cmd_print_preflight(p->m, &pf, NULL);
	}
	iom_preflight_release(&pf);
	if (ret < 0)
		return IOM_EXIT_USAGE;
	ret = iom_hosts_follow(h, p, iom_cmd_stop_on_signals(), cli->given[OPT_NO_TRACE], err,
			       sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "iomatrix: rank %u (host %s): %s\n", h->rank, h->host, err);
		return IOM_EXIT_FAIL;
	}
	return IOM_EXIT_OK;
}

/* `run` under iomatrix-mpi with several ranks: rank 0's matrix file shared, planned by every
 * rank alike (the plan hashes agree), each rank's ${host} and ${rank}; then rank 0 sweeps into
 * dir (NULL: -o or the default) and the others follow. */
static int run_hosts(struct cli *cli, const char *path, const char *in_dir, bool resume)
{
	struct iom_hosts *h = cli->hosts;
	struct iom_matrix *m;
	struct iom_plan p;
	char err[IOM_ERRLEN], *local, *dir;
	int ret;

	if (iom_hosts_share_file(h, path, &local, err, sizeof(err)) < 0) {
		iom_cmd_print_error(err);
		return IOM_EXIT_USAGE;
	}
	ret = iom_cmd_load_plan(cli, local, &m, &p);
	free(local);
	if (ret != 0)
		return ret;
	if (h->rank > 0) {
		/* messages name the file as given to rank 0, not the private copy */
		free(m->file);
		m->file = xstrdup(path);
	}
	if (iom_hosts_agree_plan(h, p.hash, err, sizeof(err)) < 0) {
		iom_cmd_print_error(err);
		iom_plan_release(&p);
		iom_matrix_free(m);
		return IOM_EXIT_USAGE;
	}
	iom_hosts_expand_paths(h, m);
	h->hooks_allowed = cli->given[OPT_ALLOW_HOOKS];
	if (h->rank > 0) {
		ret = follow(cli, &p);
	} else {
		dir = in_dir ? xstrdup(in_dir) : cli->given[OPT_OUTPUT] ?
		      xstrdup(cli->value[OPT_OUTPUT]) : iom_sweep_default_dir(m);
		ret = sweep(cli, &p, dir, resume);
		if (h->agreed && !iom_hosts_lost(h)) {
			struct iom_own_dir rd = { .fd = -1 };
			char derr[IOM_ERRLEN];
			bool open = iom_own_dir_open(&rd, dir, IOM_OWN_DIR_STRICT, derr,
						     sizeof(derr)) == 0;

			iom_hosts_next(h, NULL, NULL, 0, 0, 0); /* the end: the followers return */
			/* … and send the logs of their last hooks (after_target, after_study), which
			 * land through the results directory opened again and pinned (a directory
			 * that became a link is not followed: what they send is dropped) */
			if (!open)
				fprintf(stderr, "iomatrix: %s\n", derr);
			if (iom_hosts_collect_logs(h, m, open ? &rd : NULL, dir) < 0 ||
			    iom_hosts_collect_journals(h, open ? &rd : NULL, dir) < 0)
				fprintf(stderr, "iomatrix: the other ranks' hook logs or journals "
					"did not all arrive in '%s'\n", dir);
			iom_own_dir_release(&rd);
		}
		free(dir);
	}
	iom_plan_release(&p);
	iom_matrix_free(m);
	return ret;
}

int iom_cmd_run(struct cli *cli)
{
	struct iom_matrix *m;
	struct iom_plan p;
	char *dir;
	int ret;

	if (cli->hosts && cli->hosts->size > 1)
		return run_hosts(cli, cli->args[0], NULL, false);
	if ((ret = iom_cmd_load_plan(cli, cli->args[0], &m, &p)) != 0)
		return ret;
	iom_hosts_expand_paths(NULL, m);
	dir = cli->given[OPT_OUTPUT] ? xstrdup(cli->value[OPT_OUTPUT]) : iom_sweep_default_dir(m);
	ret = sweep(cli, &p, dir, false);
	free(dir);
	iom_plan_release(&p);
	iom_matrix_free(m);
	return ret;
}

/*
 * What `resume DIR` finds: 0 a journal (a study to carry on), 1 a creation interrupted before
 * its journal named the study, with its matrix.cfg (the study starts there, as `run` would
 * have), 2 neither (said on stderr).
 */
static uint64_t resume_kind(const char *dir)
{
	char *journal = xasprintf("%s/journal", dir), *cfg = xasprintf("%s/matrix.cfg", dir), e[8];
	struct stat st;
	uint64_t kind = 0;

	if (stat(journal, &st) == 0 && st.st_size > 0)
		kind = 0;
	else if (stat(cfg, &st) == 0 && S_ISREG(st.st_mode) &&
		 iom_sweep_check_new_dir(dir, e, sizeof(e)) == 0)
		kind = 1;
	else if (iom_sweep_check_new_dir(dir, e, sizeof(e)) == 0)
		kind = 3; /* interrupted before its matrix.cfg: nothing to resume from */
	else if (stat(journal, &st) == 0)
		kind = 0; /* an empty journal beside files of a study: the sweep says what it is */
	else
		kind = 2;
	if (kind == 3)
		fprintf(stderr, "iomatrix: '%s' holds a study whose creation was interrupted before "
			"its matrix was written: nothing was measured; start it with 'iomatrix run "
			"MATRIX -o %s'\n", dir, dir);
	if (kind == 2)
		fprintf(stderr, "iomatrix: '%s' is not a results directory (no journal)\n", dir);
	kind = kind == 3 ? 2 : kind;
	free(journal);
	free(cfg);
	return kind;
}

int iom_cmd_resume(struct cli *cli)
{
	const char *dir = cli->args[0];
	struct iom_matrix *m;
	struct iom_plan p;
	uint64_t kind = 0;
	char *path;
	int ret;

	if (cli->hosts && cli->hosts->size > 1) {
		/* rank 0's directory: what it holds, every rank hears it */
		if (cli->hosts->rank == 0)
			kind = resume_kind(dir);
		if (cli->hosts->ops->allmax(cli->hosts->ctx, &kind) < 0 || kind == 2)
			return IOM_EXIT_USAGE;
		path = xasprintf("%s/matrix.cfg", dir);
		ret = run_hosts(cli, path, dir, kind == 0);
		free(path);
		return ret;
	}
	if ((kind = resume_kind(dir)) == 2)
		return IOM_EXIT_USAGE;
	/* The matrix as run, with its overrides applied, is the one in the directory. */
	path = xasprintf("%s/matrix.cfg", dir);
	ret = iom_cmd_load_plan(cli, path, &m, &p);
	free(path);
	if (ret != 0)
		return ret;
	iom_hosts_expand_paths(NULL, m);
	ret = sweep(cli, &p, dir, kind == 0);
	iom_plan_release(&p);
	iom_matrix_free(m);
	return ret;
}
