// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "lib/cgname.h"
#include "lib/util.h"
#include "report/json_out.h"
#include "trace/tracer.h"

void json_hist(struct jw *w, const uint64_t *slots)
{
	int last = -1;

	for (int i = 0; i < CGS_HIST_SLOTS; i++)
		if (slots[i])
			last = i;
	jw_u64s(w, slots, last + 1);
}

void json_drops(struct jw *w, const uint64_t *d)
{
	jw_object(w);
	for (int i = 0; i < CGS_DROP__COUNT; i++)
		jw_ku64(w, drop_name(i), d[i]);
	jw_ku64(w, "total", drops_total(d));
	jw_end_object(w);
}

/*
 * Each JSON object's counters, in the table's order, with their keys'
 * lengths. The lists are made once. A row asks for five of them, and
 * searching the whole table each time would read it five times a row.
 */
#define CGJ_LISTS (CGJ_WHY + 1)
static struct counter_list {
	uint8_t n;
	uint8_t def[CG_NCOUNTERS];
	uint8_t keylen[CG_NCOUNTERS];
} counter_lists[CGJ_LISTS][2];
static pthread_once_t counter_lists_once = PTHREAD_ONCE_INIT;

_Static_assert(CG_NCOUNTERS <= UINT8_MAX, "counter_list: a counter's index fits in a byte");

static void counter_lists_make(void)
{
	for (size_t i = 0; i < CG_NCOUNTERS; i++) {
		const struct cg_counter_def *d = &cg_counter_defs[i];
		for (int record = 0; record < 2; record++) {
			struct counter_list *l = &counter_lists[d->json][record];
			if (record && !d->in_record)
				continue;
			l->def[l->n] = i;
			l->keylen[l->n] = strlen(d->key);
			l->n++;
		}
	}
}

void json_counters(struct jw *w, const struct cg_counters *c, enum cg_json where, bool record)
{
	pthread_once(&counter_lists_once, counter_lists_make);
	const struct counter_list *l = &counter_lists[where][record];

	for (size_t i = 0; i < l->n; i++) {
		const struct cg_counter_def *d = &cg_counter_defs[l->def[i]];
		/* The table's keys are literals of this program: nothing to escape. */
		jw_ku64_plain(w, d->key, l->keylen[i], cg_counter(c, d));
	}
}

static void throttle_json(struct jw *w, const struct row *r, int ncpus)
{
	const struct cg_sample *s = r->s;

	jw_object(w);
	json_counters(w, &s->c, CGJ_THR, false);
	jw_kdouble(w, "pct", r->thr_pct);
	jw_ku64(w, "p99_ns", (uint64_t)r->thr_p99_ns);
	jw_ku64(w, "max_ns", r->thr_max_ns);
	jw_key(w, "hist");
	json_hist(w, s->c.thr_slots);
	jw_karray(w, "per_cpu");
	for (int c = 0; s->thr_cpu && c < ncpus; c++) {
		if (!s->thr_cpu[c].count)
			continue;
		jw_object(w);
		jw_ki64(w, "cpu", c);
		jw_ku64(w, "count", s->thr_cpu[c].count);
		jw_ku64(w, "ns", s->thr_cpu[c].ns);
		jw_end_object(w);
	}
	jw_end_array(w);
	json_counters(w, &s->c, CGJ_THR_WAIT, false);
	jw_key(w, "inherited_from");
	if (s->thr_inh_by) {
		jw_object(w);
		jw_ku64(w, "id", s->thr_inh_by);
		jw_kname(w, "path", r->inh_path);
		jw_end_object(w);
	} else {
		jw_null(w);
	}
	/* Period by period (report_periods): null without a quota and its grid. */
	jw_key(w, "periods");
	json_periods(w, &r->per);
	jw_end_object(w);
}

void json_periods(struct jw *w, const struct period_stats *p)
{
	if (!p->known) {
		jw_null(w);
		return;
	}
	jw_object(w);
	jw_ku64(w, "throttled", p->throttled);
	jw_ku64(w, "longest_run", p->longest_run);
	jw_ku64(w, "ran_out_p50_ns", p->ran_out_p50_ns);
	jw_ku64(w, "ran_out_p99_ns", p->ran_out_p99_ns);
	jw_ku64(w, "underused", p->underused);
	jw_end_object(w);
}

