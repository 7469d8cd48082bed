// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Scheduler events into per-cgroup figures.
 *
 * sched_switch ends the outgoing task's slice, counts the switch and the
 * preemptor, and ends the incoming task's run-queue wait. A wake-up or an
 * involuntary switch-out starts a wait. A wait in a throttled hierarchy is
 * throttled time, kept apart from run-queue latency (throttle.bpf.h).
 *
 * A slice is what a CPU runs of one task in one cgroup, between switches or
 * moves. A slot is the index of a cgroup's entries in the per-cgroup arrays. A
 * shard is one copy of a slot's rarer figures, which CPUs may share. A seeded
 * CPU is one that seed_cpu set up at attach: its slice start stays in ktime
 * until its next switch. A held task was preempted after it set a sleeping
 * state and before it blocked: it stays queued, and the kernel starts no wait.
 * The hot-path clock is the rq clock of the task's CPU (sched_now in
 * compat.bpf.h).
 *
 * Each program comes twice: tp_btf (direct loads) and raw_tp (probe reads,
 * where tp_btf does not attach). The loader enables one set.
 */
#include "common.bpf.h"
#include "throttle.bpf.h"
#include "tasks.bpf.h"
#include "why.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* How often a CPU samples the offset of its rq clock to ktime. */
#define CGS_OFF_REFRESH_NS (100ULL * 1000000ULL)

/*
 * A cgroup's figures live in arrays indexed by its slot, cached in task storage
 * and cpu_cur: no hashing on the hot path. The map cg_slot maps ids to slots,
 * and slot_owner (common.bpf.h) maps back. A pop from free_slots is the one
 * atomic claim every kernel from 5.8 offers tracing programs; atomics that
 * return a value came in 5.12. Before it refills free_slots with the slots of
 * removed or idle cgroups, the loader takes their figures, deletes their
 * cg_slot entries, advances slot_gen and waits out running programs
 * (membarrier). A slot cached under an older slot_gen is looked up again
 * (docs/design.md, "Slots").
 *
 * The map cg_hot holds what every switch or wait writes, per CPU and slot, at
 * index cpu * targ_max_cgroups + slot. Only a CPU's own programs write its
 * entries. Unlike a PERCPU_ARRAY, the loader reads it in place (mmap), and
 * lookups are inlined on every kernel, not only from v6.10. The map cg_shard
 * holds the rarer figures, targ_shards entries a slot, to bound memory
 * (docs/design.md, "Memory"). Shared shards take atomic adds.
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
 * Unused here. Where membarrier is refused (nohz_full), the loader waits out
 * running programs by updating this map-in-map, which returns after an RCU
 * grace period (maybe_wait_bpf_programs).
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

/* Removed cgroups (cg_rmdir), which the loader takes in at each read. */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 1024); /* 2 x --max-cgroups + 1024 */
	__type(value, struct cgs_gone);
} gone SEC(".maps");

/* CPUs that seed_cpu set up; the loader checks that every CPU was. */
__u32 seeded_cpus = 0;
/* Switches the kernel made without its tracepoint, found and repaired (unseen_switch). */
__u64 unseen_switches = 0;
/*
 * Moves of tasks that may run on another CPU (cg_attach); the loader then has
 * each CPU looked at.
 */
__u64 moves_elsewhere = 0;
/*
 * Moves split by the task's own record (move_time) because the mover's mark
 * (moved_at) was missing or another task's. That happens for a thread that is
 * not its process's leader, or a task that switched out before the mark.
 */
__u64 moves_unmarked = 0;
/* Wake-ups of held tasks: no wait begins, as the kernel begins none. */
__u64 held_wakeups = 0;
/* Removals not queued (gone full): the loader then checks each shown cgroup's path itself. */
__u64 gone_lost_total = 0;
/* The loader's round of asking every CPU (tracer_sync_cpus); ran_seen belongs to this round. */
__u64 sync_round = 0;

