// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched watch's triggers (trigger.h). */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "lib/cgname.h"
#include "lib/util.h"
#include "watch/trigger.h"

static const struct {
	const char *name;
	enum trig_metric m;
	double max;              /* the largest limit that makes sense */
	const char *expect;
} rules[] = {
	{ "max-runq-p99", TRIG_P99, 3600e9, "a duration from 1us to 1h (e.g. 5ms; a bare number is ms)" },
	{ "max-throttled-pct", TRIG_THR_PCT, 100, "a percentage from 0 to 100" },
	{ "max-throttled-run", TRIG_THR_RUN, 1e6, "a whole number of periods, at least 1" },
	{ "max-psi-some-pct", TRIG_PSI_SOME, 100, "a percentage from 0 to 100" },
	{ "max-behind-one-pct", TRIG_BEHIND_ONE, 100, "a percentage from 0 to 100" },
};

const char *trigger_rule_name(enum trig_metric m)
{
	for (size_t i = 0; i < ARRAY_SIZE(rules); i++)
		if (rules[i].m == m)
			return rules[i].name;
	return "?";
}

static int parse_which(const char *w, struct trigger *t, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		enum trig_sel sel;
	} keys[] = { { "unit=", SEL_UNIT }, { "pod=", SEL_POD }, { "container=", SEL_CONTAINER } };

	t->sel = SEL_PATH;
	for (size_t i = 0; i < ARRAY_SIZE(keys) && t->sel == SEL_PATH; i++) {
		size_t n = strlen(keys[i].key);
		if (!strncmp(w, keys[i].key, n)) {
			t->sel = keys[i].sel;
			w += n;
		}
	}
	if (t->sel == SEL_PATH && w[0] != '/') {
		snprintf(err, errlen, "after '@': a cgroup path glob (/...), unit=, pod= or container=");
		return -1;
	}
	if (!*w || strlen(w) >= sizeof(t->pattern)) {
		snprintf(err, errlen, "after '@': a pattern of 1 to %zu characters", sizeof(t->pattern) - 1);
		return -1;
	}
	strcpy(t->pattern, w);
	return 0;
}

int trigger_parse(const char *arg, struct trigger *t, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '='), *at;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (strlen(arg) >= sizeof(t->text)) {
		snprintf(err, errlen, "longer than %zu characters", sizeof(t->text) - 1);
		return -1;
	}
	strcpy(t->text, arg);
	for (i = 0; eq && i < ARRAY_SIZE(rules); i++)
		if (strlen(rules[i].name) == (size_t)(eq - arg) && !strncmp(arg, rules[i].name, eq - arg))
			break;
	if (!eq || i == ARRAY_SIZE(rules)) {
		snprintf(err, errlen, "expected RULE=LIMIT[@WHICH], RULE one of max-runq-p99, max-throttled-pct, "
				      "max-throttled-run, max-psi-some-pct, max-behind-one-pct");
		return -1;
	}
	t->m = rules[i].m;
	char val[64];
	at = strchr(eq + 1, '@');
	size_t vl = at ? (size_t)(at - eq - 1) : strlen(eq + 1);
	if (!vl || vl >= sizeof(val)) {
		snprintf(err, errlen, "no limit: expected %s", rules[i].expect);
		return -1;
	}
	memcpy(val, eq + 1, vl);
	val[vl] = '\0';
	if (t->m == TRIG_P99) {
		uint64_t ns;
		if (parse_duration_ns(val, 1000000ULL, &ns) || ns < 1000 || ns > 3600000000000ULL) {
			snprintf(err, errlen, "the limit %s: expected %s", val, rules[i].expect);
			return -1;
		}
		t->limit = (double)ns;
	} else if (t->m == TRIG_THR_RUN) {
		uint64_t n;
		if (parse_u64(val, 1, 1000000, &n)) {
			snprintf(err, errlen, "the limit %s: expected %s", val, rules[i].expect);
			return -1;
		}
		t->limit = (double)n;
	} else {
		const char *end;
		double v;
		if (parse_decimal(val, &v, &end) || *end || v > rules[i].max) {
			snprintf(err, errlen, "the limit %s: expected %s", val, rules[i].expect);
			return -1;
		}
		t->limit = v;
	}
	return at ? parse_which(at + 1, t, err, errlen) : 0;
}

static bool glob(const char *pattern, const char *s, int flags)
{
	return *s && !fnmatch(pattern, s, flags);
}

bool trigger_selects(const struct trigger *t, const char *path, const struct cgname *who)
{
	switch (t->sel) {
	case SEL_ALL:
		return true;
	case SEL_PATH:
		return path && glob(t->pattern, path, FNM_PATHNAME);
	case SEL_UNIT:
		return who && glob(t->pattern, who->unit, 0);
	case SEL_POD:
		return who && (glob(t->pattern, who->pod_name, 0) || glob(t->pattern, who->pod_uid, 0));
	case SEL_CONTAINER:
		return who && (glob(t->pattern, who->container_name, 0) || glob(t->pattern, who->container, 0));
	}
	return false;
}

bool trigger_fires(const struct trigger *t, const struct trig_figures *f, double *value)
{
	switch (t->m) {
	case TRIG_P99:
		*value = f->p99_ns;
		return f->has_runq && f->p99_ns > t->limit;
	case TRIG_THR_PCT:
		*value = f->thr_pct;
		return f->thr_pct > t->limit;
	case TRIG_THR_RUN:
		*value = (double)f->run;
		return f->has_run && (double)f->run >= t->limit;
	case TRIG_PSI_SOME:
		*value = f->psi_some_pct;
		return f->has_psi && f->psi_some_pct > t->limit;
	case TRIG_BEHIND_ONE:
		*value = f->behind_one_pct;
		return f->has_why && f->behind_one_pct > t->limit;
	case TRIG__COUNT:
		break;
	}
	return false;
}

const char *trigger_value_text(const struct trigger *t, double v, char *buf, size_t n)
{
	if (t->m == TRIG_P99)
		return fmt_duration(buf, n, (uint64_t)v);
	if (t->m == TRIG_THR_RUN)
		snprintf(buf, n, "%.0f periods in a row", v);
	else
		snprintf(buf, n, "%.1f%%", v);
	return buf;
}

bool triggers_need(const struct trigger *t, size_t n, enum trig_metric m)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].m == m)
			return true;
	return false;
}
