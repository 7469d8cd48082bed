// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdint.h>
#include <string.h>

#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "session/timeline_rec.h"
#include "cmd/rules.h"
#include "exporter/exporter.h"
#include "exporter/http.h"
#include "lib/util.h"

void common_init(struct common_opts *c)
{
	memset(c, 0, sizeof(*c));
	c->so.cgroups = c->cgroups;
	c->so.tc.max_cgroups = 1024;
	c->so.tc.max_task_rows = 4096;
}

int common_timeline_finish(struct common_opts *c)
{
	if (c->long_wait_ns && !c->timeline) {
		cgs_err("--long-wait: only with --timeline FILE (the waits it shows one by one)");
		return CGS_EXIT_USAGE;
	}
	if (c->timeline)
		c->so.tc.long_wait_ns = c->long_wait_ns ? c->long_wait_ns : TIMELINE_LONG_WAIT_DEFAULT_NS;
	return 0;
}

int common_tasks_finish(struct common_opts *c, const char *tasks_opt)
{
	if (c->threads && !c->tasks) {
		cgs_err("--threads: only with %s (per thread instead of per process)", tasks_opt);
		return CGS_EXIT_USAGE;
	}
	c->so.tc.tasks = !c->tasks ? CGS_TASKS_OFF : c->threads ? CGS_TASKS_THREAD : CGS_TASKS_PROCESS;
	return 0;
}

int no_own_options(void *ctx, int c, const char *arg)
{
	return OPT_NOT_MINE;
}

int json_opt(void *json, int c, const char *arg)
{
	if (c != OPT_JSON)
		return OPT_NOT_MINE;
	*(bool *)json = true;
	return OPT_TAKEN;
}

/* 0 taken, -1 bad value (error printed), 1 not a common option. */
static int common_opt(struct common_opts *c, int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case OPT_CGROUP:
		if (c->so.ncgroups == CGS_MAX_FILTERS) {
			cgs_err("at most %d --cgroup options", CGS_MAX_FILTERS);
			return OPT_BAD;
		}
		c->cgroups[c->so.ncgroups++] = arg;
		return OPT_TAKEN;
	case OPT_MAX_CGROUPS:
		if (parse_u64(arg, 16, 1 << 20, &v)) {
			cgs_err("--max-cgroups %s: expected a whole number from 16 to 1048576", arg);
			return OPT_BAD;
		}
		c->so.tc.max_cgroups = v;
		return OPT_TAKEN;
	/* Names checked here: a misspelt one costs nothing (record has made no cgroup yet). */
	case OPT_SCHED_BACKEND:
		if (tracer_check_names(arg, NULL))
			return OPT_BAD;
		c->so.tc.sched_backend = arg;
		return OPT_TAKEN;
	case OPT_THROTTLE_BACKEND:
		if (tracer_check_names(NULL, arg))
			return OPT_BAD;
		c->so.tc.thr_backend = arg;
		return OPT_TAKEN;
	case OPT_PRIORITY: {
		int tid;
		if (priority_parse(arg, &c->so.priority)) {
			cgs_err("--priority %s: expected rt, rt:N (SCHED_FIFO priority 1 to 99) or nice:N (-20 to -1)", arg);
			return OPT_BAD;
		}
		/*
		 * At once, best effort: what comes before the load (the exporter's
		 * TLS and port, cgroupfs) then already runs raised. session_open
		 * sets every thread again and reports a refusal.
		 */
		priority_apply(&c->so.priority, &tid);
		return OPT_TAKEN;
	}
	/* Only commands whose table lists them (top, hist) can get these. */
	case OPT_TASKS:
		c->tasks = true;
		return OPT_TAKEN;
	case OPT_THREADS:
		c->threads = true;
		return OPT_TAKEN;
	case OPT_MAX_TASKS:
		if (parse_u64(arg, 1, 1 << 20, &v)) {
			cgs_err("--max-tasks %s: expected a whole number from 1 to 1048576", arg);
			return OPT_BAD;
		}
		c->so.tc.max_task_rows = v;
		return OPT_TAKEN;
	case OPT_WHY:
		c->so.tc.why = true;
		return OPT_TAKEN;
	case OPT_TIMELINE:
		c->timeline = arg;
		return OPT_TAKEN;
	case OPT_LONG_WAIT:
		return opt_duration("--long-wait", arg, 1000000ULL, 1000ULL, 60000000000ULL,
				    "from 1us to 60s (bare numbers are ms)", &c->long_wait_ns);
	}
	return OPT_NOT_MINE;
}

