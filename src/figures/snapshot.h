/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Read the BPF maps into a snapshot of cumulative values, and take the
 * delta of two snapshots: what happened in an interval. Maps are never
 * reset, so nothing is lost between reads. Only the maxima, which cannot
 * be subtracted, need more: each keeps two slots chosen by the parity of
 * an epoch that the loader advances before a read (include/cgsched.h).
 */
#ifndef CGS_SNAPSHOT_H
#define CGS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "cgsched.h"

struct tracer;

/*
 * Counters the snapshot sums from the throttle map (struct cgs_thr_stats):
 * the episodes of the cgroup's own quota, and their time. Same shape as
 * CGS_CG_COUNTERS.
 */
#define CG_THR_COUNTERS(X) X(thr_count) X(thr_ns)
#define CG_COUNTERS(X) CGS_CG_COUNTERS(X) CG_THR_COUNTERS(X)

/* The JSON objects a counter can sit in, in the order a row shows them. */
enum cg_json {
	CGJ_ROW_TIME,  /* the row itself, after cpu_pct */
	CGJ_SLICES,    /* "oncpu_slices", before its histogram */
	CGJ_ROW,       /* the row itself, after "oncpu_slices" */
	CGJ_SWITCHES,  /* "switches" */
	CGJ_RUNQ,      /* "runq", before the percentiles */
	CGJ_THR,       /* "throttle", before the percentage */
	CGJ_THR_WAIT,  /* "throttle", after "per_cpu" */
	CGJ_WHY,       /* "waited" (--why): what the waits were spent behind */
};

#define CG_ONE(field) +1
#define CG_NCOUNTERS (0 CG_COUNTERS(CG_ONE))
#define CG_NWORDS (CG_NCOUNTERS + 3 * CGS_HIST_SLOTS)

/*
 * Every cumulative figure of a cgroup, each a uint64_t (checked below). An
 * interval is the difference of two reads. The words are summed and
 * subtracted as one array, w[].
 */
struct cg_counters {
	union {
		struct {
#define CG_FIELD(field) uint64_t field;
			CG_COUNTERS(CG_FIELD)
#undef CG_FIELD
			uint64_t runq_slots[CGS_HIST_SLOTS];
			uint64_t oncpu_slots[CGS_HIST_SLOTS];
			uint64_t thr_slots[CGS_HIST_SLOTS];
		};
		uint64_t w[CG_NWORDS];
	};
};
_Static_assert(sizeof(struct cg_counters) == CG_NWORDS * sizeof(uint64_t),
	       "struct cg_counters: every field a uint64_t, as CG_NWORDS counts them");

/* Throttled waits by the cgroup's own quota: all throttled waits less an ancestor's (a torn read may invert them). */
static inline uint64_t cg_own_quota_ns(const struct cg_counters *c)
{
	return c->thr_wait_ns > c->thr_inh_ns ? c->thr_wait_ns - c->thr_inh_ns : 0;
}

/* The exporter's family of a counter (its row in figures/counters.c; src/exporter/metrics.c). */
/* MX_WHY: only with --why; MX_SPLIT: with the split of waits by what ran (export's default, or --why). */
enum { MX_SEC = 1, MX_WHY = 2, MX_LIM = 4, MX_OWNQ = 8, MX_SPLIT = 16 };
struct cg_metric {
	const char *family;    /* after "cgsched_"; NULL: not a counter family of its own */
	const char *label;     /* what tells it from the family's other counters; NULL: none */
	unsigned flags;        /* MX_* */
	const char *help;      /* on the family's first counter */
};

/* One counter of the list, for the outputs that walk it. */
struct cg_counter_def {
	const char *field;
	size_t offset;         /* in struct cg_counters */
	enum cg_json json;
	const char *key;
	const char *column;    /* NULL: not in the table */
	bool in_record;        /* also in record's summary */
	struct cg_metric m;
};
/* Every counter of CG_COUNTERS, in its order (figures/counters.c). */
extern const struct cg_counter_def cg_counter_defs[CG_NCOUNTERS];

static inline uint64_t cg_counter(const struct cg_counters *c, const struct cg_counter_def *d)
{
	return *(const uint64_t *)((const char *)c + d->offset);
}

