// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>
#include <limits.h>
#include <json-c/json.h>

#include "out/json_out.h"
#include "lib/cgname.h"
#include "lib/util.h"
#include "trace/tracer.h"

struct json_object *json_hist(const uint64_t *slots)
{
	struct json_object *a = json_object_new_array();
	int last = -1;

	for (int i = 0; i < CGS_HIST_SLOTS; i++)
		if (slots[i])
			last = i;
	for (int i = 0; i <= last; i++)
		json_object_array_add(a, JU64(slots[i]));
	return a;
}

struct json_object *json_drops(const uint64_t *d)
{
	struct json_object *o = json_object_new_object();

	for (int i = 0; i < CGS_DROP__COUNT; i++)
		JADD(o, drop_name(i), JU64(d[i]));
	JADD(o, "total", JU64(drops_total(d)));
	return o;
}

struct json_object *json_name(const char *p)
{
	char buf[4 * PATH_MAX];

	return p ? json_object_new_string(utf8_valid(p, buf, sizeof(buf))) : NULL;
}

void json_counters(struct json_object *o, const struct cg_counters *c, enum cg_json where, bool record)
{
	for (size_t i = 0; i < CG_NCOUNTERS; i++) {
		const struct cg_counter_def *d = &cg_counter_defs[i];
		if (d->json == where && (!record || d->in_record))
			JADD(o, d->key, JU64(cg_counter(c, d)));
	}
}

static struct json_object *throttle_json(const struct row *w, int ncpus)
{
	struct json_object *o = json_object_new_object(), *pc = json_object_new_array(), *k;
	const struct cg_sample *s = w->s;

	json_counters(o, &s->c, CGJ_THR, false);
	JADD(o, "pct", json_object_new_double(w->thr_pct));
	JADD(o, "p99_ns", JU64((uint64_t)w->thr_p99_ns));
	JADD(o, "max_ns", JU64(w->thr_max_ns));
	JADD(o, "hist", json_hist(s->c.thr_slots));
	for (int c = 0; s->thr_cpu && c < ncpus; c++) {
		if (!s->thr_cpu[c].count)
			continue;
		struct json_object *e = json_object_new_object();
		JADD(e, "cpu", json_object_new_int(c));
		JADD(e, "count", JU64(s->thr_cpu[c].count));
		JADD(e, "ns", JU64(s->thr_cpu[c].ns));
		json_object_array_add(pc, e);
	}
	JADD(o, "per_cpu", pc);
	json_counters(o, &s->c, CGJ_THR_WAIT, false);
	if (s->thr_inh_by) {
		k = json_object_new_object();
		JADD(k, "id", JU64(s->thr_inh_by));
		JADD(k, "path", json_name(w->inh_path));
		JADD(o, "inherited_from", k);
	} else {
		JADD(o, "inherited_from", NULL);
	}
	return o;
}

static struct json_object *kernel_json(const struct row *w)
{
	struct json_object *o;

	if (!w->k.ok)
		return NULL;
	o = json_object_new_object();
	JADD(o, "quota_us", w->k.quota_us < 0 ? NULL : json_object_new_int64(w->k.quota_us));
	JADD(o, "period_us", JU64(w->k.period_us));
	JADD(o, "burst_us", JU64(w->k.burst_us));
	JADD(o, "nr_periods", JU64(w->k_periods));
	JADD(o, "nr_throttled", JU64(w->k_throttled));
	JADD(o, "throttled_ns", JU64(w->k_throttled_ns));
	JADD(o, "quota_used_pct", w->quota_used_pct < 0 ? NULL : json_object_new_double(w->quota_used_pct));
	return o;
}

struct json_object *json_who(const struct cgname *n)
{
	struct json_object *o;

	if (!n)
		return NULL;
	o = json_object_new_object();
	JADD(o, "kind", json_object_new_string(cgname_kind(n)));
	if (n->unit[0])
		JADD(o, "unit", json_name(n->unit));
	if (n->runtime[0])
		JADD(o, "runtime", json_object_new_string(n->runtime));
	if (n->container[0])
		JADD(o, "container_id", json_object_new_string(n->container));
	if (n->pod_uid[0])
		JADD(o, "pod_uid", json_object_new_string(n->pod_uid));
	if (n->qos[0])
		JADD(o, "qos", json_object_new_string(n->qos));
	/* From the runtime's state: only where the host keeps it. */
	if (n->pod_name[0]) {
		JADD(o, "pod_name", json_name(n->pod_name));
		JADD(o, "pod_namespace", json_name(n->pod_namespace));
	}
	if (n->container_name[0])
		JADD(o, "container_name", json_name(n->container_name));
	return o;
}

struct json_object *json_row(const struct row *w, bool ms, int ncpus, const char *group_by)
{
	struct json_object *o = json_object_new_object(), *sw, *rq, *pre, *on;
	const struct cg_sample *s = w->s;