/*
 * The option getopt stopped at, as the user wrote it. A long one: getopt
 * has stepped past it, so argv[optind - 1] is it ("--help=x", not the
 * "-h" of optopt). A short one: optopt, since while a group ("-xq") is
 * unfinished optind has not moved and argv[optind - 1] is not it.
 */
static const char *typed_option(char **argv, bool moved, char *buf, size_t len)
{
	if (moved && !strncmp(argv[optind - 1], "--", 2))
		snprintf(buf, len, "%s", argv[optind - 1]);
	else if (optopt > 0 && optopt < 256)
		snprintf(buf, len, "-%c", optopt);
	else
		snprintf(buf, len, "%s", argv[optind - 1]);
	return buf;
}

static int bad_option(const char *cmd, char **argv, bool moved)
{
	char o[256];

	cgs_err("%s: bad option '%s'; see 'cgsched %s --help'", cmd, typed_option(argv, moved, o, sizeof(o)), cmd);
	return CGS_EXIT_USAGE;
}

/* An option's name for messages: "-i" where it has a short form, else "--cgroup". */
static const char *option_name(const struct cmd_spec *s, int c, char *buf, size_t len)
{
	bool short_form = c < 256 && strchr(s->shorts, c);

	for (const struct option *l = s->longs; !short_form && l->name; l++)
		if (l->val == c) {
			snprintf(buf, len, "--%s", l->name);
			return buf;
		}
	snprintf(buf, len, "-%c", c);
	return buf;
}

/* Whether option c takes a value: its letter has a ':' after it in shorts, or its long entry says so. */
static bool takes_value(const struct cmd_spec *s, int c)
{
	const char *p;

	if (c < 256 && (p = strchr(s->shorts, c)))
		return p[1] == ':';
	/* A long one, or a letter only a long option has (stat's --method is 'M'). */
	for (const struct option *l = s->longs; l->name; l++)
		if (l->val == c)
			return l->has_arg == required_argument;
	return false;
}

/*
 * --list-options, alone: the options of the table, a line each ("--name",
 * "--name=" when it takes a value, "-x"), for the completion script and
 * the man page's test (dist/): they read the parser's own table.
 */
static void list_options(const struct cmd_spec *s)
{
	for (const struct option *o = s->longs; o->name; o++) {
		/* An old name of an option listed before it (--backend) is taken, not offered. */
		bool alias = false;
		for (const struct option *p = s->longs; p < o && !alias; p++)
			alias = p->val == o->val && !p->flag && !o->flag;
		if (!alias)
			printf("--%s%s\n", o->name, o->has_arg == required_argument ? "=" : "");
	}
	for (const char *p = s->shorts + (s->shorts[0] == '+'); *p; p++)
		if (*p != ':')
			printf("-%c\n", *p);
}

