// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Every command's options go through cmd_parse: one shape, one set of error lines. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/rules.h"
#include "lib/util.h"

struct own {
	int n;
	const char *val;
};

static int own_opt(void *ctx, int c, const char *arg)
{
	struct own *o = ctx;

	switch (c) {
	case 'n':
		o->n++;
		return 0;
	case 'x':
		if (strcmp(arg, "ok"))
			return -1;
		o->val = arg;
		return 0;
	case 'M': /* a letter no short option has, as stat's --method */
		o->val = arg;
		return 0;
	}
	return 1;
}

static const struct option longs[] = {
	{ "x", required_argument, NULL, 'x' },
	{ "method", required_argument, NULL, 'M' },
	RULES_LONG_OPTS,
	COMMON_LONG_OPTS,
	{},
};

static int run(int nargs, int argc, char **argv, struct own *o, struct common_opts *co, struct rules *r, int *first)
{
	const struct cmd_spec spec = { "t", "usage\n", "nx:vh", longs, own_opt, o, co, r, nargs, "one file", 0 };

	return cmd_parse(&spec, argc, argv, first);
}

Test(cmd_parse, takes_own_common_and_rule_options)
{
	char *argv[] = { "t", "-n", "-x", "ok", "--cgroup", "/a", "--max-throttled-pct", "5", "-nv", "f", NULL };
	struct own o = {};
	struct common_opts co;
	struct rules r = {};
	int first = -1;

	common_init(&co);
	cr_assert_eq(run(1, 10, argv, &o, &co, &r, &first), 0);
	cr_assert_eq(o.n, 2);
	cr_assert_str_eq(o.val, "ok");
	cr_assert_eq(co.so.ncgroups, 1);
	cr_assert(r.has_thr);
	cr_assert(cgs_verbose);
	cr_assert_eq(first, 9);
}

Test(cmd_parse, refuses_with_exit_2)
{
	struct own o = {};
	struct common_opts co;
	struct rules r = {};
	int first;
	char *unknown[] = { "t", "-z", "f", NULL };
	char *missing[] = { "t", "f", "-x", NULL };
	char *missing_long[] = { "t", "f", "--cgroup", NULL };
	char *bad_value[] = { "t", "-x", "no", "f", NULL };
	char *bad_rule[] = { "t", "--max-throttled-pct", "200", "f", NULL };
	char *two[] = { "t", "f", "g", NULL };
	char *none[] = { "t", NULL };

	common_init(&co);
	cr_assert_eq(run(1, 3, unknown, &o, &co, &r, &first), CGS_EXIT_USAGE);
	cr_assert_eq(run(1, 3, missing, &o, &co, &r, &first), CGS_EXIT_USAGE);
	cr_assert_eq(run(1, 3, missing_long, &o, &co, &r, &first), CGS_EXIT_USAGE);
	cr_assert_eq(run(1, 4, bad_value, &o, &co, &r, &first), CGS_EXIT_USAGE);
	cr_assert_eq(run(1, 4, bad_rule, &o, &co, &r, &first), CGS_EXIT_USAGE);
	cr_assert_eq(run(1, 3, two, &o, &co, &r, &first), CGS_EXIT_USAGE);
	cr_assert_eq(run(1, 1, none, &o, &co, &r, &first), CGS_EXIT_USAGE);
	cr_assert_eq(run(0, 3, two, &o, &co, &r, &first), CGS_EXIT_USAGE, "no arguments taken: a stray one");
	cr_assert_eq(run(-1, 3, two, &o, &co, &r, &first), 0, "any number");
	cr_assert_eq(first, 1);
}

/* Options of another command's kind are not this one's: no common options without common. */
Test(cmd_parse, only_the_kinds_given)
{
	char *argv[] = { "t", "--cgroup", "/a", "f", NULL };
	struct own o = {};
	int first;

	cr_assert_eq(run(1, 4, argv, &o, NULL, NULL, &first), CGS_EXIT_USAGE);
}

Test(cmd_parse, help_exits_0, .exit_code = 0)
{
	char *argv[] = { "t", "-h", NULL };
	struct own o = {};
	int first;

	run(1, 2, argv, &o, NULL, NULL, &first);
	cr_assert_fail("-h should have exited");
}

