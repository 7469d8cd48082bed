// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched check: CI gates on a record report. */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "cmd/rules.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched check REPORT.json RULES...\n"
	"Check a report of 'cgsched record -o' against limits. Exit 0 within them,\n"
	"1 with one line per broken rule (rule, limit, measured), 2 on bad input.\n"
	"A report of repeated runs (record --repeat) is held to the limits by its\n"
	"medians.\n"
	"\n"
	"  --max-throttled-pct X  throttled share of the wall time at most X%\n"
	"  --max-runq-p99 DUR     run-queue latency p99 at most DUR (bare numbers: ms)\n"
	"  --min-cpu-pct X        on-CPU time at least X% of one CPU per wall second\n"
	"  --baseline OLD.json --max-regression PCT\n"
	"                         wall time, run-queue p99 and throttled time each at\n"
	"                         most PCT% above OLD's. When both reports were made\n"
	"                         with --repeat, a regression is a change over PCT%\n"
	"                         that the rank-sum test finds unlikely to be noise.\n"
	"                         Each is shown with its interval (docs/ci.md)\n"
	"  --confidence PCT       the confidence of that test and of the intervals\n"
	"                         (default 95)\n"
	"  --junit FILE           also write a JUnit XML file: a test case per rule\n"
	"  --format text|github   github: print GitHub Actions annotations instead of\n"
	"                         the lines\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched check run.json --max-throttled-pct 5 --max-runq-p99 2ms\n"
	"  cgsched check run.json --baseline main.json --max-regression 10\n"
	"  cgsched check new.json --baseline main.json --max-regression 5 \\\n"
	"      --junit check.xml --format github\n";

int cmd_check(int argc, char **argv)
{
	static const struct option longs[] = {
		RULES_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct rules r = {};
	const struct cmd_spec spec = {
		.name = "check",
		.usage = usage,
		.shorts = "h",
		.longs = longs,
		.opt = no_own_options,
		.rules = &r,
		.nargs = 1,
		.args = "one report file",
	};
	struct json_object *rep = NULL, *base = NULL;
	int first, n, ret = CGS_EXIT_USAGE;

	if ((n = cmd_parse(&spec, argc, argv, &first)))
		return n;
	if (rules_validate(&r))
		return CGS_EXIT_USAGE;
	if (r.has_conf && !r.has_regr) {
		cgs_err("--confidence goes with --baseline: how sure a regression must be before it fails");
		return CGS_EXIT_USAGE;
	}
	if (!rules_any(&r)) {
		cgs_err("check: no rule given; see 'cgsched check --help' for --max-throttled-pct and the others");
		return CGS_EXIT_USAGE;
	}
	if (!(rep = report_load(argv[first])))
		return CGS_EXIT_USAGE;
	if (r.baseline && !(base = report_load(r.baseline)))
		goto out;
	n = rules_eval(&r, rep, argv[first], base, r.baseline, stdout);
	if (!n)
		printf("ok: %s within every limit\n", argv[first]);
	ret = n < 0 ? CGS_EXIT_USAGE : n ? CGS_EXIT_FAIL : 0;
out:
	json_object_put(rep);
	json_object_put(base);
	return ret;
}
