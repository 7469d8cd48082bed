// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <limits.h>
#include <math.h>
#include <string.h>

#include "lib/fmt_g17.h"
#include "lib/json_writer.h"
#include "lib/textput.h"
#include "lib/util.h"

/*
 * The stream is the writer's alone while it writes, since one thread
 * writes a report. So its bytes go in without stdio's lock, which would
 * otherwise be taken once per piece. They go in blocks from the writer's
 * buffer (json_writer.h).
 */
void jw_init(struct jw *w, FILE *f, bool pretty)
{
	w->f = f;
	w->pretty = pretty;
	w->after_key = false;
	w->depth = 0;
	w->n = 0;
	memset(w->had, 0, sizeof(w->had));
}

static void flush(struct jw *w)
{
	if (w->n)
		fwrite_unlocked(w->buf, 1, w->n, w->f);
	w->n = 0;
}

static inline void put(struct jw *w, const char *s, size_t n)
{
	if (w->n + n > sizeof(w->buf)) {
		flush(w);
		if (n > sizeof(w->buf)) {
			fwrite_unlocked(s, 1, n, w->f);
			return;
		}
	}
	text_copy(w->buf + w->n, s, n);
	w->n += n;
}

static inline void putch(struct jw *w, char c)
{
	if (w->n == sizeof(w->buf))
		flush(w);
	w->buf[w->n++] = c;
}

static void putstr(struct jw *w, const char *s)
{
	put(w, s, strlen(s));
}

/* After a value: at the top, it is whole, and goes to the stream. */
static inline void done(struct jw *w)
{
	if (!w->depth)
		flush(w);
}

/* Before an array's element or an object's key: the comma, and in pretty text the new line. */
static void member(struct jw *w)
{
	if (!w->depth)
		return;
	if (w->had[w->depth])
		putch(w, ',');
	w->had[w->depth] = true;
	if (w->pretty) {
		putch(w, '\n');
		for (int i = 0; i < w->depth; i++)
			put(w, "  ", 2);
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
	putch(w, c);
	if (w->depth < JW_MAX_DEPTH)
		w->depth++;
	w->had[w->depth] = false;
}

static void end(struct jw *w, char c)
{
	/* json-c's pretty text breaks the line before the bracket even of an empty one. */
	if (w->pretty) {
		putch(w, '\n');
		for (int i = 1; i < w->depth; i++)
			put(w, "  ", 2);
	}
	putch(w, c);
	if (w->depth)
		w->depth--;
	done(w);
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

/* The bytes json-c escapes: control bytes, the quote, the backslash ('/' as it is). */
static const bool escape[256] = {
	[0 ... 0x1f] = true, ['"'] = true, ['\\'] = true,
};

/* json-c's escapes: the two-letter ones, other control bytes as \u00xx. */
static void quoted(struct jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	putch(w, '"');
	for (;; s++) {
		/* Most strings (keys, paths) have nothing to escape: one copy at their end. */
		while (!escape[(unsigned char)*s])
			s++;
		unsigned char c = *s;
		put(w, run, s - run);
		if (!c)
			break;
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
		if (e) {
			put(w, e, 2);
		} else {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			put(w, u, 6);
		}
		run = s + 1;
	}
	putch(w, '"');
}

void jw_key_escaped(struct jw *w, const char *key)
{
	member(w);
	quoted(w, key);
	putch(w, ':');
	w->after_key = true;
}

/*
 * Write a key of the program's own (json_writer.h's jw_key), with no scan
 * for bytes to escape. Every row of --json has some sixty keys, so the
 * scans would add up (docs/performance.md).
 */
void jw_key_plain(struct jw *w, const char *key, size_t n)
{
	member(w);
	if (w->n + n + 3 > sizeof(w->buf))
		flush(w);
	if (n + 3 > sizeof(w->buf)) {
		quoted(w, key);
		putch(w, ':');
	} else {
		char *b = w->buf + w->n;
		b[0] = '"';
		text_copy(b + 1, key, n);
		b[n + 1] = '"';
		b[n + 2] = ':';
		w->n += n + 3;
	}
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
	done(w);
}

void jw_name(struct jw *w, const char *s)
{
	char buf[4 * PATH_MAX];
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		jw_null(w);
		return;
	}
	/*
	 * Most names are ASCII with nothing to escape. Write those as they
	 * are, after one scan, rather than check, copy and scan them again.
	 */
	while (*p && *p < 0x80 && !escape[*p])
		p++;
	if (!*p) {
		value(w);
		putch(w, '"');
		put(w, s, (const char *)p - s);
		putch(w, '"');
		done(w);
		return;
	}
	jw_string(w, utf8_valid(s, buf, sizeof(buf)));
}

/* Digits by hand, in place: a row has some forty numbers, and printf's parsing would be most of their cost. */
static void digits(struct jw *w, uint64_t v)
{
	if (w->n + TEXT_U64_MAX > sizeof(w->buf))
		flush(w);
	w->n = text_u64(w->buf + w->n, v) - w->buf;
}

void jw_u64(struct jw *w, uint64_t v)
{
	value(w);
	digits(w, v);
	done(w);
}

void jw_u64s(struct jw *w, const uint64_t *v, size_t n)
{
	if (w->pretty || !n) {
		/* json-c's layout of an array, a line an element: the general way. */
		jw_array(w);
		for (size_t i = 0; i < n; i++)
			jw_u64(w, v[i]);
		jw_end_array(w);
		return;
	}
	/* Plain: "[a,b,c]" straight (a row has three histograms, ~30 numbers). */
	value(w);
	putch(w, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			putch(w, ',');
		digits(w, v[i]);
	}
	putch(w, ']');
	done(w);
}

void jw_i64(struct jw *w, int64_t v)
{
	value(w);
	if (v < 0)
		putch(w, '-');
	digits(w, v < 0 ? -(uint64_t)v : (uint64_t)v);
	done(w);
}

void jw_double(struct jw *w, double v)
{
	char b[64];

	value(w);
	if (isnan(v))
		putstr(w, "NaN");
	else if (isinf(v))
		putstr(w, v > 0 ? "Infinity" : "-Infinity");
	else if (v == 0 && !signbit(v))
		put(w, "0.0", 3); /* most rows' throttled share: no printf for it */
	else {
		size_t n = fmt_g17(v, b);
		if (!n)
			n = (size_t)snprintf(b, sizeof(b), "%.17g", v);
		if (n >= sizeof(b)) /* never (%.17g is at most 24 bytes): the bound is for the compiler */
			n = sizeof(b) - 1;
		put(w, b, n);
		/* A whole number still reads as a double. */
		if (!memchr(b, '.', n) && !memchr(b, 'e', n))
			put(w, ".0", 2);
	}
	done(w);
}

void jw_bool(struct jw *w, bool v)
{
	value(w);
	putstr(w, v ? "true" : "false");
	done(w);
}

void jw_null(struct jw *w)
{
	value(w);
	putstr(w, "null");
	done(w);
}

void jw_raw(struct jw *w, const char *json)
{
	value(w);
	putstr(w, json);
	done(w);
}
