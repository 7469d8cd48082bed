/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Types shared by the BPF programs and the loader. This header is compiled for
 * both the BPF target and the host, so it holds plain __u32/__u64 types and
 * constants only, and never includes vmlinux or kernel headers.
 *
 * A slot is the index of a cgroup's entries in the per-cgroup arrays, and slot1
 * is the slot + 1, with 0 for none. A shard is one copy of a slot's rarer
 * figures, which CPUs may share (sched.bpf.c). The hot-path clock is the rq
 * clock of the task's CPU (compat.bpf.h sched_now).
 */
#ifndef CGSCHED_H
#define CGSCHED_H

#include <linux/types.h>

/*
 * A log2 histogram of microseconds, in bcc's layout. Slot 0 counts 0..1 us, and
 * slot i (i >= 1) counts [2^i, 2^(i+1) - 1] us. 32 slots reach ~71 min.
 */
#define CGS_HIST_SLOTS 32

/* Deepest cgroup nesting walked when matching the --cgroup filter. */
#define CGS_MAX_DEPTH 32

/* Most --cgroup filters (each includes its descendants). */
#define CGS_MAX_FILTERS 64

/*
 * A per-interval maximum, kept in two slots picked by the parity of a global
 * epoch. The loader advances the epoch before each read. BPF writes the current
 * epoch's slot while the loader reads the finished one, so the hot path needs
 * no resets or deletes.
 */
struct cgs_max {
	__u64 epoch;
	__u64 value;
};

/*
 * The interval maximum of cg_hot, packed in 8 bytes a slot instead of struct
 * cgs_max's 16. The epoch's low 24 bits sit above the value's 40 bits. The
 * value is in ns, up to 18 min 19 s; a longer wait is kept as that. It is read
 * like a cgs_max, by the epoch's parity. A slot last written 2^24 epochs
 * earlier would pass for the current one. BPF writes it (max_pupdate in
 * common.bpf.h); the loader reads and merges it.
 */
#define CGS_PMAX_VBITS 40
#define CGS_PMAX_VMAX ((1ULL << CGS_PMAX_VBITS) - 1)
#define CGS_PMAX_TAG(e) (((__u64)(e) & 0xffffffULL) << CGS_PMAX_VBITS)

/* The maximum of the epoch in m (0: none written in it). */
static inline __u64 cgs_pmax_of(const __u64 *m, __u64 epoch)
{
	__u64 v = m[epoch & 1];

	return (v & ~CGS_PMAX_VMAX) == CGS_PMAX_TAG(epoch) ? v & CGS_PMAX_VMAX : 0;
}

/* d gets the later epoch of each slot, or the larger value of the same one. */
static inline void cgs_pmax_merge(__u64 *d, const __u64 *s)
{
	for (int i = 0; i < 2; i++) {
		__u64 dt = d[i] >> CGS_PMAX_VBITS, st = s[i] >> CGS_PMAX_VBITS;

		if (!s[i])
			continue;
		/* Later, modulo the tag's 24 bits; a zero slot was never written. */
		if (!d[i] || (st != dt && ((st - dt) & 0xffffffULL) < 0x800000ULL) ||
		    (st == dt && (s[i] & CGS_PMAX_VMAX) > (d[i] & CGS_PMAX_VMAX)))
			d[i] = s[i];
	}
}

/*
 * The counters of a cgroup that its rows sum and subtract, one entry each:
 * X(field). This one list generates the BPF structs below and the
 * snapshot's sums and deltas. It has two parts: hot counters, which every
 * switch or wait writes (struct cgs_cg_hot), and shard counters (struct
 * cgs_cg_shard). Their JSON keys, `top` columns and metrics are
 * userspace's, in the same order (src/figures/counters.c). To add a
 * counter, add its entry here, the BPF line that counts it, its row in
 * counters.c, and its line in docs/json.md (and docs/metrics.md if
 * exported).
 */
