/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Every long option without a short form, in one enum: codes from 256 up
 * never meet a short option's character or each other, whichever commands
 * share a parser (record takes check's rules, every tracing command the
 * common options).
 */
#ifndef CGS_OPTIONS_H
#define CGS_OPTIONS_H

#include <getopt.h>
#include <stdint.h>

/* What an option callback (cmd_spec.opt, rules_opt, exporter_opt) made of an option. */
enum opt_result {
	OPT_BAD = -1,     /* its own, with a bad value: the line is printed */
	OPT_TAKEN = 0,    /* its own, taken */
	OPT_NOT_MINE = 1, /* not its own: the next callback's */
};

enum long_opt {
	/* every tracing command (common_opt) */
	OPT_CGROUP = 256, OPT_MAX_CGROUPS, OPT_SCHED_BACKEND, OPT_THROTTLE_BACKEND, OPT_PRIORITY,
	/* several commands, each its own meaning */
	OPT_JSON, OPT_PER_CPU, OPT_METRIC,
	/* check and record --check (rules_opt) */
	OPT_MAX_THR, OPT_MAX_P99, OPT_MIN_CPU, OPT_BASELINE, OPT_MAX_REGR, OPT_CONFIDENCE, OPT_JUNIT, OPT_FORMAT,
	/* record */
	OPT_CPU_MAX, OPT_CPU_WEIGHT, OPT_CPU_BURST, OPT_DEMAND, OPT_NAME, OPT_ATTACH, OPT_PID, OPT_CHECK, OPT_CLEANUP,
	OPT_REPEAT, OPT_WARMUP,
	/* enforce */
	OPT_CONTENTION, OPT_MIN_WAITS, OPT_JOURNAL,
	/* apply */
	OPT_RESTORE,
	/* top */
	OPT_GROUP_BY, OPT_MARK_P99,
	/* advise */
	OPT_MAX_THR_PERIODS, OPT_PERIOD, OPT_NO_BURST, OPT_VERIFY,
	/* top and hist (common_opt, where TASKS_LONG_OPTS lists them) */
	OPT_TASKS, OPT_THREADS, OPT_MAX_TASKS,
	/* top and record (common_opt, where WHY_LONG_OPT lists it) */
	OPT_WHY,
	/* export (cmd_export.c) */
	OPT_NO_CAUSES,
	OPT_CAUSES,
	OPT_NO_DEMAND,
	OPT_ADVISE_TARGET,
	OPT_ADVISE_WINDOW,
	/* export and enforce --listen (exporter_opt, where EXPORT_LONG_OPTS lists them) */
	OPT_LISTEN, OPT_WEB_CONFIG, OPT_GRACE, OPT_TOP_PREEMPTORS, OPT_HEALTH_OPEN, OPT_NO_NAME_LABELS,
	/* top and record (common_opt, where TIMELINE_LONG_OPTS lists them); watch its own --long-wait */
	OPT_TIMELINE, OPT_LONG_WAIT,
	/* watch */
	OPT_KEEP, OPT_MEMORY, OPT_BEFORE, OPT_AFTER, OPT_RATE, OPT_DIR, OPT_MAX_INC, OPT_PID_FILE, OPT_DUMP,
};

/*
 * A duration option's value (bare numbers in unit_ns) into *out, from min to
 * max (0: no bound above); else the line "OPT ARG: expected a duration" and
 * the range as the command words it, and -1.
 */
int opt_duration(const char *opt, const char *arg, uint64_t unit_ns, uint64_t min, uint64_t max,
		 const char *range, uint64_t *out);

#define COMMON_LONG_OPTS                                                       \
	{ "cgroup", required_argument, NULL, OPT_CGROUP },                     \
	{ "max-cgroups", required_argument, NULL, OPT_MAX_CGROUPS },           \
	{ "sched-backend", required_argument, NULL, OPT_SCHED_BACKEND },       \
	{ "throttle-backend", required_argument, NULL, OPT_THROTTLE_BACKEND }, \
	{ "backend", required_argument, NULL, OPT_THROTTLE_BACKEND }, /* its old name */ \
	{ "priority", required_argument, NULL, OPT_PRIORITY },                 \
	{ "verbose", no_argument, NULL, 'v' },                                 \
	{ "help", no_argument, NULL, 'h' }

