// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Scheduler events → per-cgroup, per-CPU aggregates.
 *
 * sched_switch:  on-CPU time of the outgoing cgroup (since this CPU's last
 *                switch), voluntary/involuntary switch counts, preemption
 *                attribution, and the end of the incoming task's run-queue wait.
 * sched_wakeup*: a run-queue wait starts (and a wake-up is counted).
 * An involuntary switch-out also starts a wait: the task is still runnable,
 * unless its hierarchy is throttled: then the wait is throttled time, kept
 * apart from run-queue latency (docs/design.md), and with the tracepoint
 * throttle backend it opens a throttle episode (throttle.bpf.h).
 *
 * Every program comes twice: tp_btf (typed pointers, direct loads) and raw_tp
 * (probe reads) for kernels where tp_btf does not attach. The loader enables
 * one set after probing.
 */
#include "common.bpf.h"
#include "throttle.bpf.h"
#include "tasks.bpf.h"
#include "why.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* How often a CPU re-samples the offset of its rq clock to ktime (cgs_cpu_cur). */
#define CGS_OFF_REFRESH_NS (100ULL * 1000000ULL)

/*
 * Per-cgroup figures, one slot per cgroup: an array, so the hot path finds
 * a cgroup's figures by the slot cached in its task's storage and in the
 * CPU's cpu_cur, with no hashing. cg_slot maps cgroup ids to slots, and
 * slot_owner (common.bpf.h) slots back to ids.
 *
 * Slots come from free_slots, a queue the loader fills at start and refills
 * with the slots of removed cgroups (and, when slots run short, of cgroups
 * idle for long), after it has taken their final figures: a pop is the one
 * atomic claim every kernel from 5.8 on offers tracing programs (no
 * fetch-and-add before 5.12). Before it hands a slot back, the loader
 * deletes its cg_slot entry, advances slot_gen and waits for every program
 * running to finish (membarrier: an RCU grace period); a task or CPU whose
 * cached slot is from an older slot_gen looks it up again. docs/design.md,
 * "Slots".
 *
 * A cgroup's figures are split by how often they are written (cgsched.h).
 * cg_hot, what every switch or wait writes, is per CPU by hand: CPU c's
 * figures of slot s are entry c * targ_max_cgroups + s, each CPU's run of
 * slots contiguous. Like a PERCPU_ARRAY, each CPU writes only its own
 * entries (programs do not migrate while they run), but the loader reads
 * the whole map in place through mmap, where a per-CPU array's values must
 * be copied out of the kernel, twice (10,000 cgroups on 2 CPUs: 12.6 MB a
 * refresh). Plain array lookups are also inlined on every kernel; per-CPU
 * array ones only from v6.10.
 *
 * cg_shard, the histograms and the rarer counters (616 of the 688 bytes),
 * has targ_shards entries per slot, not one per CPU: per CPU, the whole
 * was 704 bytes x CPUs x --max-cgroups, 138 MB at the default bound on 192
 * CPUs. CPU c writes shard c % targ_shards, with atomic adds when CPUs share
 * one (targ_shared); where the CPUs are few, or the per-CPU view is asked
 * for, there is a shard per CPU and the adds are plain. docs/design.md,
 * "Memory".
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1024); /* possible CPUs x --max-cgroups */
	__type(key, __u32);
	__type(value, struct cgs_cg_hot);
} cg_hot SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1024); /* targ_shards x --max-cgroups */
	__type(key, __u32);
	__type(value, struct cgs_cg_shard);
} cg_shard SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024); /* --max-cgroups */
	__type(key, __u64);
	__type(value, __u32);
} cg_slot SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 1024); /* --max-cgroups */
	__type(value, __u32);
} free_slots SEC(".maps");

/*
 * Only for the loader's wait for running programs where membarrier is
 * refused (nohz_full): an update of a map-in-map from user space returns
 * after an RCU grace period (maybe_wait_bpf_programs). Never used here.
 */
struct rcu_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rcu_inner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct rcu_inner);
} rcu_sync SEC(".maps") = {
	.values = { [0] = &rcu_inner },
};

/* Removed cgroups, for the loader (cgroup_rmdir), which takes them in at each read. */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 1024); /* 2 x --max-cgroups + 1024 */
	__type(value, struct cgs_gone);
} gone SEC(".maps");

/* CPUs seed_cpu set up (the loader checks every CPU was). */
__u32 seeded_cpus = 0;
/* Switches the kernel made without its tracepoint, found and repaired (unseen_switch). */
__u64 unseen_switches = 0;
/* Moves of tasks that may be running on another CPU (on_attach): the loader has each CPU looked at. */
__u64 moves_elsewhere = 0;
/*
 * Moves of a running task by another CPU split at its own record of the
 * move (move_time) where the mover's mark (moved_at) was missing or another
 * move's: a thread that is not its process's leader, or a task that
 * switched out before the mover's tracepoint wrote it.
 */
__u64 moves_unmarked = 0;
/* Wake-ups of tasks preempted before they blocked: no wait begun, as the kernel begins none (switch_out). */
__u64 held_wakeups = 0;
/* Removals not queued (gone full): the loader then checks each shown cgroup's path itself. */
__u64 gone_lost_total = 0;
/* The loader's round of asking every CPU (tracer_sync_cpus): seed_cpu's ran_seen is of this round. */
__u64 sync_round = 0;

/*
 * What the running task p has run since the kernel last picked it, by its
 * own count (as of its last update_curr: at most a tick short), for the
 * loader's credit of the slice this CPU is running (cur->since_ns, which
 * began at that pick or later: a bound, never below the slice's time but
 * for what a later untraced pick hides). Read here, at the loader's asking,
 * so the switch path keeps nothing for it.
 */
static __always_inline void ran_note(struct cgs_cpu_cur *cur, struct task_struct *p)
{
	cur->ran_seen = BPF_CORE_READ(p, se.sum_exec_runtime) - BPF_CORE_READ(p, se.prev_sum_exec_runtime);
	cur->ran_since = cur->since_ns;
	cur->ran_round = sync_round;
}