static void kernel_json(struct jw *w, const struct row *r)
{
	if (!r->k.ok) {
		jw_null(w);
		return;
	}
	jw_object(w);
	jw_ki64_or_null(w, "quota_us", r->k.quota_us >= 0, r->k.quota_us);
	jw_ku64(w, "period_us", r->k.period_us);
	jw_ku64(w, "burst_us", r->k.burst_us);
	jw_ku64(w, "nr_periods", r->k_periods);
	jw_ku64(w, "nr_throttled", r->k_throttled);
	jw_ku64(w, "throttled_ns", r->k_throttled_ns);
	/* Bursts beside cgsched's own periods, where the kernel counts them (5.14+; cpu.max.burst, cfs_burst_us). */
	jw_ku64_or_null(w, "nr_bursts", r->k.has_bursts, r->k_bursts);
	jw_ku64_or_null(w, "burst_ns", r->k.has_bursts, r->k_burst_ns);
	jw_kdouble_or_null(w, "quota_used_pct", r->quota_used_pct >= 0, r->quota_used_pct);
	jw_end_object(w);
}

void json_who(struct jw *w, const struct cgname *n)
{
	if (!n) {
		jw_null(w);
		return;
	}
	jw_object(w);
	jw_kstring(w, "kind", cgname_kind(n));
	if (n->unit[0])
		jw_kname(w, "unit", n->unit);
	if (n->runtime[0])
		jw_kstring(w, "runtime", n->runtime);
	if (n->container[0])
		jw_kstring(w, "container_id", n->container);
	if (n->pod_uid[0])
		jw_kstring(w, "pod_uid", n->pod_uid);
	if (n->qos[0])
		jw_kstring(w, "qos", n->qos);
	/* From the runtime's state: only where the host keeps it. */
	if (n->pod_name[0]) {
		jw_kname(w, "pod_name", n->pod_name);
		jw_kname(w, "pod_namespace", n->pod_namespace);
	}
	if (n->container_name[0])
		jw_kname(w, "container_name", n->container_name);
	jw_end_object(w);
}

void json_row(struct jw *w, const struct row *r, bool ms, int ncpus, const char *group_by)
{
	const struct cg_sample *s = r->s;

	jw_object(w);
	jw_ku64(w, "id", r->id);
	jw_kname(w, "path", r->path);
	jw_key(w, "name");
	json_who(w, r->who);
	if (r->members) {
		jw_kobject(w, "group");
		jw_kstring(w, "by", group_by);
		jw_ku64(w, "cgroups", r->members);
		jw_end_object(w);
	}
	jw_kbool(w, "removed", r->removed);
	jw_kdouble(w, "cpu_pct", r->cpu_pct);
	json_counters(w, &s->c, CGJ_ROW_TIME, false);
	jw_kobject(w, "oncpu_slices");
	json_counters(w, &s->c, CGJ_SLICES, false);
	jw_key(w, "hist");
	json_hist(w, s->c.oncpu_slots);
	jw_end_object(w);
	json_counters(w, &s->c, CGJ_ROW, false);
	jw_kobject(w, "switches");
	json_counters(w, &s->c, CGJ_SWITCHES, false);
	jw_end_object(w);
	jw_kobject(w, "runq");
	json_counters(w, &s->c, CGJ_RUNQ, false);
	jw_ku64(w, "p50_ns", (uint64_t)r->runq_p50_ns);
	jw_ku64(w, "p99_ns", (uint64_t)r->runq_p99_ns);
	jw_ku64(w, "max_ns", r->runq_max_ns);
	jw_kstring(w, "hist_unit", ms ? "ms" : "us");
	jw_key(w, "hist");
	json_hist(w, s->c.runq_slots);
	jw_end_object(w);
	jw_key(w, "throttle");
	throttle_json(w, r, ncpus);
	jw_key(w, "kernel_stat");
	kernel_json(w, r);
	/* top --demand: its demand per period over the interval; null: not asked, no quota, or no grid yet. */
	jw_key(w, "demand");
	if (r->dem.known) {
		jw_object(w);
		jw_ku64(w, "period_us", r->dem.period_us);
		jw_ku64(w, "step_us", r->dem.step_us);
		jw_ku64(w, "periods", r->dem.periods);
		jw_ku64(w, "mean_us", r->dem.mean_us);
		jw_ku64(w, "p50_us", r->dem.p50_us);
		jw_ku64(w, "p90_us", r->dem.p90_us);
		jw_ku64(w, "p99_us", r->dem.p99_us);
		jw_ku64(w, "max_us", r->dem.max_us);
		jw_ku64(w, "late", r->dem.late);
		jw_end_object(w);
	} else {
		jw_null(w);
	}
	jw_karray(w, "preempted_by");
	for (int i = 0; i < r->npre; i++) {
		jw_object(w);
		jw_ku64(w, "id", r->pre[i].id);
		jw_kname(w, "path", r->pre[i].path);
		jw_key(w, "name");
		json_who(w, r->pre[i].who);
		jw_ku64(w, "count", r->pre[i].count);
		jw_end_object(w);
	}
	jw_end_array(w);
	if (r->why) {
		jw_key(w, "waited");
		why_json(w, r->why, &s->c);
	}
	jw_end_object(w);
}

