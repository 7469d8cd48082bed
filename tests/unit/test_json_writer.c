// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The streaming writer (lib/json_writer.c) writes json-c's text to the
 * byte: the same document built as json-c objects and printed by json-c,
 * plain and pretty, is the reference. Readers of --json and the golden
 * files must see no change.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/json_writer.h"

static const char *jc(struct json_object *o, bool pretty)
{
	return json_object_to_json_string_ext(o, (pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN) |
						 JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* What fill(w) writes. */
static char *written(void (*fill)(struct jw *w, void *arg), void *arg, bool pretty)
{
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct jw w;

	cr_assert_not_null(f);
	jw_init(&w, f, pretty);
	fill(&w, arg);
	fclose(f);
	return buf;
}

static void one_string(struct jw *w, void *s)
{
	jw_string(w, s);
}

Test(json_writer, every_byte_escaped_as_json_c)
{
	char s[8];

	for (int c = 1; c < 256; c++) {
		snprintf(s, sizeof(s), "a%cb", c);
		struct json_object *o = json_object_new_string(s);
		char *got = written(one_string, s, false);
		cr_assert_str_eq(got, jc(o, false), "byte 0x%02x", c);
		free(got);
		json_object_put(o);
	}
	const char *mixed = "/sys/fs/cgroup/\"x\"\\y\n\t\x01\x7f caf\xc3\xa9";
	struct json_object *o = json_object_new_string(mixed);
	char *got = written(one_string, (void *)mixed, false);
	cr_assert_str_eq(got, jc(o, false));
	free(got);
	json_object_put(o);
}

static void one_double(struct jw *w, void *v)
{
	jw_double(w, *(double *)v);
}

Test(json_writer, doubles_as_json_c)
{
	double v[] = { 0, -0.0, 1, -1, 25, 25.5, 0.1, 1.0 / 3, 1e21, 1e22, 1e-7, 123456789012345678.0, 1795262815.5,
		       99.99999999999999, 100, 1e300, DBL_MAX, DBL_MIN, 5e-324, NAN, INFINITY, -INFINITY };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct json_object *o = json_object_new_double(v[i]);
		char *got = written(one_double, &v[i], false);
		cr_assert_str_eq(got, jc(o, false), "%.17g", v[i]);
		free(got);
		json_object_put(o);
	}
}

/* A document with every kind of value, nested, empty containers included. */
static struct json_object *dom(void)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array(), *in = json_object_new_object();

	json_object_object_add(o, "u", json_object_new_uint64(UINT64_MAX));
	json_object_object_add(o, "i", json_object_new_int64(INT64_MIN));
	json_object_object_add(o, "n", json_object_new_int(-7));
	json_object_object_add(o, "zero", json_object_new_uint64(0));
	json_object_object_add(o, "d", json_object_new_double(2.5));
	json_object_object_add(o, "t", json_object_new_boolean(1));
	json_object_object_add(o, "f", json_object_new_boolean(0));
	json_object_object_add(o, "null", NULL);
	json_object_object_add(o, "empty_object", json_object_new_object());
	json_object_object_add(o, "empty_array", json_object_new_array());
	json_object_array_add(a, json_object_new_uint64(1));
	json_object_array_add(a, NULL);
	json_object_array_add(a, json_object_new_string("x"));
	json_object_object_add(in, "deep", json_object_new_array());
	json_object_array_add(json_object_object_get(in, "deep"), json_object_new_object());
	json_object_array_add(a, in);
	json_object_array_add(a, json_object_new_array());
	json_object_object_add(o, "a", a);
	struct json_object *nums = json_object_new_array();
	json_object_array_add(nums, json_object_new_uint64(3));
	json_object_array_add(nums, json_object_new_uint64(0));
	json_object_array_add(nums, json_object_new_uint64(UINT64_MAX));
	json_object_object_add(o, "nums", nums);
	json_object_object_add(o, "no_nums", json_object_new_array());
	json_object_object_add(o, "last", json_object_new_string("end"));
	return o;
}

static void doc(struct jw *w, void *arg)
{
	(void)arg;
	jw_object(w);
	jw_ku64(w, "u", UINT64_MAX);
	jw_ki64(w, "i", INT64_MIN);
	jw_ki64(w, "n", -7);
	jw_ku64(w, "zero", 0);
	jw_kdouble(w, "d", 2.5);
	jw_kbool(w, "t", true);
	jw_kbool(w, "f", false);
	jw_knull(w, "null");
	jw_kobject(w, "empty_object");
	jw_end_object(w);
	jw_karray(w, "empty_array");
	jw_end_array(w);
	jw_karray(w, "a");
	jw_u64(w, 1);
	jw_null(w);
	jw_string(w, "x");
	jw_object(w);
	jw_karray(w, "deep");
	jw_object(w);
	jw_end_object(w);
	jw_end_array(w);
	jw_end_object(w);
	jw_array(w);
	jw_end_array(w);
	jw_end_array(w);
	static const uint64_t nums[] = { 3, 0, UINT64_MAX };
	jw_key(w, "nums");
	jw_u64s(w, nums, 3);
	jw_key(w, "no_nums");
	jw_u64s(w, NULL, 0);
	jw_kstring(w, "last", "end");
	jw_end_object(w);
}

