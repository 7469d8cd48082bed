// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cgsched's metric families (docs/metrics.md). A per-cgroup series that
 * would only say 0 is left out until its figure first grows: a throttle
 * histogram of a cgroup never throttled, or a wait cause never seen. With
 * many cgroups, the zeros would be most of a scrape. Series are
 * cumulative, so a series once shown stays until its cgroup goes.
 */
#include <stdio.h>
#include <string.h>

#include "lib/cgname.h"
#include "lib/util.h"
#include "exporter/metrics.h"
#include "session/demand_all.h"

static const char *const name_keys[] = { "namespace", "pod", "container", "unit" };

const char *metrics_name_label(const struct cgname *w, const char *key)
{
	if (!w)
		return "";
	if (!strcmp(key, "namespace"))
		return w->pod_namespace;
	if (!strcmp(key, "pod"))
		return w->pod_name;
	if (!strcmp(key, "container"))
		return w->container_name;
	if (!strcmp(key, "unit"))
		return w->container[0] || w->pod_uid[0] ? "" : w->unit;
	return "";
}

/* key="value" after a comma; names come from paths and runtimes' files: anyone's bytes, labels must be UTF-8. */
static void put_label(struct expo *x, const char *prefix, const char *key, const char *v)
{
	char buf[1024];

	expo_puts(x, ",");
	expo_puts(x, prefix);
	expo_puts(x, key);
	expo_puts(x, "=\"");
	expo_label_value(x, utf8_valid(v, buf, sizeof(buf)));
	expo_puts(x, "\"");
}

void metrics_cg_labels(struct expo *x, const char *prefix, const char *path, uint64_t id, const struct cgname *who)
{
	expo_puts(x, prefix);
	expo_puts(x, "cgroup=\"");
	expo_label_value(x, path);
	expo_puts(x, "\",");
	expo_puts(x, prefix);
	expo_puts(x, "cgroup_id=\"");
	expo_u64(x, id);
	expo_puts(x, "\"");
	for (size_t k = 0; who && k < ARRAY_SIZE(name_keys); k++) {
		const char *v = metrics_name_label(who, name_keys[k]);
		if (v[0])
			put_label(x, prefix, name_keys[k], v);
	}
}

/* Its labels' length: kept by the exporter, counted here where a caller (a test) left it 0. */
static size_t labels_len(const struct mx_cg *g)
{
	return g->labels_len ? g->labels_len : g->labels ? strlen(g->labels) : 0;
}

/* Whether the cgroup has a quota now: its throttle series start at 0, so increase() sees the first episodes. */
static bool limited(const struct mx_cg *c)
{
	return c->k && c->k->ok && c->k->quota_us >= 0;
}

/* Whether a counter of the list is traced: --why's only with it, the split's with the split. */
static bool traced_now(const struct metrics_input *in, unsigned flags)
{
	return (!(flags & MX_WHY) || in->why) && (!(flags & MX_SPLIT) || in->split || in->why);
}

/* A counter of the list as its family shows it, traced or not. */
static uint64_t cg_metric_raw(const struct cg_counters *c, const struct cg_counter_def *d)
{
	return d->m.flags & MX_OWNQ ? cg_own_quota_ns(c) : cg_counter(c, d);
}

/* ... and 0 where it is not traced. */
static uint64_t cg_metric_value(const struct metrics_input *in, const struct cg_counters *c,
				const struct cg_counter_def *d)
{
	return traced_now(in, d->m.flags) ? cg_metric_raw(c, d) : 0;
}

void metrics_take_figures(const struct cg_counters *c, uint64_t *values, struct mx_hist *runq, size_t stride,
			   size_t i)
{
	for (size_t k = 0; k < CG_NCOUNTERS; k++)
		if (cg_counter_defs[k].m.family)
			values[k * stride + i] = cg_metric_raw(c, &cg_counter_defs[k]);
	runq[i].count = c->runq_count;
	runq[i].sum_ns = c->runq_sum_ns;
	if (c->runq_count) /* else the family leaves the cgroup out */
		memcpy(runq[i].slots, c->runq_slots, sizeof(runq[i].slots));
}

