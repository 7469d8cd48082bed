// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>

#include "figures/kstat_src.h"
#include "kernel/psi.h"
#include "lib/util.h"
#include "session/refresh.h"
#include "session/session.h"

/* --why: the kernel's PSI beside each shown row's causes (the cgroup's on v2, else the host's). */
static void why_psi(struct report *r, struct session *s, struct psi_track *pt, bool since_start, size_t shown)
{
	size_t n = shown && shown < r->n ? shown : r->n;

	psi_track_host(pt);
	for (size_t i = 0; i < n; i++) {
		struct why_psi *p = &r->rows[i].why->psi;
		if (!r->rows[i].members && psi_cg_ns(pt, &s->fs, r->rows[i].id, since_start, &p->some_ns, &p->host))
			p->ok = true;
		else if ((p->ok = psi_host_ns(pt, since_start, &p->some_ns)))
			p->host = true;
	}
}

int refresh_make(struct refresh *f, struct session *s, const struct refresh_opts *o, const struct snapshot *prev,
		 const struct snapshot *cur)
{
	memset(f, 0, sizeof(*f));
	return refresh_remake(f, s, o, prev, cur);
}

int refresh_remake(struct refresh *f, struct session *s, const struct refresh_opts *o, const struct snapshot *prev,
		   const struct snapshot *cur)
{
	int err;

	/* The delta's samples, the rows and the kernel's figures' table are kept for reuse; the rest goes. */
	task_report_free(&f->tr);
	groups_free(&f->gs);
	snapshot_free(&f->gd);
	if (!f->kfigs.esize)
		f->kfigs = (struct idtab)IDTAB_INIT(struct kstat_fig);
	idtab_clear(&f->kfigs);
	f->why_ok = false;
	f->kernel_ns = 0;
	err = snapshot_delta(prev, cur, &f->d);
	/* --group-by: the rows are the groups' sums (and the cgroups of none). */
	const struct snapshot *rd = o->group == GROUP_PATH ? &f->d : &f->gd;
	if (!err && o->group != GROUP_PATH)
		err = groups_make(&f->gs, o->group, &f->d, &s->fs, &f->gd);
	uint64_t c0 = cpu_ns();
	/* No kernel figures this time, rather than stale ones, when the pass fails. */
	if (!err && o->ks && !kstat_src_refresh(o->ks))
		err = kstat_src_figures(o->ks, rd, o->since_first, &f->kfigs);
	f->kernel_ns = cpu_ns() - c0;
	if (err || report_rebuild(&f->r, rd, cur->t_ns - prev->t_ns, o->hist_ms, &f->kfigs)) {
		cgs_err("out of memory building the report");
		return -ENOMEM;
	}
	/* Before the sort: report_why walks the rows in id order, beside the preemptions. */
	if (o->why && !(f->why_ok = !report_why(&f->r)))
		cgs_err("splitting the waits: out of memory");
	if (o->group != GROUP_PATH)
		groups_label(&f->gs, &f->r);
	if (o->tasks && task_report_build(&f->tr, &f->d, f->r.interval_ns, o->hist_ms, o->threads, &s->fs,
					  o->sort ? o->key : SORT_PATH))
		cgs_err("out of memory building the per-task rows");
	if (o->sort)
		report_sort(&f->r, &s->fs, o->key, o->shown);
	if (!o->no_paths)
		report_resolve(&f->r, &s->fs, o->shown);
	if (f->why_ok && o->psi)
		why_psi(&f->r, s, o->psi, o->since_first, o->shown);
	return 0;
}

void refresh_free(struct refresh *f)
{
	task_report_free(&f->tr);
	report_free(&f->r);
	idtab_free(&f->kfigs);
	groups_free(&f->gs);
	snapshot_free(&f->gd);
	snapshot_free(&f->d);
}
