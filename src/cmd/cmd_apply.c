// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cgsched apply FILE: validate the whole limits file, show old -> new, write,
 * or roll back. apply --restore JOURNAL: put back what a killed enforce's
 * journal holds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kernel/cgroupfs.h"
#include "cmd/commands.h"
#include "cmd/journal_restore.h"
#include "limits/journal.h"
#include "limits/limits_file.h"
#include "lib/stop.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched apply FILE [--dry-run]\n"
	"       cgsched apply --restore JOURNAL [--dry-run]\n"
	"Set the CPU limits that a limits file names (docs/limits.md). The whole\n"
	"file is checked first: errors name FILE:LINE, and nothing is written. The\n"
	"changes are shown (old -> new, per file), then written. If a write fails,\n"
	"what was already changed is put back. Soft caps (soft_max) take effect\n"
	"under 'cgsched enforce'.\n"
	"\n"
	"--restore puts back the values that a killed enforce had changed (killed\n"
	"by SIGKILL, the OOM killer or a power cut). It reads them from enforce's\n"
	"journal. The whole journal is checked first: a bad one means exit 2, and\n"
	"nothing written. Cgroups gone since are skipped. The values are written\n"
	"newest first, then the journal is removed. A journal of an earlier boot is\n"
	"removed unused, since its cgroups went at shutdown. 'cgsched enforce' does\n"
	"all this itself when it starts.\n"
	"\n"
	"  -n, --dry-run          show the changes, write nothing\n"
	"      --restore JOURNAL  put back the values in enforce's journal. enforce\n"
	"                         keeps it in " JOURNAL_DEFAULT ",\n"
	"                         unless its --journal names another\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched apply /etc/cgsched/limits.ini --dry-run\n"
	"  cgsched apply --restore " JOURNAL_DEFAULT "\n";

struct apply_opts {
	bool dry;
	const char *restore;
};

static int apply_opt(void *ctx, int c, const char *arg)
{
	struct apply_opts *o = ctx;

	if (c == OPT_RESTORE) {
		o->restore = arg;
		return OPT_TAKEN;
	}
	if (c != 'n')
		return OPT_NOT_MINE;
	o->dry = true;
	return OPT_TAKEN;
}

static void say_plain(void *ctx, bool item, const char *line)
{
	char esc[4 * (2 * PATH_MAX + 256)];

	printf("%s%s\n", item ? "  " : "", text_escape(line, esc, sizeof(esc)));
}

/* apply --restore JOURNAL: under the journal's lock, so never beside a running enforce. */
static int restore(const char *path, bool dry)
{
	struct cgfs fs;
	long holder;
	bool found;
	int fd, r;

	if ((r = require_root("writing cgroup files")))
		return r;
	/* Before the lock, which would leave PATH.lock beside a journal that is not there. */
	if (access(path, F_OK)) {
		cgs_err("--restore %s: %s", path, errno == ENOENT ? "no such journal (enforce removes it after a clean exit)"
								 : strerror(errno));
		return CGS_EXIT_USAGE;
	}
	if ((r = cgfs_open_or_explain(&fs)))
		return r;
	if ((fd = journal_lock(path, &holder)) < 0) {
		if (fd == -EBUSY)
			cgs_err("--restore %s: cgsched enforce (pid %ld) is running with this journal: stop it "
				"(SIGTERM restores the values itself)", path, holder);
		else if (fd == -EPERM)
			cgs_err("--restore %s: %s.lock is %s", path, path, JOURNAL_LOCK_UNSAFE);
		else
			cgs_err("--restore %s: cannot lock it (%s.lock): %s", path, path, strerror(-fd));
		r = CGS_EXIT_USAGE;
		goto out;
	}
	r = journal_restore(path, &fs, dry, &found, say_plain, NULL);
	if (!found) {
		cgs_err("--restore %s: no such journal (enforce removes it after a clean exit)", path);
		r = CGS_EXIT_USAGE;
	}
out:
	if (fd >= 0)
		close(fd);
	cgfs_close(&fs);
	return r;
}

int cmd_apply(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "restore", required_argument, NULL, OPT_RESTORE },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct limits_file lf = {};
	struct plan p = {};
	struct cgfs fs;
	const struct change *bad;
	char err[PATH_MAX + 256];
	struct apply_opts o = {};
	const struct cmd_spec spec = {
		.name = "apply",
		.usage = usage,
		.shorts = "nh",
		.longs = longs,
		.opt = apply_opt,
		.ctx = &o,
		.nargs = -1,
	};
	int c, first, ret = CGS_EXIT_USAGE;
	bool dry;

	if ((c = cmd_parse(&spec, argc, argv, &first)))
		return c;
	if (o.restore) {
		if (first < argc) {
			cgs_err("apply: --restore takes a journal, not a limits file ('%s'); see 'cgsched apply --help'", argv[first]);
			return CGS_EXIT_USAGE;
		}
		return restore(o.restore, o.dry);
	}
	if (argc - first != 1) {
		cgs_err("apply: expected one limits file, got %d; see 'cgsched apply --help'", argc - first);
		return CGS_EXIT_USAGE;
	}
	dry = o.dry;
	if ((c = require_root("writing cgroup files")))
		return c;
	if ((c = cgfs_open_or_explain(&fs)))
		return c;
	if (limits_file_load(argv[first], &fs, &lf, err, sizeof(err))) {
		cgs_err("%s", err);
		goto out;
	}
	if (!dry && cgfs_writable_or_explain(&fs, "apply"))
		goto out;
	if ((c = plan_build(&lf, &fs, NULL, NULL, &p))) {
		if (c == -EOPNOTSUPP)
			cgs_err("%s: burst: this kernel has no CFS burst control (no %s; Linux 5.14 added it): remove the burst keys",
				argv[first], fs.version == 1 ? "cpu.cfs_burst_us" : "cpu.max.burst");
		else
			cgs_err("%s: cannot read the current limits: %s", argv[first], strerror(-c));
		goto out;
	}
	if (!p.n) {
		printf("%s: every limit is in force already\n", argv[first]);
		ret = 0;
		goto out;
	}
	printf("%s: %zu change%s (cgroup v%d at %s)\n", argv[first], p.n, p.n == 1 ? "" : "s",
	       fs.version, fs.mnt);
	plan_print(stdout, &p);
	if (dry) {
		printf("dry run: nothing written\n");
		ret = 0;
		goto out;
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
		goto out;
	}
	printf("applied\n");
	ret = 0;
out:
	plan_free(&p);
	limits_file_free(&lf);
	cgfs_close(&fs);
	return ret;
}