/*
 * A rendering is a list of steps, one family each. The counter families of
 * the list come first: a step per counter of the list, skipping counters
 * that do not start a family. The rest follow below. Rendering goes step
 * by step and cgroup by cgroup, so that it can stop when its buffer is
 * full and go on from there (metrics_render_some). The exporter thus sends
 * the exposition as it writes it, and never holds all of it.
 */
enum {
	ST_RUNQ,
	ST_THR,
	ST_HOST_PSI,
	ST_PSI,
	ST_PRE,
	ST_BEHIND,
	ST_KSTAT,                   /* one step per kernel counter (kstat_counters) */
	ST_QUOTA = ST_KSTAT + 5,
	ST_PERIOD,
	ST_BURST,
	ST_WEIGHT,
	ST_RAN_OUT,                 /* throttling period by period (report/periods.h) */
	ST_RUNS,
	ST_IN_A_ROW,
	ST_DEM_HIST,                /* demand per period, and the advice from it (session/demand_all.h) */
	ST_DEM_PERIOD,
	ST_DEM_INCOMPLETE,
	ST_ADV_QUOTA,
	ST_ADV_BURST,
	ST_ADV_PERIODS,
	ST_INFO,
	ST_SELF,
	ST__COUNT,
};
#define NSTEPS (CG_NCOUNTERS + ST__COUNT)

/* The kernel's own figures: cpu.stat's counters. */
static const struct kstat_counter {
	const char *name, *help;
	size_t off;
	bool seconds, bursts;
} kstat_counters[] = {
	{ "cgsched_cpu_stat_nr_periods_total", "The kernel's cpu.stat nr_periods: enforcement periods that had runnable tasks",
	  offsetof(struct kstat, nr_periods), false, false },
	{ "cgsched_cpu_stat_nr_throttled_total", "The kernel's cpu.stat nr_throttled: periods in which the cgroup was throttled",
	  offsetof(struct kstat, nr_throttled), false, false },
	{ "cgsched_cpu_stat_throttled_seconds_total", "The kernel's cpu.stat throttled_usec (v2) or throttled_time (v1): throttled time summed over CPUs",
	  offsetof(struct kstat, throttled_ns), true, false },
	{ "cgsched_cpu_stat_nr_bursts_total", "The kernel's cpu.stat nr_bursts: periods in which the cgroup ran into its burst",
	  offsetof(struct kstat, nr_bursts), false, true },
	{ "cgsched_cpu_stat_burst_seconds_total", "The kernel's cpu.stat burst_usec (v2) or burst_time (v1): time run beyond the quota on burst",
	  offsetof(struct kstat, burst_ns), true, true },
};
_Static_assert(ARRAY_SIZE(kstat_counters) == ST_QUOTA - ST_KSTAT, "a step per kernel counter");

/*
 * Write a counter family of the list (CG_COUNTERS' metric column) at its
 * first counter: every counter of the list under the same name, cgroup by
 * cgroup. Returns false, writing nothing, if c->step is not a family's
 * first counter, or if its counters are all --why's and --why is off.
 */
static bool counter_begin(struct expo *x, const struct metrics_input *in, struct mx_cursor *c)
{
	const struct cg_metric *m = &cg_counter_defs[c->step].m;
	bool traced = false;

	if (!m->family)
		return false;
	c->nmem = 0;
	for (size_t k = 0; k < CG_NCOUNTERS; k++) {
		const struct cg_metric *o = &cg_counter_defs[k].m;
		if (!o->family || strcmp(o->family, m->family))
			continue;
		if (k < c->step)
			return false; /* shown with its first counter */
		c->mem[c->nmem++] = k;
		traced |= traced_now(in, o->flags);
	}
	if (!traced)
		return false;
	/* The cursor's: the writer names samples from it while the family lasts. */
	snprintf(c->name, sizeof(c->name), "cgsched_%s", m->family);
	expo_family(x, c->name, EXPO_COUNTER, m->help);
	return true;
}