void json_episodes(struct jw *w, const struct episode_view *ep)
{
	const struct cgs_episode *e = ep->e;

	jw_array(w);
	for (size_t i = 0; i < ep->n; i++) {
		if (!episode_timed(&e[i]))
			continue;
		jw_object(w);
		jw_ku64(w, "cgroup_id", e[i].cgid);
		jw_kname(w, "path", ep->name ? ep->name(ep->name_ctx, e[i].cgid) : NULL);
		jw_ki64(w, "cpu", e[i].cpu);
		jw_ki64(w, "start_ns", (int64_t)(e[i].start_ns - ep->base_ns));
		jw_ku64(w, "duration_ns", e[i].end_ns - e[i].start_ns);
		jw_end_object(w);
	}
	jw_end_array(w);
}

void json_sched_ext(struct jw *w, const struct scx_state *x)
{
	if (!x->present) {
		jw_null(w);
		return;
	}
	jw_object(w);
	jw_kstring(w, "state", x->state);
	jw_kstring(w, "ops", x->ops[0] ? x->ops : NULL);
	jw_kbool(w, "cfs_throttling_applies", !scx_active(x));
	jw_end_object(w);
}

void json_trace_info(struct jw *w, const struct trace_info *ti)
{
	jw_kstring(w, "kernel", ti->kernel);
	jw_ki64(w, "cgroup_version", ti->cgroup_version);
	jw_kstring(w, "sched_backend", ti->sched_backend);
	jw_kstring(w, "throttle_backend", ti->thr_backend);
	jw_kstring(w, "task_state", ti->task_state);
	jw_ki64(w, "ncpus", ti->ncpus);
	jw_key(w, "sched_ext");
	json_sched_ext(w, &ti->scx);
}

void json_tasks(struct jw *w, const struct task_report *r, bool hist_ms)
{
	jw_array(w);
	for (size_t i = 0; i < r->n; i++) {
		const struct task_row *row = &r->rows[i];
		const struct task_sample *t = row->t;
		jw_object(w);
		jw_ku64(w, "pid", r->threads ? t->tgid : t->id);
		if (r->threads)
			jw_ku64(w, "tid", t->id);
		jw_kname(w, "comm", t->comm);
		jw_ku64(w, "cgroup_id", t->cgid);
		jw_kname(w, "path", row->path);
		jw_key(w, "name");
		json_who(w, row->who);
		jw_kdouble(w, "cpu_pct", row->cpu_pct);
		jw_ku64(w, "oncpu_ns", t->oncpu_ns);
		jw_ku64(w, "wakeups", t->wakeups);
		jw_kobject(w, "switches");
		jw_ku64(w, "voluntary", t->sw_vol);
		jw_ku64(w, "involuntary", t->sw_invol);
		jw_end_object(w);
		jw_kobject(w, "runq");
		jw_ku64(w, "count", t->runq_count);
		jw_ku64(w, "sum_ns", t->runq_sum_ns);
		jw_ku64(w, "p50_ns", (uint64_t)row->runq_p50_ns);
		jw_ku64(w, "p99_ns", (uint64_t)row->runq_p99_ns);
		jw_ku64(w, "max_ns", t->runq_max_ns);
		jw_kstring(w, "hist_unit", hist_ms ? "ms" : "us");
		jw_key(w, "hist");
		json_hist(w, t->runq_slots);
		jw_end_object(w);
		jw_end_object(w);
	}
	jw_end_array(w);
}