/*
 * The last move of a task running on another CPU, by that CPU (on_attach
 * writes it, the CPU's seed_cpu reads it): the pid and its rq clock at the
 * move, where the slice is split.
 */
struct cgs_moved {
	__u32 pid;
	__u64 at;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* possible CPUs */
	__type(key, __u32);
	__type(value, struct cgs_moved);
} moved_at SEC(".maps");

/* The cgroup_root.hierarchy_id of the cpu controller's hierarchy (/proc/cgroups; 0 on v2). */
const volatile int targ_cpu_hierarchy = 0;

/*
 * A new (victim, preemptor) pair is rare: allocated on first use. One
 * value for all CPUs, added to atomically (two CPUs rarely count one pair
 * at once): per CPU, a pair cost 16 bytes a possible CPU (31 MB for 10,000
 * pairs at 192 CPUs) and a read copied each CPU's.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096); /* 4 x --max-cgroups */
	__type(key, struct cgs_preempt_key);
	__type(value, struct cgs_preempt_val);
} preempt SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cgs_cpu_cur);
} cpu_cur SEC(".maps");

/*
 * Per-task state. Task storage (v5.11+) lives and dies with the task and
 * costs no pid hashing; where the kernel lacks it the loader turns this map
 * into an LRU hash keyed by pid before load (bpf_map__set_type), and
 * targ_task_storage = false removes the storage calls from the program.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cgs_task);
} tasks SEC(".maps");

static __always_inline struct cgs_task *task_get(struct task_struct *p, bool direct)
{
	if (targ_task_storage)
		return bpf_task_storage_get(&tasks, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	__u32 pid = task_pid(p, direct);
	struct cgs_task *t = bpf_map_lookup_elem(&tasks, &pid);
	if (t)
		return t;
	struct cgs_task zero = {};
	bpf_map_update_elem(&tasks, &pid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&tasks, &pid);
}

/*
 * current, for the paths that may hand it to task_get. Task storage takes
 * a trusted pointer (bpf_get_current_task_btf, v5.11); the pid hash takes
 * any, and on v5.10 (tp_btf-pidhash) a program that calls the _btf helper
 * is refused whole: targ_task_storage = false prunes that call before the
 * verifier looks at it.
 */
static __always_inline struct task_struct *current_task(void)
{
	return targ_task_storage ? bpf_get_current_task_btf() : (void *)bpf_get_current_task();
}

/* A task's state if it has one (for the rarer events: none is made). */
static __always_inline struct cgs_task *task_find(struct task_struct *p, bool direct)
{
	if (targ_task_storage)
		return bpf_task_storage_get(&tasks, p, 0, 0);

	__u32 pid = task_pid(p, direct);
	return bpf_map_lookup_elem(&tasks, &pid);
}

/*
 * The slot of a cgroup, + 1; 0 when every slot is taken. Slow path: once per
 * task and cgroup it moves to, and after the loader recycled slots (the
 * result is cached in its storage).
 */
static __always_inline __u32 slot_of(__u64 cgid)
{
	__u32 *have = bpf_map_lookup_elem(&cg_slot, &cgid), slot;

	if (have)
		return *have + 1;
	if (bpf_map_pop_elem(&free_slots, &slot))
		return 0;
	if (bpf_map_update_elem(&cg_slot, &cgid, &slot, BPF_NOEXIST)) {
		/* Another CPU gave this cgroup a slot meanwhile: use that one. */
		if (bpf_map_push_elem(&free_slots, &slot, 0))
			count_drop(CGS_DROP_SLOT_LOST);
		have = bpf_map_lookup_elem(&cg_slot, &cgid);
		return have ? *have + 1 : 0;
	}
	__u64 *owner = bpf_map_lookup_elem(&slot_owner, &slot);
	if (owner)
		*owner = cgid;
	return slot + 1;
}

/* CPU cpu's hot figures of a slot (slot1: the slot + 1, nonzero), for reading another CPU's. */
static __always_inline struct cgs_cg_hot *cg_on(__u32 cpu, __u32 slot1)
{
	__u32 i = cpu * targ_max_cgroups + slot1 - 1;

	return bpf_map_lookup_elem(&cg_hot, &i);
}

/* This CPU's hot figures of a slot (slot1: the slot + 1; 0: none). */
static __always_inline struct cgs_cg_hot *cg_at(__u32 slot1)
{
	struct cgs_cg_hot *s = slot1 ? cg_on(bpf_get_smp_processor_id(), slot1) : NULL;

	if (!s)
		count_drop(CGS_DROP_CG_FULL);
	return s;
}

/* Shard `shard`'s figures of a slot (slot1 nonzero). */
static __always_inline struct cgs_cg_shard *sh_on(__u32 shard, __u32 slot1)
{
	__u32 i = shard * targ_max_cgroups + slot1 - 1;

	return bpf_map_lookup_elem(&cg_shard, &i);
}

/*
 * The shard this CPU writes of a slot (slot1 nonzero, from a cg_at that
 * found the slot). No division where each CPU has its own.
 */
static __always_inline struct cgs_cg_shard *sh_at(__u32 slot1)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return sh_on(targ_shared ? cpu % targ_shards : cpu, slot1);
}

/*
 * Whether a task group (its address) or one of its ancestors has a CFS
 * quota (RUNTIME_INF is ~0): only then can its tasks be throttled, and only
 * then are the throttle checks worth their cost on the hot path. Rare (per
 * task, when lim_gen moves): a global function with probe reads, verified
 * once instead of in every state that reaches it (start-up,
 * docs/performance.md).
 */
__noinline __u64 tg_limited(__u64 addr)
{
	struct task_group *tg = (void *)addr;

	for (int i = 0; i < CGS_MAX_DEPTH && tg; i++) {
		if (tg_quota(tg, false) != ~0ULL)
			return 1;
		tg = tg_parent(tg, false);
	}
	return 0;
}

