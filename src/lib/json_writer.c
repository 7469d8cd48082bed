// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <limits.h>
#include <math.h>
#include <string.h>

#include "lib/json_writer.h"
#include "lib/util.h"

/*
 * The stream is the writer's alone while it writes (one thread writes a
 * report): its bytes go in without stdio's lock, which --json of 10,000
 * rows took once per piece, ~13 % of a refresh's CPU (perf).
 */
void jw_init(struct jw *w, FILE *f, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->pretty = pretty;
}

/* Before an array's element or an object's key: the comma, and in pretty text the new line. */
static void member(struct jw *w)
{
	if (!w->depth)
		return;
	if (w->had[w->depth])
		putc_unlocked(',', w->f);
	w->had[w->depth] = true;
	if (w->pretty) {
		putc_unlocked('\n', w->f);
		for (int i = 0; i < w->depth; i++)
			fputs_unlocked("  ", w->f);
	}
}

/* Before a value: right after its key, or as an array's next element. */
static void value(struct jw *w)
{
	if (w->after_key)
		w->after_key = false;
	else
		member(w);
}

static void begin(struct jw *w, char c)
{
	value(w);
	putc_unlocked(c, w->f);
	if (w->depth < JW_MAX_DEPTH)
		w->depth++;
	w->had[w->depth] = false;
}

static void end(struct jw *w, char c)
{
	/* json-c's pretty text breaks the line before the bracket even of an empty one. */
	if (w->pretty) {
		putc_unlocked('\n', w->f);
		for (int i = 1; i < w->depth; i++)
			fputs_unlocked("  ", w->f);
	}
	putc_unlocked(c, w->f);
	if (w->depth)
		w->depth--;
}

void jw_object(struct jw *w)
{
	begin(w, '{');
}

void jw_end_object(struct jw *w)
{
	end(w, '}');
}

void jw_array(struct jw *w)
{
	begin(w, '[');
}

void jw_end_array(struct jw *w)
{
	end(w, ']');
}

/* json-c's escapes: the two-letter ones, other control bytes as \u00xx; '/' as it is. */
static void quoted(struct jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	putc_unlocked('"', w->f);
	for (; *s; s++) {
		unsigned char c = *s;
		const char *e = NULL;
		switch (c) {
		case '\b': e = "\\b"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		case '\f': e = "\\f"; break;
		case '"': e = "\\\""; break;
		case '\\': e = "\\\\"; break;
		}
		if (!e && c >= ' ')
			continue;
		fwrite_unlocked(run, 1, s - run, w->f);
		if (e) {
			fputs_unlocked(e, w->f);
		} else {
			char u[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0 };
			fputs_unlocked(u, w->f);
		}
		run = s + 1;
	}
	fwrite_unlocked(run, 1, s - run, w->f);
	putc_unlocked('"', w->f);
}

void jw_key(struct jw *w, const char *key)
{
	member(w);
	quoted(w, key);
	putc_unlocked(':', w->f);
	w->after_key = true;
}

void jw_string(struct jw *w, const char *s)
{
	if (!s) {
		jw_null(w);
		return;
	}
	value(w);
	quoted(w, s);
}

void jw_name(struct jw *w, const char *s)
{
	char buf[4 * PATH_MAX];

	jw_string(w, s ? utf8_valid(s, buf, sizeof(buf)) : NULL);
}

/* Digits by hand: a row has some forty numbers, and printf's parsing would be most of their cost. */
static void digits(FILE *f, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = '0' + v % 10;
	while (v /= 10);
	fwrite_unlocked(p, 1, b + sizeof(b) - p, f);
}

void jw_u64(struct jw *w, uint64_t v)
{
	value(w);
	digits(w->f, v);
}

void jw_i64(struct jw *w, int64_t v)
{
	value(w);
	if (v < 0)
		putc_unlocked('-', w->f);
	digits(w->f, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

void jw_double(struct jw *w, double v)
{
	char b[64];

	value(w);
	if (isnan(v)) {
		fputs_unlocked("NaN", w->f);
		return;
	}
	if (isinf(v)) {
		fputs_unlocked(v > 0 ? "Infinity" : "-Infinity", w->f);
		return;
	}
	snprintf(b, sizeof(b), "%.17g", v);
	fputs_unlocked(b, w->f);
	/* A whole number still reads as a double. */
	if (!strpbrk(b, ".e"))
		fputs_unlocked(".0", w->f);
}

void jw_bool(struct jw *w, bool v)
{
	value(w);
	fputs_unlocked(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w)
{
	value(w);
	fputs_unlocked("null", w->f);
}

void jw_raw(struct jw *w, const char *json)
{
	value(w);
	fputs_unlocked(json, w->f);
}