#define CGS_CG_HOT_COUNTERS(X)                                               \
	X(oncpu_ns)       /* time its tasks ran */                           \
	X(oncpu_count)    /* completed on-CPU slices */                      \
	X(wakeups)        /* sched_wakeup(_new) */                           \
	X(sw_vol)         /* switched out blocked */                         \
	X(sw_invol)       /* switched out runnable */                        \
	X(runq_count)     /* completed run-queue waits */                    \
	X(runq_sum_ns)    /* their sum */

#define CGS_CG_SHARD_COUNTERS(X)                                             \
	X(thr_wait_count) /* waits throttled, not queued */                  \
	X(thr_wait_ns)    /* their sum */                                    \
	X(thr_inh_ns)     /* of them, an ancestor's quota */                 \
	X(wb_same_ns)     /* waits behind its own cgroup's other tasks */    \
	X(wb_other_ns)    /* behind tasks of other cgroups */                \
	X(wb_kthread_ns)  /* behind kernel threads (not real-time) */        \
	X(wb_rt_ns)       /* behind real-time, deadline, stop tasks */       \
	X(wb_idle_ns)     /* the CPU idle: waking it, or a pull */           \
	X(wb_unknown_ns)  /* no mark at its start (see drops) */             \
	X(some_ns)        /* wall time with >= 1 task waiting (--why) */

#define CGS_CG_COUNTERS(X) CGS_CG_HOT_COUNTERS(X) CGS_CG_SHARD_COUNTERS(X)

/*
 * A cgroup's figures live in two arrays (sched.bpf.c; docs/design.md,
 * "Memory"). cg_hot, indexed by CPU and slot, holds what every switch or wait
 * writes. It is per CPU, so no two CPUs write one cache line.
 */
#define CGS_CG_HOT_FIELDS                                          \
	CGS_CG_HOT_COUNTERS(CGS_CG_FIELD)                          \
	__u64 runq_max[2];   /* packed (epoch, max): cgs_pmax_of */
/*
 * cg_shard, indexed by shard and slot, holds the rest, mostly the histograms.
 * CPU c writes shard c % shards, with atomic adds where CPUs share one. There
 * are as many shards as CPUs when CPUs are few, or when the per-CPU view is
 * asked for.
 */
#define CGS_CG_SHARD_FIELDS                                        \
	CGS_CG_SHARD_COUNTERS(CGS_CG_FIELD)                        \
	__u64 runq_slots[CGS_HIST_SLOTS];                          \
	__u64 oncpu_slots[CGS_HIST_SLOTS];  /* on-CPU slice lengths */ \
	__u64 thr_inh_by;    /* the ancestor of thr_inh_ns (the latest seen) */ \
	/*                                                         \
	 * --why: tasks of the cgroup waiting now, and since when  \
	 * (wall time with one or more waiting: some_ns). Used in  \
	 * shard 0's entry only, by every CPU.                     \
	 */                                                        \
	__s64 wait_n;                                              \
	__u64 wait_since;

#define CGS_CG_FIELD(field) __u64 field;
struct cgs_cg_hot {
	CGS_CG_HOT_FIELDS
};

struct cgs_cg_shard {
	CGS_CG_SHARD_FIELDS
};

#undef CGS_CG_FIELD

/* Both, folded: the loader's record of a cgroup whose slot it took back (src/trace/slots.h). */
struct cgs_cg_stats {
	struct cgs_cg_hot h;
	struct cgs_cg_shard sh;
};

/* Shards of cg_shard when there are more CPUs than this (docs/design.md, "Memory"). */
#define CGS_SHARDS_DEFAULT 8

/*
 * Throttle episodes of a cgroup's own quota on one CPU. A HASH with atomic
 * adds: an episode can end on another CPU than its own, from the period timer.
 */
struct cgs_thr_key {
	__u64 cgid;          /* the cgroup whose quota ran out */
	__u32 cpu;           /* the CPU of its throttled run queue */
	__u32 pad;
};

struct cgs_thr_stats {
	__u64 count;
	__u64 ns;
	struct cgs_max max[2];
	__u64 slots[CGS_HIST_SLOTS];
};