void json_report(FILE *f, const struct report *r, const struct json_meta *m, const struct task_report *tasks)
{
	struct jw w;

	jw_init(&w, f, false);
	jw_object(&w);
	jw_kstring(&w, "schema", "cgsched/top");
	jw_ki64(&w, "version", CGS_JSON_VERSION);
	jw_kstring(&w, "kind", m->kind);
	jw_kdouble(&w, "time", m->realtime);
	jw_ku64(&w, "interval_ns", r->interval_ns);
	json_trace_info(&w, &m->ti);
	jw_ku64(&w, "map_bytes_max", m->map_bytes);
	jw_kstring(&w, "group_by", r->group_by ? r->group_by : "path");
	jw_key(&w, "drops");
	json_drops(&w, r->d->drops);
	jw_karray(&w, "cgroups");
	for (size_t i = 0; i < r->n; i++) {
		/*
		 * Prefetch the next row's sample while this one is written. Rows
		 * go in their sort's order, but samples lie in the maps' order,
		 * a kilobyte each and far apart. Without the prefetch, waiting for
		 * a histogram's cache lines takes most of a row's writing time.
		 */
		if (i + 1 < r->n)
			prefetch_lines(r->rows[i + 1].s, sizeof(*r->rows[i + 1].s), false);
		json_row(&w, &r->rows[i], r->hist_ms, m->ti.ncpus, r->group_by);
	}
	jw_end_array(&w);
	if (m->ep.e || m->ep.truncated) {
		jw_key(&w, "episodes");
		json_episodes(&w, &m->ep);
		jw_ku64(&w, "episodes_truncated", m->ep.truncated);
	}
	if (tasks) {
		jw_key(&w, "tasks");
		json_tasks(&w, tasks, r->hist_ms);
	}
	jw_end_object(&w);
	putc('\n', f);
	fflush(f);
}

void why_json(struct jw *w, const struct why *y, const struct cg_counters *c)
{
	struct cg_counters t = *c;

	/* Waits behind cgroups that count as its own are its own tasks' here, as in the causes. */
	t.wb_same_ns += y->inside_ns;
	t.wb_other_ns -= y->inside_ns;
	jw_object(w);
	jw_ku64(w, "total_ns", y->total_ns);
	json_counters(w, &t, CGJ_WHY, false);
	jw_karray(w, "causes");
	for (int i = 0; i < y->n; i++) {
		jw_object(w);
		jw_kstring(w, "cause", why_key(y->p[i].cause));
		jw_ku64(w, "ns", y->p[i].ns);
		jw_kdouble(w, "pct", y->total_ns ? 100.0 * y->p[i].ns / y->total_ns : 0);
		if (y->p[i].cause == WHY_NAMED || y->p[i].cause == WHY_ANCESTOR_QUOTA) {
			jw_ku64(w, "id", y->p[i].id);
			jw_kname(w, "path", y->p[i].path);
			jw_key(w, "name");
			json_who(w, y->p[i].who);
		}
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_ku64(w, "interval_ns", y->interval_ns);
	jw_key(w, "kernel_psi");
	if (y->psi.ok) {
		jw_object(w);
		jw_kstring(w, "source", y->psi.host ? "/proc/pressure/cpu" : "cpu.pressure");
		jw_ku64(w, "some_ns", y->psi.some_ns);
		jw_end_object(w);
	} else {
		jw_null(w);
	}
	jw_end_object(w);
}