/* A series is shown once its figure is not 0 (or, MX_LIM, while the cgroup has a quota). */
static void counter_cg(struct expo *x, const struct metrics_input *in, const struct mx_cursor *c,
		       const struct mx_cg *g, size_t i)
{
	for (size_t k = 0; k < c->nmem; k++) {
		const struct cg_counter_def *d = &cg_counter_defs[c->mem[k]];
		uint64_t v = !in->values ? cg_metric_value(in, &g->s->c, d) :
			     traced_now(in, d->m.flags) ? in->values[c->mem[k] * in->stride + i] : 0;
		if (!v && !((d->m.flags & MX_LIM) && limited(g)))
			continue;
		if (d->m.flags & MX_SEC)
			expo_sample_sec_l(x, g->labels, labels_len(g), d->m.label, v);
		else
			expo_sample_u64_l(x, g->labels, labels_len(g), d->m.label, v);
	}
}

/*
 * A cgroup's most frequent preemptors. The pairs are sorted by victim and
 * the cgroups by id, so the cursor walks the pairs once. It skips the
 * pairs of cgroups not shown (gone).
 */
static void preemptors_cg(struct expo *x, const struct metrics_input *in, struct mx_cursor *c,
			  const struct mx_cg *g, bool behind)
{
	const struct snapshot *s = in->snap;
	enum { MAXTOP = 16 };
	unsigned top = in->top_preemptors < MAXTOP ? in->top_preemptors : MAXTOP;
	const struct preempt_sample *best[MAXTOP];
	unsigned nb = 0;
	size_t j;

	while (c->pi < s->npre && s->pre[c->pi].victim < g->id)
		c->pi++;
	for (j = c->pi; j < s->npre && s->pre[j].victim == g->id; j++) {
		/* The top by count: a partial selection, top is small. */
		const struct preempt_sample *p = &s->pre[j];
		unsigned at = nb;
		while (at > 0 && best[at - 1]->count < p->count)
			at--;
		if (at >= top)
			continue;
		if (nb < top)
			nb++;
		memmove(&best[at + 1], &best[at], (nb - 1 - at) * sizeof(best[0]));
		best[at] = p;
	}
	c->pi = j;
	for (unsigned k = 0; k < nb; k++) {
		const char *by = in->by_labels(in->ctx, best[k]->preemptor);
		if (!by)
			continue; /* gone past its grace, or out of memory: without its labels it would repeat another's series */
		if (behind && best[k]->behind_ns)
			expo_sample_sec_l(x, g->labels, labels_len(g), by, best[k]->behind_ns);
		else if (!behind)
			expo_sample_u64_l(x, g->labels, labels_len(g), by, best[k]->count);
	}
}

/* Names a person knows, on a series of their own: join on cgroup_id. */
static void info_cg(struct expo *x, struct mx_cursor *c, const struct mx_cg *g)
{
	const struct cgname *w = g->who;
	struct expo *t = &c->scratch; /* one buffer for every cgroup's extra labels */

	if (!w)
		return;
	const struct { const char *k, *v; } l[] = {
		{ "kind", cgname_kind(w) }, { "unit", w->unit }, { "runtime", w->runtime },
		{ "container_id", w->container }, { "container", w->container_name },
		{ "pod_uid", w->pod_uid }, { "pod", w->pod_name }, { "namespace", w->pod_namespace },
		{ "qos", w->qos },
	};
	t->n = 0;
	for (size_t k = 0; k < ARRAY_SIZE(l); k++) {
		/* Those the label block has already: a label twice is no series. */
		if (!l[k].v[0] || (g->named && metrics_name_label(w, l[k].k)[0]))
			continue;
		put_label(t, "", l[k].k, l[k].v);
	}
	if (t->oom) {
		x->oom = true;
		return;
	}
	expo_sample_u64_l(x, g->labels, labels_len(g), t->n ? t->p + 1 : "", 1); /* put_label's first comma is the writer's */
}

