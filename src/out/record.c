// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <json-c/json.h>

#include "kernel/runtime_state.h"
#include "lib/cgname.h"
#include "out/hist.h"
#include "out/json_out.h"
#include "out/record.h"
#include "lib/util.h"

/* The report's rows are the traced subtree; its delta is sorted by id. */
static bool in_subtree(const struct report *r, uint64_t id)
{
	return snapshot_find(r->d, id) != NULL;
}

void record_aggregate(struct record_summary *rs, const struct report *r)
{
	memset(&rs->c, 0, sizeof(rs->c));
	rs->runq_max_ns = rs->thr_max_ns = rs->thr_wall_ns = 0;
	rs->npre = 0;
	rs->rows = r;
	uint64_t *per_cpu = calloc(rs->ti.ncpus > 0 ? rs->ti.ncpus : 1, sizeof(*per_cpu));
	for (size_t i = 0; i < r->n; i++) {
		const struct row *w = &r->rows[i];
		for (size_t k = 0; k < CG_NWORDS; k++)
			rs->c.w[k] += w->s->c.w[k];
		if (w->runq_max_ns > rs->runq_max_ns)
			rs->runq_max_ns = w->runq_max_ns;
		if (w->thr_max_ns > rs->thr_max_ns)
			rs->thr_max_ns = w->thr_max_ns;
		for (int cpu = 0; per_cpu && w->s->thr_cpu && cpu < rs->ti.ncpus; cpu++)
			per_cpu[cpu] += w->s->thr_cpu[cpu].ns;
		/* Preemption inside the subtree is the command against itself. */
		for (int p = 0; p < w->npre; p++)
			if (!in_subtree(r, w->pre[p].id))
				preemptors_add(rs->pre, &rs->npre, w->pre[p].id, w->pre[p].count, w->pre[p].path);
	}
	for (int cpu = 0; per_cpu && cpu < rs->ti.ncpus; cpu++)
		if (per_cpu[cpu] > rs->thr_wall_ns)
			rs->thr_wall_ns = per_cpu[cpu];
	free(per_cpu);
}

double record_cpu_pct(const struct record_summary *rs)
{
	return rs->wall_ns ? 100.0 * rs->c.oncpu_ns / rs->wall_ns : 0;
}

