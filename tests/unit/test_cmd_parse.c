// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Every command's options go through cmd_parse: one shape, one set of error lines. */
#include <criterion/criterion.h>
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
	}
	return 1;
}

static const struct option longs[] = {
	{ "x", required_argument, NULL, 'x' },
	RULES_LONG_OPTS,
	COMMON_LONG_OPTS,
	{},
};

static int run(int nargs, int argc, char **argv, struct own *o, struct common_opts *co, struct rules *r, int *first)
{
	const struct cmd_spec spec = { "t", "usage\n", "nx:vh", longs, own_opt, o, co, r, nargs, "one file" };

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