/*
 * Note what the running task has run since the kernel last picked it, by its
 * own count (at most a tick stale). The loader bounds its credit of the running
 * slice by it. It is read only when the loader asks, so the switch path pays
 * nothing for it.
 */
static __always_inline void ran_note(struct cgs_cpu_cur *cur, struct task_struct *p)
{
	cur->ran_seen = BPF_CORE_READ(p, se.sum_exec_runtime) - BPF_CORE_READ(p, se.prev_sum_exec_runtime);
	cur->ran_since = cur->since_ns;
	cur->ran_round = sync_round;
}

/*
 * Per CPU, the last move of a task running there, by another CPU: its pid and
 * that CPU's rq clock at the move. cg_attach writes it; seed_cpu and the next
 * switch there read it (moved_time).
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
/* record --demand: its steps are kept (rodata: other commands pay nothing). */
const volatile bool targ_demand = false;
/* export's demand per period of every cgroup (include/cgsched.h struct cgs_per). */
const volatile bool targ_per = false;
/* The default grid's step: its period / CGS_PER_NSTEPS. */
const volatile __u64 targ_per_step_ns = 12500000;

/*
 * Preemptions by (victim, preemptor) pair, allocated on first use. One value
 * for all CPUs, with atomic adds: two CPUs rarely count one pair at once, and
 * per-CPU values would cost memory and copies on every CPU.
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
 * Per-task state. Task storage (v5.11+) lives and dies with the task. Without
 * it, the loader makes this map an LRU hash keyed by pid (bpf_map__set_type),
 * and targ_task_storage = false prunes storage calls.
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
 * current, for paths that may pass it to task_get. Task storage needs a trusted
 * pointer (bpf_get_current_task_btf, v5.11). v5.10 refuses a whole program that
 * calls that helper, so the pid-hash build must prune the call.
 */
static __always_inline struct task_struct *current_task(void)
{
	return targ_task_storage ? bpf_get_current_task_btf() : (void *)bpf_get_current_task();
}

/* A task's state if it has one; none is made. */
static __always_inline struct cgs_task *task_find(struct task_struct *p, bool direct)
{
	if (targ_task_storage)
		return bpf_task_storage_get(&tasks, p, 0, 0);

	__u32 pid = task_pid(p, direct);
	return bpf_map_lookup_elem(&tasks, &pid);
}

/*
 * A cgroup's slot + 1; 0 when every slot is taken. The slow path: callers cache
 * the result per task until the task moves or slots are recycled.
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

/* CPU cpu's hot figures of a slot. slot1 is the slot + 1, nonzero. */
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

static __always_inline struct cgs_cg_shard *sh_on(__u32 shard, __u32 slot1)
{
	__u32 i = shard * targ_max_cgroups + slot1 - 1;

	return bpf_map_lookup_elem(&cg_shard, &i);
}

/* The shard this CPU writes of a slot (slot1 nonzero). */
static __always_inline struct cgs_cg_shard *sh_at(__u32 slot1)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return sh_on(targ_shared ? cpu % targ_shards : cpu, slot1);
}

/*
 * Whether a task group (its address) or an ancestor has a CFS quota
 * (RUNTIME_INF is ~0): only then can its tasks be throttled. It runs rarely
 * (per task, when lim_gen moves), so it is a global function with probe reads,
 * verified once rather than in every state that reaches it.
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
 * Refresh the task's cached cgroup id and filter verdict after it changed task
 * group, and whether it can be throttled after lim_gen moved. Returns the id if
 * the filter admits the task, else 0; t->cgid holds the id either way, so a
 * preemptor outside the filter is still named. Each program loads tg
 * (sched_task_group) once, at its top: on v6.18 each load from a trusted task
 * pointer costs the verifier BTF scans (docs/performance.md).
 */