static void self_metrics(struct expo *x, const struct metrics_input *in)
{
	const struct mx_self *m = &in->self;
	char l[256];

	expo_family(x, "cgsched_build_info", EXPO_INFO,
		    "cgsched's version and what it found on this host: scheduler and throttle backends, kernel figures' source, cgroup version");
	struct expo t = {};
	expo_puts(&t, "version=\"");
	expo_label_value(&t, m->version);
	expo_puts(&t, "\",backend=\"");
	expo_label_value(&t, m->backend);
	expo_puts(&t, "\",throttle_backend=\"");
	expo_label_value(&t, m->thr_backend);
	expo_puts(&t, "\",kernel_figures=\"");
	expo_label_value(&t, m->kstat_method);
	expo_puts(&t, "\",cgroup_version=\"");
	expo_u64(&t, m->cgroup_version);
	expo_puts(&t, "\"");
	expo_sample_u64(x, t.oom ? NULL : t.p, NULL, 1);
	expo_free(&t);

	expo_family(x, "cgsched_drops_total", EXPO_COUNTER,
		    "Events the BPF side could not account, by reason (docs/design.md): figures are incomplete when any grows");
	for (int i = 0; i < CGS_DROP__COUNT; i++) {
		snprintf(l, sizeof(l), "reason=\"%s\"", drop_name(i));
		expo_sample_u64(x, l, NULL, in->snap->drops[i]);
	}
	/* The loader's own: throttle episodes its list had no room for, whose periods are not counted. */
	expo_sample_u64(x, "reason=\"episode_list_full\"", NULL, m->episodes_lost);
	expo_family(x, "cgsched_map_entries", EXPO_GAUGE, "Entries in use in a bounded BPF map");
	expo_sample_u64(x, "map=\"cgroups\"", NULL, m->cg_used);
	expo_sample_u64(x, "map=\"preemptions\"", NULL, m->pre_used);
	expo_family(x, "cgsched_map_capacity", EXPO_GAUGE,
		    "Bound of a BPF map (--max-cgroups for cgroups): when full, new entries are drops");
	expo_sample_u64(x, "map=\"cgroups\"", NULL, m->cg_max);
	expo_sample_u64(x, "map=\"preemptions\"", NULL, m->pre_max);
	expo_family(x, "cgsched_cgroup_slots_recycled_total", EXPO_COUNTER,
		    "Cgroup slots taken back, from removed cgroups or (when they ran short) long idle ones (docs/design.md, Slots)");
	expo_sample_u64(x, NULL, NULL, m->recycled);
	expo_family(x, "cgsched_cgroups", EXPO_GAUGE,
		    "Cgroups exported: live, or removed and kept for the grace period (--grace)");
	expo_sample_u64(x, "state=\"live\"", NULL, m->shown - m->grace);
	expo_sample_u64(x, "state=\"removed\"", NULL, m->grace);

	expo_family(x, "cgsched_bpf_stats_enabled", EXPO_GAUGE,
		    "1 when the kernel counts BPF programs' run time (sysctl kernel.bpf_stats_enabled=1): the cgsched_bpf_prog_* series");
	expo_sample_u64(x, NULL, NULL, m->bpf_stats);
	if (m->bpf_stats) {
		expo_family(x, "cgsched_bpf_prog_run_seconds_total", EXPO_COUNTER,
			    "Time the kernel ran each of cgsched's BPF programs (since bpf stats were enabled)");
		for (size_t i = 0; i < m->nprogs; i++) {
			snprintf(l, sizeof(l), "prog=\"%s\"", m->progs[i].name);
			expo_sample_sec(x, l, NULL, m->progs[i].run_ns);
		}
		expo_family(x, "cgsched_bpf_prog_runs_total", EXPO_COUNTER,
			    "Runs of each of cgsched's BPF programs (since bpf stats were enabled)");
		for (size_t i = 0; i < m->nprogs; i++) {
			snprintf(l, sizeof(l), "prog=\"%s\"", m->progs[i].name);
			expo_sample_u64(x, l, NULL, m->progs[i].runs);
		}
	}
	if (in->dem) {
		expo_family(x, "cgsched_advise_target_ratio", EXPO_GAUGE,
			    "The share of periods the advised quotas may leave throttled (--advise-target)");
		expo_sample_f(x, NULL, NULL, in->dem->o.target);
		expo_family(x, "cgsched_advise_window_seconds", EXPO_GAUGE,
			    "How far back the advice looks (--advise-window; at most 36,000 periods)");
		expo_sample_sec(x, NULL, NULL, in->dem->o.window_ns);
	}
	expo_family(x, "cgsched_scrapes_total", EXPO_COUNTER, "Scrapes of /metrics answered, this one included");
	expo_sample_u64(x, NULL, NULL, m->scrapes);

	/* The exporter itself, under the names (and help) every Prometheus client library uses. */
	const struct {
		const char *name, *help;
		uint64_t v;
	} proc[] = {
		{ "process_resident_memory_bytes", "Resident memory size in bytes.", m->rss_bytes },
		{ "process_virtual_memory_bytes", "Virtual memory size in bytes.", m->vsize_bytes },
		{ "process_open_fds", "Number of open file descriptors.", m->open_fds },
		{ "process_max_fds", "Maximum number of open file descriptors.", m->max_fds },
	};
	expo_family(x, "process_cpu_seconds_total", EXPO_COUNTER, "Total user and system CPU time spent in seconds.");
	expo_sample_sec(x, NULL, NULL, m->cpu_ns);
	for (size_t i = 0; i < ARRAY_SIZE(proc); i++) {
		expo_family(x, proc[i].name, EXPO_GAUGE, proc[i].help);
		expo_sample_u64(x, NULL, NULL, proc[i].v);
	}
	expo_family(x, "process_start_time_seconds", EXPO_GAUGE, "Start time of the process since unix epoch in seconds.");
	expo_sample_f(x, NULL, NULL, m->start_time);
}


