/* SPDX-License-Identifier: MIT */
/*
 * strbuf — the one growable string of the tree, for text built in pieces before it is printed,
 * returned or written (the report's table lines, the hooks' expanded commands, the presets'
 * matrix text).
 *
 * A zero-initialized struct iom_strbuf is empty and ready; the text is always NUL-terminated
 * once anything was added. Growth aborts on exhaustion through xrealloc (util.h): these are
 * small strings, and a failure there has nowhere better to go.
 */
#ifndef IOM_STRBUF_H
#define IOM_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct iom_strbuf {
	char *s;        /* the text (heap, NUL-terminated), or NULL while nothing was added */
	size_t len;     /* its length without the NUL */
	size_t cap;     /* bytes allocated */
};

/* Appends the n bytes at s. */
void iom_strbuf_add(struct iom_strbuf *b, const char *s, size_t n);
/* Appends the string s. */
void iom_strbuf_str(struct iom_strbuf *b, const char *s);
/* Appends printf's text of fmt. */
void iom_strbuf_printf(struct iom_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* iom_strbuf_printf() with a va_list (ap is consumed). */
void iom_strbuf_vprintf(struct iom_strbuf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Appends n spaces (none when n ≤ 0). */
void iom_strbuf_spaces(struct iom_strbuf *b, int n);
/* The text built so far, never NULL; b keeps owning it. */
const char *iom_strbuf_get(struct iom_strbuf *b);
/* Hands the text (never NULL) to the caller, who frees it; b is empty again. */
char *iom_strbuf_take(struct iom_strbuf *b);
/* Empties b, keeping its storage for the next text. */
void iom_strbuf_reset(struct iom_strbuf *b);
/* Frees b's storage; b is empty again. */
void iom_strbuf_release(struct iom_strbuf *b);

#endif