/* Histogram metrics (hist --metric). */
enum metric { METRIC_RUNQ, METRIC_ONCPU, METRIC_THROTTLE, METRIC__COUNT };

/* Per CPU, with the per-CPU breakdown on. */
struct cg_cpu {
	union {
		struct {
			uint64_t oncpu_ns, thr_count, thr_ns;
			uint64_t slots[METRIC__COUNT][CGS_HIST_SLOTS];
		};
		uint64_t w[3 + METRIC__COUNT * CGS_HIST_SLOTS]; /* subtracted as one array */
	};
};
_Static_assert(sizeof(struct cg_cpu) == (3 + METRIC__COUNT * CGS_HIST_SLOTS) * sizeof(uint64_t),
	       "struct cg_cpu: every field a uint64_t, as w[] counts them");

struct cg_sample {
	uint64_t id;
	struct cg_counters c;
	uint64_t runq_max_ns, thr_max_ns;          /* in the interval the read closed */
	uint64_t runq_max_all_ns, thr_max_all_ns;  /* since attach (carried from the previous read) */
	uint64_t thr_inh_by;     /* ancestor whose quota last held its tasks (0: none) */
	struct cg_cpu *cpu;      /* [ncpus] with per_cpu, else NULL */
	struct thr_cpu { uint64_t count, ns; } *thr_cpu; /* [ncpus] once it throttled */
};

/* One task's figures (top --tasks): cumulative, summed over CPUs. */
struct task_sample {
	uint64_t cgid;
	uint32_t id, tgid;       /* id: the process (tgid), or the thread with --threads */
	char comm[16];           /* as when first seen */
	uint64_t oncpu_ns, wakeups, sw_vol, sw_invol, runq_count, runq_sum_ns;
	uint64_t runq_max_ns, runq_max_all_ns; /* in the interval the read closed; since attach */
	uint64_t runq_slots[CGS_HIST_SLOTS];
};

struct preempt_sample {
	uint64_t victim, preemptor, count;
	uint64_t behind_ns;      /* victim's run-queue wait while preemptor ran (--why) */
};

struct snapshot {
	uint64_t t_ns;           /* monotonic read time */
	bool origin;             /* a session's baseline (snapshot_make_origin): a delta from it is "since start" */
	int ncpus;
	bool per_cpu;
	size_t n, cap;
	struct cg_sample *cg;    /* sorted by id */
	size_t npre, precap;
	struct preempt_sample *pre; /* sorted by (victim, preemptor) */
	uint64_t drops[CGS_DROP__COUNT];
	uint32_t slots_used;     /* cgroup slots in use at the read */
	uint64_t slots_recycled; /* cgroup slots taken back since start */
	size_t ntasks;
	struct task_sample *tasks; /* sorted by (cgid, id); none without per-task figures */
	/*
	 * If the caller sets this before a read, the read records each CPU's
	 * slice running at the read; later reads into s keep it set. A reader
	 * uses it to know which of its figures came after some moment just
	 * before the read (record's demand: demand_rec.c).
	 */
	bool want_running;
	struct cpu_slice *running; /* [ncpus] with want_running */
	/* Set by a caller that shows no on-CPU histogram (the exporter): it is left 0, not summed. */
	bool no_oncpu_slots;
	/*
	 * Some sample has a thr_cpu (or, with per_cpu, a cpu) array to free.
	 * If none has, clearing need not touch each 1 KB sample, which would
	 * miss the cache once per sample.
	 */
	bool arrays;
};
/* A CPU's slice at a read. since_ns 0: unknown. credit_ns: what the read credited to its traced cgroup. */
struct cpu_slice {
	uint64_t since_ns;       /* monotonic */
	uint64_t credit_ns;
};