static __always_inline __u64 task_cgid_cached(struct task_group *tg, struct cgs_task *t, bool direct)
{
	/* After a recycling, refresh all of it: a removed group's task_group may be reused. */
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
		 * Pass the address as a number, read back through volatile.
		 * Otherwise clang passes the pointer it holds, which the
		 * verifier refuses as a scalar.
		 */
		t->limited = tg_limited(*(volatile __u64 *)&t->tg);
	}
	return t->match ? t->cgid : 0;
}


/* A task's wait ended that its group's quota, or an ancestor's, caused. */
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
	/* Counted when it runs, in the figures the switch-in looks up anyway. */
	t->woken = 1;
	/* A wake-up is an arrival: its work owes nothing to earlier throttles. */
	if ((targ_demand || targ_per) && !t->held)
		t->dem_lag = 0;
	if (t->limited && thr_wakeup(p, t, now, direct)) {
		t->queued_ns = 0;
	} else if (t->held) {
		t->queued_ns = 0; /* held: still queued, so no wait */
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
	bool preempt;              /* the tracepoint's flag: a preemption, not the task's own schedule() */
	struct cgs_cg_hot *s;      /* its figures on this CPU, if looked up */
	struct cgs_cg_shard *sh;   /* and the shard this CPU writes */
};

/*
 * The loader credits the running slice in CLOCK_MONOTONIC: keep this CPU's
 * clock offset to it fresh. Rates drift by microseconds at most in 100 ms.
 */
static __always_inline void clock_offset_refresh(struct cgs_cpu_cur *cur, __u64 now)
{
	if (now - cur->off_at > CGS_OFF_REFRESH_NS) {
		__u64 off = bpf_ktime_get_ns() - now;

		/* A seeded CPU's since_ns is ktime: convert it to this clock, once. */
		if (cur->seeded) {
			cur->since_ns -= off;
			cur->seeded = 0;
		}
		cur->clock_off = off;
		cur->off_at = now;
	}
}

/*
 * The loader reads this CPU's cg_hot entries and cpu_cur in two steps; a switch
 * between them would lose its slice or count it twice. The count seq works like
 * a seqlock: odd while a switch writes, even after. Only this CPU writes it.
 * The barriers keep the compiler from moving stores across it; x86 keeps them
 * in order.
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

/*
 * Written by the loader (tracer_demand_arm): step end k lies at
 * dem_origin_ns + k x dem_step_ns (ktime). dem_step_ns is written last, and
 * 0 means not armed yet.
 */
__u64 dem_origin_ns = 0;
__u64 dem_step_ns = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cgs_dem_cpu);
} dem_cpu SEC(".maps");

/*
 * A traced slice of d ns ran from a to b (ktime) on this CPU. The step ends
 * up to b not yet captured all fall in it: the last capture came at the end
 * of this CPU's previous traced slice, and untraced time adds nothing. So
 * one segment holds them all, in constant work with no loop. A global
 * function, so the verifier checks it once, not at each caller.
 */
__noinline int dem_capture(__u64 a, __u64 b, __u64 d)
{
	__u64 step = dem_step_ns, origin = dem_origin_ns;
	struct cgs_dem_cpu *dc;
	__u32 zero = 0;

	if (!(dc = bpf_map_lookup_elem(&dem_cpu, &zero)))
		return 0;
	if (step && b >= origin) {
		__u64 k = (b - origin) / step;

		if (k >= dc->next_k) {
			struct cgs_dem_seg *g = &dc->seg[dc->head & (CGS_DEM_SEGS - 1)];

			g->k_from = dc->next_k;
			g->k_to = k;
			g->cum0 = dc->cum_ns;
			g->t0 = a;
			g->d = d;
			dc->head++;
			dc->next_k = k + 1;
		}
	}
	dc->cum_ns += d;
	return 0;
}

/*
 * The most lag a task may have, and how far back a placement may reach:
 * the lag and a throttled wait of up to a period (loader: whole steps).
 */
