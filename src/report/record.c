// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <stdio.h>

#include "kernel/runtime_state.h"
#include "lib/cgname.h"
#include "lib/stats.h"
#include "report/hist.h"
#include "report/json_out.h"
#include "report/record.h"
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

/* The demand period by period (report/periods.h): its quantiles, then every period's figures. */
static void demand_json(struct jw *w, const struct demand_series *d)
{
	uint64_t sum = 0;

	if (!d || !d->n) {
		jw_null(w);
		return;
	}
	size_t np = demand_periods(d), k = d->period_ns / d->step_ns;
	if (!np) {
		jw_null(w);
		return;
	}
	for (size_t i = 0; i < np * k; i++)
		sum += demand_us(d, i);
	jw_object(w);
	jw_ku64(w, "period_us", d->period_ns / 1000);
	jw_ku64(w, "step_us", d->step_ns / 1000);
	jw_kbool(w, "aligned", d->aligned);
	jw_ku64(w, "periods", np);
	jw_ku64(w, "steps", d->n);
	jw_ku64(w, "late", d->late);
	/* Older readers find these: the steps leave no step end unresolved now. */
	jw_ku64(w, "unsure_max_us", 0);
	jw_ku64(w, "unsure_steps", 0);
	jw_ku64(w, "cpus", d->cpus);
	jw_ku64(w, "cpus_any", d->cpus_any);
	jw_ku64(w, "slice_us", d->slice_us);
	/* "arrivals": used_us places delayed work where it ran without the throttle (report/periods.h). */
	jw_kstring(w, "estimator", d->placed ? "arrivals" : "use+waits");
	jw_ku64(w, "unplaced_us", d->unplaced_ns / 1000);
	jw_ku64(w, "clipped_us", d->clipped_ns / 1000);
	jw_ku64(w, "mean_us", sum / np);
	jw_ku64(w, "p50_us", demand_quantile_us(d, 50));
	jw_ku64(w, "p90_us", demand_quantile_us(d, 90));
	jw_ku64(w, "p99_us", demand_quantile_us(d, 99));
	jw_ku64(w, "max_us", demand_quantile_us(d, 100));
	jw_karray(w, "used_us");
	for (size_t i = 0; i < d->n; i++)
		jw_u64(w, d->used_us[i]);
	jw_end_array(w);
	jw_karray(w, "waited_us");
	for (size_t i = 0; i < d->n; i++)
		jw_u64(w, d->waited_us[i]);
	jw_end_array(w);
	jw_end_object(w);
}