/* What a read takes (snapshot_take). The zero value reads every map. */
struct snapshot_how {
	bool per_cpu;                /* each CPU's figures too */
	const struct snapshot *prev; /* the read before, which carries the running maxima; NULL: none */
	/*
	 * The cumulative figures only: leave the interval maxima's epoch open
	 * for the command that owns it (export's scrapes beside enforce's
	 * intervals). The maxima read are those of the epoch still open.
	 */
	bool totals;
	/*
	 * The per-cgroup figures and the running slices alone (implies
	 * totals). It skips the parked cgroups, tasks, and the throttle,
	 * preemption and drop maps. record's demand reads every tenth of a
	 * period, and their syscalls would be most of its cost.
	 */
	bool light;
	bool drops;                  /* the drop counters alone, without a read's upkeep (export's /readyz) */
};
/*
 * Read the maps into s, as how says. s is zeroed, or was read or made by
 * a delta before: its arrays are reused. A refresh reads every interval,
 * for days, so it must reuse the same blocks each time. A fresh large block
 * wherever the heap has room would make the process grow over time.
 * Returns 0 or -errno.
 */
int snapshot_take(struct tracer *t, struct snapshot *s, const struct snapshot_how *how);
/* Exchange two reads: the one just taken becomes prev, the older one's arrays take the next read. */
void snapshot_swap(struct snapshot *a, struct snapshot *b);
/*
 * snapshot_take's work on a view already begun (s zeroed first). For
 * tests/bench/readmodel.c, which times it on arrays the size of a big host's.
 */
struct tracer_view;
int snapshot_take_view(const struct tracer_view *t, struct snapshot *s, const struct snapshot_how *how);
void snapshot_free(struct snapshot *s);
/*
 * Make s, just read, the start of a session's window. What the maps held
 * at that moment is subtracted from every later figure, and its maxima are
 * forgotten. So "since start" begins here, not at the attach.
 */
void snapshot_make_origin(struct snapshot *s);
/* The order of s->cg: by cgroup id. */
static inline int cg_sample_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct cg_sample *)a)->id, y = ((const struct cg_sample *)b)->id;

	return x < y ? -1 : x > y;
}

/* The sample of cgroup id in s, or NULL. Inline, so that the task figures can use it without snapshot.c. */
static inline const struct cg_sample *snapshot_find(const struct snapshot *s, uint64_t id)
{
	struct cg_sample key = { .id = id };

	return s->n ? bsearch(&key, s->cg, s->n, sizeof(key), cg_sample_cmp) : NULL;
}
/*
 * out = cur - prev. prev may be NULL: then out holds everything since
 * attach. The maxima are cur's interval maxima, or the running ones since
 * the start if prev is NULL or an origin. Cgroups with no activity are
 * left out. out is zeroed or a delta before: its arrays are reused
 * (snapshot_take's reason).
 */
int snapshot_delta(const struct snapshot *prev, const struct snapshot *cur, struct snapshot *out);
/*
 * out = d with every cgroup id mapped to map(ctx, id), and the samples of
 * each new id summed. Counters and histograms add slot by slot, so
 * percentiles stay exact to the log2 slot. Per-CPU figures add, and maxima
 * take the largest. Preemptions are mapped on both sides. The drops are
 * d's. Returns 0 or -ENOMEM; out needs snapshot_free either way.
 */
int snapshot_regroup(const struct snapshot *d, uint64_t (*map)(void *ctx, uint64_t id), void *ctx,
		     struct snapshot *out);
const uint64_t *sample_slots(const struct cg_sample *s, enum metric m);
/*
 * The per-task figures (figures/task_snapshot.c). The read fills s and
 * carries prev's maxima. The slices running at the read are credited as
 * the cgroups' are: ran[cpu] ns to the task that cur[cpu] names. The delta
 * is cur - prev.
 */
struct tracer_view;
struct cgs_cpu_cur;
int tasks_read(const struct tracer_view *v, struct snapshot *s, const struct snapshot *prev,
	       const struct cgs_cpu_cur *cur, const uint64_t *ran);
int tasks_delta(const struct snapshot *prev, const struct snapshot *cur, struct snapshot *out);
/* Name of a drop counter for output. */
const char *drop_name(int i);
uint64_t drops_total(const uint64_t *d);
/*
 * Put the drops worth a log line (enforce's, each interval) into out
 * (CGS_DROP__COUNT), and return their total. Every loss counts: a map or
 * ring buffer full, a slot lost. Unpaired events count only if out of the
 * ordinary, judged against events (the interval's run-queue waits).
 */
uint64_t drops_notable(const uint64_t *d, uint64_t events, uint64_t *out);

#endif
