// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <sys/utsname.h>
#include <json-c/json.h>

#include "json_out.h"

#define ADD(o, k, v) json_object_object_add(o, k, v)
#define U64(v) json_object_new_uint64(v)

static struct json_object *hist_json(const uint64_t *slots)
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

static struct json_object *drops_json(const uint64_t *d)
{
	struct json_object *o = json_object_new_object();

	for (int i = 0; i < CGS_DROP__COUNT; i++)
		ADD(o, drop_name(i), U64(d[i]));
	ADD(o, "total", U64(drops_total(d)));
	return o;
}

static struct json_object *row_json(const struct row *w, bool ms)
{
	struct json_object *o = json_object_new_object(), *sw, *rq, *pre;
	const struct cg_sample *s = w->s;

	ADD(o, "id", U64(w->id));
	ADD(o, "path", w->path ? json_object_new_string(w->path) : NULL);
	ADD(o, "removed", json_object_new_boolean(w->removed));
	ADD(o, "cpu_pct", json_object_new_double(w->cpu_pct));
	ADD(o, "oncpu_ns", U64(s->oncpu_ns));
	ADD(o, "wakeups", U64(s->wakeups));
	sw = json_object_new_object();
	ADD(sw, "voluntary", U64(s->sw_vol));
	ADD(sw, "involuntary", U64(s->sw_invol));
	ADD(o, "switches", sw);
	rq = json_object_new_object();
	ADD(rq, "count", U64(s->runq_count));
	ADD(rq, "sum_ns", U64(s->runq_sum_ns));
	ADD(rq, "p50_ns", U64((uint64_t)w->runq_p50_ns));
	ADD(rq, "p99_ns", U64((uint64_t)w->runq_p99_ns));
	ADD(rq, "max_ns", U64(w->runq_max_ns));
	ADD(rq, "hist_unit", json_object_new_string(ms ? "ms" : "us"));
	ADD(rq, "hist", hist_json(s->runq_slots));
	ADD(o, "runq", rq);
	pre = json_object_new_array();
	for (int i = 0; i < w->npre; i++) {
		struct json_object *p = json_object_new_object();
		ADD(p, "id", U64(w->pre[i].id));
		ADD(p, "path", w->pre[i].path ? json_object_new_string(w->pre[i].path) : NULL);
		ADD(p, "count", U64(w->pre[i].count));
		json_object_array_add(pre, p);
	}
	ADD(o, "preempted_by", pre);
	return o;
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
	ADD(o, "task_state", json_object_new_string(m->task_state));
	ADD(o, "ncpus", json_object_new_int(m->ncpus));
	ADD(o, "map_bytes_max", U64(m->map_bytes));
	ADD(o, "drops", drops_json(r->d->drops));
	for (size_t i = 0; i < r->n; i++)
		json_object_array_add(cgs, row_json(&r->rows[i], r->hist_ms));
	ADD(o, "cgroups", cgs);
	return o;
}

void json_emit(FILE *f, struct json_object *o)
{
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), f);
	fputc('\n', f);
	fflush(f);
	json_object_put(o);
}
