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
	"Check a report of 'cgsched record -o' against limits: exit 0 within them,\n"
	"1 with one line per violated rule (rule, limit, measured), 2 on bad input.\n"
	"\n"
	"  --max-throttled-pct X     throttled share of the wall time at most X%\n"
	"  --max-runq-p99 DUR        run-queue latency p99 at most DUR (bare numbers: ms)\n"
	"  --min-cpu-pct X           on-CPU time at least X% of one CPU per wall second\n"
	"  --baseline OLD.json --max-regression PCT\n"
	"                            wall time, run-queue p99 and throttled time each at\n"
	"                            most PCT% above OLD's\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched check run.json --max-throttled-pct 5 --max-runq-p99 2ms\n"
	"  cgsched check run.json --baseline main.json --max-regression 10\n";

int cmd_check(int argc, char **argv)
{
	static const struct option longs[] = {
		RULES_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct rules r = {};
	struct json_object *rep, *base = NULL;
	int c, n;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		int k = rules_opt(&r, c, optarg);
		if (k < 0)
			return CGS_EXIT_USAGE;
		if (k)
			continue;
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		return bad_option("check", argv);
	}
	if (optind != argc - 1) {
		cgs_err("check: expected one report file, got %d; see 'cgsched check --help'", argc - optind);
		return CGS_EXIT_USAGE;
	}
	if (rules_validate(&r))
		return CGS_EXIT_USAGE;
	if (!rules_any(&r)) {
		cgs_err("check: no rule given; see 'cgsched check --help' for --max-throttled-pct and the others");
		return CGS_EXIT_USAGE;
	}
	if (!(rep = report_load(argv[optind])))
		return CGS_EXIT_USAGE;
	if (r.baseline && !(base = report_load(r.baseline))) {
		json_object_put(rep);
		return CGS_EXIT_USAGE;
	}
	n = rules_eval(&r, rep, argv[optind], base, r.baseline, stdout);
	if (!n)
		printf("ok: %s within every limit\n", argv[optind]);
	json_object_put(rep);
	json_object_put(base);
	return n < 0 ? CGS_EXIT_USAGE : n ? CGS_EXIT_FAIL : 0;
}