/*
 * Refresh the task's cached cgroup id and filter verdict, recomputed only
 * when the task moved to another task group (sched_task_group changed); and
 * whether it can be throttled, re-checked when the loader's lim_gen moved.
 * Returns the id when the filter admits the task, else 0; t->cgid keeps
 * the id either way (a preemptor outside the filter is still named). tg:
 * the task's sched_task_group, which each program loads once at its top
 * (a load from the trusted task pointer costs 6.18's verifier linear scans
 * of vmlinux BTF at every state that reaches it: docs/performance.md).
 */
static __always_inline __u64 task_cgid_cached(struct task_group *tg, struct cgs_task *t, bool direct)
{
	/* After a recycling, all of it again: a removed group's task_group may be reused. */
	if (t->tg != (__u64)tg || t->slot_gen != slot_gen || t->tg_gen != tg_gen) {
		t->tg = (__u64)tg;
		t->slot_gen = slot_gen;
		t->tg_gen = tg_gen;
		t->cgid = tg_cgid(tg, direct);
		t->match = targ_filter ? tg_matches(tg, direct) : 1;
		t->slot1 = t->match && t->cgid ? slot_of(t->cgid) : 0;
		t->lim_gen = lim_gen - 1;
	}
	if (t->lim_gen != lim_gen) {
		t->lim_gen = lim_gen;
		/*
		 * The address as a number, as the function takes it: read back
		 * from the task state (volatile: clang would pass the pointer
		 * it holds, which the verifier refuses for a scalar argument).
		 */
		t->limited = tg_limited(*(volatile __u64 *)&t->tg);
	}
	return t->match ? t->cgid : 0;
}


/* A task's wait ended that its group's, or an ancestor's, quota caused. */
static __always_inline void thr_wait(struct cgs_task *t, __u64 d)
{
	struct cgs_cg_hot *s = cg_at(t->slot1);
	struct cgs_cg_shard *sh;

	if (!s)
		return;
	s->wakeups += t->woken;
	if (!(sh = sh_at(t->slot1)))
		return;
	SHARD_ADD(sh->thr_wait_count, 1);
	SHARD_ADD(sh->thr_wait_ns, d);
	if (t->thr_by != t->cgid) {
		SHARD_ADD(sh->thr_inh_ns, d);
		sh->thr_inh_by = t->thr_by;
	}
}

static __always_inline int on_wakeup(struct task_struct *p, bool direct)
{
	struct task_group *tg = task_tg(p, direct);
	__u64 now = sched_now(p, direct);
	struct cgs_task *t = task_get(p, direct);

	if (!t) {
		count_drop(CGS_DROP_TASK_FULL);
		return 0;
	}
	__u64 cgid = task_cgid_cached(tg, t, direct);
	if (!cgid)
		return 0;
	/* Counted when it runs, with the stats slot the switch-in looks up anyway. */
	t->woken = 1;
	if (t->limited && thr_wakeup(p, t, now, direct)) {
		t->queued_ns = 0;
	} else if (t->held) {
		t->queued_ns = 0; /* never left its run queue: no wait (switch_out) */
		__sync_fetch_and_add(&held_wakeups, 1);
	} else {
		t->queued_ns = now;
		t->queued_rq = (__u64)task_cfs_rq(p, direct);
	}
	if (targ_why && !t->held)
		why_mark(t, cfs_rq_cpu(task_cfs_rq(p, direct), direct), NULL, now);
	return 0;
}

/* The outgoing side of a switch, as the incoming side and the preemption count need it. */
struct switch_out {
	struct task_group *tg;     /* the switched-out task's group; NULL: the idle task (--timeline's `behind`) */
	__u64 cg;                  /* its cgroup, 0: none or outside the filter */
	__u32 slot1;
	bool preempted;            /* switched out runnable, and not by a throttle */
	bool preempt;              /* the tracepoint's own: a preemption, not the task's own schedule() */
	struct cgs_cg_hot *s;      /* its figures on this CPU, if looked up */
	struct cgs_cg_shard *sh;   /* and the shard this CPU writes */
};

/*
 * The loader credits the slice running now with CLOCK_MONOTONIC: keep the
 * offset of this CPU's clock to it fresh (rate drift over 100 ms is
 * microseconds at most).
 */
static __always_inline void clock_offset_refresh(struct cgs_cpu_cur *cur, __u64 now)
{
	if (now - cur->off_at > CGS_OFF_REFRESH_NS) {
		__u64 off = bpf_ktime_get_ns() - now;

		/* A seeded CPU's since_ns is ktime (seed_cpu): into this clock, once. */
		if (cur->seeded) {
			cur->since_ns -= off;
			cur->seeded = 0;
		}
		cur->clock_off = off;
		cur->off_at = now;
	}
}

/*
 * The loader reads this CPU's figures (cg_hot, mmapped) and what runs now
 * (cpu_cur) in two steps; a switch between them would lose the slice it
 * ended, or count it twice. Like a seqlock: odd while this CPU's switch
 * writes them, even after; the loader reads again when the count moved.
 * Only this CPU writes it (programs do not migrate while they run); the
 * barriers keep the compiler from moving the figures' stores across it
 * (x86 keeps stores in order).
 */
static __always_inline void seq_begin(struct cgs_cpu_cur *cur)
{
	*(volatile __u32 *)&cur->seq = cur->seq + 1;
	asm volatile("" ::: "memory");
}

static __always_inline void seq_end(struct cgs_cpu_cur *cur)
{
	asm volatile("" ::: "memory");
	*(volatile __u32 *)&cur->seq = cur->seq + 1;
}