/* The last throttle episode of a cfs_rq (HASH, key: the cfs_rq's address). */
struct cgs_thr_last {
	__u64 start, end;
	__u64 cgid;
};

/* One finished throttle episode (ring buffer record). Times: bpf_ktime_get_ns(). */
struct cgs_episode {
	__u64 cgid;          /* the cgroup whose quota ran out */
	__u64 start_ns, end_ns;
	__u32 cpu;
	__u32 flags;         /* CGS_EP_* */
};
/*
 * Throttled, but no task was held, so the kernel counted no time: since v6.6
 * for an empty cfs_rq's throttle, since v6.18 for one whose tasks slept before
 * they could be held. Its refills still count the periods (nr_throttled). Such
 * an episode counts in the periods only, not in the episodes' count, time, list
 * or slices (episode_timed).
 */
#define CGS_EP_NO_TIME 1

/*
 * One run-queue wait longer than --timeline's threshold (ring buffer record,
 * only with --timeline). Times: bpf_ktime_get_ns().
 */
struct cgs_wait {
	__u64 cgid;          /* the waiting task's cgroup */
	__u64 start_ns, end_ns;
	__u64 behind;        /* the cgroup of the task that ran until it got the CPU; 0: idle or none */
	__u32 pid;           /* the waiting thread */
	__u32 cpu;
};

/* A removed cgroup (cgroup_rmdir), for the loader (QUEUE map). */
#define CGS_GONE_PATH 248 /* Kubernetes and systemd scope paths are 150-200 */
struct cgs_gone {
	__u64 cgid;
	char path[CGS_GONE_PATH]; /* relative to the hierarchy, as the tracepoint gives it; may be cut */
};

/* Throttled run queues a CPU looks at (tracepoint backend; PERCPU_ARRAY, one entry). */
#define CGS_OPEN_MAX 8
struct cgs_open {
	__u64 cfs_rq[CGS_OPEN_MAX]; /* 0: free */
	__u64 start[CGS_OPEN_MAX];  /* when it was first looked at: given up 30 s on */
	__u32 n;
	__u32 pad;
};

/*
 * A throttle's start (fentry and kprobe backends; HASH by cfs_rq, until its
 * unthrottle): ktime, the rq clock and the throttled cgroup. The loader reads
 * it too, for the episodes still open at record's end (tracer_open_episodes).
 */
struct cgs_thr_start {
	__u64 at;
	__u64 rq;
	__u64 cgid;
};

/* An open throttle episode (tracepoint backend; HASH by cfs_rq, shared by the CPUs). */
struct cgs_opened {
	__u64 start;
	__u64 cgid;
	__u64 end_cap;  /* with no task held: it ends by then at the latest (its next refill); 0: none */
};

/* Throttle backends (rodata targ_thr). */
enum cgs_thr_backend {
	CGS_THR_NONE,
	CGS_THR_FENTRY,      /* fexit throttle_cfs_rq, fentry unthrottle_cfs_rq */
	CGS_THR_KPROBE,      /* kprobe+kretprobe throttle_cfs_rq, kprobe unthrottle_cfs_rq */
	CGS_THR_TRACEPOINT,  /* sched_switch: runnable tasks switched out throttled */
};

/*
 * Preemptions and, with --why, waits behind another cgroup (HASH). The victim
 * is the waiting cgroup, the preemptor the one that ran.
 */
struct cgs_preempt_key {
	__u64 victim;        /* cgroup of the task switched out runnable, or waiting */
	__u64 preemptor;     /* cgroup of the task switched in instead, or that ran meanwhile */
};

struct cgs_preempt_val {
	__u64 count;         /* preemptions */
	__u64 behind_ns;     /* victim's run-queue wait while preemptor ran (--why) */
};

/*
 * What ran on a CPU, by kind, for the causes of waits (--why; docs/design.md).
 * Each switch adds the slice that ended to its kind's total. A slice of a
 * cgroup's task also goes into a ring of the latest slices, which names the
 * cgroups a wait was spent behind. It is an ARRAY indexed by CPU: each CPU
 * writes its own entry, and a wait that began on another CPU reads that CPU's.
 */
