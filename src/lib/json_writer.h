/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * JSON written as it is made, straight to a stream, as bpftool's
 * json_writer does. No tree of objects is built in memory, so a large
 * --json output costs its bytes and no more. The text matches json-c's to
 * the byte, plain (one line) or pretty (two spaces a level, an empty
 * container on two lines as json-c has it). The escapes and numbers are
 * the same too; tests/unit/test_json_writer.c holds it to json-c's. So
 * readers and the golden files see no change. json-c stays the reader
 * (check, baselines).
 *
 * Every value is written where the writer stands: after jw_key in an
 * object, or as the next element of an array. jw_k* are a key and its value.
 */
#ifndef CGS_JSON_WRITER_H
#define CGS_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/textput.h"

#define JW_MAX_DEPTH 32

/*
 * The size of the writer's own buffer. Pieces of a few bytes each (a key,
 * a comma, a number) then cost a copy, not a stdio call. The buffer goes
 * to the stream when full, and when a value at the top ends. So text
 * written to the stream between two values stays in its place.
 */
#define JW_BUF 16384

struct jw {
	FILE *f;
	bool pretty;
	bool after_key;              /* a key is written: its value comes next */
	int depth;
	bool had[JW_MAX_DEPTH + 1];  /* the container at each depth has a member already */
	size_t n;                    /* bytes in buf */
	char buf[JW_BUF];
};

void jw_init(struct jw *w, FILE *f, bool pretty);
void jw_object(struct jw *w);
void jw_end_object(struct jw *w);
void jw_array(struct jw *w);
void jw_end_array(struct jw *w);
/* A key of anyone's bytes, escaped as a string. */
void jw_key_escaped(struct jw *w, const char *key);
/* A key of the program's own: n bytes with nothing to escape, written as they are. */
void jw_key_plain(struct jw *w, const char *key, size_t n);
/*
 * Write a key. A literal, whose length is known when compiled, is the
 * program's own text with nothing to escape: no key cgsched spells has a
 * quote, backslash or control byte. Any other key goes through the
 * escapes.
 */
static inline void jw_key(struct jw *w, const char *key)
{
	if (__builtin_constant_p(__builtin_strlen(key)))
		jw_key_plain(w, key, __builtin_strlen(key));
	else
		jw_key_escaped(w, key);
}
/* A string of known bytes (NULL: null). */
void jw_string(struct jw *w, const char *s);
/* A name from the cgroup tree or a task: anyone's bytes, valid UTF-8 always (broken bytes as U+FFFD); NULL: null. */
void jw_name(struct jw *w, const char *s);
void jw_u64(struct jw *w, uint64_t v);
/* An array of n numbers (json-c's text: "[]" for none). */
void jw_u64s(struct jw *w, const uint64_t *v, size_t n);
void jw_i64(struct jw *w, int64_t v);
/* As json-c writes a double: %.17g, ".0" after a whole number, NaN and Infinity by name. */
void jw_double(struct jw *w, double v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* A value already written as JSON text by another writer (one of plain text, for a plain one). */
void jw_raw(struct jw *w, const char *json);

static inline void jw_kstring(struct jw *w, const char *k, const char *s) { jw_key(w, k); jw_string(w, s); }
static inline void jw_kname(struct jw *w, const char *k, const char *s) { jw_key(w, k); jw_name(w, s); }
/*
 * Write a key of the program's own (n bytes, nothing to escape) and its
 * number. Where the text is plain, inside a container, with room, it
 * writes the comma, the key and the digits after one check, with no
 * calls. A row of --json has some sixty of these, so separate calls for
 * comma, key and value would be most of its writing (docs/performance.md).
 * Anywhere else, it takes the general way.
 */
static inline void jw_ku64_plain(struct jw *w, const char *k, size_t n, uint64_t v)
{
	if (!w->pretty && w->depth && !w->after_key && w->n + n + 4 + TEXT_U64_MAX <= JW_BUF) {
		char *b = w->buf + w->n;
		*b = ',';
		b += w->had[w->depth];
		w->had[w->depth] = true;
		*b = '"';
		text_copy(b + 1, k, n);
		b[n + 1] = '"';
		b[n + 2] = ':';
		w->n = text_u64(b + n + 3, v) - w->buf;
		return;
	}
	jw_key_plain(w, k, n);
	jw_u64(w, v);
}
static inline void jw_ku64(struct jw *w, const char *k, uint64_t v)
{
	if (__builtin_constant_p(__builtin_strlen(k)))
		jw_ku64_plain(w, k, __builtin_strlen(k), v);
	else {
		jw_key(w, k);
		jw_u64(w, v);
	}
}
static inline void jw_ki64(struct jw *w, const char *k, int64_t v) { jw_key(w, k); jw_i64(w, v); }
static inline void jw_kdouble(struct jw *w, const char *k, double v) { jw_key(w, k); jw_double(w, v); }
static inline void jw_kbool(struct jw *w, const char *k, bool v) { jw_key(w, k); jw_bool(w, v); }
static inline void jw_knull(struct jw *w, const char *k) { jw_key(w, k); jw_null(w); }
/* A number where there is one, else null (an unlimited quota, no exit status). */
static inline void jw_ku64_or_null(struct jw *w, const char *k, bool ok, uint64_t v)
{
	jw_key(w, k);
	if (ok)
		jw_u64(w, v);
	else
		jw_null(w);
}
static inline void jw_ki64_or_null(struct jw *w, const char *k, bool ok, int64_t v)
{
	jw_key(w, k);
	if (ok)
		jw_i64(w, v);
	else
		jw_null(w);
}
static inline void jw_kdouble_or_null(struct jw *w, const char *k, bool ok, double v)
{
	jw_key(w, k);
	if (ok)
		jw_double(w, v);
	else
		jw_null(w);
}
static inline void jw_kobject(struct jw *w, const char *k) { jw_key(w, k); jw_object(w); }
static inline void jw_karray(struct jw *w, const char *k) { jw_key(w, k); jw_array(w); }

#endif