/* An on-CPU slice of d ns into a cgroup's figures on this CPU: s, and sh if found. */
static __always_inline void slice_add(struct cgs_cg_hot *s, struct cgs_cg_shard *sh, __u64 d)
{
	s->oncpu_ns += d;
	s->oncpu_count++;
	if (sh)
		SHARD_ADD(sh->oncpu_slots[log2_slot(d / targ_hist_div)], 1);
}

/*
 * The on-CPU time of the slice from since_ns to at, as the kernel counts
 * it: the rq clock's time less the growth of what it counted that was not
 * the task's (sched_stolen: IRQ, a hypervisor's steal), stolen being that
 * count at `at` (or now, for an `at` in the past: the steal between the
 * two then falls to the slice after). Without it a slice holds the steal:
 * on a VM whose host stole 10 % of a CPU, a 50 ms burn read 55.8 ms where
 * schedstat and cpuacct said 50.0.
 */
static __always_inline __u64 slice_ns(const struct cgs_cpu_cur *cur, __u64 at, __u64 stolen)
{
	__u64 d = at - cur->since_ns, s = stolen > cur->stolen ? stolen - cur->stolen : 0;

	return s < d ? d - s : 0;
}

/* A slice starts at `at`; stolen is sched_stolen() there (or now). */
static __always_inline void slice_start(struct cgs_cpu_cur *cur, __u64 at, __u64 stolen)
{
	cur->since_ns = at;
	cur->stolen = cur->stolen_seen = stolen;
}

/* Outgoing: everything since this CPU's last switch ran prev. */
static __always_inline void switch_out(struct task_struct *prev, struct task_group *tg, struct cgs_cpu_cur *cur,
				       __u64 now, __u64 stolen, struct switch_out *o, bool direct)
{
	bool runnable = task_state(prev, direct) == CGS_TASK_RUNNING, throttled = false;
	/*
	 * Preempted after it set its sleeping state and before it blocked: it
	 * stays on its run queue, and the kernel starts no wait (sched_info_depart
	 * queues only a running task), nor at its wake-up, which finds it queued
	 * (ttwu_runnable enqueues nothing). Timed from that wake-up, the 7.3
	 * guest's raw_tp figures were one wait of 0.6-0.8 ms over the kernel's
	 * run delay in 2 runs of 20 (test_runq_matches_rundelay), each after a
	 * move into the cgroup of a task still on its CPU, whose reschedule
	 * preempted it so.
	 */
	bool held = !runnable && o->preempt;
	struct cgs_cg_hot *s;
	struct cgs_task *t = NULL;

	o->cg = cur->cgid;
	o->slot1 = cur->slot1;
	if (!cur->since_ns) {
		/* First switch on this CPU since attach. */
		count_drop(CGS_DROP_ONCPU_NOSTART);
	}
	/*
	 * Its task state is needed when it waits from now, or moved to another
	 * cgroup while it ran, or its slot may have been recycled meanwhile.
	 */
	if (runnable || held || !cur->since_ns || cur->tg != (__u64)tg || cur->slot_gen != slot_gen) {
		t = task_get(prev, direct);
		if (t) {
			o->cg = task_cgid_cached(tg, t, direct);
			o->slot1 = t->slot1;
			t->held = held;
			if (held)
				t->queued_ns = 0; /* a wake-up while it still ran began nothing either */
			if (runnable && o->cg && t->limited && thr_switch_out(prev, t, now, direct)) {
				throttled = true;
			} else if (runnable && o->cg) {
				t->queued_ns = now;
				t->queued_rq = (__u64)task_cfs_rq(prev, direct);
			}
		} else if (runnable) {
			count_drop(CGS_DROP_TASK_FULL);
		}
		/* Not looked up again: its cached slot may belong to another cgroup now. */
		if (!t && cur->slot_gen != slot_gen) {
			o->cg = 0;
			if (!runnable) /* counted above when runnable */
				count_drop(CGS_DROP_TASK_FULL);
		}
	}
	__u64 d = cur->since_ns ? slice_ns(cur, now, stolen) : 0;

	/* Involuntary as the kernel counts them (nivcsw): preempted, held or not. */
	if (o->cg && cur->since_ns)
		tasks_oncpu(prev, o->cg, now, d, runnable || held, direct);
	if (o->cg && (s = o->s = cg_at(o->slot1))) {
		o->sh = sh_at(o->slot1);
		if (cur->since_ns)
			slice_add(s, o->sh, d);
		if (runnable || held)
			s->sw_invol++;
		else
			s->sw_vol++;
	}
	/* After its slice went into its figures: the mark copies them. */
	if (runnable && o->cg && t)
		why_mark(t, bpf_get_smp_processor_id(), o->s, now);
	if (!runnable)
		thr_switch_out_asleep(prev, cur, o->cg, now, direct);
	/* Being throttled is not being preempted. */
	o->preempted = runnable && !throttled;
}

/* --timeline: waits at least this long are sent one by one (0: none). */
const volatile __u64 targ_long_wait_ns = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} waits SEC(".maps");

/*
 * A long wait, for the timeline: who waited, and behind whose task (the one
 * switched out as it got the CPU). Rare by construction (milliseconds), so
 * bpf_ktime_get_ns() here costs nothing on the hot path.
 */
static __always_inline void long_wait(struct task_struct *next, __u64 cgid, __u64 d, struct task_group *prev_tg,
				      bool direct)
{
	struct cgs_wait *w = bpf_ringbuf_reserve(&waits, sizeof(*w), 0);

	if (!w) {
		count_drop(CGS_DROP_WAIT_LOST);
		return;
	}
	w->end_ns = bpf_ktime_get_ns();
	w->start_ns = w->end_ns - d;
	w->cgid = cgid;
	/* Whatever cgroup it is in, filter or not (record traces one): 0 for the idle task. */
	w->behind = tg_cgid(prev_tg, direct);
	w->pid = task_pid(next, direct);
	w->cpu = bpf_get_smp_processor_id();
	bpf_ringbuf_submit(w, 0);
}