int record_periods(struct record_summary *rs, uint64_t id, uint64_t period_end_ns)
{
	const struct period_input in = {
		.id = id, .period_ns = rs->k.period_us * 1000, .end_ns = period_end_ns,
		.quota_ns = rs->k_ok && rs->k.quota_us > 0 ? (uint64_t)rs->k.quota_us * 1000 : 0,
		.use_ns = rs->c.oncpu_ns, .window_ns = rs->wall_ns,
	};

	/* Episodes lost to a full log would be periods missed: none said rather than too few. */
	if (rs->ep.truncated) {
		memset(&rs->per, 0, sizeof(rs->per));
		return 0;
	}
	if (!rs->nopen)
		return periods_of(rs->ep.e, rs->ep.n, &in, &rs->per);
	struct cgs_episode *all = malloc((rs->ep.n + rs->nopen) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	memcpy(all, rs->ep.e, rs->ep.n * sizeof(*all));
	memcpy(all + rs->ep.n, rs->open, rs->nopen * sizeof(*all));
	int err = periods_of(all, rs->ep.n + rs->nopen, &in, &rs->per);
	free(all);
	return err;
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
		if (s[i].end_ns <= s[i].start_ns || !episode_timed(&s[i]))
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

void record_fig_of(const struct record_summary *rs, struct record_fig *f)
{
	*f = (struct record_fig){
		.wall_ns = rs->wall_ns,
		.oncpu_ns = rs->c.oncpu_ns,
		.runq_p50_ns = (uint64_t)pctl(rs->c.runq_slots, 50, rs->runq_max_ns),
		.runq_p99_ns = (uint64_t)pctl(rs->c.runq_slots, 99, rs->runq_max_ns),
		.thr_ns = rs->c.thr_ns,
		.cpu_pct = record_cpu_pct(rs),
		.thr_pct = record_thr_pct(rs),
		.k_oncpu = rs->k_ok && rs->k_oncpu_source,
		.k_oncpu_ns = rs->k_oncpu_ns,
		.k_oncpu_spread_ns = rs->k_oncpu_spread_ns,
	};
}

/* record --repeat's figures, by the names of the report and check (docs/json.md, "repeat"). */
static const struct {
	const char *name, *label;
	bool ns;
	size_t off;
} rep_figs[] = {
#define FIG_U(x, label) { #x, label, true, offsetof(struct record_fig, x) }
#define FIG_D(x, label) { #x, label, false, offsetof(struct record_fig, x) }
	FIG_U(wall_ns, "wall time"),
	FIG_U(oncpu_ns, "on CPU"),
	FIG_D(cpu_pct, "CPU % of one"),
	FIG_U(runq_p50_ns, "run-queue p50"),
	FIG_U(runq_p99_ns, "run-queue p99"),
	FIG_D(thr_pct, "throttled %"),
	FIG_U(thr_ns, "throttled"),
#undef FIG_U
#undef FIG_D
};

static double fig_value(const struct record_fig *f, size_t k)
{
	const char *p = (const char *)f + rep_figs[k].off;

	return rep_figs[k].ns ? (double)*(const uint64_t *)p : *(const double *)p;
}

/* Figure k of every run, into v (rep->n of them). */
static void fig_column(const struct record_repeat *rep, size_t k, double *v)
{
	for (size_t i = 0; i < rep->n; i++)
		v[i] = fig_value(&rep->runs[i], k);
}

static void repeat_json(struct jw *w, const struct record_repeat *rep)
{
	double *v = malloc((rep->n ? rep->n : 1) * sizeof(*v));

	jw_kobject(w, "repeat");
	jw_ku64(w, "runs", rep->n);
	jw_ku64(w, "warmup", rep->warmup);
	jw_kdouble(w, "confidence", rep->conf);
	jw_kstring(w, "interval", "order statistics");
	jw_karray(w, "per_run");
	for (size_t i = 0; i < rep->n; i++) {
		jw_object(w);
		for (size_t k = 0; k < ARRAY_SIZE(rep_figs); k++) {
			if (rep_figs[k].ns)
				jw_ku64(w, rep_figs[k].name, (uint64_t)fig_value(&rep->runs[i], k));
			else
				jw_kdouble(w, rep_figs[k].name, fig_value(&rep->runs[i], k));
		}
		/* Each run beside the kernel's count of it, as kernel_stat gives the last run's. */
		jw_ku64_or_null(w, "kernel_oncpu_ns", rep->runs[i].k_oncpu, rep->runs[i].k_oncpu_ns);
		jw_ku64_or_null(w, "kernel_oncpu_spread_ns", rep->runs[i].k_oncpu, rep->runs[i].k_oncpu_spread_ns);
		jw_end_object(w);
	}
	jw_end_array(w);
	jw_kobject(w, "summary");
	for (size_t k = 0; v && rep->n && k < ARRAY_SIZE(rep_figs); k++) {
		struct stat_summary st;
		fig_column(rep, k, v);
		if (stat_summarize(v, rep->n, rep->conf, &st))
			continue;
		jw_kobject(w, rep_figs[k].name);
		jw_kdouble(w, "median", st.median);
		jw_kdouble(w, "min", st.min);
		jw_kdouble(w, "max", st.max);
		jw_kdouble(w, "ci_low", st.lo);
		jw_kdouble(w, "ci_high", st.hi);
		jw_kdouble(w, "ci_coverage", st.coverage);
		jw_end_object(w);
	}
	jw_end_object(w);
	jw_end_object(w);
	free(v);
}

void record_repeat_print(FILE *f, const struct record_repeat *rep)
{
	double *v = malloc((rep->n ? rep->n : 1) * sizeof(*v));
	char a[16], b[16], c[16], d[16], e[16];

	if (!v || !rep->n)
		goto out;
	fprintf(f, "\n %zu runs (after %zu to warm up): each figure's median and %.0f%% interval\n\n",
		rep->n, rep->warmup, 100 * rep->conf);
	fprintf(f, "  %-16s %12s  %25s  %12s %12s\n", "", "median", "interval", "min", "max");
	for (size_t k = 0; k < ARRAY_SIZE(rep_figs); k++) {
		struct stat_summary st;
		fig_column(rep, k, v);
		if (stat_summarize(v, rep->n, rep->conf, &st))
			break;
		char iv[40];
		if (rep_figs[k].ns) {
			snprintf(iv, sizeof(iv), "[%s, %s]", fmt_duration(b, sizeof(b), (uint64_t)st.lo),
				 fmt_duration(c, sizeof(c), (uint64_t)st.hi));
			fprintf(f, "  %-16s %12s  %25s  %12s %12s\n", rep_figs[k].label,
				fmt_duration(a, sizeof(a), (uint64_t)st.median), iv,
				fmt_duration(d, sizeof(d), (uint64_t)st.min), fmt_duration(e, sizeof(e), (uint64_t)st.max));
		} else {
			snprintf(iv, sizeof(iv), "[%.2f, %.2f]", st.lo, st.hi);
			fprintf(f, "  %-16s %12.2f  %25s  %12.2f %12.2f\n", rep_figs[k].label, st.median, iv, st.min, st.max);
		}
		if (k == 0 && st.coverage < rep->conf)
			fprintf(f, "  %-16s (%zu runs give at most %.1f%% confidence; %.0f%% needs more runs)\n", "",
				rep->n, 100 * st.coverage, 100 * rep->conf);
	}
out:
	free(v);
}

void record_json(struct jw *w, const struct record_summary *rs)
{
	struct cgname who;

	jw_object(w);
	jw_kstring(w, "schema", CGS_RECORD_SCHEMA);
	jw_ki64(w, "version", CGS_RECORD_VERSION);
	json_trace_info(w, &rs->ti);
	jw_key(w, "command");
	if (rs->argv) {
		jw_array(w);
		for (char *const *a = rs->argv; *a; a++)
			jw_string(w, *a);
		jw_end_array(w);
	} else {
		jw_null(w);
	}
	jw_kname(w, "cgroup", rs->cgroup);
	jw_key(w, "name");
	json_who(w, record_who(rs, &who));
	jw_kbool(w, "attached", rs->attached);
	jw_kobject(w, "limits");
	if (rs->limits.has_max) {
		jw_ku64_or_null(w, "quota_us", rs->limits.quota_us, rs->limits.quota_us);
		jw_ku64(w, "period_us", rs->limits.period_us);
	}
	if (rs->limits.has_weight) {
		jw_ku64(w, "weight", rs->limits.weight);
		if (rs->ti.cgroup_version == 1)
			jw_ku64(w, "shares", weight_to_shares(rs->limits.weight));
	}
	jw_end_object(w);
	jw_kdouble(w, "start_time", rs->start_time);
	jw_ku64(w, "wall_ns", rs->wall_ns);
	jw_kobject(w, "exit");
	jw_ki64_or_null(w, "status", rs->exit_status >= 0, rs->exit_status);
	jw_ki64_or_null(w, "signal", rs->exit_signal > 0, rs->exit_signal);
	jw_end_object(w);
	json_counters(w, &rs->c, CGJ_ROW_TIME, true);
	jw_kdouble(w, "cpu_pct", record_cpu_pct(rs));
	json_counters(w, &rs->c, CGJ_ROW, true);
	jw_kobject(w, "switches");
	json_counters(w, &rs->c, CGJ_SWITCHES, true);
	jw_end_object(w);
	jw_kobject(w, "throttle");
	json_counters(w, &rs->c, CGJ_THR, true);
	json_counters(w, &rs->c, CGJ_THR_WAIT, true);
	jw_ku64(w, "wall_ns", record_thr_wall_ns(rs));
	jw_kdouble(w, "pct", record_thr_pct(rs));
	jw_ku64(w, "p99_ns", (uint64_t)pctl(rs->c.thr_slots, 99, rs->thr_max_ns));
	jw_ku64(w, "max_ns", rs->thr_max_ns);
	jw_key(w, "hist");
	json_hist(w, rs->c.thr_slots);
	jw_ku64(w, "open_at_end", rs->nopen);
	jw_key(w, "periods");
	json_periods(w, &rs->per);
	jw_end_object(w);
	jw_kobject(w, "runq");
	json_counters(w, &rs->c, CGJ_RUNQ, true);
	jw_ku64(w, "p50_ns", (uint64_t)pctl(rs->c.runq_slots, 50, rs->runq_max_ns));
	jw_ku64(w, "p99_ns", (uint64_t)pctl(rs->c.runq_slots, 99, rs->runq_max_ns));
	jw_ku64(w, "max_ns", rs->runq_max_ns);
	jw_key(w, "hist");
	json_hist(w, rs->c.runq_slots);
	jw_end_object(w);
	jw_karray(w, "preempted_by");
	for (int i = 0; i < rs->npre; i++) {
		jw_object(w);
		jw_ku64(w, "id", rs->pre[i].id);
		jw_kname(w, "path", rs->pre[i].path);
		jw_ku64(w, "count", rs->pre[i].count);
		jw_end_object(w);
	}
	jw_end_array(w);
	if (rs->why_on) {
		jw_key(w, "waited");
		why_json(w, &rs->why, &rs->c);
	}
	jw_key(w, "demand");
	demand_json(w, rs->demand);
	jw_key(w, "kernel_stat");
	if (rs->k_ok) {
		jw_object(w);
		jw_ki64_or_null(w, "quota_us", rs->k.quota_us >= 0, rs->k.quota_us);
		jw_ku64(w, "period_us", rs->k.period_us);
		jw_ku64(w, "nr_periods", rs->k_periods);
		jw_ku64(w, "nr_throttled", rs->k_throttled);
		jw_ku64(w, "throttled_ns", rs->k_throttled_ns);
		jw_ku64_or_null(w, "nr_bursts", rs->k.has_bursts, rs->k_bursts);
		jw_ku64_or_null(w, "burst_ns", rs->k.has_bursts, rs->k_burst_ns);
		jw_ku64_or_null(w, "oncpu_ns", rs->k_oncpu_source, rs->k_oncpu_ns);
		jw_kstring(w, "oncpu_source", rs->k_oncpu_source);
		jw_ku64_or_null(w, "oncpu_spread_ns", rs->k_oncpu_source, rs->k_oncpu_spread_ns);
		if (rs->k_oncpu_source && !strcmp(rs->k_oncpu_source, "schedstat"))
			jw_ku64(w, "oncpu_threads_moved", rs->k_oncpu_moved);
		jw_end_object(w);
	} else {
		jw_null(w);
	}
	jw_key(w, "drops");
	json_drops(w, rs->drops);
	jw_karray(w, "cgroups");
	for (size_t i = 0; rs->rows && i < rs->rows->n; i++)
		json_row(w, &rs->rows->rows[i], false, rs->ti.ncpus, NULL);
	jw_end_array(w);
	jw_key(w, "episodes");
	json_episodes(w, &rs->ep);
	jw_ku64(w, "episodes_truncated", rs->ep.truncated);
	if (rs->repeat)
		repeat_json(w, rs->repeat);
	jw_end_object(w);
}

char *record_json_text(const struct record_summary *rs, size_t *len)
{
	char *buf = NULL, *text = NULL;
	FILE *f = open_memstream(&buf, len);
	struct jw w;

	if (!f)
		return NULL;
	jw_init(&w, f, true);
	record_json(&w, rs);
	if (fclose(f))
		goto out;
	text = buf;
	buf = NULL;
out:
	free(buf);
	return text;
}

void record_print(FILE *f, const struct record_summary *rs)
{
	char a[16], b[16], c[16], d1[16], e1[16], esc[4 * PATH_MAX];
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
	fprintf(f, "  %12s  on CPU              # summed over CPUs; %.1f%% of one CPU\n",
		fmt_duration(a, sizeof(a), rs->c.oncpu_ns), record_cpu_pct(rs));
	fprintf(f, "  %12s  throttled (wall)    # %.1f%% of wall time; %llu episodes, p99 %s\n",
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
		fprintf(f, "  %12s  kernel cpu.stat     # throttled, summed over CPUs; %llu of %llu periods; quota %s\n",
			fmt_duration(a, sizeof(a), rs->k_throttled_ns), (unsigned long long)rs->k_throttled,
			(unsigned long long)rs->k_periods,
			rs->k.quota_us < 0 ? "max" : fmt_duration(b, sizeof(b), rs->k.quota_us * 1000));
	/* A line of the comment column per fact: each stays short enough to read at a glance. */
	if (rs->per.known && rs->per.throttled) {
		fprintf(f, "  %12llu  throttled periods   # up to %llu in a row; quota out at %s p50, %s p99\n",
			(unsigned long long)rs->per.throttled, (unsigned long long)rs->per.longest_run,
			fmt_duration(a, sizeof(a), rs->per.ran_out_p50_ns), fmt_duration(b, sizeof(b), rs->per.ran_out_p99_ns));
		if (rs->per.underused)
			fprintf(f, "%36s# bursty: it used under half its quota on average\n", "");
		if (rs->nopen)
			fprintf(f, "%36s# still throttled at the end: last episode not timed\n", "");
	}
	if (rs->demand && demand_periods(rs->demand)) {
		fprintf(f, "  %12s  demand per period   # p50 of %zu periods of %s%s\n",
			fmt_duration(a, sizeof(a), demand_quantile_us(rs->demand, 50) * 1000), demand_periods(rs->demand),
			fmt_duration(b, sizeof(b), rs->demand->period_ns), rs->demand->aligned ? ", aligned to the quota" : "");
		fprintf(f, "%36s# p90 %s, p99 %s, max %s\n", "", fmt_duration(c, sizeof(c), demand_quantile_us(rs->demand, 90) * 1000),
			fmt_duration(d1, sizeof(d1), demand_quantile_us(rs->demand, 99) * 1000),
			fmt_duration(e1, sizeof(e1), demand_quantile_us(rs->demand, 100) * 1000));
	}
	if (rs->k_ok && rs->k.has_bursts && rs->k_bursts)
		fprintf(f, "  %12llu  burst periods       # ran on the burst allowance: %s (cpu.stat)\n",
			(unsigned long long)rs->k_bursts, fmt_duration(a, sizeof(a), rs->k_burst_ns));
	if (rs->k_oncpu_source) {
		fprintf(f, "  %12s  kernel on CPU       # from %s, over the same window\n", fmt_duration(a, sizeof(a), rs->k_oncpu_ns),
			rs->k_oncpu_source);
		if (rs->k_oncpu_moved)
			fprintf(f, "%36s# leaves out %u thread%s that came or went\n", "", rs->k_oncpu_moved,
				rs->k_oncpu_moved == 1 ? "" : "s");
		/* Shown from 0.1 % of the figure up: a host's spread is microseconds. */
		if (rs->k_oncpu_spread_ns * 1000 >= rs->k_oncpu_ns && rs->k_oncpu_spread_ns)
			fprintf(f, "%36s# within %s either way (it ran while read)\n", "",
				fmt_duration(b, sizeof(b), rs->k_oncpu_spread_ns / 2));
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
