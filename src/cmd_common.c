// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdint.h>
#include <string.h>

#include "commands.h"
#include "util.h"

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
	case OPT_BACKEND:
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
	/* getopt has stepped past the bad option (and past its value, if any). */
	const char *o = argv[optind - 1];

	if (optopt && o[0] == '-' && o[1] != '-' && strlen(o) > 2)
		cgs_err("%s: bad option '-%c' in '%s'; see 'cgsched %s --help'", cmd, optopt, o, cmd);
	else
		cgs_err("%s: bad option '%s'; see 'cgsched %s --help'", cmd, o, cmd);
	return CGS_EXIT_USAGE;
}

int stray_argument(const char *cmd, char **argv)
{
	cgs_err("%s: unexpected argument '%s'; see 'cgsched %s --help'", cmd, argv[optind], cmd);
	return CGS_EXIT_USAGE;
}