/*
 * A task preempted before it blocked (switch_out) waits only where the
 * kernel began a wait for it since: moved to another CPU while queued
 * (a migration's enqueue starts one). sched_info.last_queued holds it,
 * in this rq's clock, until the switch-in that follows this tracepoint.
 */
static __always_inline __u64 held_queued(struct task_struct *p, bool direct)
{
	if (!bpf_core_field_exists(p->sched_info.last_queued))
		return 0;
	return direct ? p->sched_info.last_queued : BPF_CORE_READ(p, sched_info.last_queued);
}

/* A run-queue wait of d ns of task t ended: into its cgroup's figures s, and sh if found. */
static __always_inline void runq_wait(struct cgs_task *t, struct cgs_cg_hot *s, struct cgs_cg_shard *sh, __u64 d)
{
	s->wakeups += t->woken;
	s->runq_count++;
	s->runq_sum_ns += d;
	max_pupdate(s->runq_max, d);
	if (sh)
		SHARD_ADD(sh->runq_slots[log2_slot(d / targ_hist_div)], 1);
}

/* Incoming: its run-queue (or throttled) wait ends now. Returns its task state, or NULL. */
static __always_inline struct cgs_task *switch_in(struct task_struct *next, struct task_group *tg,
						  const struct switch_out *o, __u64 now, bool direct)
{
	struct cgs_task *t = task_get(next, direct);
	struct cgs_cg_hot *s;
	struct cgs_cg_shard *sh;
	__u64 d;

	if (!t) {
		count_drop(CGS_DROP_TASK_FULL);
		return NULL;
	}
	if (task_cgid_cached(tg, t, direct)) {
		if (thr_switch_in(next, t, now, &d, direct)) {
			thr_wait(t, d);
		} else if (t->held && !(t->queued_ns = held_queued(next, direct))) {
			/* Preempted before it blocked: no wait to end (switch_out); its wake-up counts. */
			if ((s = cg_at(t->slot1)))
				s->wakeups += t->woken;
		} else if (!t->queued_ns) {
			count_drop(CGS_DROP_RUNQ_NOSTART);
		} else {
			d = elapsed(now, t->queued_ns);
			tasks_runq(next, t->cgid, now, d, t->woken, direct);
			/* Switching within one cgroup (common): its slot is at hand. */
			bool same = t->slot1 == o->slot1 && o->s;
			if ((s = same ? o->s : cg_at(t->slot1))) {
				sh = same ? o->sh : sh_at(t->slot1);
				runq_wait(t, s, sh, d);
				why_split(t, s, sh, d, now);
				if (targ_long_wait_ns && d >= targ_long_wait_ns)
					long_wait(next, t->cgid, d, o->tg, direct);
			}
		}
	}
	why_unmark(t, now);
	t->queued_ns = 0;
	t->thr_since = 0;
	t->woken = 0;
	t->held = 0;
	return t;
}

/*
 * The other half of an untraced switch (unseen_switch): p was switched in
 * at `at` (the hot-path clock) with no event, so a wait it had then ended
 * there, as the kernel's run delay has it. Only a task that was waiting:
 * one that was not has nothing to end (no drop to count).
 */
static __always_inline void unseen_switch_in(struct task_struct *p, struct task_group *tg, __u64 at, bool direct)
{
	struct cgs_task *t = task_get(p, direct);
	struct switch_out none = {};

	if (t && (t->queued_ns || t->thr_since || t->held))
		switch_in(p, tg, &none, at, direct);
}

/* Who took the CPU from a runnable task: the noisy neighbour. */
static __always_inline void pair_add(__u64 victim, __u64 preemptor, __u64 count, __u64 ns)
{
	struct cgs_preempt_key k = { .victim = victim, .preemptor = preemptor };
	struct cgs_preempt_val *v = bpf_map_lookup_elem(&preempt, &k);

	if (v) {
		if (count)
			__sync_fetch_and_add(&v->count, count);
		if (ns)
			__sync_fetch_and_add(&v->behind_ns, ns);
	} else {
		struct cgs_preempt_val n = { .count = count, .behind_ns = ns };
		if (bpf_map_update_elem(&preempt, &k, &n, BPF_NOEXIST) && !bpf_map_lookup_elem(&preempt, &k))
			count_drop(CGS_DROP_PREEMPT_FULL);
	}
}

static __always_inline void count_preemption(__u64 victim, __u64 preemptor)
{
	pair_add(victim, preemptor, 1, 0);
}

static __always_inline void behind_add(__u64 victim, __u64 other, __u64 ns)
{
	pair_add(victim, other, 0, ns);
}

/*
 * A switch the kernel made without firing sched_switch: this CPU runs p,
 * not the task it was last seen switching to (cur->pid). Seen on a 6.18
 * host where no switch away from one thread (its sandbox's agent) is
 * traced, ftrace's own sched_switch events included: the task after it ran
 * on with this CPU still recorded as the agent's, and a window attached to
 * it lost most of its time. The recorded slice ended when p last switched
 * in, which the kernel keeps (sched_info.last_arrival, its rq clock, the
 * hot path's clock); rq_to_hot turns that into ktime where since_ns is
 * still in ktime (a CPU seed_cpu marked, before its first switch). The recorded task's cgroup gets its slice up to then, and p's slice
 * starts there. A time that does not fit (no SCHED_INFO, or out of order)
 * leaves since_ns: p is then credited from the recorded start.
 */
static __always_inline __u64 unseen_switch(struct cgs_cpu_cur *cur, struct task_struct *p, __u64 now,
					   __u64 stolen, __u64 rq_to_hot)
{
	struct cgs_cg_hot *s;
	__u64 at, d;

	__sync_fetch_and_add(&unseen_switches, 1);
	if (!bpf_core_field_exists(p->sched_info.last_arrival))
		return 0;
	at = BPF_CORE_READ(p, sched_info.last_arrival) + rq_to_hot;
	if (at <= cur->since_ns || at > now)
		return 0;
	d = slice_ns(cur, at, stolen);
	if (cur->cgid && cur->slot_gen == slot_gen && (s = cg_at(cur->slot1)))
		slice_add(s, sh_at(cur->slot1), d);
	slice_start(cur, at, stolen);
	return at;
}