/* What a step's family header needs besides its name, type and help. */
enum {
	SF_WHY = 1,    /* only with --why */
	SF_PAIRS = 2,  /* preemptor pairs: the pair cursor from the start */
	SF_DEMAND = 4, /* only where demand per period is kept */
};

/* The family of each step whose header is a name, a type and a help (the kernel's counters: kstat_counters). */
static const struct step_family {
	const char *name, *help;
	enum expo_type type;
	unsigned flags;
} step_families[ST__COUNT] = {
	[ST_RUNQ] = { "cgsched_runqueue_latency_seconds",
		      "Run-queue latency of the cgroup's tasks: wake-up or preemption to running (log2 buckets)",
		      EXPO_HISTOGRAM, 0 },
	[ST_THR] = { "cgsched_throttle_episode_seconds",
		     "Throttle episodes of the cgroup's own quota, per CPU: throttle to unthrottle (log2 buckets)",
		     EXPO_HISTOGRAM, 0 },
	/* The kernel's own pressure beside cgsched's waits, where it keeps one per cgroup (v2). */
	[ST_PSI] = { "cgsched_cpu_pressure_some_seconds_total",
		     "The kernel's PSI of the cgroup (v2 cpu.pressure \"some\" total; --why): wall time with a task waiting for a CPU",
		     EXPO_COUNTER, SF_WHY },
	[ST_PRE] = { "cgsched_preemptions_total",
		     "Times a task of by_cgroup took the CPU from a runnable task of the cgroup: its most frequent preemptors",
		     EXPO_COUNTER, SF_PAIRS },
	[ST_BEHIND] = { "cgsched_behind_seconds_total",
			"Run-queue wait of the cgroup's tasks while a task of by_cgroup ran on their CPU (--why), for its top preemptors",
			EXPO_COUNTER, SF_WHY | SF_PAIRS },
	[ST_QUOTA] = { "cgsched_cpu_quota_seconds",
		       "The cgroup's CPU quota per period (cpu.max, cpu.cfs_quota_us); absent when unlimited", EXPO_GAUGE, 0 },
	[ST_PERIOD] = { "cgsched_cpu_period_seconds", "The cgroup's enforcement period (cpu.max, cpu.cfs_period_us)",
			EXPO_GAUGE, 0 },
	[ST_BURST] = { "cgsched_cpu_burst_seconds",
		       "The cgroup's burst allowance (cpu.max.burst, cpu.cfs_burst_us), where the kernel has it and a quota is set",
		       EXPO_GAUGE, 0 },
	[ST_WEIGHT] = { "cgsched_cpu_weight",
			"The cgroup's CPU weight in cpu.weight units (1-10000, 100 by default; v1 cpu.shares converted as the kernel does)",
			EXPO_GAUGE, 0 },
	[ST_RAN_OUT] = { "cgsched_quota_ran_out_seconds",
			 "How far into a period the cgroup's quota ran out: from the period's start to its first throttle, one observation per throttled period",
			 EXPO_HISTOGRAM, 0 },
	[ST_RUNS] = { "cgsched_throttled_run_periods",
		      "Runs of consecutive throttled periods of the cgroup, by length in periods, each observed once a period after it passed unthrottled",
		      EXPO_HISTOGRAM, 0 },
	[ST_IN_A_ROW] = { "cgsched_throttled_periods_in_a_row",
			  "Consecutive throttled periods of the cgroup up to the last one seen; 0 once a period has passed unthrottled",
			  EXPO_GAUGE, 0 },
	[ST_DEM_HIST] = { "cgsched_demand_cpus",
			  "The cgroup's CPU demand in each period, in CPUs (demand / period): one observation per period of its grid",
			  EXPO_HISTOGRAM, SF_DEMAND },
	[ST_DEM_PERIOD] = { "cgsched_demand_period_seconds",
			    "The period of the grid the cgroup's demand is counted on: its quota's, else 100 ms", EXPO_GAUGE,
			    SF_DEMAND },
	[ST_DEM_INCOMPLETE] = { "cgsched_demand_periods_incomplete_total",
				"Periods of the cgroup left out of its demand because their figures were incomplete",
				EXPO_COUNTER, SF_DEMAND },
	[ST_ADV_QUOTA] = { "cgsched_advised_quota_seconds",
			   "The least quota per period that keeps the cgroup's throttled periods within the target over the window, with burst=\"yes\" the least with a burst",
			   EXPO_GAUGE, SF_DEMAND },
	[ST_ADV_BURST] = { "cgsched_advised_burst_seconds",
			   "The burst that goes with the advised quota with a burst", EXPO_GAUGE, SF_DEMAND },
	[ST_ADV_PERIODS] = { "cgsched_advised_periods", "The periods of the window the advice is from", EXPO_GAUGE,
			     SF_DEMAND },
	[ST_INFO] = { "cgsched_cgroup_info",
		      "Who a cgroup belongs to, as its path and the container runtimes say: systemd unit, container, Kubernetes pod",
		      EXPO_INFO, 0 },
};