__u64 dem_lag_max_ns = 0;
__u64 dem_reach_ns = 0;

/*
 * Add d ns of work to this CPU's step buckets, from a (ktime) on, as
 * though it ran without a break. now is the present, ktime. Steps before
 * now - dem_reach_ns may be read already: work placed there goes to the
 * oldest open step. Work past CGS_DEM_PLACE_STEPS steps goes to the last.
 * Both count as clipped. A global function, checked once.
 */
__noinline int dem_place(__u64 a, __u64 d, __u64 now)
{
	__u64 step = dem_step_ns, origin = dem_origin_ns, lo = 0, k;
	struct cgs_dem_cpu *dc;
	__u32 zero = 0;

	if (!(dc = bpf_map_lookup_elem(&dem_cpu, &zero)) || !step)
		return 0;
	if (now > origin + dem_reach_ns)
		lo = (now - dem_reach_ns - origin) / step;
	k = a > origin ? (a - origin) / step : 0;
	if (k < lo) {
		dc->clipped_ns += d;
		k = lo;
		a = origin + k * step;
	}
	for (int i = 0; i < CGS_DEM_PLACE_STEPS && d; i++, k++) {
		struct cgs_dem_bucket *b = &dc->b[k & (CGS_DEM_BUCKETS - 1)];
		__u64 end = origin + (k + 1) * step, part = a < end && end - a < d ? end - a : d;

		if (i == CGS_DEM_PLACE_STEPS - 1 && part < d) {
			dc->clipped_ns += d - part;
			part = d;
		}
		if (b->tag != k + 1) {
			b->tag = k + 1;
			b->ns = 0;
		}
		b->ns += part;
		d -= part;
		a = end;
	}
	return 0;
}

/* export's demand: each slot's grid and steps (include/cgsched.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* --max-cgroups with targ_per */
	__type(key, __u32);
	__type(value, struct cgs_per);
} cg_per SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cgs_per_cpu);
} per_cpu SEC(".maps");

/* A slot's grid: its step, steps a period and origin. False: nothing may be added now. */
static __always_inline bool per_grid(const struct cgs_per *e, __u64 *step, __u64 *n, __u64 *origin)
{
	__u32 state = *(volatile const __u32 *)&e->state;

	asm volatile("" ::: "memory");
	if (state == CGS_PER_ARMED) {
		*step = e->step_ns;
		*n = e->nsteps;
		*origin = e->origin_ns;
	} else if (state == CGS_PER_DEFAULT) {
		*step = targ_per_step_ns;
		*n = CGS_PER_NSTEPS;
		*origin = 0;
	} else {
		count_drop(CGS_DROP_PER_PAUSED);
		return false;
	}
	return *step && *n;
}

/*
 * Add d ns of a slot's work to its steps, from a (ktime) on, as though it
 * ran without a break; now is the present (ktime). Work that would reach
 * before the steps the loader may have read, or span too many steps, goes
 * whole to this CPU's ring of long slices. A global function, checked once.
 */
__noinline int per_place(__u32 slot1, __u64 a, __u64 d, __u64 now)
{
	__u64 step, n, origin, lo = 0, k, last;
	struct cgs_per *e;
	__u32 i = slot1 - 1, zero = 0;

	if (!slot1 || !d || !(e = bpf_map_lookup_elem(&cg_per, &i)) || !per_grid(e, &step, &n, &origin))
		return 0;
	if (now > origin + CGS_PER_REACH * n * step)
		lo = (now - CGS_PER_REACH * n * step - origin) / step;
	k = a > origin ? (a - origin) / step : 0;
	last = a + d > origin ? (a + d - 1 - origin) / step : 0;
	if (a < origin || k < lo || last - k >= CGS_DEM_PLACE_STEPS) {
		struct cgs_per_cpu *pc = bpf_map_lookup_elem(&per_cpu, &zero);
		struct cgs_per_long *r;

		if (!pc)
			return 0;
		r = &pc->rec[pc->head & (CGS_PER_LONG - 1)];
		r->a = a;
		r->d = d;
		r->slot1 = slot1;
		r->gen = e->gen;
		asm volatile("" ::: "memory");
		pc->head++;
		return 0;
	}
	for (int j = 0; j < CGS_DEM_PLACE_STEPS && d; j++, k++) {
		__u64 end = origin + (k + 1) * step, part = end - a < d ? end - a : d;

		__sync_fetch_and_add(&e->ns[k & (CGS_PER_RING - 1)], part);
		d -= part;
		a = end;
	}
	return 0;
}