/* A value given twice is refused, whichever its spelling; --cgroup adds up, flags may repeat. */
Test(cmd_parse, a_value_twice_refused)
{
	struct own o = {};
	struct common_opts co;
	struct rules r = {};
	int first;
	char *own[] = { "t", "-x", "ok", "-x", "ok", "f", NULL };
	char *long_only[] = { "t", "--method", "a", "--method=b", "f", NULL };
	char *rule[] = { "t", "--max-throttled-pct", "5", "--max-throttled-pct", "50", "f", NULL };
	char *both_names[] = { "t", "--backend", "tracepoint", "--throttle-backend", "tracepoint", "f", NULL };
	char *cgroups[] = { "t", "--cgroup", "/a", "--cgroup", "/b", "-n", "-n", "f", NULL };

	common_init(&co);
	cr_assert_eq(run(1, 6, own, &o, &co, &r, &first), CGS_EXIT_USAGE);
	cr_assert_eq(run(1, 5, long_only, &o, &co, &r, &first), CGS_EXIT_USAGE);
	cr_assert_eq(run(1, 6, rule, &o, &co, &r, &first), CGS_EXIT_USAGE);
	cr_assert_eq(run(1, 6, both_names, &o, &co, &r, &first), CGS_EXIT_USAGE);
	common_init(&co);
	cr_assert_eq(run(1, 8, cgroups, &o, &co, &r, &first), 0);
	cr_assert_eq(co.so.ncgroups, 2);
}

/* Error lines name the option as it was written, whichever getopt reports. */
static void say(char **argv, int argc)
{
	struct own o = {};
	struct common_opts co;
	struct rules r = {};
	int first;

	common_init(&co);
	cr_assert_eq(run(1, argc, argv, &o, &co, &r, &first), CGS_EXIT_USAGE);
	fflush(stderr);
}

Test(cmd_parse, names_a_flag_given_a_value, .init = cr_redirect_stderr)
{
	say((char *[]){ "t", "f", "--help=x", NULL }, 3); /* getopt's optopt would say -h */
	cr_assert_stderr_eq_str("cgsched: error: t: bad option '--help=x'; see 'cgsched t --help'\n");
}

Test(cmd_parse, names_a_long_option_without_its_value, .init = cr_redirect_stderr)
{
	say((char *[]){ "t", "f", "--method", NULL }, 3);
	cr_assert_stderr_eq_str("cgsched: error: t: option '--method' needs a value; see 'cgsched t --help'\n");
}

Test(cmd_parse, names_the_short_option_in_a_group, .init = cr_redirect_stderr)
{
	say((char *[]){ "t", "--cgroup", "/a", "-nz", "f", NULL }, 5);
	cr_assert_stderr_eq_str("cgsched: error: t: bad option '-z'; see 'cgsched t --help'\n");
}

Test(cmd_parse, names_a_repeated_option_by_its_long_name, .init = cr_redirect_stderr)
{
	say((char *[]){ "t", "--method", "a", "f", "--method", "b", NULL }, 6);
	cr_assert_stderr_eq_str("cgsched: error: t: option '--method' given twice; give it once\n");
}

/* A misspelt backend is refused while parsing: record has made no cgroup yet. */
Test(cmd_parse, backend_names_checked_at_once)
{
	struct own o = {};
	struct common_opts co;
	int first;
	char *sched[] = { "t", "--sched-backend", "bogus", "f", NULL };
	char *thr[] = { "t", "--throttle-backend", "kprobes", "f", NULL };
	char *ok[] = { "t", "--sched-backend", "raw_tp", "--throttle-backend", "tracepoint", "f", NULL };

	common_init(&co);
	cr_assert_eq(run(1, 4, sched, &o, &co, NULL, &first), CGS_EXIT_USAGE);
	cr_assert_eq(run(1, 4, thr, &o, &co, NULL, &first), CGS_EXIT_USAGE);
	common_init(&co);
	cr_assert_eq(run(1, 6, ok, &o, &co, NULL, &first), 0);
	cr_assert_str_eq(co.so.tc.thr_backend, "tracepoint");
}

/* An empty report is said to be empty, not "not JSON (continue)". */
Test(report, empty_is_named, .init = cr_redirect_stderr)
{
	cr_assert_null(report_parse("", 0, "r.json"));
	cr_assert_null(report_parse(" \n", 2, "r.json"));
	fflush(stderr);
	cr_assert_stderr_eq_str("cgsched: error: cannot read report r.json: an empty file, not JSON\n"
				"cgsched: error: cannot read report r.json: an empty file, not JSON\n");
}

/* A command's own option that adds up (watch's -t): given twice, taken twice. */
Test(cmd_parse, an_option_that_adds_up)
{
	struct own o = {};
	char *argv[] = { "t", "-x", "ok", "--x", "ok", NULL };
	const struct cmd_spec spec = { "t", "usage\n", "nx:vh", longs, own_opt, &o, NULL, NULL, 0, NULL, 'x' };
	int first;

	cr_assert_eq(cmd_parse(&spec, 5, argv, &first), 0, "-x given twice, as the command says it adds up");
	cr_assert_str_eq(o.val, "ok");
}
