// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched apply FILE: validate the whole limits file, show old -> new, write, or roll back. */
#include <stdio.h>
#include <string.h>

#include "kernel/cgroupfs.h"
#include "cmd/commands.h"
#include "limits/limits_file.h"
#include "lib/stop.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched apply FILE [--dry-run]\n"
	"Set the CPU limits a limits file names (docs/limits.md): the whole file is\n"
	"checked first (errors name FILE:LINE; nothing is written), the changes are\n"
	"shown (old -> new, per file), then written; if a write fails, what was\n"
	"already changed is restored. Soft caps (soft_max) take effect under\n"
	"'cgsched enforce'.\n"
	"\n"
	"  -n, --dry-run   show the changes, write nothing\n"
	"\n"
	"EXAMPLE\n"
	"  cgsched apply /etc/cgsched/limits.ini --dry-run\n";

static int apply_opt(void *dry, int c, const char *arg)
{
	if (c != 'n')
		return 1;
	*(bool *)dry = true;
	return 0;
}

int cmd_apply(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct limits_file lf;
	struct plan p;
	struct cgfs fs;
	const struct change *bad;
	char err[PATH_MAX + 256];
	bool dry = false;
	const struct cmd_spec spec = { "apply", usage, "nh", longs, apply_opt, &dry, NULL, NULL, 1, "one limits file" };
	int c, first, ret = CGS_EXIT_USAGE;

	if ((c = cmd_parse(&spec, argc, argv, &first)))
		return c;
	if ((c = require_root("writing cgroup files")))
		return c;
	if ((c = cgfs_open_or_explain(&fs)))
		return c;
	if (limits_file_load(argv[first], &fs, &lf, err, sizeof(err))) {
		cgs_err("%s", err);
		goto out_fs;
	}
	if (!dry && cgfs_writable_or_explain(&fs, "apply"))
		goto out_lf;
	if ((c = plan_build(&lf, &fs, NULL, NULL, &p))) {
		cgs_err("%s: cannot read the current limits: %s", argv[first], strerror(-c));
		goto out_lf;
	}
	if (!p.n) {
		printf("%s: every limit is in force already\n", argv[first]);
		ret = 0;
		goto out_plan;
	}
	printf("%s: %zu change%s (cgroup v%d at %s)\n", argv[first], p.n, p.n == 1 ? "" : "s",
	       fs.version, fs.mnt);
	plan_print(stdout, &p);
	if (dry) {
		printf("dry run: nothing written\n");
		ret = 0;
		goto out_plan;
	}
	if ((c = plan_apply(&fs, &p, &cgs_stop, &bad))) {
		char undone[96] = "every change before it was undone";
		if (p.unrestored)
			snprintf(undone, sizeof(undone), "%zu change%s could NOT be undone: check them by hand",
				 p.unrestored, p.unrestored == 1 ? "" : "s");
		if (!bad) {
			cgs_err("%s: stopped by %s while applying; %s", argv[first], stop_name(), undone);
			ret = stop_status();
		} else if (!bad->file[0]) { /* a cgroup to make, with nothing to set */
			char rel[512];
			cgs_err("%s:%d: %s: cannot create it (%s); %s", argv[first], bad->rule ? bad->rule->line : 0,
				text_escape(bad->rel, rel, sizeof(rel)), strerror(-c), undone);
		} else {
			char rel[512];
			cgs_err("%s:%d: %s %s: the kernel refused '%s' (%s); %s", argv[first],
				bad->rule ? bad->rule->line : 0, text_escape(bad->rel, rel, sizeof(rel)), bad->file,
				bad->new, strerror(-c), undone);
		}
		goto out_plan;
	}
	printf("applied\n");
	ret = 0;
out_plan:
	plan_free(&p);
out_lf:
	limits_file_free(&lf);
out_fs:
	cgfs_close(&fs);
	return ret;
}