/* The most lag a task of a slot may have: two of its periods (0: none). */
static __always_inline __u64 per_lag_max(__u32 slot1)
{
	__u64 step, n, origin;
	struct cgs_per *e;
	__u32 i = slot1 - 1;

	if (!slot1 || !(e = bpf_map_lookup_elem(&cg_per, &i)) || !per_grid(e, &step, &n, &origin))
		return 0;
	return 2 * n * step;
}

/*
 * The slice from cur->since_ns to end, of d ns, in the hot-path clock, of
 * slot slot1. A task held by a throttle since its wake-up has its slice
 * placed earlier, by the time it was held: where it would have run.
 */
static __always_inline void dem_add(const struct cgs_cpu_cur *cur, __u32 slot1, __u64 end, __u64 d)
{
	if (targ_per) {
		per_place(slot1, cur->since_ns + cur->clock_off - cur->dem_lag, d, end + cur->clock_off);
		return;
	}
	if (!targ_demand)
		return;
	if (cur->dem_lag)
		dem_place(cur->since_ns + cur->clock_off - cur->dem_lag, d, end + cur->clock_off);
	else
		dem_capture(cur->since_ns + cur->clock_off, end + cur->clock_off, d);
}

/*
 * A throttled wait of d ns ended now (hot-path clock): the task's work is
 * d later than it would be without the throttle. Past dem_lag_max_ns, the
 * rest of the wait counts as demand, placed that much earlier: a task held
 * that long wants the CPU all the time.
 */
static __always_inline void dem_held(struct cgs_task *t, __u64 now, __u64 d)
{
	__u64 max = targ_per ? per_lag_max(t->slot1) : dem_lag_max_ns, over;
	struct cgs_cpu_cur *cur;
	struct cgs_dem_cpu *dc;
	__u32 zero = 0;

	if (!(targ_demand || targ_per) || !max)
		return;
	if (t->dem_lag + d <= max) {
		t->dem_lag += d;
		return;
	}
	over = t->dem_lag + d - max;
	t->dem_lag = max;
	if (!(cur = bpf_map_lookup_elem(&cpu_cur, &zero)))
		return;
	now += cur->clock_off;
	if (targ_per) {
		per_place(t->slot1, now - max - over, over, now);
		return;
	}
	if (!(dc = bpf_map_lookup_elem(&dem_cpu, &zero)))
		return;
	dem_place(now - max - over, over, now);
	dc->unplaced_ns += over;
}

/*
 * Add an on-CPU slice to a cgroup's figures on this CPU: s, and sh if found.
 * The slice ran d ns from cur->since_ns to end; slot1 is s's slot + 1.
 */
static __always_inline void slice_add(const struct cgs_cpu_cur *cur, __u32 slot1, struct cgs_cg_hot *s,
				      struct cgs_cg_shard *sh, __u64 end, __u64 d)
{
	s->oncpu_ns += d;
	s->oncpu_count++;
	if (sh)
		SHARD_ADD(sh->oncpu_slots[log2_slot(d / targ_hist_div)], 1);
	dem_add(cur, slot1, end, d);
}