	JADD(o, "id", JU64(w->id));
	JADD(o, "path", json_name(w->path));
	JADD(o, "name", json_who(w->who));
	if (w->members) {
		struct json_object *g = json_object_new_object();
		JADD(g, "by", json_object_new_string(group_by));
		JADD(g, "cgroups", JU64(w->members));
		JADD(o, "group", g);
	}
	JADD(o, "removed", json_object_new_boolean(w->removed));
	JADD(o, "cpu_pct", json_object_new_double(w->cpu_pct));
	json_counters(o, &s->c, CGJ_ROW_TIME, false);
	on = json_object_new_object();
	json_counters(on, &s->c, CGJ_SLICES, false);
	JADD(on, "hist", json_hist(s->c.oncpu_slots));
	JADD(o, "oncpu_slices", on);
	json_counters(o, &s->c, CGJ_ROW, false);
	sw = json_object_new_object();
	json_counters(sw, &s->c, CGJ_SWITCHES, false);
	JADD(o, "switches", sw);
	rq = json_object_new_object();
	json_counters(rq, &s->c, CGJ_RUNQ, false);
	JADD(rq, "p50_ns", JU64((uint64_t)w->runq_p50_ns));
	JADD(rq, "p99_ns", JU64((uint64_t)w->runq_p99_ns));
	JADD(rq, "max_ns", JU64(w->runq_max_ns));
	JADD(rq, "hist_unit", json_object_new_string(ms ? "ms" : "us"));
	JADD(rq, "hist", json_hist(s->c.runq_slots));
	JADD(o, "runq", rq);
	JADD(o, "throttle", throttle_json(w, ncpus));
	JADD(o, "kernel_stat", kernel_json(w));
	pre = json_object_new_array();
	for (int i = 0; i < w->npre; i++) {
		struct json_object *p = json_object_new_object();
		JADD(p, "id", JU64(w->pre[i].id));
		JADD(p, "path", json_name(w->pre[i].path));
		JADD(p, "name", json_who(w->pre[i].who));
		JADD(p, "count", JU64(w->pre[i].count));
		json_object_array_add(pre, p);
	}
	JADD(o, "preempted_by", pre);
	if (w->why)
		JADD(o, "waited", why_json(w->why, &s->c));
	return o;
}

struct json_object *json_episodes(const struct episode_view *ep)
{
	struct json_object *a = json_object_new_array();
	const struct cgs_episode *e = ep->e;

	for (size_t i = 0; i < ep->n; i++) {
		struct json_object *o = json_object_new_object();
		const char *p = ep->name ? ep->name(ep->name_ctx, e[i].cgid) : NULL;
		JADD(o, "cgroup_id", JU64(e[i].cgid));
		JADD(o, "path", json_name(p));
		JADD(o, "cpu", json_object_new_int(e[i].cpu));
		JADD(o, "start_ns", json_object_new_int64((int64_t)(e[i].start_ns - ep->base_ns)));
		JADD(o, "duration_ns", JU64(e[i].end_ns - e[i].start_ns));
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

struct json_object *json_sched_ext(const struct scx_state *x)
{
	if (!x->present)
		return NULL;
	struct json_object *o = json_object_new_object();
	JADD(o, "state", json_object_new_string(x->state));
	JADD(o, "ops", x->ops[0] ? json_object_new_string(x->ops) : NULL);
	JADD(o, "cfs_throttling_applies", json_object_new_boolean(!scx_active(x)));
	return o;
}

void json_trace_info(struct json_object *o, const struct trace_info *ti)
{
	JADD(o, "kernel", json_object_new_string(ti->kernel));
	JADD(o, "cgroup_version", json_object_new_int(ti->cgroup_version));
	JADD(o, "sched_backend", str_or_null(ti->sched_backend));
	JADD(o, "throttle_backend", str_or_null(ti->thr_backend));
	JADD(o, "task_state", str_or_null(ti->task_state));
	JADD(o, "ncpus", json_object_new_int(ti->ncpus));
	JADD(o, "sched_ext", json_sched_ext(&ti->scx));
}

struct json_object *json_report(const struct report *r, const struct json_meta *m)
{
	struct json_object *o = json_object_new_object(), *cgs = json_object_new_array();

	JADD(o, "schema", json_object_new_string("cgsched/top"));
	JADD(o, "version", json_object_new_int(CGS_JSON_VERSION));
	JADD(o, "kind", json_object_new_string(m->kind));
	JADD(o, "time", json_object_new_double(m->realtime));
	JADD(o, "interval_ns", JU64(r->interval_ns));
	json_trace_info(o, &m->ti);
	JADD(o, "map_bytes_max", JU64(m->map_bytes));
	JADD(o, "group_by", json_object_new_string(r->group_by ? r->group_by : "path"));
	JADD(o, "drops", json_drops(r->d->drops));
	for (size_t i = 0; i < r->n; i++)
		json_object_array_add(cgs, json_row(&r->rows[i], r->hist_ms, m->ti.ncpus, r->group_by));
	JADD(o, "cgroups", cgs);
	if (m->ep.e || m->ep.truncated) {
		JADD(o, "episodes", json_episodes(&m->ep));
		JADD(o, "episodes_truncated", JU64(m->ep.truncated));
	}
	return o;
}

void json_emit(FILE *f, struct json_object *o)
{
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), f);
	fputc('\n', f);
	fflush(f);
	json_object_put(o);
}