enum cgs_kind { CGS_KIND_CG, CGS_KIND_KTHREAD, CGS_KIND_RT, CGS_KIND_IDLE, CGS_KIND__COUNT };

/*
 * The parts of --why (rodata targ_why_parts). Each has its own cost on the hot
 * path (docs/performance.md). SPLIT splits a wait by what ran on its CPU: idle,
 * real-time, kernel threads, its own cgroup, other cgroups. COUNT keeps the
 * cgroup's count of waiting tasks, for its "some" time. NAMES names the other
 * cgroups, from each CPU's ring of slices into the pairs' behind_ns. NAMES
 * needs SPLIT.
 */
enum cgs_why_part {
	CGS_WHY_SPLIT = 1,
	CGS_WHY_COUNT = 2,
	CGS_WHY_NAMES = 4,
	CGS_WHY_ALL = 7,
};
#define CGS_TL_RING 8 /* a power of two */
struct cgs_tl_slice {
	__u64 start, end;    /* hot-path clock */
	__u64 cgid;
};
struct cgs_cpu_tl {
	__u64 cum[CGS_KIND__COUNT]; /* ns each kind ran, up to `last` */
	__u64 last;          /* this CPU's latest switch; 0: none seen yet */
	__u64 cur_cgid;      /* what runs since then */
	__u32 cur_kind;
	__u32 head;          /* ring[head % CGS_TL_RING] is written next */
	struct cgs_tl_slice ring[CGS_TL_RING];
};

/*
 * record --demand: each CPU's on-CPU time of the traced cgroups at the ends
 * of steps of dem_step_ns from dem_origin_ns (ktime). Step end k lies at
 * origin + k x step. When a traced slice ends, the step ends it spans since
 * the last capture go into one segment: at step end E of that range, the
 * CPU's total was cum0 + min(max(E - t0, 0), d). So the loader can read a
 * step end exactly however late it comes, while its segment is among the
 * last CGS_DEM_SEGS (PERCPU_ARRAY, one entry).
 */
#define CGS_DEM_SEGS 64 /* a power of two */
struct cgs_dem_seg {
	__u64 k_from, k_to; /* the step ends it holds */
	__u64 cum0;         /* cum_ns before the slice */
	__u64 t0;           /* the slice's start (ktime) */
	__u64 d;            /* its on-CPU time */
};
/*
 * Work that a throttle delayed is placed where it would have run without
 * the throttle: a task's slice counts lag ns earlier, lag being its
 * throttled waits since its last wake-up (sched.bpf.c dem_place). Those
 * slices go into step buckets, not into cum_ns. Bucket k % CGS_DEM_BUCKETS
 * holds step k while its tag is k + 1. No placement reaches back more than
 * dem_lag_max_ns, so the loader reads a step once that much time and a step
 * have passed since its end.
 */
#define CGS_DEM_BUCKETS 64 /* a power of two */
#define CGS_DEM_PLACE_STEPS 16 /* the most steps one placed slice is spread over */
struct cgs_dem_bucket {
	__u64 tag;          /* k + 1 for step k; 0: empty */
	__u64 ns;           /* placed work in step k on this CPU */
};
struct cgs_dem_cpu {
	__u64 cum_ns;       /* on-CPU time of the traced cgroups here, ended slices */
	__u64 next_k;       /* the first step end not yet in a segment */
	__u64 head;         /* segments written: the next goes to seg[head % CGS_DEM_SEGS] */
	__u64 unplaced_ns;  /* throttled waits past dem_lag_max_ns: counted as demand, at that bound */
	__u64 clipped_ns;   /* placed work that fell outside the open steps or the spread: put at the edge */
	struct cgs_dem_seg seg[CGS_DEM_SEGS];
	struct cgs_dem_bucket b[CGS_DEM_BUCKETS];
};

