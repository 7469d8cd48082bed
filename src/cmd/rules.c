// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/atomic_file.h"
#include "lib/stats.h"
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
			return OPT_BAD;
		}
		r->has_thr = true;
		return OPT_TAKEN;
	case OPT_MIN_CPU:
		if (parse_pct(arg, 100000, &r->min_cpu_pct)) {
			cgs_err("--min-cpu-pct %s: expected a percentage of one CPU (100 = one CPU)", arg);
			return OPT_BAD;
		}
		r->has_cpu = true;
		return OPT_TAKEN;
	case OPT_MAX_P99:
		if (opt_duration("--max-runq-p99", arg, 1000000ULL, 0, 0, "(bare numbers are ms): 5, 500us, 2ms",
				 &r->max_p99_ns))
			return OPT_BAD;
		r->has_p99 = true;
		return OPT_TAKEN;
	case OPT_BASELINE:
		r->baseline = arg;
		return OPT_TAKEN;
	case OPT_MAX_REGR:
		if (parse_pct(arg, 100000, &r->max_regr_pct)) {
			cgs_err("--max-regression %s: expected a percentage (10 = 10%% worse than the baseline)", arg);
			return OPT_BAD;
		}
		r->has_regr = true;
		return OPT_TAKEN;
	case OPT_CONFIDENCE:
		if (parse_pct(arg, 99.99, &r->confidence) || r->confidence < 50) {
			cgs_err("--confidence %s: expected a percentage from 50 to 99.99 (95 = a 5%% chance of a false alarm)", arg);
			return OPT_BAD;
		}
		r->confidence /= 100;
		r->has_conf = true;
		return OPT_TAKEN;
	case OPT_JUNIT: {
		const char *why;
		if (output_path_check(arg, &why)) {
			cgs_err("--junit %s: cannot write there (%s)", arg, why);
			return OPT_BAD;
		}
		r->junit = arg;
		return OPT_TAKEN;
	}
	case OPT_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "github")) {
			cgs_err("--format %s: expected text or github (GitHub Actions' annotations)", arg);
			return OPT_BAD;
		}
		r->format = strcmp(arg, "text") ? RULES_GITHUB : RULES_TEXT;
		return OPT_TAKEN;
	}
	return OPT_NOT_MINE;
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
	if ((tok = json_tokener_new()))
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
		goto fail;
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
		goto fail;
	}
	return o;
fail:
	json_object_put(o);
	return NULL;
}

/*
 * A figure a rule needs, at "a.b" in a report: a finite number, not below
 * zero, and when it is a count of ns, one that fits 64 bits. Anything else
 * (missing, null, a string, a boolean, an object) is bad input, never 0:
 * a gate must not pass on a report it cannot read.
 */
