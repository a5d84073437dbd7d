/* SPDX-License-Identifier: MIT */
/*
 * sweep_msg — a sweep's words: lines on its output and log, warnings on stderr and in the
 * journal, the status line erased before either.
 */
#include "sweep_in.h"

#include <stdarg.h>
#include <stdio.h>

void sweep_erase_status(struct sweep *s)
{
	if (s->status_shown) {
		fputs("\r\033[K", s->out);
		s->status_shown = false;
	}
}

/* A line for out (unless quiet) and the log. */
__attribute__((format(printf, 3, 4)))
void sweep_say(struct sweep *s, bool always, const char *fmt, ...)
{
	va_list ap;

	if (always || !s->o->quiet) {
		sweep_erase_status(s);
		va_start(ap, fmt);
		vfprintf(s->out, fmt, ap);
		va_end(ap);
		fflush(s->out);
	}
	if (s->o->log) {
		va_start(ap, fmt);
		vfprintf(s->o->log, fmt, ap);
		va_end(ap);
		fflush(s->o->log);
	}
}

/* A warning: stderr, the log (with the time) and a journal note. */
__attribute__((format(printf, 2, 3)))
void sweep_warn(struct sweep *s, const char *fmt, ...)
{
	char msg[1024], when[32];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sweep_erase_status(s);
	fflush(s->out);
	fprintf(stderr, "iomatrix: warning: %s\n", msg);
	if (s->o->log) {
		iom_format_utc(when, sizeof(when), iom_wall_ns());
		fprintf(s->o->log, "%s warning: %s\n", when, msg);
		fflush(s->o->log);
	}
	if (s->j.fd >= 0)
		iom_journal_append(&s->j, IOM_J_NOTE, 0, msg);
}
