// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdint.h>
#include <string.h>

#include "cmd/commands.h"
#include "lib/util.h"

void common_init(struct common_opts *c)
{
	memset(c, 0, sizeof(*c));
	c->so.cgroups = c->cgroups;
	c->so.max_cgroups = 1024;
}

int common_opt(struct common_opts *c, int opt, const char *arg)
{
	uint64_t v;

	switch (opt) {
	case OPT_CGROUP:
		if (c->so.ncgroups == CGS_MAX_FILTERS) {
			cgs_err("at most %d --cgroup options", CGS_MAX_FILTERS);
			return -1;
		}
		c->cgroups[c->so.ncgroups++] = arg;
		return 1;
	case OPT_MAX_CGROUPS:
		if (parse_u64(arg, 16, 1 << 20, &v)) {
			cgs_err("--max-cgroups %s: expected a whole number from 16 to 1048576", arg);
			return -1;
		}
		c->so.max_cgroups = v;
		return 1;
	case OPT_SCHED_BACKEND:
		c->so.sched_backend = arg;
		return 1;
	case OPT_THROTTLE_BACKEND:
		c->so.thr_backend = arg;
		return 1;
	case 'v':
		cgs_verbose = true;
		return 1;
	}
	return 0;
}

int bad_option(const char *cmd, char **argv)
{
	/*
	 * A short option: getopt names it in optopt, and argv[optind - 1] is
	 * not it while a group ("-xq") is unfinished. A long one: getopt has
	 * stepped past it (and past its value, if any).
	 */
	if (optopt > 0 && optopt < 256)
		cgs_err("%s: bad option '-%c'; see 'cgsched %s --help'", cmd, optopt, cmd);
	else
		cgs_err("%s: bad option '%s'; see 'cgsched %s --help'", cmd, argv[optind - 1], cmd);
	return CGS_EXIT_USAGE;
}

int stray_argument(const char *cmd, char **argv)
{
	cgs_err("%s: unexpected argument '%s'; see 'cgsched %s --help'", cmd, argv[optind], cmd);
	return CGS_EXIT_USAGE;
}