/*
 * Write the header of the step at hand. Returns true if samples follow
 * cgroup by cgroup (step_cg). Returns false if the step is left out or
 * was written whole.
 */
static bool step_begin(struct expo *x, const struct metrics_input *in, struct mx_cursor *c)
{
	if (c->step < CG_NCOUNTERS)
		return counter_begin(x, in, c);
	unsigned st = c->step - CG_NCOUNTERS;
	if (st == ST_HOST_PSI) {
		/* The kernel's pressure on the host, beside cgsched's waits. */
		if (in->host_psi_ok) {
			expo_family(x, "cgsched_host_cpu_pressure_some_seconds_total", EXPO_COUNTER,
				    "The kernel's PSI: /proc/pressure/cpu \"some\" total, wall time with a task waiting for a CPU");
			expo_sample_sec(x, NULL, NULL, in->host_psi_us * 1000);
		}
		return false;
	}
	if (st == ST_SELF) {
		self_metrics(x, in);
		return false;
	}
	if (st >= ST_KSTAT && st < ST_QUOTA) {
		expo_family(x, kstat_counters[st - ST_KSTAT].name, EXPO_COUNTER, kstat_counters[st - ST_KSTAT].help);
		return true;
	}
	const struct step_family *f = &step_families[st];
	if ((f->flags & SF_WHY) && !in->why)
		return false;
	if ((f->flags & SF_DEMAND) && !in->dem)
		return false;
	expo_family(x, f->name, f->type, f->help);
	if (f->flags & SF_PAIRS) {
		c->pi = 0;
		return in->top_preemptors > 0;
	}
	return true;
}

/* The bounds of the period trackers' buckets (report/periods.c) as the le labels say them, made once. */
static char ran_out_text[PT_RAN_OUT_BOUNDS][24], run_text[PT_RUN_BOUNDS][24];
static const char *ran_out_le[PT_RAN_OUT_BOUNDS], *run_le[PT_RUN_BOUNDS];