/*
 * What this CPU runs from now, learnt outside a switch (seed_cpu, a move):
 * task pid (0: the idle task) in group tg. A switch has the task's cached
 * state; these rare paths look the group up (probe reads).
 */
static __always_inline void cur_set(struct cgs_cpu_cur *cur, struct task_group *tg, __u32 pid)
{
	__u64 cgid = 0;
	__u32 slot1 = 0;

	if (pid && (cgid = tg_cgid(tg, false)) && (!targ_filter || tg_matches(tg, false)))
		slot1 = slot_of(cgid);
	cur->cgid = slot1 ? cgid : 0;
	cur->tg = (__u64)tg;
	cur->slot1 = slot1;
	cur->slot_gen = slot_gen;
	cur->limited = tg ? tg_limited((__u64)tg) : 0;
	cur->pid = pid;
}

/*
 * The running slice up to at into the cgroup this CPU was recorded running
 * (cpu_cur), whose task p, current, goes on from there in another cgroup.
 */
static __always_inline void slice_split(struct cgs_cpu_cur *cur, struct task_struct *p, __u64 at, __u64 stolen)
{
	struct cgs_cg_hot *s;

	if (at <= cur->since_ns)
		return;
	__u64 d = slice_ns(cur, at, stolen);
	if (cur->cgid && cur->slot_gen == slot_gen) {
		if ((s = cg_at(cur->slot1)))
			slice_add(s, sh_at(cur->slot1), d);
		tasks_ran(p, cur->cgid, at, d, false);
	}
	slice_start(cur, at, stolen);
}

/*
 * When the task recorded running on this CPU was moved by another CPU
 * (on_attach told it), if after its slice began and before now; else 0.
 */
static __always_inline __u64 moved_time(const struct cgs_cpu_cur *cur, __u64 now)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct cgs_moved *m = bpf_map_lookup_elem(&moved_at, &cpu);

	return m && m->pid == cur->pid && m->at > cur->since_ns && m->at < now ? m->at : 0;
}

/*
 * When the task p, running on this CPU since cur->since_ns, was moved to
 * another task group (sched_move_task, by itself or by another CPU), from
 * its own record, in the rq clock; 0 if that record does not place it
 * within the slice.
 *
 * The rq clock read at the move is only as fresh as its last update: a
 * tick, or a wake-up onto this CPU, between the move and the program
 * moves it on, and a second cgsched's program, run after this one's, read
 * it 1.7-3 ms later in the emulated guest (test_group_by_sums: two
 * instances split one slice at different times). A mover on another CPU
 * writes its mark (moved_at) only after the move, and the task can switch
 * out before that (the move asks for a reschedule): in a CI run in the 7.3
 * guest a moved burner's whole slice, begun 1.15 s before the move, went
 * to the group it entered (test_moved_by_another_while_running); and the
 * mark names a process's leader only. What the move left in the task is
 * there before either: it put the running task and picked it again
 * (set_next_entity: prev_sum_exec_runtime = sum_exec_runtime, exec_start =
 * rq->clock_task), and every update_curr since added to the sum what it
 * moved exec_start by. So exec_start - (sum_exec_runtime -
 * prev_sum_exec_runtime) is the move in the task clock, and it falls after
 * the slice's start in that clock (since_ns less the stolen count then)
 * only if the task was picked again since: a move. Plus sched_stolen now,
 * it is the rq clock at which slice_ns gives the part before the move its
 * task-clock length exactly, and the part after it the rest. A class other
 * than fair (sched_ext, RT) keeps prev_sum_exec_runtime from its last fair
 * pick: the result falls before the slice, and the caller looks elsewhere.
 */
static __always_inline __u64 move_time(const struct cgs_cpu_cur *cur, struct task_struct *p, __u64 now,
				       __u64 stolen)
{
	__u64 ran = BPF_CORE_READ(p, se.sum_exec_runtime) - BPF_CORE_READ(p, se.prev_sum_exec_runtime);
	__u64 picked = BPF_CORE_READ(p, se.exec_start) - ran;

	if (picked <= cur->since_ns - cur->stolen)
		return 0;
	return picked + stolen < now ? picked + stolen : now;
}

/*
 * When the task running on this CPU was moved by another CPU: its own
 * record first (move_time), else the mover's mark (a class other than
 * fair); 0 if neither, counted.
 */
static __always_inline __u64 moved_by_another(const struct cgs_cpu_cur *cur, struct task_struct *p, __u64 now,
					      __u64 stolen)
{
	__u64 mark = moved_time(cur, now), at = move_time(cur, p, now, stolen);

	if (at && !mark)
		__sync_fetch_and_add(&moves_unmarked, 1);
	if (!at && !(at = mark))
		count_drop(CGS_DROP_MOVE_UNTIMED);
	return at;
}

/*
 * The task running on this CPU (p, current) is in another group now, tg:
 * moved while it ran (cpu_cgroup_attach -> sched_move_task, no switch).
 * The kernel charged the old group up to the move (the dequeue's
 * update_curr) and charges the new one from there; so does this, at `at`.
 * Unsplit, the slice went on as the old cgroup's (and the loader credited
 * it so) until the task switched out, and all of it to the new one then: a
 * cgroup made for a running burner was not seen until it switched, which
 * alone on its CPU could be never (docs/design.md, "Moves").
 */
static __always_inline void moved_while_running(struct cgs_cpu_cur *cur, struct task_struct *p,
						 struct task_group *tg, __u32 pid, __u64 at, __u64 stolen)
{
	slice_split(cur, p, at, stolen);
	struct cgs_cpu_tl *tl = why_switch_begin(at);
	cur_set(cur, tg, pid);
	why_switch_end(tl, p, tg_cgid(tg, false), false);
}