/*
 * The on-CPU time of the slice from since_ns to at, as the kernel counts it:
 * rq-clock time less the growth of sched_stolen (IRQ time and a hypervisor's
 * steal), which a task's runtime leaves out. Pass stolen as of `at`, or of now
 * for an earlier `at`: the steal between falls to the next slice.
 */
static __always_inline __u64 slice_ns(const struct cgs_cpu_cur *cur, __u64 at, __u64 stolen)
{
	__u64 d = at - cur->since_ns, s = stolen > cur->stolen ? stolen - cur->stolen : 0;

	return s < d ? d - s : 0;
}

static __always_inline void slice_start(struct cgs_cpu_cur *cur, __u64 at, __u64 stolen)
{
	cur->since_ns = at;
	cur->stolen = cur->stolen_seen = stolen;
}

/* The outgoing side: everything since this CPU's last switch ran prev. */
static __always_inline void switch_out(struct task_struct *prev, struct task_group *tg, struct cgs_cpu_cur *cur,
				       __u64 now, __u64 stolen, struct switch_out *o, bool direct)
{
	bool runnable = task_state(prev, direct) == CGS_TASK_RUNNING, throttled = false;
	/*
	 * A held task (see the file header) gets no wait from the kernel:
	 * sched_info_depart queues only a running task, and ttwu_runnable finds
	 * it queued and enqueues nothing. A move of a task still on its CPU
	 * causes this, as the move's reschedule preempts it.
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
	 * Look up its task state if it waits from now, changed cgroup while it
	 * ran, or may hold a recycled slot.
	 */
	if (runnable || held || !cur->since_ns || cur->tg != (__u64)tg || cur->slot_gen != slot_gen) {
		t = task_get(prev, direct);
		if (t) {
			o->cg = task_cgid_cached(tg, t, direct);
			o->slot1 = t->slot1;
			t->held = held;
			if (held)
				t->queued_ns = 0; /* a wake-up while it still ran began no wait either */
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
			slice_add(cur, o->slot1, s, o->sh, now, d);
		if (runnable || held)
			s->sw_invol++;
		else
			s->sw_vol++;
	}
	/* After its slice went into its figures, because the mark copies them. */
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
 * A long wait, for the timeline: who waited, and behind whose task. Waits this
 * long are rare, so bpf_ktime_get_ns() here costs nothing.
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
	/* Whatever cgroup it is in, filter or not (record traces one); 0 for the idle task. */
	w->behind = tg_cgid(prev_tg, direct);
	w->pid = task_pid(next, direct);
	w->cpu = bpf_get_smp_processor_id();
	bpf_ringbuf_submit(w, 0);
}

/*
 * A held task waits only if the kernel began a wait since: a move to another
 * CPU while queued starts one. sched_info.last_queued holds its start, in this
 * rq's clock, until the switch-in after this tracepoint.
 */
static __always_inline __u64 held_queued(struct task_struct *p, bool direct)
{
	if (!bpf_core_field_exists(p->sched_info.last_queued))
		return 0;
	return direct ? p->sched_info.last_queued : BPF_CORE_READ(p, sched_info.last_queued);
}

/* Add a run-queue wait of d ns of task t to its cgroup's figures s, and sh if found. */
static __always_inline void runq_wait(struct cgs_task *t, struct cgs_cg_hot *s, struct cgs_cg_shard *sh, __u64 d)
{
	s->wakeups += t->woken;
	s->runq_count++;
	s->runq_sum_ns += d;
	max_pupdate(s->runq_max, d);
	if (sh)
		SHARD_ADD(sh->runq_slots[log2_slot(d / targ_hist_div)], 1);
}

/* The incoming side: its run-queue or throttled wait ends now. Returns its task state, or NULL. */
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
			dem_held(t, now, d);
		} else if (t->held && !(t->queued_ns = held_queued(next, direct))) {
			/* Held: no wait to end, but its wake-up counts. */
			if ((s = cg_at(t->slot1)))
				s->wakeups += t->woken;
		} else if (!t->queued_ns) {
			count_drop(CGS_DROP_RUNQ_NOSTART);
		} else {
			d = elapsed(now, t->queued_ns);
			tasks_runq(next, t->cgid, now, d, t->woken, direct);
			/* Switching within one cgroup is common: its figures are at hand. */
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
 * The switch-in half of an untraced switch: p's wait, if it had one, ended at
 * `at`, as in the kernel's run delay. A task that was not waiting has nothing
 * to end, and no drop is counted.
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
 * Repair a switch the kernel made without firing sched_switch: this CPU runs p,
 * not the task it last saw switching in (cur->pid). Some kernels skip the
 * tracepoint for some switches. The recorded slice ended when p switched in
 * (sched_info.last_arrival, rq clock; rq_to_hot converts it to ktime for a
 * seeded CPU), and p's slice starts there. If that time does not fit (no
 * SCHED_INFO, or out of order), p is credited from the recorded start. Returns
 * the time, or 0.
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
		slice_add(cur, cur->slot1, s, sh_at(cur->slot1), at, d);
	slice_start(cur, at, stolen);
	return at;
}

