/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cgsched watch's triggers: a rule in check's words and which cgroups it
 * watches, "RULE=LIMIT[@WHICH]":
 *   max-runq-p99=5ms          run-queue p99 of an interval over 5 ms
 *   max-throttled-pct=20      throttled (its own quota) over 20 % of an interval
 *   max-throttled-run=5       5 or more of its quota's periods throttled in a row
 *   max-psi-some-pct=10       the kernel's PSI "some" of its cpu.pressure over 10 % (v2)
 *   max-behind-one-pct=50     over half its tasks' waits behind one other cgroup
 * WHICH: a path glob (as in limit files: "*" stays within one level), or
 * unit=GLOB, pod=GLOB (name or UID), container=GLOB (name or id); none:
 * every cgroup. Pure: parsed and evaluated on figures given.
 */
#ifndef CGS_TRIGGER_H
#define CGS_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cgname;

enum trig_metric { TRIG_P99, TRIG_THR_PCT, TRIG_THR_RUN, TRIG_PSI_SOME, TRIG_BEHIND_ONE, TRIG__COUNT };
enum trig_sel { SEL_ALL, SEL_PATH, SEL_UNIT, SEL_POD, SEL_CONTAINER };

struct trigger {
	enum trig_metric m;
	double limit;            /* ns (p99), percent, or periods (run) */
	enum trig_sel sel;
	char pattern[256];
	char text[320];          /* as given: named in incidents */
};

/* What a row measured in an interval; has_*: the figure exists (a quota's grid, --why, v2's PSI). */
struct trig_figures {
	double p99_ns;
	bool has_runq;           /* it waited at all */
	double thr_pct;
	uint64_t run;            /* its quota's throttled periods in a row, up to now */
	bool has_run;
	double psi_some_pct;
	bool has_psi;
	double behind_one_pct;
	bool has_why;
};

/* Parse arg into t: 0, or -1 with why (for the one error line) in err. */
int trigger_parse(const char *arg, struct trigger *t, char *err, size_t errlen);
/* Whether t watches the cgroup at path (its names in who, NULL: none). */
bool trigger_selects(const struct trigger *t, const char *path, const struct cgname *who);
/* Whether the figures break t's limit; *value: the measured one (in t's unit). */
bool trigger_fires(const struct trigger *t, const struct trig_figures *f, double *value);
/* "max-runq-p99", ... */
const char *trigger_rule_name(enum trig_metric m);
/* A value in the rule's unit, for people: "7.2ms", "34.1%", "6 periods". */
const char *trigger_value_text(const struct trigger *t, double v, char *buf, size_t n);
/* Whether any of the n triggers needs --why's figures / the kernel's PSI / the period grid. */
bool triggers_need(const struct trigger *t, size_t n, enum trig_metric m);

#endif