static __always_inline int on_switch(bool preempt, struct task_struct *prev, struct task_struct *next,
				     bool direct)
{
	__u32 zero = 0;
	struct cgs_cpu_cur *cur = bpf_map_lookup_elem(&cpu_cur, &zero);
	__u64 now = sched_now(next, direct), stolen = sched_stolen(next, direct);
	/* Each task's group loaded once, here (task_cgid_cached says why). */
	struct task_group *ptg = task_tg(prev, direct), *ntg = task_tg(next, direct);
	bool prev_task = task_pid(prev, direct); /* not the idle task */
	struct switch_out o = { .tg = prev_task ? ptg : NULL, .preempt = preempt };
	struct cgs_task *t = NULL;

	if (!cur)
		return 0;
	seq_begin(cur);
	clock_offset_refresh(cur, now);
	if (cur->since_ns && cur->pid != (__u32)task_pid(prev, direct)) {
		__u64 at = unseen_switch(cur, prev, now, stolen, 0);

		if (at && prev_task)
			unseen_switch_in(prev, ptg, at, direct);
	} else if (cur->tg != (__u64)ptg && prev_task && cur->since_ns) {
		/*
		 * Moved by another CPU while it ran, and switched out before
		 * a read split its slice (the move asks for a reschedule):
		 * the part before the move is the old cgroup's; switch_out
		 * gives the rest (all of it, if the move's time is not known)
		 * to the new one.
		 */
		__u64 at = moved_by_another(cur, prev, now, stolen);

		if (at)
			slice_split(cur, prev, at, stolen);
	}
	struct cgs_cpu_tl *tl = why_switch_begin(now);
	thr_switch(now);
	if (prev_task)
		switch_out(prev, ptg, cur, now, stolen, &o, direct);
	if (task_pid(next, direct))
		t = switch_in(next, ntg, &o, now, direct);
	if (o.preempted && o.cg && t && t->cgid && o.cg != t->cgid)
		count_preemption(o.cg, t->cgid);
	/* What runs on this CPU from now (slot1 nonzero only for a task the filter admits). */
	slice_start(cur, now, stolen);
	cur->cgid = t && t->match ? t->cgid : 0;
	cur->tg = (__u64)ntg;
	cur->limited = t ? t->limited : 0;
	cur->slot1 = t ? t->slot1 : 0;
	cur->slot_gen = t ? t->slot_gen : 0;
	cur->pid = task_pid(next, direct);
	seq_end(cur);
	why_switch_end(tl, next, t ? t->cgid : 0, direct);
	return 0;
}

/*
 * What each CPU runs now, told by the loader (BPF_PROG_TEST_RUN with
 * BPF_F_TEST_RUN_ON_CPU, raw_tp programs since v5.10: in that IPI, current
 * is the task the CPU was running).
 *
 * When tracing begins: on-CPU time is counted from a CPU's switch-in, and a
 * task that was running when the programs attached (a burner alone on its
 * CPU switches never) would be seen only from its next switch, or not at
 * all. A CPU that has switched since the attach is left as it is. since_ns
 * is set in ktime (the rq clock is only as fresh as its last update here)
 * and marked, and the first offset refresh of a switch turns it into the rq
 * clock (clock_offset_refresh); off_at 0 makes that the next switch.
 *
 * At each read after that: a CPU that runs another task than the one it was
 * last seen switching to made a switch the kernel did not trace
 * (unseen_switch), and its running slice, which the loader credits up to
 * the read, would be the wrong task's.
 */
