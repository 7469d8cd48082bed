// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "report/why.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cgname.h"
#include "lib/util.h"

static const char *const keys[] = {
	[WHY_OWN_QUOTA] = "own_quota",       [WHY_ANCESTOR_QUOTA] = "ancestor_quota",
	[WHY_SAME] = "same_cgroup",          [WHY_NAMED] = "cgroup",
	[WHY_OTHER] = "other_cgroups",       [WHY_KTHREAD] = "kernel_threads",
	[WHY_RT] = "realtime",               [WHY_IDLE] = "idle_cpu",
	[WHY_UNATTRIBUTED] = "unattributed",
};

const char *why_key(enum why_cause c)
{
	return keys[c];
}

void why_named_add(struct why_named *named, int *n, uint64_t id, uint64_t ns)
{
	int i;

	for (i = 0; i < *n && named[i].id != id; i++)
		;
	if (i < *n)
		named[i].ns += ns;
	else if (*n < WHY_NAMED_MAX)
		named[(*n)++] = (struct why_named){ id, ns };
	else if (ns > named[--i].ns)
		named[i] = (struct why_named){ id, ns };
	else
		return;
	for (; i > 0 && named[i - 1].ns < named[i].ns; i--) {
		struct why_named t = named[i - 1];
		named[i - 1] = named[i];
		named[i] = t;
	}
}

static void add(struct why *w, enum why_cause c, uint64_t ns, uint64_t id)
{
	if (ns && w->n < WHY_PARTS_MAX)
		w->p[w->n++] = (struct why_part){ .cause = c, .ns = ns, .id = id };
}

static int cmp_part(const void *a, const void *b)
{
	const struct why_part *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->cause - y->cause;
}

void why_build(struct why *w, const struct cg_counters *c, uint64_t inh_by, const struct why_named *named,
	       int nnamed, uint64_t inside_ns, uint64_t interval_ns)
{
	uint64_t own = cg_own_quota_ns(c);
	uint64_t inside = inside_ns < c->wb_other_ns ? inside_ns : c->wb_other_ns, rest = c->wb_other_ns - inside;

	memset(w, 0, sizeof(*w));
	w->inside_ns = inside;
	w->total_ns = c->runq_sum_ns + c->thr_wait_ns;
	w->some_ns = c->some_ns;
	w->interval_ns = interval_ns;
	add(w, WHY_OWN_QUOTA, own, 0);
	add(w, WHY_ANCESTOR_QUOTA, c->thr_inh_ns, inh_by);
	add(w, WHY_SAME, c->wb_same_ns + inside, 0);
	for (int i = 0; i < nnamed && rest; i++) {
		uint64_t ns = named[i].ns < rest ? named[i].ns : rest;
		add(w, WHY_NAMED, ns, named[i].id);
		rest -= ns;
	}
	add(w, WHY_OTHER, rest, 0);
	add(w, WHY_KTHREAD, c->wb_kthread_ns, 0);
	add(w, WHY_RT, c->wb_rt_ns, 0);
	add(w, WHY_IDLE, c->wb_idle_ns, 0);
	add(w, WHY_UNATTRIBUTED, c->wb_unknown_ns, 0);
	if (w->n)
		qsort(w->p, w->n, sizeof(w->p[0]), cmp_part);
}

static const char *part_text(const struct why_part *p, char *buf, size_t len)
{
	char who[CGNAME_SHORT_MAX * 4 + 8], esc[PATH_MAX * 4];
	const char *name = p->path ? text_escape(p->path, esc, sizeof(esc)) : "(removed)";

	switch (p->cause) {
	case WHY_OWN_QUOTA:
		return "its own quota";
	case WHY_ANCESTOR_QUOTA:
		snprintf(buf, len, "the quota of %s", name);
		return buf;
	case WHY_SAME:
		return "its own tasks";
	case WHY_NAMED:
		if (who_text(p->who, who, sizeof(who)))
			snprintf(buf, len, "behind %s (%s)", name, who);
		else
			snprintf(buf, len, "behind %s", name);
		return buf;
	case WHY_OTHER:
		return "behind other cgroups";
	case WHY_KTHREAD:
		return "behind kernel threads";
	case WHY_RT:
		return "behind real-time tasks";
	case WHY_IDLE:
		return "an idle CPU waking";
	case WHY_UNATTRIBUTED:
		return "unattributed";
	}
	return "?";
}

void why_print(FILE *f, const char *name, const struct why *w)
{
	char dur[16], a[16], b[16], buf[PATH_MAX * 4 + 64];
	int shown = 0;

	if (!w->total_ns)
		return;
	fprintf(f, "%s: its tasks waited %s in all (summed over tasks):", name,
		fmt_duration(dur, sizeof(dur), w->total_ns));
	for (int i = 0; i < w->n && shown < 5; i++) {
		double pct = 100.0 * w->p[i].ns / w->total_ns;
		if (pct < 1 && shown)
			break;
		fprintf(f, "%s %.0f%% %s", shown ? "," : "", pct, part_text(&w->p[i], buf, sizeof(buf)));
		shown++;
	}
	fputc('\n', f);
	if (!w->interval_ns)
		return;
	fprintf(f, "  wall time with a task waiting: %s of %s (%.1f%%)", fmt_duration(a, sizeof(a), w->some_ns),
		fmt_duration(b, sizeof(b), w->interval_ns), 100.0 * w->some_ns / w->interval_ns);
	if (w->psi.ok)
		fprintf(f, "; kernel PSI some %s (%.1f%%, %s)", fmt_duration(a, sizeof(a), w->psi.some_ns),
			100.0 * w->psi.some_ns / w->interval_ns, w->psi.host ? "whole host" : "cpu.pressure");
	fputc('\n', f);
}
