/* SPDX-License-Identifier: MIT */
/*
 * strbuf — a growable string (strbuf.h). The capacity doubles, and at least fits what is added
 * plus 64 bytes, so building a line of n pieces costs O(n) copies.
 */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void reserve(struct iom_strbuf *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = IOM_MAX(b->cap * 2, b->len + n + 64);
		b->s = xrealloc(b->s, b->cap);
	}
}

void iom_strbuf_add(struct iom_strbuf *b, const char *s, size_t n)
{
	reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void iom_strbuf_str(struct iom_strbuf *b, const char *s)
{
	iom_strbuf_add(b, s, strlen(s));
}

void iom_strbuf_vprintf(struct iom_strbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0)
		abort();
	reserve(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, again);
	va_end(again);
	b->len += (size_t)n;
}

void iom_strbuf_printf(struct iom_strbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	iom_strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

void iom_strbuf_spaces(struct iom_strbuf *b, int n)
{
	if (n <= 0)
		return;
	reserve(b, (size_t)n);
	memset(b->s + b->len, ' ', (size_t)n);
	b->len += (size_t)n;
	b->s[b->len] = '\0';
}

const char *iom_strbuf_get(struct iom_strbuf *b)
{
	if (!b->s)
		iom_strbuf_add(b, "", 0);
	return b->s;
}

char *iom_strbuf_take(struct iom_strbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void iom_strbuf_reset(struct iom_strbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

void iom_strbuf_release(struct iom_strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}