SEC("raw_tp")
int seed_cpu(void *ctx)
{
	__u32 zero = 0;
	struct cgs_cpu_cur *cur = bpf_map_lookup_elem(&cpu_cur, &zero);
	struct task_struct *p = current_task();
	struct task_group *tg = task_tg(p, false);
	__u32 pid = task_pid(p, false);

	if (!cur)
		return 0;
	/*
	 * The steal of the slice running here so far, for the loader's credit
	 * of it up to its read (snapshot.c take_running), which cannot read
	 * the task clock: record's last read asks every CPU, so an attached
	 * window ends in the kernel's clock too (a burner alone on a CPU read
	 * 100 % where schedstat said 80.2: the hypervisor took the rest).
	 */
	if (cur->since_ns && cur->pid == pid && cur->tg == (__u64)tg) {
		seq_begin(cur);
		cur->stolen_seen = sched_stolen(p, false);
		ran_note(cur, p);
		seq_end(cur);
		return 0;
	}
	seq_begin(cur);
	if (cur->since_ns) {
		/* Its since_ns is ktime until a switch converts it (seeded). */
		__u64 kt = bpf_ktime_get_ns(), rq = BPF_CORE_READ(p, se.cfs_rq, rq, clock);
		bool ktime = cur->seeded || !cur->off_at;
		__u64 now = ktime ? kt : kt - cur->clock_off, stolen = sched_stolen(p, false);

		/*
		 * The same task, moved by another CPU while it ran (on_attach):
		 * split at the move (moved_by_another), else here. (A slice
		 * still in ktime has no rq-clock start to place it in.)
		 */
		if (cur->pid == pid) {
			__u64 at = 0;

			if (ktime)
				count_drop(CGS_DROP_MOVE_UNTIMED);
			else
				at = moved_by_another(cur, p, now, stolen);

			moved_while_running(cur, p, tg, pid, at ? at : now, stolen);
			ran_note(cur, p);
			seq_end(cur);
			return 0;
		}
		__u64 at = unseen_switch(cur, p, now, stolen, ktime ? kt - rq : 0);

		/* Its wait, timed in the hot-path clock: the rq clock, as last_arrival is. */
		if (at && pid)
			unseen_switch_in(p, tg, BPF_CORE_READ(p, sched_info.last_arrival), false);
	} else {
		cur->clock_off = 0;
		cur->off_at = 0;
		cur->seeded = 1;
		slice_start(cur, bpf_ktime_get_ns(), sched_stolen(p, false));
		seeded_cpus++;
	}
	cur_set(cur, tg, pid);
	cur->stolen_seen = sched_stolen(p, false);
	ran_note(cur, p);
	seq_end(cur);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(btf_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(preempt, prev, next, true);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(btf_wakeup, struct task_struct *p)
{
	return on_wakeup(p, true);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(btf_wakeup_new, struct task_struct *p)
{
	return on_wakeup(p, true);
}

/* Loaded with a throttle backend only: a moved task's wait may have been held where it was. */
SEC("tp_btf/sched_migrate_task")
int BPF_PROG(btf_migrate, struct task_struct *p)
{
	struct cgs_task *t = task_find(p, true);

	if (t && t->limited)
		thr_migrate(p, t, true);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(raw_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(preempt, prev, next, false);
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(raw_wakeup, struct task_struct *p)
{
	return on_wakeup(p, false);
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(raw_wakeup_new, struct task_struct *p)
{
	return on_wakeup(p, false);
}

SEC("raw_tp/sched_migrate_task")
int BPF_PROG(raw_migrate, struct task_struct *p)
{
	struct cgs_task *t = task_find(p, false);

	if (t && t->limited)
		thr_migrate(p, t, false);
	return 0;
}

/*
 * A cgroup removed: tell the loader, which takes the final figures of its
 * slot and recycles it, or lets go of its parked figures (a cgroup idle for
 * long may have none here). Only the cpu controller's hierarchy: on v1 each
 * hierarchy numbers its cgroups on its own, so another one's id can equal a
 * cpu cgroup's.
 */
static __always_inline int on_rmdir(struct cgroup *cg, const char *path, bool direct)
{
	int hier = direct ? cg->root->hierarchy_id : BPF_CORE_READ(cg, root, hierarchy_id);
	struct cgs_gone g = {};

	if (hier != targ_cpu_hierarchy)
		return 0;
	__sync_fetch_and_add(&tg_gen, 1); /* every task's cached group looked at again (common.bpf.h) */
	g.cgid = direct ? cg->kn->id : BPF_CORE_READ(cg, kn, id);
	/* Its name, which the loader can no longer read from the cgroupfs. */
	bpf_probe_read_kernel_str(g.path, sizeof(g.path), path);
	if (bpf_map_push_elem(&gone, &g, 0)) {
		count_drop(CGS_DROP_GONE_LOST);
		__sync_fetch_and_add(&gone_lost_total, 1);
	}
	return 0;
}

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(btf_rmdir, struct cgroup *cg, const char *path)
{
	return on_rmdir(cg, path, true);
}

SEC("raw_tp/cgroup_rmdir")
int BPF_PROG(raw_rmdir, struct cgroup *cg, const char *path)
{
	return on_rmdir(cg, path, false);
}

/*
 * Tasks moved into a cgroup (cgroup_attach_task: after the move, on the CPU
 * of the task that wrote cgroup.procs or tasks; once per write, for the
 * leader alone when a whole process moved). A task that moved itself
 * (systemd-run --scope, cgexec, `echo $$ > cgroup.procs; exec ...`) runs on
 * this CPU: its slice is split here, at the move (moved_while_running). One
 * that may be running on another CPU, or other threads of a process, cannot
 * be split from here: counted, and the loader has every CPU look at what it
 * runs before its next read (seed_cpu), where IPIs can; elsewhere, or if it
 * switches out first, it is split at its next switch (moved_by_another).
 */
static __always_inline int on_attach(struct cgroup *dst, struct task_struct *task, bool threadgroup,
				     struct task_struct *me, bool direct)
{
	int hier = direct ? dst->root->hierarchy_id : BPF_CORE_READ(dst, root, hierarchy_id);
	__u32 zero = 0, pid = task_pid(me, false);
	struct cgs_cpu_cur *cur;
	bool self, alone;

	if (hier != targ_cpu_hierarchy)
		return 0;
	self = threadgroup ? task_tgid(me, false) == task_tgid(task, false) : pid == (__u32)task_pid(task, false);
	alone = !threadgroup || BPF_CORE_READ(task, signal, nr_threads) == 1;
	if (!alone || (!self && BPF_CORE_READ(task, on_cpu))) {
		/* Its rq clock, just updated by the move (sched_move_task), under its rq's lock. */
		struct rq *rq = BPF_CORE_READ(task, se.cfs_rq, rq);
		__u32 cpu = BPF_CORE_READ(rq, cpu);
		struct cgs_moved *m = self ? NULL : bpf_map_lookup_elem(&moved_at, &cpu);

		if (m) {
			m->pid = task_pid(task, false);
			m->at = BPF_CORE_READ(rq, clock);
		}
		__sync_fetch_and_add(&moves_elsewhere, 1);
	}
	cur = bpf_map_lookup_elem(&cpu_cur, &zero);
	if (!self || !cur || !cur->since_ns || cur->pid != pid)
		return 0;
	struct task_group *tg = task_tg(me, false);
	if (cur->tg == (__u64)tg)
		return 0;
	__u64 now = sched_now(me, false), stolen = sched_stolen(me, false);
	seq_begin(cur);
	clock_offset_refresh(cur, now);
	__u64 at = move_time(cur, me, now, stolen);
	moved_while_running(cur, me, tg, pid, at ? at : now, stolen);
	seq_end(cur);
	return 0;
}

SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(btf_attach, struct cgroup *dst, const char *path, struct task_struct *task, bool threadgroup)
{
	return on_attach(dst, task, threadgroup, current_task(), true);
}

SEC("raw_tp/cgroup_attach_task")
int BPF_PROG(raw_attach, struct cgroup *dst, const char *path, struct task_struct *task, bool threadgroup)
{
	return on_attach(dst, task, threadgroup, (void *)bpf_get_current_task(), false);
}
