// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "json_out.h"
#include "record.h"
#include "rules.h"
#include "util.h"

static int parse_pct(const char *s, double max, double *v)
{
	char *end;

	if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return -EINVAL;
	*v = strtod(s, &end);
	if (*end == '%')
		end++;
	if (*end || !isfinite(*v) || *v > max)
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
		return 1;
	case OPT_MIN_CPU:
		if (parse_pct(arg, 100000, &r->min_cpu_pct)) {
			cgs_err("--min-cpu-pct %s: expected a percentage of one CPU (100 = one CPU)", arg);
			return -1;
		}
		r->has_cpu = true;
		return 1;
	case OPT_MAX_P99:
		if (parse_duration_ns(arg, 1000000, &r->max_p99_ns)) {
			cgs_err("--max-runq-p99 %s: expected a duration (bare numbers are ms): 5, 500us, 2ms", arg);
			return -1;
		}
		r->has_p99 = true;
		return 1;
	case OPT_BASELINE:
		r->baseline = arg;
		return 1;
	case OPT_MAX_REGR:
		if (parse_pct(arg, 100000, &r->max_regr_pct)) {
			cgs_err("--max-regression %s: expected a percentage (10 = 10%% worse than the baseline)", arg);
			return -1;
		}
		r->has_regr = true;
		return 1;
	}
	return 0;
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

struct json_object *report_load(const char *path)
{
	struct json_object *o = json_object_from_file(path), *v;

	if (!o) {
		char why[256];
		cgs_err("cannot read report %s: %s", path, json_last_error(why, sizeof(why)));
		return NULL;
	}
	if (!json_object_object_get_ex(o, "schema", &v) ||
	    strcmp(json_object_get_string(v), CGS_RECORD_SCHEMA)) {
		cgs_err("%s is not a cgsched record report (schema \"%s\"): make one with 'cgsched record -o'",
			path, CGS_RECORD_SCHEMA);
		json_object_put(o);
		return NULL;
	}
	if (!json_object_object_get_ex(o, "version", &v) ||
	    json_object_get_int(v) != CGS_RECORD_VERSION) {
		cgs_err("%s: report version %s, this cgsched reads version %d; record it again with this version",
			path, v ? json_object_get_string(v) : "missing", CGS_RECORD_VERSION);
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* A number at "a.b" in a report; NAN when missing. */
static double num(struct json_object *o, const char *a, const char *b)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, a, &v))
		return NAN;
	if (b && !json_object_object_get_ex(v, b, &v))
		return NAN;
	return json_object_get_type(v) == json_type_null ? NAN : json_object_get_double(v);
}

static int violate(FILE *out, const char *rule, const char *limit, const char *measured)
{
	fprintf(out, "FAIL %s: limit %s, measured %s\n", rule, limit, measured);
	return 1;
}

int rules_eval(const struct rules *r, struct json_object *rep, struct json_object *base, FILE *out)
{
	char l[64], m[64];
	int n = 0;

	if (r->has_thr) {
		double v = num(rep, "throttle", "pct");
		snprintf(l, sizeof(l), "%.2f%%", r->max_thr_pct);
		snprintf(m, sizeof(m), "%.2f%%", v);
		if (!(v <= r->max_thr_pct))
			n += violate(out, "max-throttled-pct", l, m);
	}
	if (r->has_p99) {
		double v = num(rep, "runq", "p99_ns");
		fmt_duration(l, sizeof(l), r->max_p99_ns);
		fmt_duration(m, sizeof(m), isnan(v) ? 0 : (uint64_t)v);
		if (!(v <= r->max_p99_ns))
			n += violate(out, "max-runq-p99", l, m);
	}
	if (r->has_cpu) {
		double v = num(rep, "cpu_pct", NULL);
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
		for (size_t i = 0; i < sizeof(m3) / sizeof(m3[0]); i++) {
			double b = num(base, m3[i].a, m3[i].b), v = num(rep, m3[i].a, m3[i].b);
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