static void period_bounds_text(void)
{
	if (ran_out_le[0])
		return;
	for (unsigned i = 0; i < PT_RAN_OUT_BOUNDS; i++) {
		struct expo t = { .p = ran_out_text[i], .cap = sizeof(ran_out_text[i]) - 1 };
		expo_ns_sec(&t, period_ran_out_bounds_ns[i]);
		ran_out_text[i][t.n] = 0;
		ran_out_le[i] = ran_out_text[i];
	}
	for (unsigned i = 0; i < PT_RUN_BOUNDS; i++) {
		snprintf(run_text[i], sizeof(run_text[i]), "%llu", (unsigned long long)period_run_bounds[i]);
		run_le[i] = run_text[i];
	}
}

/*
 * A cgroup's demand histogram: the buckets from the one below its lowest
 * in use to its highest, and +Inf. Buckets outside that range hold
 * nothing, so histogram_quantile reads the same from these as from all.
 */
static void demand_hist(struct expo *x, const struct metrics_input *in, const struct mx_cg *g)
{
	const struct dem_cg *c = g->dem;
	unsigned nb = in->dem->nbuckets, lo = c->blo ? c->blo - 1 : 0, hi = c->bhi < nb - 1 ? c->bhi : nb - 2;
	char extra[40];
	uint64_t cum = 0;

	for (unsigned i = 0; i <= hi; i++) {
		cum += c->bucket[i];
		if (i < lo)
			continue;
		snprintf(extra, sizeof(extra), "le=\"%s\"", demand_bucket_le_text(in->dem, i));
		expo_sample_begin(x, "_bucket", g->labels, extra);
		expo_u64(x, cum);
		expo_sample_end(x);
	}
	expo_sample_begin(x, "_bucket", g->labels, "le=\"+Inf\"");
	expo_u64(x, c->periods);
	expo_sample_end(x);
	expo_sample_begin(x, "_sum", g->labels, NULL);
	char b[40];
	expo_put(x, b, snprintf(b, sizeof(b), "%.9g", (double)c->sum_ns / (double)c->period_ns));
	expo_sample_end(x);
	expo_sample_begin(x, "_count", g->labels, NULL);
	expo_u64(x, c->periods);
	expo_sample_end(x);
}

