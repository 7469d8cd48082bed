// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/journal_restore.h"
#include "kernel/cgroupfs.h"
#include "limits/journal.h"
#include "lib/stop.h"
#include "lib/util.h"

struct say_ctx {
	restore_say say;
	void *ctx;
};

static void sayf(struct say_ctx *s, bool item, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void sayf(struct say_ctx *s, bool item, const char *fmt, ...)
{
	char line[2 * PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->say(s->ctx, item, line);
}

static void skipped(void *ctx, const struct journal_ent *e, bool replaced)
{
	sayf(ctx, true, "%s %s: %s, skipped", e->rel, e->file,
	     replaced ? "another cgroup by that name now (made since)" : "the cgroup no longer exists");
}

int journal_restore(const char *path, struct cgfs *fs, bool dry, bool *found, restore_say say, void *ctx)
{
	struct say_ctx s = { say, ctx };
	struct journal j = {};
	struct plan p = {};
	const struct change *bad;
	char err[2 * PATH_MAX + 256];
	int r, ret = CGS_EXIT_USAGE;

	*found = false;
	if ((r = journal_load(path, &j, err, sizeof(err))) == -ENOENT)
		return 0;
	*found = true;
	if (r) {
		cgs_err("%s; nothing written (fix or remove it)", err);
		goto out;
	}
	if (!journal_this_boot(&j)) {
		/* cgroupfs lives in memory: every cgroup it named went at shutdown. */
		sayf(&s, false, "%s: written in an earlier boot (boot id %s): the cgroups it names were made afresh since, "
			  "nothing to restore; %s", path, j.boot, dry ? "it would be removed" : "removed");
		journal_free(&j);
		if (!dry && (r = journal_remove(path))) {
			cgs_err("%s: cannot remove it: %s", path, strerror(-r));
			goto out;
		}
		ret = 0;
		goto out;
	}
	if (journal_for(&j, fs, err, sizeof(err))) {
		cgs_err("%s", err);
		goto out;
	}
	/* Its writer is gone: the caller holds the lock it held. */
	sayf(&s, false, "%s: left by enforce pid %ld, which did not finish; %zu value%s recorded: putting back the values found before it",
	     path, j.pid, j.n, j.n == 1 ? "" : "s");
	if ((r = journal_plan(&j, fs, &p, skipped, &s))) {
		cgs_err("%s: %s", path, strerror(-r));
		goto out;
	}
	journal_free(&j);
	for (size_t i = 0; i < p.n; i++)
		sayf(&s, true, "%s %s: %s -> %s", p.c[i].rel, p.c[i].file, p.c[i].old, p.c[i].new);
	if (dry) {
		sayf(&s, false, "dry run: nothing written, %s kept", path);
		ret = 0;
		goto out;
	}
	if ((r = plan_apply(fs, &p, &cgs_stop, &bad))) {
		char undone[96] = "every value written before it was rolled back";
		if (p.unrestored)
			snprintf(undone, sizeof(undone), "%zu value%s could NOT be rolled back: check them by hand",
				 p.unrestored, p.unrestored == 1 ? "" : "s");
		if (!bad)
			cgs_err("%s: stopped by %s while restoring; %s; the journal is kept", path, stop_name(), undone);
		else
			cgs_err("%s: %s %s: the kernel refused '%s' (%s); %s; the journal is kept", path,
				text_escape(bad->rel, err, sizeof(err)), bad->file, bad->new, strerror(-r), undone);
		ret = bad ? CGS_EXIT_USAGE : stop_status();
		goto out;
	}
	if ((r = journal_remove(path))) {
		cgs_err("%s: restored, but cannot remove it: %s", path, strerror(-r));
		goto out;
	}
	sayf(&s, false, "%s: %zu value%s put back; removed", path, p.n, p.n == 1 ? "" : "s");
	ret = 0;
out:
	plan_free(&p);
	journal_free(&j);
	return ret;
}