static int number(struct json_object *v, const char *file, const char *name, double *out)
{
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

static int field(struct json_object *o, const char *file, const char *a, const char *b, double *out)
{
	struct json_object *v = NULL;
	char name[64];

	snprintf(name, sizeof(name), "%s%s%s", a, b ? "." : "", b ? b : "");
	if (json_object_object_get_ex(o, a, &v) && b && !(json_object_is_type(v, json_type_object) &&
							   json_object_object_get_ex(v, b, &v)))
		v = NULL;
	return number(v, file, name, out);
}

/* What became of a rule: its name and a line of figures. */
struct verdict {
	char rule[64];
	bool ok, shown;             /* shown: printed in text even when ok (a comparison of repeats) */
	char text[320];
};

struct verdicts {
	struct verdict v[8];
	size_t n;
};

static int verdict(struct verdicts *vs, const char *rule, bool ok, bool shown, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int verdict(struct verdicts *vs, const char *rule, bool ok, bool shown, const char *fmt, ...)
{
	struct verdict *v = &vs->v[vs->n++];
	va_list ap;

	snprintf(v->rule, sizeof(v->rule), "%s", rule);
	v->ok = ok;
	v->shown = shown;
	va_start(ap, fmt);
	vsnprintf(v->text, sizeof(v->text), fmt, ap);
	va_end(ap);
	return !ok;
}

/*
 * The runs of a report of repeated runs: figure name of each of
 * repeat.per_run, into *v (malloc'd; *n 0 and *v NULL: not such a report).
 * -1 after the one error line when it is there and malformed.
 */
static int runs_of(struct json_object *o, const char *file, const char *name, double **v, size_t *n)
{
	struct json_object *rep, *runs;

	*v = NULL;
	*n = 0;
	if (!json_object_object_get_ex(o, "repeat", &rep) || json_object_is_type(rep, json_type_null))
		return 0;
	if (!json_object_object_get_ex(rep, "per_run", &runs) || !json_object_is_type(runs, json_type_array) ||
	    !json_object_array_length(runs)) {
		cgs_err("%s: field repeat.per_run is not an array of runs; was it written by 'cgsched record --repeat'?", file);
		return -1;
	}
	size_t len = json_object_array_length(runs);
	if (!(*v = malloc(len * sizeof(**v)))) {
		cgs_err("%s: out of memory", file);
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		struct json_object *run = json_object_array_get_idx(runs, i), *x = NULL;
		char at[80];
		snprintf(at, sizeof(at), "repeat.per_run[%zu].%s", i, name);
		if (!json_object_is_type(run, json_type_object) || !json_object_object_get_ex(run, name, &x))
			x = NULL;
		if (number(x, file, at, &(*v)[i]))
			goto fail;
	}
	*n = len;
	return 0;
fail:
	free(*v);
	*v = NULL;
	return -1;
}

/* A figure a limit is on: the median of the runs where the report has them, else the run's. */
static int gated(struct json_object *o, const char *file, const char *a, const char *b, const char *run_name,
		 double *out, size_t *runs)
{
	double *v;

	if (runs_of(o, file, run_name, &v, runs))
		return -1;
	if (!*runs)
		return field(o, file, a, b, out);
	*out = stat_median(v, *runs);
	free(v);
	return 0;
}

static void of_runs(char *buf, size_t n, size_t runs)
{
	if (runs)
		snprintf(buf, n, " (median of %zu runs)", runs);
	else
		*buf = 0;
}

/* Each may grow by at most max_regr_pct over the baseline. */
static const struct {
	const char *rule, *a, *b, *run;
} regr[] = {
	{ "max-regression wall_ns", "wall_ns", NULL, "wall_ns" },
	{ "max-regression runq.p99_ns", "runq", "p99_ns", "runq_p99_ns" },
	{ "max-regression throttle.ns", "throttle", "ns", "thr_ns" },
};

/*
 * Both with repeated runs: a regression is a change larger than the limit
 * that the rank-sum test says is unlikely to be noise at the confidence.
 * The change is the Hodges-Lehmann shift over the baseline's median.
 */
static int regress_runs(const struct rules *r, struct verdicts *vs, size_t i, const double *b, size_t nb,
			const double *v, size_t nv)
{
	struct stat_shift sh;
	double conf = r->has_conf ? r->confidence : 0.95, alpha = 1 - conf;
	char m0[16], m1[16], lo[24], hi[24], ch[24];

	int err = stat_compare(b, nb, v, nv, conf, &sh);
	if (err) {
		cgs_err("%s: cannot compare %zu and %zu runs: %s", regr[i].rule, nb, nv, strerror(-err));
		return -1;
	}
	double med = stat_median(b, nb), now = stat_median(v, nv);
	bool sure = sh.p_greater < alpha, big;
	fmt_duration(m0, sizeof(m0), (uint64_t)med);
	fmt_duration(m1, sizeof(m1), (uint64_t)now);
	if (med > 0) {
		/* Percentages of the baseline's median. */
		double pct = 100 * sh.shift / med;
		big = pct > r->max_regr_pct;
		snprintf(ch, sizeof(ch), "%+.1f%%", pct);
		snprintf(lo, sizeof(lo), "%+.1f%%", 100 * sh.lo / med);
		snprintf(hi, sizeof(hi), "%+.1f%%", 100 * sh.hi / med);
	} else {
		/* A zero baseline: as for single runs, 1 ms of slack. */
		big = sh.shift > 1e6;
		fmt_duration(ch, sizeof(ch), sh.shift > 0 ? (uint64_t)sh.shift : 0);
		fmt_duration(lo, sizeof(lo), sh.lo > 0 ? (uint64_t)sh.lo : 0);
		fmt_duration(hi, sizeof(hi), sh.hi > 0 ? (uint64_t)sh.hi : 0);
	}
	return verdict(vs, regr[i].rule, !(big && sure), true,
		       "change %s [%s, %s] (%.1f%% interval), p %.2g %s %.2g; limit +%.1f%%; median %s, baseline %s; %zu and %zu runs",
		       ch, lo, hi, 100 * sh.coverage, sh.p_greater, sure ? "<" : ">=", alpha, r->max_regr_pct, m1, m0, nv,
		       nb);
}

static int evaluate(const struct rules *r, struct json_object *rep, const char *rep_name, struct json_object *base,
		    const char *base_name, struct verdicts *vs)
{
	char l[64], m[64], o[48];
	size_t runs, nb, nv;
	double v, b, lim, *bs = NULL, *vs_ = NULL;
	int k, n = 0;

	if (r->has_thr) {
		if (gated(rep, rep_name, "throttle", "pct", "thr_pct", &v, &runs))
			return -1;
		of_runs(o, sizeof(o), runs);
		snprintf(l, sizeof(l), "%.2f%%", r->max_thr_pct);
		snprintf(m, sizeof(m), "%.2f%%", v);
		n += verdict(vs, "max-throttled-pct", v <= r->max_thr_pct, false, "limit %s, measured %s%s", l, m, o);
	}
	if (r->has_p99) {
		if (gated(rep, rep_name, "runq", "p99_ns", "runq_p99_ns", &v, &runs))
			return -1;
		of_runs(o, sizeof(o), runs);
		fmt_duration(l, sizeof(l), r->max_p99_ns);
		fmt_duration(m, sizeof(m), (uint64_t)v);
		n += verdict(vs, "max-runq-p99", v <= r->max_p99_ns, false, "limit %s, measured %s%s", l, m, o);
	}
	if (r->has_cpu) {
		if (gated(rep, rep_name, "cpu_pct", NULL, "cpu_pct", &v, &runs))
			return -1;
		of_runs(o, sizeof(o), runs);
		snprintf(l, sizeof(l), "%.2f%%", r->min_cpu_pct);
		snprintf(m, sizeof(m), "%.2f%%", v);
		n += verdict(vs, "min-cpu-pct", v >= r->min_cpu_pct, false, "limit %s, measured %s%s", l, m, o);
	}
	for (size_t i = 0; r->has_regr && i < ARRAY_SIZE(regr); i++) {
		if (runs_of(base, base_name, regr[i].run, &bs, &nb) || runs_of(rep, rep_name, regr[i].run, &vs_, &nv)) {
			n = -1;
			goto out;
		}
		/* Two runs or more on both sides: distributions; else one figure against one. */
		if (nb >= 2 && nv >= 2) {
			k = regress_runs(r, vs, i, bs, nb, vs_, nv);
			free(bs);
			free(vs_);
			bs = vs_ = NULL;
			if (k < 0) {
				n = -1;
				goto out;
			}
			n += k;
			continue;
		}
		free(bs);
		free(vs_);
		bs = vs_ = NULL;
		if (field(base, base_name, regr[i].a, regr[i].b, &b) || field(rep, rep_name, regr[i].a, regr[i].b, &v)) {
			n = -1;
			goto out;
		}
		lim = b * (1 + r->max_regr_pct / 100.0);
		snprintf(l, sizeof(l), "%.0f (baseline %.0f + %.1f%%)", lim, b, r->max_regr_pct);
		snprintf(m, sizeof(m), "%.0f", v);
		/* A zero baseline allows no growth at all but noise: 1 ms of slack. */
		n += verdict(vs, regr[i].rule, v <= lim + (b == 0 ? 1e6 : 0), false, "limit %s, measured %s", l, m);
	}
out:
	free(bs);
	free(vs_);
	return n;
}

/* GitHub Actions' workflow commands: %, CR and LF escaped in a message; also : and , in a property. */
static void gh_escape(FILE *out, const char *s, bool property)
{
	for (; *s; s++) {
		if (*s == '%')
			fputs("%25", out);
		else if (*s == '\r')
			fputs("%0D", out);
		else if (*s == '\n')
			fputs("%0A", out);
		else if (property && *s == ':')
			fputs("%3A", out);
		else if (property && *s == ',')
			fputs("%2C", out);
		else
			fputc(*s, out);
	}
}

static void xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* XML 1.0 has no place for other control characters. */
			fputc((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' ? '?' : *s, f);
		}
	}
}

/* One test case per rule, in a suite named for the report; whole or not at all. */
static int write_junit(const char *path, const struct verdicts *vs, const char *rep_name, int failed)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -ENOMEM;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cgsched check\" tests=\"%zu\" failures=\"%d\">\n",
		vs->n, failed);
	fputs("  <testsuite name=\"", f);
	xml_escape(f, rep_name);
	fprintf(f, "\" tests=\"%zu\" failures=\"%d\">\n", vs->n, failed);
	for (size_t i = 0; i < vs->n; i++) {
		const struct verdict *v = &vs->v[i];
		fputs("    <testcase classname=\"cgsched.check\" name=\"", f);
		xml_escape(f, v->rule);
		fputs("\">\n", f);
		fputs(v->ok ? "      <system-out>" : "      <failure type=\"cgsched check\" message=\"", f);
		xml_escape(f, v->text);
		fputs(v->ok ? "</system-out>\n" : "\"/>\n", f);
		fputs("    </testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	if (fclose(f)) {
		err = -ENOMEM;
		goto out;
	}
	err = atomic_file_put(path, buf, len, 0644, false);
out:
	free(buf);
	return err;
}

int rules_eval(const struct rules *r, struct json_object *rep, const char *rep_name, struct json_object *base,
	       const char *base_name, FILE *out)
{
	struct verdicts vs = { .n = 0 };
	int n = evaluate(r, rep, rep_name, base, base_name, &vs);

	if (n < 0)
		return -1;
	for (size_t i = 0; i < vs.n; i++) {
		const struct verdict *v = &vs.v[i];
		if (r->format == RULES_GITHUB) {
			if (v->ok && !v->shown)
				continue;
			fprintf(out, "::%s title=", v->ok ? "notice" : "error");
			gh_escape(out, "cgsched check ", true);
			gh_escape(out, v->rule, true);
			fputs("::", out);
			gh_escape(out, v->text, false);
			gh_escape(out, " (", false);
			gh_escape(out, rep_name, false);
			fputs(")\n", out);
		} else if (!v->ok || v->shown) {
			fprintf(out, "%s %s: %s\n", v->ok ? "ok" : "FAIL", v->rule, v->text);
		}
	}
	if (r->junit) {
		int err = write_junit(r->junit, &vs, rep_name, n);
		if (err) {
			cgs_err("--junit %s: cannot write there (%s)", r->junit, strerror(-err));
			return -1;
		}
	}
	return n;
}
