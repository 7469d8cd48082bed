/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The commands; each returns the process exit status. */
#ifndef CGS_COMMANDS_H
#define CGS_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/options.h"
#include "session/session.h"

int cmd_top(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_enforce(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_watch(int argc, char **argv);

struct common_opts {
	struct session_opts so;
	const char *cgroups[CGS_MAX_FILTERS + 1];
	bool tasks, threads;          /* top --tasks, hist --per-task; --threads */
	const char *timeline;         /* top and record --timeline FILE */
	uint64_t long_wait_ns;        /* --long-wait; 0: the default */
};

void common_init(struct common_opts *c);
/* After parsing: --long-wait only with --timeline; sets so.long_wait_ns. 0 or CGS_EXIT_USAGE. */
int common_timeline_finish(struct common_opts *c);
/* After parsing: --threads only with the command's tasks option (named in the error); sets so.tasks. */
int common_tasks_finish(struct common_opts *c, const char *tasks_opt);

struct rules;

/* A command's options and what it takes after them: one shape for every command. */
struct cmd_spec {
	const char *name;             /* named in error lines */
	const char *usage;            /* -h, --help: printed, then exit 0 */
	const char *shorts;           /* getopt's string; a leading "+" stops at the first argument */
	const struct option *longs;
	/* The command's own options: an enum opt_result. */
	int (*opt)(void *ctx, int c, const char *arg);
	void *ctx;
	struct common_opts *common;   /* the tracing commands' options (COMMON_LONG_OPTS), or NULL */
	struct rules *rules;          /* check's rules (RULES_LONG_OPTS), or NULL */
	int nargs;                    /* arguments after the options: 0, 1, or -1 for any number */
	const char *args;             /* what they are, for the error line ("one limits file") */
	int adds;                     /* an option of its own that adds up as --cgroup does (watch's -t), or 0 */
};
/*
 * Parse argv by s: -v sets cgs_verbose, -h prints the usage and exits 0, an
 * unknown option or a wrong number of arguments is one line and
 * CGS_EXIT_USAGE. 0 with *first the index of the first argument.
 */
int cmd_parse(const struct cmd_spec *s, int argc, char **argv, int *first);
/* One of EXPORT_LONG_OPTS into o: an enum opt_result. */
struct exporter_opts;
int exporter_opt(struct exporter_opts *o, int c, const char *arg);
/* cmd_spec.opt for a command with no options of its own, and for one with only --json (ctx: a bool). */
int no_own_options(void *ctx, int c, const char *arg);
int json_opt(void *json, int c, const char *arg);

#endif
