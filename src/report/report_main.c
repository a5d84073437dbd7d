/* SPDX-License-Identifier: MIT */
/*
 * report_main — the entry points of `iomatrix report`: load one or more results directories,
 * apply the command line's options, and hand the model to the writer of the format asked for.
 * The formats are one table (name, alias, whether --run applies, writer): text in report_text.c
 * (with --run: the DiskSpd view of one run, report_run.c), md/csv/json in report_fmt.c, html in
 * report_html.c. Adding a format is one row here and its writer. The writers depend on the
 * model; only this file depends on the writers.
 */
#include "report_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ownfile.h"
#include "strbuf.h"
#include "util.h"

/* The text format: the report of the model, or with --run the DiskSpd view of that run. */
static int write_text_or_run(FILE *out, const struct iom_report *m,
			     const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	size_t src;
	uint32_t index;
	int ret;

	if (!o->run)
		return iom_report_write_text(out, m, o, err, errlen);
	ret = iom_report_find_run(m, o->run, &src, &index, err, errlen);
	if (ret == 0)
		ret = iom_report_run(out, m->src[src].dir, index, o, err, errlen);
	return ret;
}

/* The report formats; the first is the default. */
static const struct iom_report_format formats[] = {
	{ "text", NULL, true, write_text_or_run },
	{ "md", "markdown", false, iom_report_write_md },
	{ "csv", NULL, false, iom_report_write_csv },
	{ "json", NULL, false, iom_report_write_json },
	{ "html", NULL, true, iom_report_write_html },
	{ "fio-json", NULL, true, iom_report_write_fio_json },
	{ "fio-jsonplus", "fio-json+", true, iom_report_write_fio_jsonplus },
	{ "openmetrics", "prometheus", false, iom_report_write_openmetrics },
	{ "diskspd-xml", NULL, true, iom_report_write_diskspd_xml },
};

const struct iom_report_format *iom_report_format_find(const char *name)
{
	for (size_t i = 0; name && i < IOM_ARRAY_SIZE(formats); i++)
		if (strcmp(name, formats[i].name) == 0 ||
		    (formats[i].alias && strcmp(name, formats[i].alias) == 0))
			return &formats[i];
	return NULL;
}

/* "text, md, csv, json or html" (every format), or "text and html" (those that take --run). */
static char *format_list(bool run_only)
{
	struct iom_strbuf b = { 0 };
	size_t n = 0, shown = 0;

	for (size_t i = 0; i < IOM_ARRAY_SIZE(formats); i++)
		n += !run_only || formats[i].takes_run;
	for (size_t i = 0; i < IOM_ARRAY_SIZE(formats); i++) {
		if (run_only && !formats[i].takes_run)
			continue;
		if (shown)
			iom_strbuf_str(&b, shown + 1 == n ? (run_only ? " and " : " or ") : ", ");
		iom_strbuf_str(&b, formats[i].name);
		shown++;
	}
	return iom_strbuf_take(&b);
}

int iom_report_main(FILE *out, const char *const *dirs, size_t ndirs,
		    const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	static const struct iom_report_opts_cli none = { .color = -1 };
	const struct iom_report_format *fmt;
	struct iom_report m;
	int ret;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = out;

	if (!o)
		o = &none;
	fmt = o->format ? iom_report_format_find(o->format) : &formats[0];
	if (!fmt) {
		char *names = format_list(false);

		ret = iom_err(err, errlen, EINVAL, "unknown report format '%s' (%s)", o->format,
			      names);
		free(names);
		return ret;
	}
	if (o->run && !fmt->takes_run) {
		char *names = format_list(true);

		ret = iom_err(err, errlen, EINVAL, "--run is for the %s formats", names);
		free(names);
		return ret;
	}
	if (o->baseline) {
		/* the baseline first: it is A, the others are compared with it */
		const char **order = xcalloc(ndirs + 1, sizeof(*order));
		size_t k = 0, at = ndirs;

		for (size_t i = 0; i < ndirs; i++)
			if (strcmp(dirs[i], o->baseline) == 0)
				at = i;
		if (at == ndirs) {
			free(order);
			return iom_err(err, errlen, EINVAL, "--baseline '%s' is not one of the "
				       "directories reported on", o->baseline);
		}
		order[k++] = dirs[at];
		for (size_t i = 0; i < ndirs; i++)
			if (i != at)
				order[k++] = dirs[i];
		ret = iom_report_load_many(order, ndirs, o->compare, &m, err, errlen);
		free(order);
	} else {
		ret = iom_report_load_many(dirs, ndirs, o->compare, &m, err, errlen);
	}
	if (ret == 0)
		ret = iom_report_set_opts(&m, o->alpha, o->min_effect, o->max_cv, err, errlen);
	if (ret == 0)
		ret = iom_report_set_correction(&m, o->correction, err, errlen);
	if (ret == 0 && o->output) {
		f = open_memstream(&buf, &len);
		if (!f)
			ret = iom_err(err, errlen, ENOMEM, "cannot write the report: out of memory");
	}
	if (ret == 0)
		ret = fmt->write(f, &m, o, err, errlen);
	if (f && f != out) {
		if (fclose(f) != 0 && ret == 0)
			ret = iom_err(err, errlen, EIO, "cannot write the report: out of memory");
		if (ret == 0) {
			ret = iom_own_write_atomic(NULL, o->output, buf, len, err, errlen);
		}
		free(buf);
	}
	if (ret == 0 && m.ndamaged) {
		/* written, but not every run is in it: exit 1, the first named */
		char *first = iom_report_damaged_text(&m, &m.damaged[0]);

		if (m.ndamaged == 1)
			ret = iom_err(err, errlen, EUCLEAN, "%s", first);
		else
			ret = iom_err(err, errlen, EUCLEAN, "%zu runs are missing or damaged, the "
				      "first: %s", m.ndamaged, first);
		free(first);
	}
	iom_report_release(&m);
	return ret;
}

int iom_report_dir(FILE *out, const char *dir, const struct iom_report_opts_cli *o, char *err,
		   size_t errlen)
{
	return iom_report_main(out, &dir, 1, o, err, errlen);
}

int iom_report_after_sweep(FILE *out, const char *dir, char *err, size_t errlen)
{
	struct iom_report_opts_cli o = { .color = -1, .brief = true,
					 .width = (unsigned)iom_term_width(fileno(out), 100) };

	return iom_report_dir(out, dir, &o, err, errlen);
}
