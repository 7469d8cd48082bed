// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>
#include <sys/utsname.h>
#include <limits.h>
#include <json-c/json.h>

#include "json_out.h"
#include "util.h"
#include "tracer.h"

/*
 * Every key here is a literal (or a static name) added once to its object:
 * json-c need neither copy it nor look for an earlier one. Saves a strdup
 * and a hash probe per field: 10,000 rows of --json carry ~400,000 fields.
 */
#define ADD(o, k, v) \
	json_object_object_add_ex(o, k, v, JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY)
#define U64(v) json_object_new_uint64(v)

struct json_object *json_hist(const uint64_t *slots)
{
	struct json_object *a = json_object_new_array();
	int last = -1;

	for (int i = 0; i < CGS_HIST_SLOTS; i++)
		if (slots[i])
			last = i;
	for (int i = 0; i <= last; i++)
		json_object_array_add(a, U64(slots[i]));
	return a;
}

struct json_object *json_drops(const uint64_t *d)
{
	struct json_object *o = json_object_new_object();

	for (int i = 0; i < CGS_DROP__COUNT; i++)
		ADD(o, drop_name(i), U64(d[i]));
	ADD(o, "total", U64(drops_total(d)));
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
			ADD(o, d->key, U64(cg_counter(c, d)));
	}
}

static struct json_object *throttle_json(const struct row *w, int ncpus)
{
	struct json_object *o = json_object_new_object(), *pc = json_object_new_array(), *k;
	const struct cg_sample *s = w->s;

	json_counters(o, &s->c, CGJ_THR, false);
	ADD(o, "pct", json_object_new_double(w->thr_pct));
	ADD(o, "p99_ns", U64((uint64_t)w->thr_p99_ns));
	ADD(o, "max_ns", U64(w->thr_max_ns));
	ADD(o, "hist", json_hist(s->c.thr_slots));
	for (int c = 0; s->thr_cpu && c < ncpus; c++) {
		if (!s->thr_cpu[c].count)
			continue;
		struct json_object *e = json_object_new_object();
		ADD(e, "cpu", json_object_new_int(c));
		ADD(e, "count", U64(s->thr_cpu[c].count));
		ADD(e, "ns", U64(s->thr_cpu[c].ns));
		json_object_array_add(pc, e);
	}
	ADD(o, "per_cpu", pc);
	json_counters(o, &s->c, CGJ_THR_WAIT, false);
	if (s->thr_inh_by) {
		k = json_object_new_object();
		ADD(k, "id", U64(s->thr_inh_by));
		ADD(k, "path", json_name(w->inh_path));
		ADD(o, "inherited_from", k);
	} else {
		ADD(o, "inherited_from", NULL);
	}
	return o;
}

static struct json_object *kernel_json(const struct row *w)
{
	struct json_object *o;

	if (!w->k.ok)
		return NULL;
	o = json_object_new_object();
	ADD(o, "quota_us", w->k.quota_us < 0 ? NULL : json_object_new_int64(w->k.quota_us));
	ADD(o, "period_us", U64(w->k.period_us));
	ADD(o, "burst_us", U64(w->k.burst_us));
	ADD(o, "nr_periods", U64(w->k_periods));
	ADD(o, "nr_throttled", U64(w->k_throttled));
	ADD(o, "throttled_ns", U64(w->k_throttled_ns));
	ADD(o, "quota_used_pct", w->quota_used_pct < 0 ? NULL : json_object_new_double(w->quota_used_pct));
	return o;
}

struct json_object *json_row(const struct row *w, bool ms, int ncpus)
{
	struct json_object *o = json_object_new_object(), *sw, *rq, *pre, *on;
	const struct cg_sample *s = w->s;

