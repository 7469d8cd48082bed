// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched: how the Linux scheduler treats each cgroup. The command table. */
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "lib/stop.h"
#include "lib/util.h"


static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	bool stops; /* watches cgs_stop: SIGINT/SIGTERM end it cleanly; else they kill it */
	const char *what;
} commands[] = {
	{ "top", cmd_top, true, "a table per interval: CPU%, run-queue latency, switches (default)" },
	{ "hist", cmd_hist, true, "run-queue latency histograms per cgroup, runqlat's layout" },
	{ "record", cmd_record, true, "run a command in a new cgroup under tracing, like perf stat" },
	{ "check", cmd_check, false, "CI gates on a record report: exit 1 when a limit is passed" },
	{ "advise", cmd_advise, false, "the cpu.max and burst that meet a throttling target, from a record" },
	{ "apply", cmd_apply, true, "set the CPU limits a limits file names; undone if a write fails" },
	{ "enforce", cmd_enforce, true, "keep a limits file in force: new groups, changed values, soft caps" },
	{ "export", cmd_export, true, "serve every cgroup's figures on /metrics for Prometheus (a daemon)" },
	{ "watch", cmd_watch, true, "a flight recorder: writes out the last minutes when a trigger fires" },
	{ "stat", cmd_stat, false, "the kernel's bandwidth figures of every cgroup: quota, throttling" },
	{ "probe", cmd_probe, false, "which backends this kernel accepts, and where the cpu controller is" },
};

static void usage(FILE *f)
{
	fputs("Usage: cgsched [COMMAND] [OPTIONS]\n"
	      "How the Linux scheduler treats each cgroup of the cpu controller.\n\nCommands:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
	fputs("\n'cgsched COMMAND --help' for a command's options. Needs root.\n"
	      "\nEXAMPLES\n"
	      "  cgsched top                           # who waits and who is throttled now\n"
	      "  cgsched top --why                     # why each cgroup waited\n"
	      "  cgsched record --attach /system.slice/web.service --demand -d 10m -o web.json\n"
	      "  cgsched advise web.json               # the cpu.max that meets the target\n"
	      "  cgsched record -o run.json -- make -j2 # trace a benchmark\n", f);
}

int main(int argc, char **argv)
{
	const struct command *cmd = &commands[0];

	/* First: a stop asked for at any moment from here on is seen. */
	stop_init(true);
	cgs_t0_ns = now_ns();
	/*
	 * Every refresh builds its snapshots and rows afresh: megabytes with
	 * thousands of cgroups. glibc would hand such blocks back to the kernel
	 * (mmap/trim) and fault them in, zeroed, again on the next refresh.
	 * Keep them in the heap instead; the high-water mark stays bounded by
	 * --max-cgroups (docs/performance.md, "Why the code is as it is").
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	if (argc > 1 && argv[1][0] != '-') {
		cmd = NULL;
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
			if (!strcmp(argv[1], commands[i].name))
				cmd = &commands[i];
		if (!cmd) {
			cgs_err("unknown command '%s'; see 'cgsched --help'", argv[1]);
			return CGS_EXIT_USAGE;
		}
		argc--;
		argv++;
	} else if (argc > 1 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	} else if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("cgsched %s\n", CGS_VERSION);
		return 0;
	} else if (argc == 2 && !strcmp(argv[1], "--list-commands")) {
		/* For the completion script (dist/cgsched.bash): the table, a name a line. */
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
			puts(commands[i].name);
		return 0;
	}
	if (!cmd->stops) {
		stop_init(false);
		if (cgs_stop)
			return stop_status();
	}
	/* Commands see themselves as argv[0] ("top"), so getopt starts at 1. */
	return cmd->run(argc, argv);
}
