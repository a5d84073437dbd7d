/*
 * report_main — the entry points of `iomatrix report`: load one or more results directories,
 * apply the command line's options, and hand the model to the writer of the format asked for
 * (text in report.c, md/csv/json in report_fmt.c, html in report_html.c, the DiskSpd view of one
 * run in report_run.c). The writers depend on the model; only this file depends on the writers.
 */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int iom_report_format_parse(const char *name)
{
	static const struct {
		const char *name;
		enum iom_report_format f;
	} names[] = {
		{ "text", IOM_REPORT_TEXT }, { "md", IOM_REPORT_MD },
		{ "markdown", IOM_REPORT_MD }, { "csv", IOM_REPORT_CSV },
		{ "json", IOM_REPORT_JSON }, { "html", IOM_REPORT_HTML },
	};

	for (size_t i = 0; name && i < IOM_ARRAY_SIZE(names); i++)
		if (strcmp(name, names[i].name) == 0)
			return (int)names[i].f;
	return -1;
}

static int write_format(FILE *out, const struct iom_report *m, int fmt,
			const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	int ret;

	switch (fmt) {
	case IOM_REPORT_MD:
		ret = iom_report_write_md(out, m);
		break;
	case IOM_REPORT_CSV:
		ret = iom_report_write_csv(out, m);
		break;
	case IOM_REPORT_JSON:
		ret = iom_report_write_json(out, m);
		break;
	case IOM_REPORT_HTML:
		return iom_report_write_html(out, m, o, err, errlen);
	default:
		ret = iom_report_write_text(out, m, o);
		break;
	}
	if (ret < 0)
		iom_err(err, errlen, -ret, "cannot write the report: %s", strerror(-ret));
	return ret;
}

int iom_report_main(FILE *out, const char *const *dirs, size_t ndirs,
		    const struct iom_report_opts_cli *o, char *err, size_t errlen)
{
	static const struct iom_report_opts_cli none = { .color = -1 };
	struct iom_report m;
	int fmt, ret;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = out;

	if (!o)
		o = &none;
	fmt = o->format ? iom_report_format_parse(o->format) : IOM_REPORT_TEXT;
	if (fmt < 0)
		return iom_err(err, errlen, EINVAL, "unknown report format '%s' (text, md, csv, json "
			       "or html)", o->format);
	if (o->run && fmt != IOM_REPORT_TEXT && fmt != IOM_REPORT_HTML)
		return iom_err(err, errlen, EINVAL, "--run is for the text and html formats");
	ret = iom_report_load_many(dirs, ndirs, o->compare, &m, err, errlen);
	if (ret == 0)
		ret = iom_report_set_opts(&m, o->alpha, o->min_effect, o->max_cv, err, errlen);
	if (ret == 0 && o->output) {
		f = open_memstream(&buf, &len);
		if (!f)
			ret = iom_err(err, errlen, ENOMEM, "cannot write the report: out of memory");
	}
	if (ret == 0 && o->run && fmt == IOM_REPORT_TEXT) {
		size_t src;
		uint32_t index;

		ret = iom_report_find_run(&m, o->run, &src, &index, err, errlen);
		if (ret == 0)
			ret = iom_report_run(f, m.src[src].dir, index, o, err, errlen);
	} else if (ret == 0) {
		ret = write_format(f, &m, fmt, o, err, errlen);
	}
	if (f && f != out) {
		if (fclose(f) != 0 && ret == 0)
			ret = iom_err(err, errlen, EIO, "cannot write the report: out of memory");
		if (ret == 0) {
			ret = iom_write_file_atomic(o->output, buf, len);
			if (ret < 0)
				iom_err(err, errlen, -ret, "cannot write '%s': %s", o->output,
					strerror(-ret));
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
	struct iom_report_opts_cli o = { .color = -1, .brief = true };

	return iom_report_dir(out, dir, &o, err, errlen);
}
