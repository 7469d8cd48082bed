/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one place for differences between kernel versions. Each flavour (struct
 * foo___name) names the kernel change it handles, and each accessor returns a
 * normalised value. The argument `direct` is a compile-time constant. It is
 * true in tp_btf programs, whose task pointers the verifier trusts for plain
 * loads, which are cheaper than bpf_probe_read_kernel. It is false in raw_tp
 * programs.
 */
#ifndef CGS_COMPAT_BPF_H
#define CGS_COMPAT_BPF_H

#include <bpf/bpf_core_read.h>

/* v5.14 (2f064a59a11f "sched: Change task_struct::state") renamed state. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

#define CGS_TASK_RUNNING 0

static __always_inline long task_state(struct task_struct *p, bool direct)
{
	if (bpf_core_field_exists(p->__state))
		return direct ? p->__state : BPF_CORE_READ(p, __state);
	struct task_struct___pre514 *o = (void *)p;
	return direct ? o->state : BPF_CORE_READ(o, state);
}

static __always_inline struct task_group *task_tg(struct task_struct *p, bool direct)
{
	return direct ? p->sched_task_group : BPF_CORE_READ(p, sched_task_group);
}

/*
 * The cgroup id of a task group: the kernfs node id of the cgroup its cpu css
 * belongs to. On v1 that is the cpu hierarchy's cgroup. On v2 it is the nearest
 * ancestor with the cpu controller enabled, the level where CFS bandwidth
 * applies. kernfs_node.id is u64 since v5.5 (67c0496e87d1).
 */
static __always_inline u64 tg_cgid(struct task_group *tg, bool direct)
{
	if (!tg)
		return 0;
	return direct ? tg->css.cgroup->kn->id : BPF_CORE_READ(tg, css.cgroup, kn, id);
}

static __always_inline struct task_group *tg_parent(struct task_group *tg, bool direct)
{
	return direct ? tg->parent : BPF_CORE_READ(tg, parent);
}

static __always_inline u64 tg_quota(struct task_group *tg, bool direct)
{
	return direct ? tg->cfs_bandwidth.quota : BPF_CORE_READ(tg, cfs_bandwidth.quota);
}

static __always_inline int task_pid(struct task_struct *p, bool direct)
{
	return direct ? p->pid : BPF_CORE_READ(p, pid);
}

static __always_inline int task_tgid(struct task_struct *p, bool direct)
{
	return direct ? p->tgid : BPF_CORE_READ(p, tgid);
}

/* v6.18 (task-based throttling, "sched/fair: Switch to task based throttle model") added task_struct.throttled. */
struct task_struct___v618 {
	bool throttled;
} __attribute__((preserve_access_index));

/* cfs_rq.throttled: int until v6.18, a one-bit bitfield since; the bitfield reads handle both. */
static __always_inline bool cfs_rq_throttled(struct cfs_rq *c, bool direct)
{
	if (!c)
		return false;
	return direct ? BPF_CORE_READ_BITFIELD(c, throttled) : BPF_CORE_READ_BITFIELD_PROBED(c, throttled);
}

/* The same, through a pointer kept as a number (always a probe read). */
static __always_inline bool cfs_rq_throttled_at(__u64 addr)
{
	struct cfs_rq *c = (void *)addr;

	return BPF_CORE_READ_BITFIELD_PROBED(c, throttled);
}

/*
 * Was this runnable task switched out because its hierarchy is throttled? In
 * the task-based model (v6.18+), the task itself is marked throttled once it
 * stopped; a task in the kernel keeps running after its cfs_rq throttles. In
 * the per-cfs_rq model, its cfs_rq counts its throttled ancestors, itself
 * included.
 */
static __always_inline bool task_throttled(struct task_struct *p, bool direct)
{
	struct task_struct___v618 *n = (void *)p;

	if (bpf_core_field_exists(n->throttled))
		return direct ? n->throttled : BPF_CORE_READ(n, throttled);
	return (direct ? p->se.cfs_rq->throttle_count : BPF_CORE_READ(p, se.cfs_rq, throttle_count)) > 0;
}

/* The per-cfs_rq throttling model (up to v6.17): a throttled group is dequeued whole. */
static __always_inline bool per_cfs_rq_model(void)
{
	return !bpf_core_field_exists(struct task_struct___v618, throttled);
}

/*
 * How long ago this cfs_rq's latest throttle began, if less than `within` ns
 * ago; else 0. It compares the kernel's own cfs_rq.throttled_clock (the rq
 * clock at the throttle) with the rq clock now, which every schedule() updates.
 * Up to v6.5 the kernel leaves throttled_clock in place after the unthrottle.
 * v6.6 (79462e8c879a "sched: don't account throttle time for empty groups")
 * zeroes it at the unthrottle, so there this sees only ongoing throttles.
 */
static __always_inline u64 cfs_rq_throttle_age(struct cfs_rq *c, u64 within, bool direct)
{
	if (!c)
		return 0;
	u64 at = direct ? c->throttled_clock : BPF_CORE_READ(c, throttled_clock);

	if (!at)
		return 0;
	u64 now = direct ? c->rq->clock : BPF_CORE_READ(c, rq, clock);
	return now > at && now - at < within ? now - at : 0;
}