/* Cgroup i's samples of the step at hand. */
static void step_cg(struct expo *x, const struct metrics_input *in, struct mx_cursor *c, size_t i)
{
	const struct mx_cg *g = &in->cg[i];
	const struct cg_counters *cc = &g->s->c;
	const struct kstat *k = g->k;

	if (c->step < CG_NCOUNTERS) {
		counter_cg(x, in, c, g, i);
		return;
	}
	unsigned st = c->step - CG_NCOUNTERS;
	switch (st) {
	case ST_RUNQ: {
		const struct mx_hist *h = in->runq ? &in->runq[i] : NULL;
		if (h ? h->count : cc->runq_count)
			expo_hist_us_l(x, g->labels, labels_len(g), h ? h->slots : cc->runq_slots, CGS_HIST_SLOTS,
				     h ? h->sum_ns : cc->runq_sum_ns);
		return;
	}
	case ST_THR:
		if (cc->thr_count || limited(g))
			expo_hist_us_l(x, g->labels, labels_len(g), cc->thr_slots, CGS_HIST_SLOTS, cc->thr_ns);
		return;
	case ST_PSI:
		if (g->psi_ok)
			expo_sample_sec_l(x, g->labels, labels_len(g), NULL, g->psi_us * 1000);
		return;
	case ST_PRE:
	case ST_BEHIND:
		preemptors_cg(x, in, c, g, st == ST_BEHIND);
		return;
	case ST_QUOTA:
		if (limited(g))
			expo_sample_sec_l(x, g->labels, labels_len(g), NULL, (uint64_t)k->quota_us * 1000);
		return;
	case ST_PERIOD:
		if (k && k->ok && k->period_us)
			expo_sample_sec_l(x, g->labels, labels_len(g), NULL, k->period_us * 1000);
		return;
	case ST_BURST:
		if (limited(g) && k->has_bursts)
			expo_sample_sec_l(x, g->labels, labels_len(g), NULL, k->burst_us * 1000);
		return;
	case ST_WEIGHT:
		if (k && k->ok && k->weight)
			expo_sample_u64_l(x, g->labels, labels_len(g), NULL, k->weight);
		return;
	case ST_RAN_OUT:
		period_bounds_text();
		if (g->per && limited(g))
			expo_hist_fixed_l(x, g->labels, labels_len(g), ran_out_le, g->per->ran_out, PT_RAN_OUT_BOUNDS, g->per->ran_out_sum_ns,
					true);
		return;
	case ST_RUNS:
		period_bounds_text();
		if (g->per && limited(g))
			expo_hist_fixed_l(x, g->labels, labels_len(g), run_le, g->per->runs, PT_RUN_BOUNDS, g->per->runs_sum, false);
		return;
	case ST_IN_A_ROW:
		if (g->per && limited(g))
			expo_sample_u64_l(x, g->labels, labels_len(g), NULL, g->per->run);
		return;
	case ST_DEM_HIST:
		if (g->dem && g->dem->bucket)
			demand_hist(x, in, g);
		return;
	case ST_DEM_PERIOD:
		if (g->dem && g->dem->periods)
			expo_sample_sec_l(x, g->labels, labels_len(g), NULL, g->dem->period_ns);
		return;
	case ST_DEM_INCOMPLETE:
		if (g->dem && g->dem->periods)
			expo_sample_u64_l(x, g->labels, labels_len(g), NULL, g->dem->incomplete);
		return;
	case ST_ADV_QUOTA:
		if (g->dem && g->dem->adv.ok) {
			expo_sample_sec_l(x, g->labels, labels_len(g), "burst=\"no\"", g->dem->adv.quota_ns);
			if (g->dem->adv.burst_ok)
				expo_sample_sec_l(x, g->labels, labels_len(g), "burst=\"yes\"", g->dem->adv.bq_quota_ns);
		}
		return;
	case ST_ADV_BURST:
		if (g->dem && g->dem->adv.ok && g->dem->adv.burst_ok)
			expo_sample_sec_l(x, g->labels, labels_len(g), NULL, g->dem->adv.bq_burst_ns);
		return;
	case ST_ADV_PERIODS:
		if (g->dem && g->dem->adv.ok)
			expo_sample_u64_l(x, g->labels, labels_len(g), NULL, g->dem->adv.n);
		return;
	case ST_INFO:
		info_cg(x, c, g);
		return;
	default: { /* a kernel counter */
		const struct kstat_counter *kc = &kstat_counters[st - ST_KSTAT];
		/* A cgroup never limited has only zeros here: left out. */
		if (!k || !k->ok || (k->quota_us < 0 && !k->nr_periods) || (kc->bursts && !k->has_bursts))
			return;
		uint64_t v = *(const uint64_t *)((const char *)k + kc->off);
		if (kc->seconds)
			expo_sample_sec_l(x, g->labels, labels_len(g), NULL, v);
		else
			expo_sample_u64_l(x, g->labels, labels_len(g), NULL, v);
	}
	}
}

void metrics_cursor_init(struct mx_cursor *c)
{
	memset(c, 0, sizeof(*c));
}

void metrics_cursor_free(struct mx_cursor *c)
{
	expo_free(&c->scratch);
}

bool metrics_render_some(struct expo *x, const struct metrics_input *in, struct mx_cursor *c, size_t until)
{
	while (c->step < NSTEPS && !x->oom) {
		if (!c->begun) {
			c->begun = true;
			c->i = step_begin(x, in, c) ? 0 : in->n;
		}
		for (; c->i < in->n; c->i++) {
			if (x->n >= until)
				return false;
			step_cg(x, in, c, c->i);
		}
		c->step++;
		c->begun = false;
	}
	return true;
}

void metrics_render(struct expo *x, const struct metrics_input *in)
{
	struct mx_cursor c;

	metrics_cursor_init(&c);
	metrics_render_some(x, in, &c, SIZE_MAX);
	metrics_cursor_free(&c);
}