/*
 * export's demand per period of every cgroup (rodata targ_per). Each slot
 * has a grid: periods of nsteps steps of step_ns, one of them ending at
 * origin_ns (ktime). A slot of state CGS_PER_DEFAULT uses the default
 * grid: CGS_PER_NSTEPS steps of targ_per_step_ns from ktime 0. The
 * programs add each on-CPU slice of the slot's cgroup to the steps it
 * covers, placed as record --demand places it: earlier by its task's lag.
 * ns[k % CGS_PER_RING] holds step k, counted from origin_ns. No placement
 * reaches back more than CGS_PER_REACH periods, so the loader reads and
 * zeroes a step once that much time and two steps have passed since its
 * end. A slice that would reach further back, or over more than
 * CGS_DEM_PLACE_STEPS steps, goes whole to its CPU's ring of long slices
 * (struct cgs_per_cpu), which the loader spreads itself (trace/per_steps.h).
 */
#define CGS_PER_RING 64  /* a power of two */
#define CGS_PER_NSTEPS 8 /* steps a period, at most */
#define CGS_PER_REACH 3  /* periods */
enum cgs_per_state {
	CGS_PER_DEFAULT,     /* the default grid */
	CGS_PER_ARMED,       /* origin_ns, step_ns, nsteps hold its grid */
	CGS_PER_PAUSED,      /* its grid is being changed: nothing is added */
};
struct cgs_per {
	__u32 state;         /* enum cgs_per_state, written last by the loader */
	__u32 gen;           /* the loader's count of gridings of this slot */
	__u32 nsteps;
	__u32 pad;
	__u64 origin_ns;
	__u64 step_ns;
	__u64 ns[CGS_PER_RING]; /* atomic adds: CPUs share a slot */
};
#define CGS_PER_LONG 32 /* a power of two */
struct cgs_per_long {
	__u64 a;             /* where its placement begins (ktime) */
	__u64 d;             /* its on-CPU time, placed from a without a break */
	__u32 slot1;         /* its cgroup's slot + 1 */
	__u32 gen;           /* the slot's gen when it was placed */
};
struct cgs_per_cpu {
	__u64 head;          /* records written: the next goes to rec[head % CGS_PER_LONG] */
	struct cgs_per_long rec[CGS_PER_LONG];
};

/* What runs on a CPU since its last switch (PERCPU_ARRAY, one entry). */
struct cgs_cpu_cur {
	__u64 since_ns;      /* the switch-in, by the hot-path clock (sched_now) */
	__u64 clock_off;     /* bpf_ktime_get_ns() - that clock, sampled every <= 100 ms */
	__u64 off_at;        /* when clock_off was sampled (hot-path clock) */
	__u64 stolen;        /* the CPU's sched_stolen() at since_ns: not the task's time */
	__u64 stolen_seen;   /* sched_stolen() when seed_cpu last looked: the loader leaves the growth out */
	__u64 cgid;          /* 0: idle, or a task outside the filter */
	__u64 tg;            /* its task_group then: a move while running shows as a change */
	__u32 limited;       /* its hierarchy has a quota (cgs_task.limited) */
	__u32 slot1;         /* its cgroup's slot + 1; 0: none */
	__u32 slot_gen;      /* the loader's slot_gen slot1 was valid in */
	__u32 seeded;        /* 1: since_ns is ktime, set at attach (seed_cpu), not yet converted */
	/*
	 * Odd while a switch on this CPU updates its figures and this record,
	 * even between. The loader reads cg_hot between two reads of it, and
	 * again when it changed (snapshot.c read_consistent).
	 */
	__u32 seq;
	__u32 pid;           /* the task running, as traced: a switch whose prev is another was not traced */
	/*
	 * What the running task had run since its pick, by its own count, when
	 * seed_cpu last looked (sched.bpf.c ran_note). It is for the slice that
	 * began at ran_since, in the loader's sync round ran_round. The loader
	 * credits that slice no more than this. A credit above what the slice
	 * comes to would stay in the rows, as interval figures never go below
	 * zero.
	 */
	__u64 ran_seen;
	__u64 ran_since;
	__u64 ran_round;
	__u64 dem_lag;       /* record --demand, export's demand: the running task's cgs_task.dem_lag */
};