/*
 * Set what this CPU runs from now, learnt outside a switch (seed_cpu, a move):
 * task pid (0: idle) in group tg, looked up with probe reads.
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
	cur->dem_lag = 0;
	cur->pid = pid;
}

/*
 * Give the running slice up to `at` to the cgroup this CPU was recorded
 * running; its task p, current, goes on from there in another cgroup.
 */
static __always_inline void slice_split(struct cgs_cpu_cur *cur, struct task_struct *p, __u64 at, __u64 stolen)
{
	struct cgs_cg_hot *s;

	if (at <= cur->since_ns)
		return;
	__u64 d = slice_ns(cur, at, stolen);
	if (cur->cgid && cur->slot_gen == slot_gen) {
		if ((s = cg_at(cur->slot1)))
			slice_add(cur, cur->slot1, s, sh_at(cur->slot1), at, d);
		tasks_ran(p, cur->cgid, at, d, false);
	}
	slice_start(cur, at, stolen);
}

/*
 * When another CPU moved the task recorded running here (cg_attach's mark), if
 * within its slice and before now; else 0.
 */
static __always_inline __u64 moved_time(const struct cgs_cpu_cur *cur, __u64 now)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct cgs_moved *m = bpf_map_lookup_elem(&moved_at, &cpu);

	return m && m->pid == cur->pid && m->at > cur->since_ns && m->at < now ? m->at : 0;
}

/*
 * The rq-clock time at which p, running here since cur->since_ns, moved to
 * another task group (sched_move_task), from p's own record; 0 if that record
 * does not place the move in the slice. The mover's clocks are worse: the rq
 * clock may be a tick stale, and a mover's mark comes after the move and names
 * only a process's leader.
 *
 * A move puts the running task and picks it again: set_next_entity sets
 * prev_sum_exec_runtime = sum_exec_runtime and exec_start = rq->clock_task.
 * Each update_curr since adds to the sum what it moves exec_start by. So
 * exec_start - (sum_exec_runtime - prev_sum_exec_runtime) is the last pick, in
 * the task clock. A pick after the slice's start in that clock (since_ns less
 * the stolen count then) is a move. Plus sched_stolen now, it is the rq-clock
 * time at which slice_ns splits the slice exactly. Classes other than fair
 * (sched_ext, RT) keep an older prev_sum_exec_runtime: the result falls before
 * the slice, and the caller uses the mark.
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
 * When another CPU moved the task running here: by its own record (move_time),
 * else by the mover's mark; 0, and a drop, if neither has it.
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
 * The task running here (p, current) moved to group tg while it ran
 * (sched_move_task, no switch). The kernel charges the old group up to the move
 * (the dequeue's update_curr) and the new one after; so does this, at `at`.
 * Unsplit, a task alone on its CPU might never be seen in its new cgroup
 * (docs/design.md, "Moves").
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
	/* Each task's group is loaded once, here (task_cgid_cached says why). */
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
		 * Moved by another CPU while it ran, and switched out before a
		 * read split its slice. The old cgroup gets the part before the
		 * move; switch_out gives the new one the rest (all of it, if
		 * the move's time is unknown).
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
	cur->dem_lag = (targ_demand || targ_per) && t ? t->dem_lag : 0;
	cur->slot1 = t ? t->slot1 : 0;
	cur->slot_gen = t ? t->slot_gen : 0;
	cur->pid = task_pid(next, direct);
	seq_end(cur);
	why_switch_end(tl, next, t ? t->cgid : 0, direct);
	return 0;
}