Test(json_writer, structure_plain_and_pretty_as_json_c)
{
	struct json_object *o = dom();

	for (int pretty = 0; pretty < 2; pretty++) {
		char *got = written(doc, NULL, pretty);
		cr_assert_str_eq(got, jc(o, pretty), "pretty=%d", pretty);
		free(got);
	}
	json_object_put(o);
}

static void bad_name(struct jw *w, void *arg)
{
	jw_name(w, arg);
}

/* Anyone's bytes in a name: valid UTF-8 out, a broken byte as U+FFFD; NULL as null. */
Test(json_writer, names_valid_utf8)
{
	char *got = written(bad_name, "a\xff" "b", false);
	cr_assert_str_eq(got, "\"a\xef\xbf\xbd" "b\"");
	free(got);
	got = written(bad_name, NULL, false);
	cr_assert_str_eq(got, "null");
	free(got);
}

/* Names that skip the check (ASCII, nothing to escape) and names that take it: the same text as a string. */
Test(json_writer, names_plain_and_escaped_as_strings)
{
	const char *names[] = { "/sys/fs/cgroup/cpu/a.slice", "", "/q\"uo\\te", "/t\tab\x01", "/caf\xc3\xa9", "\x7f" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *got = written(bad_name, (void *)names[i], false);
		char *want = written(one_string, (void *)names[i], false);
		cr_assert_str_eq(got, want, "name %zu", i);
		free(got);
		free(want);
	}
}

static void keys(struct jw *w, void *arg)
{
	const char *k = arg;

	jw_object(w);
	jw_key(w, "literal");     /* its length known when compiled: written as it is */
	jw_u64(w, 1);
	jw_key(w, k);             /* not known: escaped */
	jw_u64(w, 2);
	jw_key_plain(w, "plain", 5);
	jw_u64(w, 3);
	jw_end_object(w);
}

/* A literal key and one of anyone's bytes each as json-c writes it. */
Test(json_writer, literal_and_runtime_keys_as_json_c)
{
	char k[] = "a\"b\\c\n";
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "literal", json_object_new_int(1));
	json_object_object_add(o, k, json_object_new_int(2));
	json_object_object_add(o, "plain", json_object_new_int(3));
	for (int pretty = 0; pretty < 2; pretty++) {
		char *got = written(keys, k, pretty);
		cr_assert_str_eq(got, jc(o, pretty), "pretty=%d", pretty);
		free(got);
	}
	json_object_put(o);
}

/* Numbers of every length and keys of every length (the copies' and digits' paths), past the buffer's end. */
static uint64_t edge_num(int i)
{
	/* 10^k - 1, 10^k, 10^k + 1 for every k, then 2^k for every k */
	if (i < 60) {
		uint64_t p = 1;
		for (int k = 0; k < i / 3 && p <= UINT64_MAX / 10; k++)
			p *= 10;
		return p + (i % 3) - 1;
	}
	return i - 60 < 64 ? 1ULL << (i - 60) : UINT64_MAX;
}

/* Key i of round rep in key (room for 200), no two alike; returns its length. */
static int edge_key(char *key, int rep, int i)
{
	int n = 1 + (i * 7 + rep) % 199;

	for (int k = 0; k < n; k++)
		key[k] = 'a' + (k + i + rep) % 26;
	key[n] = 0;
	key[0] = '0' + rep;
	key[1 % n] = 'A' + i % 26;
	if (n > 2)
		key[2] = 'a' + i / 26;
	return n;
}

/*
 * Which members are unsigned: they go through the one-piece key and number
 * (jw_ku64_plain), the first member too (no comma); the others apart.
 */
static bool edge_unsigned(int rep, int i)
{
	return (i & 1) || !(rep | i);
}

static void lengths(struct jw *w, void *arg)
{
	char key[200];

	(void)arg;
	jw_object(w);
	for (int rep = 0; rep < 8; rep++) { /* ~40 KB: the 16 KB buffer is flushed on the way */
		for (int i = 0; i < 125; i++) {
			int n = edge_key(key, rep, i);
			if (edge_unsigned(rep, i)) {
				jw_ku64_plain(w, key, n, edge_num(i));
			} else {
				jw_key_plain(w, key, n);
				jw_i64(w, -(int64_t)(edge_num(i) >> 1));
			}
		}
	}
	jw_end_object(w);
}

Test(json_writer, numbers_and_keys_of_every_length_as_json_c)
{
	struct json_object *o = json_object_new_object();
	char key[200];

	for (int rep = 0; rep < 8; rep++) {
		for (int i = 0; i < 125; i++) {
			edge_key(key, rep, i);
			json_object_object_add(o, key, edge_unsigned(rep, i)
							       ? json_object_new_uint64(edge_num(i))
							       : json_object_new_int64(-(int64_t)(edge_num(i) >> 1)));
		}
	}
	for (int pretty = 0; pretty < 2; pretty++) {
		char *got = written(lengths, NULL, pretty);
		cr_assert_gt(strlen(got), 16384);
		cr_assert_str_eq(got, jc(o, pretty), "pretty %d", pretty);
		free(got);
	}
	json_object_put(o);
}