/*
 * Per-task state (task storage, or an LRU hash by pid where unavailable).
 *
 * What every wake-up and switch reads or writes comes first, the --why mark
 * included. Those 120 bytes fill the two cache lines a task storage value
 * starts in: it begins 8 bytes into a line, after its map pointer. A wake-up on
 * one CPU writes them and the switch-in on another reads them, so a third line
 * would cost one more miss on each side of every wait (docs/performance.md).
 * What only throttles and --why's count use follows.
 */
struct cgs_task {
	__u64 queued_ns;     /* when it became runnable (hot-path clock); 0: not waiting */
	__u64 thr_since;     /* switched out throttled at (hot-path clock); 0: not */
	__u64 queued_rq;     /* the cfs_rq it was queued on (it may run on another CPU) */
	__u64 tg;            /* task_group pointer the cached id is for */
	__u64 cgid;          /* cpu-controller cgroup id */
	__u64 lim_gen;       /* the loader's lim_gen when `limited` was last worked out */
	__u32 match;         /* 1 when cgid passes the --cgroup filter */
	__u32 limited;       /* its group or an ancestor has a quota: it can be throttled */
	__u32 woken;         /* queued by a wake-up (counted when it runs) */
	__u32 slot1;         /* its cgroup's slot + 1 (cg_slot); 0: none */
	__u32 slot_gen;      /* the loader's slot_gen slot1 was looked up in */
	__u32 tg_gen;        /* tg_gen when tg and cgid were cached (a removal since: looked up again) */
	__u32 held;          /* preempted before it could block: on its run queue, not waiting (switch_out) */
	/* --why: where its wait began (CPU + 1; 0: no mark), and that CPU's totals then. */
	__u32 w_cpu1;
	__u64 w_cum[CGS_KIND__COUNT];
	__u64 w_own;         /* its own cgroup's on-CPU time on that CPU then */
	/* Used only while throttled, or with --why's count. */
	__u64 thr_by;        /* cgroup whose quota throttled it */
	__u64 thr_rq;        /* the cfs_rq whose throttle held it (tracepoint backend: its episode) */
	__u64 w_cgid;        /* the cgroup it raised wait_n for */
	__u32 w_some1;       /* the slot whose wait_n it raised, + 1 */
	__u32 w_gen;         /* slot_gen then: a recycled slot is not decremented */
	__u64 dem_lag;       /* record --demand, export's demand: throttled waits since its last wake-up */
};
_Static_assert(__builtin_offsetof(struct cgs_task, thr_by) == 120,
	       "struct cgs_task: what every event touches fills the storage's first two lines");

/*
 * Per-task figures, with top --tasks or hist --per-task only (PERCPU_HASH,
 * --max-tasks entries). There is one entry per process and cgroup, or per
 * thread and cgroup with --threads: a process whose threads sit in two cgroups
 * has two.
 */
enum cgs_tasks_mode { CGS_TASKS_OFF, CGS_TASKS_PROCESS, CGS_TASKS_THREAD };
/* The value of task_cg (tasks.bpf.h) that selects every cgroup's tasks, not one cgroup's. */
#define CGS_TASK_CG_ALL (~0ULL)

struct cgs_task_key {
	__u64 cgid;
	__u32 id;            /* tgid, or the thread's pid with --threads */
	__u32 pad;
};

struct cgs_task_stats {
	__u64 oncpu_ns;      /* on-CPU time of its completed slices */
	__u64 wakeups, sw_vol, sw_invol;
	__u64 runq_count, runq_sum_ns;
	struct cgs_max runq_max[2];
	__u64 runq_slots[CGS_HIST_SLOTS];
	__u64 comm_ns;       /* when comm was last taken (hot-path clock): the newest copy names it */
	__u32 tgid;          /* its process */
	__u32 pad;
	char comm[16];       /* at its last switch-out on this CPU (a name set by exec shows) */
};