/*
 * Tell each CPU what it runs now. The loader runs this on every CPU with
 * BPF_F_TEST_RUN_ON_CPU (raw_tp, v5.10+); in that IPI, current is the task the
 * CPU was running. On-CPU time counts from a switch-in, and a task alone on its
 * CPU may never switch. So at attach this seeds each CPU that has not switched
 * yet. Its since_ns is set in ktime, as the rq clock may be stale here; off_at
 * 0 makes the next switch convert it. At later reads this finds untraced
 * switches (unseen_switch), whose running slice the loader would credit to the
 * wrong task.
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
	 * The same task runs on: note the steal of its slice so far. The loader
	 * credits the slice up to its read (snapshot.c take_running) without
	 * the task clock, and leaves this steal out.
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
		 * The same task, moved by another CPU while it ran (cg_attach):
		 * split at the move, else here. A slice still in ktime cannot
		 * place the move.
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

		/* Its wait is timed in the hot-path clock: the rq clock, as last_arrival is. */
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
 * A cgroup was removed: the loader takes the final figures of its slot and
 * recycles it, or drops its parked figures. Only the cpu hierarchy counts: on
 * v1 each hierarchy numbers its cgroups alone, so ids can collide.
 *
 * Both cgroup hooks are raw_tp programs with probe reads, whatever the backend.
 * They fire rarely, and a raw_tp program costs the verifier no walks over the
 * kernel's BTF, which a tp_btf one's loads cost (docs/performance.md,
 * "Start-up").
 */
SEC("raw_tp/cgroup_rmdir")
int BPF_PROG(cg_rmdir, struct cgroup *cg, const char *path)
{
	int hier = BPF_CORE_READ(cg, root, hierarchy_id);
	struct cgs_gone g = {};

	if (hier != targ_cpu_hierarchy)
		return 0;
	__sync_fetch_and_add(&tg_gen, 1); /* every task's cached group is looked at again (common.bpf.h) */
	g.cgid = BPF_CORE_READ(cg, kn, id);
	/* Its name, which the loader can no longer read from the cgroupfs. */
	bpf_probe_read_kernel_str(g.path, sizeof(g.path), path);
	if (bpf_map_push_elem(&gone, &g, 0)) {
		count_drop(CGS_DROP_GONE_LOST);
		__sync_fetch_and_add(&gone_lost_total, 1);
	}
	return 0;
}

/*
 * Tasks moved into a cgroup: fired after the move, on the writer's CPU, once
 * per write of cgroup.procs or tasks (for the leader alone when a whole process
 * moved). A task that moved itself (systemd-run --scope, cgexec) runs here: its
 * slice is split now. Other moves are counted, and the loader has every CPU
 * look at what it runs (seed_cpu) before its next read; if the task switches
 * out first, its switch splits the slice.
 */
SEC("raw_tp/cgroup_attach_task")
int BPF_PROG(cg_attach, struct cgroup *dst, const char *path, struct task_struct *task, bool threadgroup)
{
	struct task_struct *me = (void *)bpf_get_current_task();
	int hier = BPF_CORE_READ(dst, root, hierarchy_id);
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