	ADD(o, "id", U64(w->id));
	ADD(o, "path", json_name(w->path));
	ADD(o, "removed", json_object_new_boolean(w->removed));
	ADD(o, "cpu_pct", json_object_new_double(w->cpu_pct));
	json_counters(o, &s->c, CGJ_ROW_TIME, false);
	on = json_object_new_object();
	json_counters(on, &s->c, CGJ_SLICES, false);
	ADD(on, "hist", json_hist(s->c.oncpu_slots));
	ADD(o, "oncpu_slices", on);
	json_counters(o, &s->c, CGJ_ROW, false);
	sw = json_object_new_object();
	json_counters(sw, &s->c, CGJ_SWITCHES, false);
	ADD(o, "switches", sw);
	rq = json_object_new_object();
	json_counters(rq, &s->c, CGJ_RUNQ, false);
	ADD(rq, "p50_ns", U64((uint64_t)w->runq_p50_ns));
	ADD(rq, "p99_ns", U64((uint64_t)w->runq_p99_ns));
	ADD(rq, "max_ns", U64(w->runq_max_ns));
	ADD(rq, "hist_unit", json_object_new_string(ms ? "ms" : "us"));
	ADD(rq, "hist", json_hist(s->c.runq_slots));
	ADD(o, "runq", rq);
	ADD(o, "throttle", throttle_json(w, ncpus));
	ADD(o, "kernel", kernel_json(w));
	pre = json_object_new_array();
	for (int i = 0; i < w->npre; i++) {
		struct json_object *p = json_object_new_object();
		ADD(p, "id", U64(w->pre[i].id));
		ADD(p, "path", json_name(w->pre[i].path));
		ADD(p, "count", U64(w->pre[i].count));
		json_object_array_add(pre, p);
	}
	ADD(o, "preempted_by", pre);
	return o;
}

struct json_object *json_episodes(const struct cgs_episode *e, size_t n, uint64_t base_ns,
				  const char *(*name)(void *ctx, uint64_t id), void *ctx)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();
		const char *p = name ? name(ctx, e[i].cgid) : NULL;
		ADD(o, "cgroup_id", U64(e[i].cgid));
		ADD(o, "path", json_name(p));
		ADD(o, "cpu", json_object_new_int(e[i].cpu));
		ADD(o, "start_ns", json_object_new_int64((int64_t)(e[i].start_ns - base_ns)));
		ADD(o, "duration_ns", U64(e[i].end_ns - e[i].start_ns));
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *json_report(const struct report *r, const struct json_meta *m)
{
	struct json_object *o = json_object_new_object(), *cgs = json_object_new_array();
	struct utsname u;

	ADD(o, "schema", json_object_new_string("cgsched/top"));
	ADD(o, "version", json_object_new_int(CGS_JSON_VERSION));
	ADD(o, "kind", json_object_new_string(m->kind));
	ADD(o, "time", json_object_new_double(m->realtime));
	ADD(o, "interval_ns", U64(r->interval_ns));
	if (!uname(&u))
		ADD(o, "kernel", json_object_new_string(u.release));
	ADD(o, "cgroup_version", json_object_new_int(m->cgroup_version));
	ADD(o, "backend", json_object_new_string(m->backend));
	ADD(o, "throttle_backend", json_object_new_string(m->thr_backend));
	ADD(o, "task_state", json_object_new_string(m->task_state));
	ADD(o, "ncpus", json_object_new_int(m->ncpus));
	ADD(o, "map_bytes_max", U64(m->map_bytes));
	ADD(o, "drops", json_drops(r->d->drops));
	for (size_t i = 0; i < r->n; i++)
		json_object_array_add(cgs, json_row(&r->rows[i], r->hist_ms, m->ncpus));
	ADD(o, "cgroups", cgs);
	if (m->episodes || m->episodes_truncated) {
		ADD(o, "episodes", json_episodes(m->episodes, m->nepisodes, m->base_ns, m->name, m->name_ctx));
		ADD(o, "episodes_truncated", U64(m->episodes_truncated));
	}
	return o;
}

const char *json_last_error(char *buf, size_t len)
{
	snprintf(buf, len, "%s", json_util_get_last_err());
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

void json_emit(FILE *f, struct json_object *o)
{
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), f);
	fputc('\n', f);
	fflush(f);
	json_object_put(o);
}
