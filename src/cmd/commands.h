/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The commands; each returns the process exit status. */
#ifndef CGS_COMMANDS_H
#define CGS_COMMANDS_H

#include <stdbool.h>

#include "cmd/options.h"
#include "cmd/session.h"

int cmd_top(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_enforce(int argc, char **argv);

struct common_opts {
	struct session_opts so;
	const char *cgroups[CGS_MAX_FILTERS + 1];
};

void common_init(struct common_opts *c);
/* 1: handled, 0: not a common option, -1: bad value (error printed). */
int common_opt(struct common_opts *c, int opt, const char *arg);
/* The one line for an unknown option (call from getopt's default case) or a stray argument. */
int bad_option(const char *cmd, char **argv);
int stray_argument(const char *cmd, char **argv);

#endif
