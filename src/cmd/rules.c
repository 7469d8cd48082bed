// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "report/json_out.h"
#include "report/record.h"
#include "cmd/commands.h"
#include "cmd/rules.h"
#include "lib/util.h"

static int parse_pct(const char *s, double max, double *v)
{
	const char *end;

	if (parse_decimal(s, v, &end))
		return -EINVAL;
	if (*end == '%')
		end++;
	if (*end || *v > max)
		return -EINVAL;
	return 0;
}

int rules_opt(struct rules *r, int opt, const char *arg)
{
	switch (opt) {
	case OPT_MAX_THR:
		if (parse_pct(arg, 100, &r->max_thr_pct)) {
			cgs_err("--max-throttled-pct %s: expected a percentage from 0 to 100", arg);
			return -1;
		}
		r->has_thr = true;
		return 0;
	case OPT_MIN_CPU:
		if (parse_pct(arg, 100000, &r->min_cpu_pct)) {
			cgs_err("--min-cpu-pct %s: expected a percentage of one CPU (100 = one CPU)", arg);
			return -1;
		}
		r->has_cpu = true;
		return 0;
	case OPT_MAX_P99:
		if (opt_duration("--max-runq-p99", arg, 1000000ULL, 0, 0, "(bare numbers are ms): 5, 500us, 2ms",
				 &r->max_p99_ns))
			return -1;
		r->has_p99 = true;
		return 0;
	case OPT_BASELINE:
		r->baseline = arg;
		return 0;
	case OPT_MAX_REGR:
		if (parse_pct(arg, 100000, &r->max_regr_pct)) {
			cgs_err("--max-regression %s: expected a percentage (10 = 10%% worse than the baseline)", arg);
			return -1;
		}
		r->has_regr = true;
		return 0;
	}
	return 1;
}

bool rules_any(const struct rules *r)
{
	return r->has_thr || r->has_p99 || r->has_cpu || r->has_regr;
}

int rules_validate(const struct rules *r)
{
	if (!!r->baseline != r->has_regr) {
		cgs_err("--baseline and --max-regression go together: compare against a baseline by a percentage");
		return CGS_EXIT_USAGE;
	}
	return 0;
}

/* A report with 100,000 episodes is ~15 MB; far past that is not a report. */
#define REPORT_MAX (256 << 20)

struct json_object *report_load(const char *path)
{
	struct json_object *o;
	const char *why;
	char *text;
	size_t len;

	if (read_file_bounded(path, REPORT_MAX, &text, &len, &why)) {
		cgs_err("cannot read report %s: %s", path, why);
		return NULL;
	}
	o = report_parse(text, len, path);
	free(text);
	return o;
}

struct json_object *report_parse(const char *text, size_t len, const char *path)
{
	struct json_object *o, *v;
	struct json_tokener *tok;