int cmd_parse(const struct cmd_spec *s, int argc, char **argv, int *first)
{
	char shorts[64];
	bool seen[512] = { false };
	int c, r;

	if (argc == 2 && !strcmp(argv[1], "--list-options")) {
		list_options(s);
		exit(0);
	}

	/* A ':' first (after a '+'): a missing value is ':', told apart from an unknown option. */
	snprintf(shorts, sizeof(shorts), "%s:%s", s->shorts[0] == '+' ? "+" : "",
		 s->shorts + (s->shorts[0] == '+'));
	opterr = 0;
	optind = 1;
	for (;;) {
		int before = optind;
		char o[256];

		if ((c = getopt_long(argc, argv, shorts, s->longs, NULL)) == -1)
			break;
		if (c == ':') {
			cgs_err("%s: option '%s' needs a value; see 'cgsched %s --help'", s->name,
				typed_option(argv, optind > before, o, sizeof(o)), s->name);
			return CGS_EXIT_USAGE;
		}
		if (c == '?')
			return bad_option(s->name, argv, optind > before);
		if (c == 'h') {
			fputs(s->usage, stdout);
			exit(0);
		}
		if (c == 'v') {
			cgs_verbose = true;
			continue;
		}
		/*
		 * A value given twice is a mistake either way: "-i 1 ... -i 5" or
		 * two rules for one limit would otherwise keep the last silently.
		 * --cgroup is the one that adds up, and a command's own (s->adds).
		 */
		if (c > 0 && c < (int)sizeof(seen) && c != OPT_CGROUP && c != s->adds && takes_value(s, c)) {
			if (seen[c]) {
				cgs_err("%s: option '%s' given twice; give it once", s->name,
					option_name(s, c, o, sizeof(o)));
				return CGS_EXIT_USAGE;
			}
			seen[c] = true;
		}
		r = OPT_NOT_MINE;
		if (s->rules)
			r = rules_opt(s->rules, c, optarg);
		if (r == OPT_NOT_MINE && s->common)
			r = common_opt(s->common, c, optarg);
		if (r == OPT_NOT_MINE)
			r = s->opt(s->ctx, c, optarg);
		if (r == OPT_BAD)
			return CGS_EXIT_USAGE;
		if (r == OPT_NOT_MINE) { /* in the table, taken by no one: named by the table, argv may hold its value */
			cgs_err("%s: bad option '%s'; see 'cgsched %s --help'", s->name, option_name(s, c, o, sizeof(o)), s->name);
			return CGS_EXIT_USAGE;
		}
	}
	if (s->nargs == 0 && optind < argc) {
		cgs_err("%s: unexpected argument '%s'; see 'cgsched %s --help'", s->name, argv[optind], s->name);
		return CGS_EXIT_USAGE;
	}
	if (s->nargs > 0 && argc - optind != s->nargs) {
		cgs_err("%s: expected %s, got %d; see 'cgsched %s --help'", s->name, s->args, argc - optind,
			s->name);
		return CGS_EXIT_USAGE;
	}
	*first = optind;
	return 0;
}

int exporter_opt(struct exporter_opts *o, int c, const char *arg)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char why[160];

	switch (c) {
	case OPT_LISTEN:
		if (http_parse_listen(arg, &ss, &len, why, sizeof(why))) {
			cgs_err("--listen %s: %s", arg, why);
			return OPT_BAD;
		}
		o->listen = arg;
		return OPT_TAKEN;
	case OPT_WEB_CONFIG:
		o->web_config = arg;
		return OPT_TAKEN;
	case OPT_GRACE:
		return opt_duration("--grace", arg, 1000000000ULL, 0, 86400 * 1000000000ULL,
				    "up to 1 day (e.g. 30s, 2m; bare numbers are seconds)", &o->grace_ns);
	case OPT_TOP_PREEMPTORS:
		if (parse_u64(arg, 0, 16, &o->top_preemptors)) {
			cgs_err("--top-preemptors %s: expected a whole number from 0 to 16", arg);
			return OPT_BAD;
		}
		return OPT_TAKEN;
	case OPT_HEALTH_OPEN:
		o->health_open = true;
		return OPT_TAKEN;
	case OPT_NO_NAME_LABELS:
		o->no_name_labels = true;
		return OPT_TAKEN;
	}
	return OPT_NOT_MINE;
}