/*
 * The hot path's clock: the run-queue clock of the task's CPU (rq->clock).
 * __schedule() and the wake-up path update it, under the rq lock, just before
 * these tracepoints fire. The kernel's own schedstat run_delay uses this clock.
 * In tp_btf it costs three plain loads of cache-hot lines instead of a
 * bpf_ktime_get_ns() call (docs/performance.md); raw_tp needs three probe
 * reads.
 *
 * Not ktime: right after a wake-up preempts, the kernel skips the clock update
 * of the switch that follows (RQCF_REQ_SKIP). Both ends of the waits there
 * carry the wake-up's time in the kernel's account, and ktime would differ by
 * the wake-up-to-switch latency (docs/design.md). Every task is on some cfs_rq
 * of its CPU (set_task_rq), so the chain of pointers holds.
 */
static __always_inline u64 sched_now(struct task_struct *p, bool direct)
{
	return direct ? p->se.cfs_rq->rq->clock : BPF_CORE_READ(p, se.cfs_rq, rq, clock);
}

/*
 * What the rq clock counted that was not the running task's: IRQ time
 * (CONFIG_IRQ_TIME_ACCOUNTING) and time the hypervisor stole
 * (CONFIG_PARAVIRT_TIME_ACCOUNTING). The kernel leaves these out of
 * rq->clock_task (update_rq_clock_task). That is the clock of sum_exec_runtime,
 * and so of schedstat, cpuacct.usage and cpu.stat's usage. It is updated with
 * rq->clock, in the same cache line, and only grows. A slice is its rq-clock
 * length less this count's growth (sched.bpf.c slice_ns): on-CPU time as the
 * kernel counts it.
 */
static __always_inline u64 sched_stolen(struct task_struct *p, bool direct)
{
	if (direct) {
		struct rq *rq = p->se.cfs_rq->rq;

		return rq->clock - rq->clock_task;
	}
	struct rq *rq = BPF_CORE_READ(p, se.cfs_rq, rq);

	return BPF_CORE_READ(rq, clock) - BPF_CORE_READ(rq, clock_task);
}

static __always_inline struct cfs_rq *task_cfs_rq(struct task_struct *p, bool direct)
{
	return direct ? p->se.cfs_rq : BPF_CORE_READ(p, se.cfs_rq);
}

static __always_inline struct sched_entity *task_group_se(struct task_struct *p, bool direct)
{
	return direct ? p->se.parent : BPF_CORE_READ(p, se.parent);
}

static __always_inline struct cfs_rq *se_cfs_rq(struct sched_entity *se, bool direct)
{
	return direct ? se->cfs_rq : BPF_CORE_READ(se, cfs_rq);
}

static __always_inline struct sched_entity *se_parent(struct sched_entity *se, bool direct)
{
	return direct ? se->parent : BPF_CORE_READ(se, parent);
}

static __always_inline struct task_group *cfs_rq_tg(struct cfs_rq *c, bool direct)
{
	return direct ? c->tg : BPF_CORE_READ(c, tg);
}

static __always_inline u64 cfs_rq_cgid(struct cfs_rq *c, bool direct)
{
	if (!c)
		return 0;
	return tg_cgid(cfs_rq_tg(c, direct), direct);
}

/*
 * Runnable tasks queued on this cfs_rq and below it: those a throttle of it
 * holds. Since v6.12, delayed dequeue leaves sleeping tasks queued until they
 * are picked. In v6.12 they count in h_nr_running, and nothing tells them
 * apart. In v6.13 h_nr_delayed counts them. Since v6.14 (7b8a702d9438
 * "sched/fair: Rename h_nr_running into h_nr_queued") h_nr_runnable leaves them
 * out.
 */
struct cfs_rq___v614 {
	unsigned int h_nr_runnable;
} __attribute__((preserve_access_index));

struct cfs_rq___pre614 {
	unsigned int h_nr_running;
	unsigned int h_nr_delayed; /* v6.13 only */
} __attribute__((preserve_access_index));

static __always_inline u32 cfs_rq_runnable(struct cfs_rq *c)
{
	struct cfs_rq___v614 *n = (void *)c;
	struct cfs_rq___pre614 *o = (void *)c;

	if (bpf_core_field_exists(n->h_nr_runnable))
		return BPF_CORE_READ(n, h_nr_runnable);
	u32 queued = BPF_CORE_READ(o, h_nr_running);
	if (bpf_core_field_exists(o->h_nr_delayed))
		return queued - BPF_CORE_READ(o, h_nr_delayed);
	return queued;
}

/* The bandwidth period timer's next expiry, by name only (kernel_types.h declares no hrtimer). */
struct timerqueue_node___cgs {
	s64 expires; /* ktime_t */
} __attribute__((preserve_access_index));

struct hrtimer___cgs {
	struct timerqueue_node___cgs node;
} __attribute__((preserve_access_index));

struct cfs_bandwidth___cgs {
	struct hrtimer___cgs period_timer;
} __attribute__((preserve_access_index));

struct task_group___cgs {
	struct cfs_bandwidth___cgs cfs_bandwidth;
} __attribute__((preserve_access_index));

/* When the group's quota is next refilled (ktime): its period timer's expiry; 0: unknown. */
static __always_inline u64 tg_next_refill(struct task_group *tg)
{
	struct task_group___cgs *g = (void *)tg;

	if (!bpf_core_field_exists(g->cfs_bandwidth.period_timer.node.expires))
		return 0;
	return BPF_CORE_READ(g, cfs_bandwidth.period_timer.node.expires);
}

static __always_inline int cfs_rq_cpu(struct cfs_rq *c, bool direct)
{
	if (!c)
		return -1;
	return direct ? c->rq->cpu : BPF_CORE_READ(c, rq, cpu);
}

#endif /* CGS_COMPAT_BPF_H */