	if (len > REPORT_MAX) {
		cgs_err("cannot read report %s: too large", path);
		return NULL;
	}
	if (!text[strspn(text, " \t\r\n")]) {
		cgs_err("cannot read report %s: an empty file, not JSON", path);
		return NULL;
	}
	/* Strict JSON (no NaN, Infinity, or trailing junk), the whole file. */
	tok = json_tokener_new();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
	if (o && (json_tokener_get_error(tok) != json_tokener_success ||
		  text[json_tokener_get_parse_end(tok) + strspn(text + json_tokener_get_parse_end(tok), " \t\r\n")])) {
		json_object_put(o);
		o = NULL;
	}
	if (!o)
		cgs_err("cannot read report %s: not JSON (%s)", path,
			tok ? json_tokener_error_desc(json_tokener_get_error(tok)) : "out of memory");
	json_tokener_free(tok);
	if (!o)
		return NULL;
	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, "schema", &v) ||
	    !json_object_is_type(v, json_type_string) || strcmp(json_object_get_string(v), CGS_RECORD_SCHEMA)) {
		cgs_err("%s is not a cgsched record report (schema \"%s\"): make one with 'cgsched record -o'",
			path, CGS_RECORD_SCHEMA);
		json_object_put(o);
		return NULL;
	}
	/*
	 * An integer, exactly: "1", 1.9 or true are not version 1. Version 1
	 * differs only in names check does not read (backend, a row's kernel).
	 */
	if (!json_object_object_get_ex(o, "version", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 1 || json_object_get_int64(v) > CGS_RECORD_VERSION) {
		char got[32];
		snprintf(got, sizeof(got), "%s", v ? json_object_to_json_string(v) : "missing");
		cgs_err("%s: report version %s, not an integer from 1 to %d as this cgsched reads; record it again with this version",
			path, got, CGS_RECORD_VERSION);
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * A figure a rule needs, at "a.b" in a report: a finite number, not below
 * zero, and when it is a count of ns, one that fits 64 bits. Anything else
 * (missing, null, a string, a boolean, an object) is bad input, never 0:
 * a gate must not pass on a report it cannot read.
 */
static int field(struct json_object *o, const char *file, const char *a, const char *b, double *out)
{
	struct json_object *v = NULL;
	char name[64];

	snprintf(name, sizeof(name), "%s%s%s", a, b ? "." : "", b ? b : "");
	if (json_object_object_get_ex(o, a, &v) && b && !(json_object_is_type(v, json_type_object) &&
							   json_object_object_get_ex(v, b, &v)))
		v = NULL;
	if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double))) {
		cgs_err("%s: field %s is %s, not a number; was it written by 'cgsched record -o'?", file, name,
			!v ? "missing" : json_type_to_name(json_object_get_type(v)));
		return -1;
	}
	*out = json_object_get_double(v);
	if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) < 0)
		*out = (double)json_object_get_int64(v);
	if (!isfinite(*out) || *out < 0 || *out > 1.8e19) {
		cgs_err("%s: field %s is %s: out of range", file, name, json_object_to_json_string(v));
		return -1;
	}
	return 0;
}

static int violate(FILE *out, const char *rule, const char *limit, const char *measured)
{
	fprintf(out, "FAIL %s: limit %s, measured %s\n", rule, limit, measured);
	return 1;
}

int rules_eval(const struct rules *r, struct json_object *rep, const char *rep_name, struct json_object *base,
	       const char *base_name, FILE *out)
{
	char l[64], m[64];
	double v, b;
	int n = 0;

	if (r->has_thr) {
		if (field(rep, rep_name, "throttle", "pct", &v))
			return -1;
		snprintf(l, sizeof(l), "%.2f%%", r->max_thr_pct);
		snprintf(m, sizeof(m), "%.2f%%", v);
		if (!(v <= r->max_thr_pct))
			n += violate(out, "max-throttled-pct", l, m);
	}
	if (r->has_p99) {
		if (field(rep, rep_name, "runq", "p99_ns", &v))
			return -1;
		fmt_duration(l, sizeof(l), r->max_p99_ns);
		fmt_duration(m, sizeof(m), (uint64_t)v);
		if (!(v <= r->max_p99_ns))
			n += violate(out, "max-runq-p99", l, m);
	}
	if (r->has_cpu) {
		if (field(rep, rep_name, "cpu_pct", NULL, &v))
			return -1;
		snprintf(l, sizeof(l), "%.2f%%", r->min_cpu_pct);
		snprintf(m, sizeof(m), "%.2f%%", v);
		if (!(v >= r->min_cpu_pct))
			n += violate(out, "min-cpu-pct", l, m);
	}
	if (r->has_regr) {
		/* Each may grow by at most max_regr_pct over the baseline. */
		static const struct {
			const char *rule, *a, *b;
		} m3[] = {
			{ "max-regression wall_ns", "wall_ns", NULL },
			{ "max-regression runq.p99_ns", "runq", "p99_ns" },
			{ "max-regression throttle.ns", "throttle", "ns" },
		};
		for (size_t i = 0; i < ARRAY_SIZE(m3); i++) {
			if (field(base, base_name, m3[i].a, m3[i].b, &b) || field(rep, rep_name, m3[i].a, m3[i].b, &v))
				return -1;
			double lim = b * (1 + r->max_regr_pct / 100.0);
			snprintf(l, sizeof(l), "%.0f (baseline %.0f + %.1f%%)", lim, b, r->max_regr_pct);
			snprintf(m, sizeof(m), "%.0f", v);
			/* A zero baseline allows no growth at all but noise: 1 ms of slack. */
			if (!(v <= lim + (b == 0 ? 1e6 : 0)))
				n += violate(out, m3[i].rule, l, m);
		}
	}
	return n;
}