/*
 * Everything the BPF side could not record, one counter each (PERCPU_ARRAY
 * indexed by this enum). The loader prints all of them.
 */
enum cgs_drop {
	CGS_DROP_CG_FULL,       /* cgroup stats map full: events lost */
	CGS_DROP_PREEMPT_FULL,  /* preemption map full: attribution lost */
	CGS_DROP_TASK_FULL,     /* task state not stored: a wait not timed */
	CGS_DROP_RUNQ_NOSTART,  /* switch-in with no recorded enqueue */
	CGS_DROP_ONCPU_NOSTART, /* switch-out with no recorded switch-in */
	CGS_DROP_DEPTH,         /* cgroup deeper than CGS_MAX_DEPTH */
	CGS_DROP_THR_FULL,      /* throttle map full: an episode lost */
	CGS_DROP_THR_UNPAIRED,  /* unthrottle with no recorded throttle */
	CGS_DROP_THR_OPEN_FULL, /* more than CGS_OPEN_MAX throttled run queues on a CPU, or 8 x --max-cgroups in all */
	CGS_DROP_THR_STALE,     /* an open episode given up: not seen over in 30 s, or its cfs_rq's address reused */
	CGS_DROP_EPISODE_LOST,  /* episode ring buffer full: one not listed (still counted) */
	CGS_DROP_TASKS_FULL,    /* --tasks: per-task map full (--max-tasks): a task's figures lost */
	CGS_DROP_WAIT_LOST,     /* --timeline: long-wait ring buffer full: a wait not in the timeline (still counted) */
	CGS_DROP_GONE_LOST,     /* removed-cgroup queue full: its slot comes back only when idle */
	CGS_DROP_PARKED_LOST,   /* loader: a recycled slot's figures discarded (memory bound): its totals restart */
	CGS_DROP_SLOT_LOST,     /* a slot not given back to the free queue (push refused): one fewer slot */
	CGS_DROP_THR_LAST_FULL, /* throttle history map full: a wait it would have named throttled counts as run-queue */
	CGS_DROP_THR_END_MISSED, /* a cfs_rq throttled again with its last unthrottle unseen (a probe run skipped): that episode lost */
	CGS_DROP_PROG_MISSED,   /* loader: runs of cgsched's programs the kernel skipped (bpf_prog_info.recursion_misses) */
	CGS_DROP_MOVE_UNTIMED,  /* a task moved while it ran, the move's time not known: its slice split at a read or a switch */
	CGS_DROP_PER_PAUSED,    /* export's demand: a slice not placed, its slot's grid being changed */
	CGS_DROP_PER_LOST,      /* loader: export's demand: a period left out, read too late or its long slices lost */
	CGS_DROP__COUNT,
};

/*
 * A task group's bandwidth, as cgstat.bpf.c's cgroup iterator reads it
 * (ARRAY, mmapped by the loader: one record per cgroup, in walk order).
 */
#define CGS_KSTAT_MAX 65536
struct cgs_kstat {
	__u64 id;            /* cgroup id */
	__u64 quota_ns;      /* ~0: unlimited (RUNTIME_INF) */
	__u64 period_ns;
	__u64 burst_ns;      /* the configured burst (cfs_bandwidth.burst) */
	__u64 nr_periods;
	__u64 nr_throttled;
	__u64 throttled_ns;
	__u64 shares_raw;    /* task_group.shares: scale_load()ed, the loader converts */
	__u64 burst_time_ns; /* cfs_bandwidth.burst_time: time run on burst */
	__u32 nr_burst;      /* cfs_bandwidth.nr_burst (an int in the kernel) */
	__u32 has_bursts;    /* 1: the kernel has nr_burst/burst_time (5.14+) */
	/*
	 * The period timer's expiry (ktime), with a quota; 0: unknown or none.
	 * It is the end of one of the quota's periods: the timer keeps its
	 * expiries on one grid, forwarded by whole periods, also when it
	 * restarts after idling.
	 */
	__u64 period_end_ns;
};

#endif /* CGSCHED_H */
