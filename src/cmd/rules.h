/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* CI gates on a record report: the rules of `cgsched check` and `record --check`. */
#ifndef CGS_RULES_H
#define CGS_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cmd/options.h"

struct json_object;

enum rules_format { RULES_TEXT, RULES_GITHUB };

struct rules {
	bool has_thr, has_p99, has_cpu, has_regr, has_conf;
	double max_thr_pct, min_cpu_pct, max_regr_pct;
	double confidence;          /* --confidence, as a fraction (0.95) */
	uint64_t max_p99_ns;
	const char *baseline;
	const char *junit;          /* --junit FILE: a JUnit XML test case per rule */
	enum rules_format format;   /* --format: the lines, or GitHub Actions' annotations */
};

/* 0: taken, 1: not a rule option, -1: bad value (error printed); cmd_parse calls it. */
int rules_opt(struct rules *r, int opt, const char *arg);
bool rules_any(const struct rules *r);
/* Options that only make sense together; 0 or CGS_EXIT_USAGE (error printed). */
int rules_validate(const struct rules *r);
/* Load a record report and check its schema and version; NULL after printing the one error line. */
struct json_object *report_load(const char *path);
/* The same from text (len bytes, NUL-terminated), named path in messages. */
struct json_object *report_parse(const char *text, size_t len, const char *path);
/*
 * Evaluate; one line per violated rule on out ("FAIL rule: limit L, measured M"),
 * and where both reports hold repeated runs, one per regression rule, ok
 * or not, with the change and its interval; --format github writes
 * annotations instead, --junit the file. Returns the number of violations,
 * or -1 after the one error line when a figure a rule needs is missing or
 * not a number (named with its file), or the JUnit file cannot be written.
 * A report of repeated runs is gated by its medians.
 */
int rules_eval(const struct rules *r, struct json_object *report, const char *report_name,
	       struct json_object *baseline, const char *baseline_name, FILE *out);

#endif