/* Episodes by start time, for the union below. */
static int cmp_start(const void *a, const void *b)
{
	const struct cgs_episode *x = a, *y = b;

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

uint64_t episodes_union_ns(const struct cgs_episode *e, size_t n)
{
	struct cgs_episode *s = n ? malloc(n * sizeof(*s)) : NULL;
	uint64_t sum = 0, from = 0, to = 0;

	if (!s)
		return 0;
	memcpy(s, e, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_start);
	for (size_t i = 0; i < n; i++) {
		if (s[i].end_ns <= s[i].start_ns)
			continue;
		if (s[i].start_ns > to) { /* a gap: close the stretch so far */
			sum += to - from;
			from = s[i].start_ns;
			to = s[i].end_ns;
		} else if (s[i].end_ns > to) {
			to = s[i].end_ns;
		}
	}
	sum += to - from;
	free(s);
	return sum;
}

/*
 * Wall time with at least one CPU throttled: the union of the episodes over
 * time. Episodes on different CPUs may overlap (a group runs out of quota
 * everywhere at once) or not (a lone task throttled on CPU 0, later on CPU
 * 1), so neither their sum nor the longest CPU's share is right. When the
 * episode list is incomplete (ring buffer full, list bound), the longest
 * CPU's share, a lower bound. Without episodes of its own (an ancestor's
 * quota held it) its tasks' throttled waits, at most the wall time.
 */
uint64_t record_thr_wall_ns(const struct record_summary *rs)
{
	uint64_t t = rs->thr_wall_ns;

	if (rs->ep.n && rs->ep.n == rs->c.thr_count && !rs->ep.truncated)
		t = episodes_union_ns(rs->ep.e, rs->ep.n);
	if (!t)
		t = rs->c.thr_wait_ns < rs->wall_ns ? rs->c.thr_wait_ns : rs->wall_ns;
	return t;
}

double record_thr_pct(const struct record_summary *rs)
{
	return rs->wall_ns ? 100.0 * record_thr_wall_ns(rs) / rs->wall_ns : 0;
}

static double pctl(const uint64_t *slots, double p, uint64_t max)
{
	return hist_percentile(slots, CGS_HIST_SLOTS, p, max / 1e3) * 1e3;
}

/* Who the recorded cgroup is: its path, and the runtime's state where the host keeps it. */
static const struct cgname *record_who(const struct record_summary *rs, struct cgname *who)
{
	cgname_decode(rs->cgroup, who);
	runtime_names(who, rs->cgroup);
	return cgname_known(who) ? who : NULL;
}

struct json_object *record_json(const struct record_summary *rs)
{
	struct json_object *o = json_object_new_object(), *x;
	struct cgname who;

	JADD(o, "schema", json_object_new_string(CGS_RECORD_SCHEMA));
	JADD(o, "version", json_object_new_int(CGS_RECORD_VERSION));
	json_trace_info(o, &rs->ti);
	if (rs->argv) {
		x = json_object_new_array();
		for (char *const *a = rs->argv; *a; a++)
			json_object_array_add(x, json_object_new_string(*a));
		JADD(o, "command", x);
	} else {
		JADD(o, "command", NULL);
	}
	JADD(o, "cgroup", json_name(rs->cgroup));
	JADD(o, "name", json_who(record_who(rs, &who)));
	JADD(o, "attached", json_object_new_boolean(rs->attached));
	x = json_object_new_object();
	if (rs->limits.has_max) {
		JADD(x, "quota_us", rs->limits.quota_us ? JU64(rs->limits.quota_us) : NULL);
		JADD(x, "period_us", JU64(rs->limits.period_us));
	}
	if (rs->limits.has_weight) {
		JADD(x, "weight", JU64(rs->limits.weight));
		if (rs->ti.cgroup_version == 1)
			JADD(x, "shares", JU64(weight_to_shares(rs->limits.weight)));
	}
	JADD(o, "limits", x);
	JADD(o, "start_time", json_object_new_double(rs->start_time));
	JADD(o, "wall_ns", JU64(rs->wall_ns));
	x = json_object_new_object();
	JADD(x, "status", rs->exit_status >= 0 ? json_object_new_int(rs->exit_status) : NULL);
	JADD(x, "signal", rs->exit_signal > 0 ? json_object_new_int(rs->exit_signal) : NULL);
	JADD(o, "exit", x);
	json_counters(o, &rs->c, CGJ_ROW_TIME, true);
	JADD(o, "cpu_pct", json_object_new_double(record_cpu_pct(rs)));
	json_counters(o, &rs->c, CGJ_ROW, true);
	x = json_object_new_object();
	json_counters(x, &rs->c, CGJ_SWITCHES, true);
	JADD(o, "switches", x);
	x = json_object_new_object();
	json_counters(x, &rs->c, CGJ_THR, true);
	json_counters(x, &rs->c, CGJ_THR_WAIT, true);
	JADD(x, "wall_ns", JU64(record_thr_wall_ns(rs)));
	JADD(x, "pct", json_object_new_double(record_thr_pct(rs)));
	JADD(x, "p99_ns", JU64((uint64_t)pctl(rs->c.thr_slots, 99, rs->thr_max_ns)));
	JADD(x, "max_ns", JU64(rs->thr_max_ns));
	JADD(x, "hist", json_hist(rs->c.thr_slots));
	JADD(o, "throttle", x);
	x = json_object_new_object();
	json_counters(x, &rs->c, CGJ_RUNQ, true);
	JADD(x, "p50_ns", JU64((uint64_t)pctl(rs->c.runq_slots, 50, rs->runq_max_ns)));
	JADD(x, "p99_ns", JU64((uint64_t)pctl(rs->c.runq_slots, 99, rs->runq_max_ns)));
	JADD(x, "max_ns", JU64(rs->runq_max_ns));
	JADD(x, "hist", json_hist(rs->c.runq_slots));
	JADD(o, "runq", x);
	x = json_object_new_array();
	for (int i = 0; i < rs->npre; i++) {
		struct json_object *p = json_object_new_object();
		JADD(p, "id", JU64(rs->pre[i].id));
		JADD(p, "path", json_name(rs->pre[i].path));
		JADD(p, "count", JU64(rs->pre[i].count));
		json_object_array_add(x, p);
	}
	JADD(o, "preempted_by", x);
	if (rs->why_on)
		JADD(o, "waited", why_json(&rs->why, &rs->c));
	if (rs->k_ok) {
		x = json_object_new_object();
		JADD(x, "quota_us", rs->k.quota_us < 0 ? NULL : json_object_new_int64(rs->k.quota_us));
		JADD(x, "period_us", JU64(rs->k.period_us));
		JADD(x, "nr_periods", JU64(rs->k_periods));
		JADD(x, "nr_throttled", JU64(rs->k_throttled));
		JADD(x, "throttled_ns", JU64(rs->k_throttled_ns));
		JADD(x, "oncpu_ns", rs->k_oncpu_source ? JU64(rs->k_oncpu_ns) : NULL);
		JADD(x, "oncpu_source", rs->k_oncpu_source ? json_object_new_string(rs->k_oncpu_source) : NULL);
		if (rs->k_oncpu_source && !strcmp(rs->k_oncpu_source, "schedstat"))
			JADD(x, "oncpu_threads_moved", JU64(rs->k_oncpu_moved));
		JADD(o, "kernel_stat", x);
	} else {
		JADD(o, "kernel_stat", NULL);
	}
	JADD(o, "drops", json_drops(rs->drops));
	x = json_object_new_array();
	for (size_t i = 0; rs->rows && i < rs->rows->n; i++)
		json_object_array_add(x, json_row(&rs->rows->rows[i], false, rs->ti.ncpus, NULL));
	JADD(o, "cgroups", x);
	JADD(o, "episodes", json_episodes(&rs->ep));
	JADD(o, "episodes_truncated", JU64(rs->ep.truncated));
	return o;
}

void record_print(FILE *f, const struct record_summary *rs)
{
	char a[16], b[16], c[16], esc[4 * PATH_MAX];
	struct cgname who;

	fprintf(f, "\n cgsched record: %s", text_escape(rs->cgroup, esc, sizeof(esc)));
	if (who_text(record_who(rs, &who), esc, sizeof(esc)))
		fprintf(f, " (%s)", esc);
	if (rs->argv) {
		fputs(" --", f);
		for (char *const *x = rs->argv; *x; x++)
			fprintf(f, " %s", *x);
	}
	fprintf(f, "\n\n");
	/* A BPF scheduler in charge: the throttle lines below say nothing of cpu.max. */
	if (scx_active(&rs->ti.scx))
		fprintf(f, "  %s\n\n", scx_describe(&rs->ti.scx, esc, sizeof(esc)));
	fprintf(f, "  %12s  wall time\n", fmt_duration(a, sizeof(a), rs->wall_ns));
	fprintf(f, "  %12s  on CPU              # summed over CPUs: %.1f%% of one CPU per wall second\n",
		fmt_duration(a, sizeof(a), rs->c.oncpu_ns), record_cpu_pct(rs));
	fprintf(f, "  %12s  throttled (wall)    # wall time with a CPU of it throttled: %.1f%%; %llu episodes, p99 %s\n",
		fmt_duration(a, sizeof(a), record_thr_wall_ns(rs)),
		record_thr_pct(rs), (unsigned long long)rs->c.thr_count,
		fmt_duration(b, sizeof(b), (uint64_t)pctl(rs->c.thr_slots, 99, rs->thr_max_ns)));
	fprintf(f, "  %12s  run-queue p50       # p99 %s, max %s, %llu waits\n",
		fmt_duration(a, sizeof(a), (uint64_t)pctl(rs->c.runq_slots, 50, rs->runq_max_ns)),
		fmt_duration(b, sizeof(b), (uint64_t)pctl(rs->c.runq_slots, 99, rs->runq_max_ns)),
		fmt_duration(c, sizeof(c), rs->runq_max_ns), (unsigned long long)rs->c.runq_count);
	fprintf(f, "  %12llu  switches            # %llu voluntary, %llu involuntary; %llu wake-ups\n",
		(unsigned long long)(rs->c.sw_vol + rs->c.sw_invol), (unsigned long long)rs->c.sw_vol,
		(unsigned long long)rs->c.sw_invol, (unsigned long long)rs->c.wakeups);
	if (rs->k_ok)
		fprintf(f, "  %12s  kernel cpu.stat     # throttled time summed over CPUs; in %llu of %llu periods (quota %s)\n",
			fmt_duration(a, sizeof(a), rs->k_throttled_ns), (unsigned long long)rs->k_throttled,
			(unsigned long long)rs->k_periods,
			rs->k.quota_us < 0 ? "max" : fmt_duration(b, sizeof(b), rs->k.quota_us * 1000));
	if (rs->k_oncpu_source) {
		fprintf(f, "  %12s  kernel on CPU       # %s over the same window", fmt_duration(a, sizeof(a), rs->k_oncpu_ns),
			rs->k_oncpu_source);
		if (rs->k_oncpu_moved)
			fprintf(f, "; %u thread%s came or went, their time not in it", rs->k_oncpu_moved,
				rs->k_oncpu_moved == 1 ? "" : "s");
		fputc('\n', f);
	}
	for (int i = 0; i < rs->npre; i++)
		fprintf(f, "  %12llu  preempted by %s\n", (unsigned long long)rs->pre[i].count,
			rs->pre[i].path ? text_escape(rs->pre[i].path, esc, sizeof(esc)) : "(removed)");
	if (rs->why_on) {
		fputc('\n', f);
		why_print(f, text_escape(rs->cgroup, esc, sizeof(esc)), &rs->why);
	}
	fputs("  ", f);
	report_drops(f, rs->drops);
	if (hist_total(rs->c.runq_slots, CGS_HIST_SLOTS)) {
		fprintf(f, "\nrun-queue latency\n");
		hist_print(f, rs->c.runq_slots, CGS_HIST_SLOTS, "usecs");
	}
	if (hist_total(rs->c.thr_slots, CGS_HIST_SLOTS)) {
		fprintf(f, "\nthrottle episodes\n");
		hist_print(f, rs->c.thr_slots, CGS_HIST_SLOTS, "usecs");
	}
	fputc('\n', f);
}

void record_why(struct record_summary *rs, const struct report *r, struct cgfs *fs)
{
	struct why_named named[WHY_NAMED_MAX];
	struct cg_counters c = rs->c;
	uint64_t inside = 0, inh_by = 0;
	int nn = 0;

	for (size_t i = 0; i < r->d->npre; i++) {
		const struct preempt_sample *p = &r->d->pre[i];
		if (!p->behind_ns || !in_subtree(r, p->victim))
			continue;
		if (in_subtree(r, p->preemptor))
			inside += p->behind_ns;
		else
			why_named_add(named, &nn, p->preemptor, p->behind_ns);
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct cg_sample *s = r->rows[i].s;
		if (!s->c.thr_inh_ns)
			continue;
		if (in_subtree(r, s->thr_inh_by))
			c.thr_inh_ns -= s->c.thr_inh_ns < c.thr_inh_ns ? s->c.thr_inh_ns : c.thr_inh_ns;
		else if (!inh_by)
			inh_by = s->thr_inh_by;
	}
	why_build(&rs->why, &c, inh_by, named, nn, inside, rs->wall_ns);
	if (fs)
		why_resolve(&rs->why, fs);
	rs->why_on = true;
}