/* Every tracing command: --priority's help lines (its text in one place). */
#define PRIORITY_HELP                                                                   \
	"      --priority P       run cgsched's own threads at priority P: rt (SCHED_FIFO\n" \
	"                         1), rt:N (SCHED_FIFO N, 1-99) or nice:N (-20 to -1).\n"    \
	"                         A busy machine then cannot starve the output. The\n"      \
	"                         traced tasks and what cgsched starts keep theirs\n"

/* top (--tasks) and hist (--per-task): the drill-down into tasks (common_opt) */
#define TASKS_LONG_OPTS(tasks_name)                                    \
	{ tasks_name, no_argument, NULL, OPT_TASKS },                  \
	{ "threads", no_argument, NULL, OPT_THREADS },                 \
	{ "max-tasks", required_argument, NULL, OPT_MAX_TASKS }

/* top and record: a Perfetto trace of the run */
#define TIMELINE_LONG_OPTS                                         \
	{ "timeline", required_argument, NULL, OPT_TIMELINE },     \
	{ "long-wait", required_argument, NULL, OPT_LONG_WAIT }

#define TIMELINE_HELP                                                                  \
	"      --timeline FILE    also write a Perfetto trace (ui.perfetto.dev): a track\n" \
	"                         per cgroup with its throttle episodes per CPU, its\n"     \
	"                         long waits and its counters\n"                            \
	"      --long-wait DUR    with --timeline: each wait this long or longer is in\n"   \
	"                         the trace, named by what ran meanwhile (default 10ms)\n"

/* top and record: split each wait into its causes */
#define WHY_LONG_OPT { "why", no_argument, NULL, OPT_WHY }

/* export and enforce: the exporter's (exporter_opt) */
#define EXPORT_LONG_OPTS                                                   \
	{ "listen", required_argument, NULL, OPT_LISTEN },                 \
	{ "web-config", required_argument, NULL, OPT_WEB_CONFIG },         \
	{ "grace", required_argument, NULL, OPT_GRACE },                   \
	{ "top-preemptors", required_argument, NULL, OPT_TOP_PREEMPTORS }, \
	{ "health-without-auth", no_argument, NULL, OPT_HEALTH_OPEN },    \
	{ "no-name-labels", no_argument, NULL, OPT_NO_NAME_LABELS }

#define EXPORT_OPTS_HELP                                                                     \
	"      --listen ADDR:PORT serve /metrics there (default " EXPORT_LISTEN_DEFAULT ",\n"      \
	"                         this host only). :PORT serves every address: use it\n"          \
	"                         with --web-config\n"                                            \
	"      --web-config FILE  TLS and basic auth, in the web config format of the\n"          \
	"                         Prometheus exporters (docs/metrics.md)\n"                       \
	"      --grace DUR        keep a removed cgroup's series this long (default 2m)\n"        \
	"      --top-preemptors N the N cgroups that preempt each cgroup most (default 3,\n"      \
	"                         at most 16)\n"                                                  \
	"      --health-without-auth\n"                                                           \
	"                         answer /healthz and /readyz without the passwords of\n"         \
	"                         --web-config, for probes. They tell only ok or why not\n"     \
	"      --no-name-labels   leave kubelet's names (namespace, pod, container, unit)\n"      \
	"                         off the per-cgroup series; cgsched_cgroup_info has them\n"

#define RULES_LONG_OPTS                                                \
	{ "max-throttled-pct", required_argument, NULL, OPT_MAX_THR }, \
	{ "max-runq-p99", required_argument, NULL, OPT_MAX_P99 },      \
	{ "min-cpu-pct", required_argument, NULL, OPT_MIN_CPU },       \
	{ "baseline", required_argument, NULL, OPT_BASELINE },         \
	{ "max-regression", required_argument, NULL, OPT_MAX_REGR },   \
	{ "confidence", required_argument, NULL, OPT_CONFIDENCE },     \
	{ "junit", required_argument, NULL, OPT_JUNIT },               \
	{ "format", required_argument, NULL, OPT_FORMAT }

#endif
