/* SPDX-License-Identifier: MIT */
/*
 * cmd_diskspd — `iomatrix diskspd`: DiskSpd's flags turned into a one-cell study (diskspd*.c),
 * or a DiskSpd XML profile (-X, read by import_diskspd.c), run through the sweep and printed
 * DiskSpd-style by the report; or only its matrix (--matrix) or fio job (--print-fio) printed.
 * The translator knows nothing of running: this command conducts.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "import/diskspd.h"
#include "import/import.h"
#include "matrix/matrix.h"
#include "plan.h"
#include "report/report.h"
#include "sweep/sweep.h"
#include "util.h"

/* What a study run by run() came to. */
struct outcome {
	bool interrupted; /* stopped through *stop: the results so far are in the directory */
	bool failed;      /* the run failed (its reason printed by the sweep) */
};

/* -X: the profile's settings into d, iomatrix's own options kept; d is released on failure. */
static int read_profile(struct iom_diskspd *d, char *err, size_t errlen)
{
	const char *xml = d->profile;
	struct iom_diskspd x;
	struct iom_import im = { 0 };
	char *buf;
	size_t len;
	int ret;

	if ((ret = iom_import_read(xml, &buf, &len, err, errlen)) < 0) {
		iom_diskspd_release(d);
		return ret;
	}
	ret = iom_import_diskspd_profile(xml, buf, len, false, &x, &im, err, errlen);
	free(buf);
	if (ret < 0 && im.nproblems) {
		char first[IOM_ERRLEN];

		snprintf(first, sizeof(first), "%s", im.problems[0]);
		iom_err(err, errlen, EINVAL, "%s%s", first, im.nproblems > 1 ? " (and more: "
			"'iomatrix import' lists them all)" : "");
	}
	iom_import_release(&im);
	if (ret < 0) {
		iom_diskspd_release(d);
		return ret;
	}
	x.output = d->output;
	x.matrix_only = d->matrix_only;
	x.print_fio = d->print_fio;
	x.quiet = d->quiet;
	x.no_trace = d->no_trace;
	x.overwrite = d->overwrite;
	x.destructive = d->destructive;
	iom_diskspd_release(d);
	*d = x;
	return 0;
}

/*
 * Runs the study into d->output (or results/diskspd-<time>): progress to progress (NULL:
 * none), then "Command Line: …" and the DiskSpd-style report of the run to out. Returns 0 with
 * *res filled (when res->interrupted or res->failed, err says so and where the results are),
 * or -errno with err when the study could not start or its report could not be read.
 */
static int run(const struct iom_diskspd *d, FILE *out, FILE *progress,
	       volatile sig_atomic_t *stop, struct outcome *res, char *err, size_t errlen)
{
	struct iom_sweep_outcome so;
	struct iom_matrix *m = NULL;
	struct iom_plan p;
	char *text = NULL, *dir = NULL, e[IOM_ERRLEN];
	int ret;

	memset(res, 0, sizeof(*res));
	if ((ret = iom_diskspd_matrix(d, &text, err, errlen)) < 0)
		return ret;
	if ((ret = iom_matrix_parse("diskspd", text, NULL, 0, &m, err, errlen)) < 0)
		goto out;
	if ((ret = iom_plan_build(m, &p, err, errlen)) < 0)
		goto out;
	dir = d->output ? xstrdup(d->output) : iom_sweep_default_dir(m);
	struct iom_sweep_opts o = {
		.dir = dir,
		.quiet = d->quiet || !progress,
		.out = progress ? progress : stderr,
		.stop = stop,
		.no_trace = d->no_trace,
	};
	if (progress && !d->quiet) {
		for (size_t i = 0; i < d->nnotes; i++)
			fprintf(progress, "note: %s\n", d->notes[i]);
		fprintf(progress, "diskspd %s: 1 run into %s\n", d->command, dir);
	}
	ret = iom_sweep_execute(&p, &o, &so, err, errlen);
	iom_plan_release(&p);
	if (ret < 0)
		goto out;
	if (so.interrupted) {
		res->interrupted = true;
		iom_err(err, errlen, EINTR, "interrupted; the results so far are in %s", dir);
		goto out;
	}
	res->failed = so.failed != 0;
	if (d->xml_results) {
		/* -Rxml: the XML alone, as DiskSpd writes it */
		struct iom_report_opts_cli ro = { .format = "diskspd-xml", .run = "1", .color = 0 };

		ret = iom_report_dir(out, dir, &ro, e, sizeof(e));
		if (ret < 0) {
			iom_err(err, errlen, EIO, "%s%s", res->failed ? "the run failed: " : "", e);
			ret = res->failed ? 0 : ret;
			goto out;
		}
		if (progress)
			fprintf(progress, "results in %s (iomatrix report %s)\n", dir, dir);
		if (res->failed)
			iom_err(err, errlen, EIO, "the run failed; see %s", dir);
		goto out;
	}
	fprintf(out, "\nCommand Line: iomatrix diskspd %s\n\n", d->command);
	if (iom_report_run(out, dir, 1, NULL, e, sizeof(e)) < 0) {
		/* a failed run has no figures: say why, from the sweep */
		if (res->failed)
			iom_err(err, errlen, EIO, "the run failed (see %s/runs): %s", dir, e);
		else
			ret = iom_err(err, errlen, EIO, "%s", e);
		goto out;
	}
	fprintf(out, "\nresults in %s (iomatrix report %s)\n", dir, dir);
	if (res->failed)
		iom_err(err, errlen, EIO, "the run failed; see %s", dir);
out:
	iom_matrix_free(m);
	free(text);
	free(dir);
	return ret;
}


/* cli->args holds every argument after "diskspd", unparsed: DiskSpd's flags and the target. */
int iom_cmd_diskspd(struct cli *cli)
{
	struct outcome res;
	struct iom_diskspd d;
	char err[IOM_ERRLEN], *text;
	int ret;

	if (iom_diskspd_parse(cli->nargs, cli->args, &d, err, sizeof(err)) < 0 ||
	    (d.profile && read_profile(&d, err, sizeof(err)) < 0))
		return iom_cmd_usage_error("%s", err);
	if (d.help) {
		iom_diskspd_usage(stdout);
		iom_diskspd_release(&d);
		return iom_cmd_finish(IOM_EXIT_OK);
	}
	if (d.matrix_only || d.print_fio) {
		ret = d.print_fio ? iom_diskspd_fio(&d, &text, err, sizeof(err))
				  : iom_diskspd_matrix(&d, &text, err, sizeof(err));
		iom_diskspd_release(&d);
		if (ret < 0)
			return iom_cmd_usage_error("%s", err);
		fputs(text, stdout);
		free(text);
		return iom_cmd_finish(IOM_EXIT_OK);
	}
	ret = run(&d, stdout, stderr, iom_cmd_stop_on_signals(), &res, err, sizeof(err));
	iom_diskspd_release(&d);
	if (ret < 0) {
		fprintf(stderr, "iomatrix: %s\n", err);
		return iom_cmd_exit(ret, IOM_IN_INVALID | IOM_IN_MISSING);
	}
	if (res.interrupted || res.failed)
		fprintf(stderr, "iomatrix: %s\n", err);
	return iom_cmd_finish(iom_cmd_outcome(res.interrupted, res.failed));
}
