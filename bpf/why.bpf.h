/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Why a run-queue wait lasted (--why). The split of a wait says what ran on the
 * CPU the task waited on, from the wait's start to its end, by kind: another
 * task of its cgroup, other cgroups' tasks, kernel threads, real-time tasks, or
 * nothing. The other cgroups are also named. Definitions and costs:
 * docs/design.md.
 *
 * Each CPU keeps running totals of what ran on it, by kind (cpu_tl). A wait
 * copies its CPU's totals when it begins (the mark, why_mark). When it ends,
 * the difference of the totals is the split (why_split). So a waiter costs
 * nothing while it waits, however many switches it spans. Its own cgroup's
 * share is the same difference of the cgroup's on-CPU time on that CPU
 * (cg_hot). The other cgroups are named from the ring of that CPU's latest
 * slices. The marks also keep each cgroup's count of waiting tasks. The time
 * that count is above zero is cgsched's "some" time, as in PSI.
 *
 * Off unless asked: with targ_why false the verifier prunes every hook here.
 */
#ifndef CGS_WHY_BPF_H
#define CGS_WHY_BPF_H

#include "common.bpf.h"

const volatile bool targ_why = false;
/* Which parts (enum cgs_why_part): all with --why; make bench times them one at a time. */
const volatile __u32 targ_why_parts = 0;
#define WHY_HAS(part) (targ_why && (targ_why_parts & (part)))

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* possible CPUs, with --why */
	__type(key, __u32);
	__type(value, struct cgs_cpu_tl);
} cpu_tl SEC(".maps");

#define CGS_PF_KTHREAD 0x00200000 /* include/linux/sched.h, unchanged since v2.6 */
#define CGS_MAX_RT_PRIO 100       /* prio below it: real-time, deadline (-1) or stop class */

/* The kind of a task for the split. Priority comes first, because that is why it ran first. */
static __always_inline __u32 task_kind(struct task_struct *p, bool direct)
{
	if (!task_pid(p, direct))
		return CGS_KIND_IDLE;
	if ((direct ? p->prio : BPF_CORE_READ(p, prio)) < CGS_MAX_RT_PRIO)
		return CGS_KIND_RT;
	if ((direct ? p->flags : BPF_CORE_READ(p, flags)) & CGS_PF_KTHREAD)
		return CGS_KIND_KTHREAD;
	return CGS_KIND_CG;
}

static __always_inline struct cgs_cpu_tl *tl_of(__u32 cpu)
{
	return bpf_map_lookup_elem(&cpu_tl, &cpu);
}

/*
 * How long each kind has run on a CPU up to now, the running slice included,
 * into v. The entry's fields are read once: a store to v could alias them, and
 * the compiler would read them again after each store.
 */
static __always_inline void tl_read(const struct cgs_cpu_tl *tl, __u64 now, __u64 *v)
{
	__u64 last = tl->last, run = last ? elapsed(now, last) : 0;
	__u32 cur = tl->cur_kind;
	__u64 c0 = tl->cum[0], c1 = tl->cum[1], c2 = tl->cum[2], c3 = tl->cum[3];

	_Static_assert(CGS_KIND__COUNT == 4, "tl_read reads four kinds");
	v[0] = c0 + (cur == 0 ? run : 0);
	v[1] = c1 + (cur == 1 ? run : 0);
	v[2] = c2 + (cur == 2 ? run : 0);
	v[3] = c3 + (cur == 3 ? run : 0);
}

/* Defined in sched.bpf.c, with the maps. */
static __always_inline struct cgs_cg_hot *cg_on(__u32 cpu, __u32 slot1);
static __always_inline struct cgs_cg_shard *sh_on(__u32 shard, __u32 slot1);

/*
 * How long a cgroup's tasks have run on a CPU, up to now. The argument at is
 * the cgroup's figures on that CPU if the caller has them (the switch looked
 * them up), else NULL, and they are looked up here.
 */
static __always_inline __u64 own_at(const struct cgs_cpu_tl *tl, __u32 cpu, __u64 cgid, __u32 slot1,
				    const struct cgs_cg_hot *at, __u64 now)
{
	const struct cgs_cg_hot *s = at ? at : cg_on(cpu, slot1);
	__u64 v = s ? s->oncpu_ns : 0;

	if (tl->cur_kind == CGS_KIND_CG && tl->cur_cgid == cgid && tl->last)
		v += elapsed(now, tl->last);
	return v;
}

/*
 * At each switch, before anything else: the slice that ends now goes to its
 * kind's total, and to the ring if a cgroup's task ran it. Returns this CPU's
 * entry for why_switch_end, or NULL.
 */
static __always_inline struct cgs_cpu_tl *why_switch_begin(__u64 now)
{
	if (!WHY_HAS(CGS_WHY_SPLIT))
		return NULL;
	struct cgs_cpu_tl *tl = tl_of(bpf_get_smp_processor_id());
	if (!tl)
		return NULL;
	if (tl->last) {
		__u64 d = elapsed(now, tl->last);
		tl->cum[tl->cur_kind & (CGS_KIND__COUNT - 1)] += d;
		if (WHY_HAS(CGS_WHY_NAMES) && tl->cur_kind == CGS_KIND_CG && d) {
			struct cgs_tl_slice *e = &tl->ring[tl->head & (CGS_TL_RING - 1)];
			e->start = tl->last;
			e->end = now;
			e->cgid = tl->cur_cgid;
			tl->head++;
		}
	}
	tl->last = now;
	return tl;
}

/* ... and after it: what runs from now. */
static __always_inline void why_switch_end(struct cgs_cpu_tl *tl, struct task_struct *next, __u64 cgid,
					   bool direct)
{
	if (!WHY_HAS(CGS_WHY_SPLIT) || !tl)
		return;
	tl->cur_kind = task_kind(next, direct);
	tl->cur_cgid = cgid;
}

/* The waiting-task count of a cgroup lives in shard 0's entry, shared by all CPUs. */
static __always_inline struct cgs_cg_shard *some_of(__u32 slot1)
{
	return slot1 ? sh_on(0, slot1) : NULL;
}

/*
 * A wait of task t (run-queue or throttled) begins now on `cpu`. It uses plain
 * fetch-less atomics only, which every kernel from 5.8 allows. So the read
 * after the add can race with another CPU's add for the same cgroup. At worst
 * that moves the start of one stretch of waiting (docs/design.md).
 */
static __always_inline void why_mark(struct cgs_task *t, __u32 cpu, const struct cgs_cg_hot *at, __u64 now)
{
	if (!targ_why)
		return;
	struct cgs_cpu_tl *tl = WHY_HAS(CGS_WHY_SPLIT) ? tl_of(cpu) : NULL;
	/* Looked up only for the count: the split alone has no use for it. */
	struct cgs_cg_shard *g = WHY_HAS(CGS_WHY_COUNT) ? some_of(t->slot1) : NULL;

	t->w_cpu1 = 0;
	if (g && !t->w_some1) {
		__sync_fetch_and_add(&g->wait_n, 1);
		if (g->wait_n == 1)
			g->wait_since = now;
		t->w_some1 = t->slot1;
		t->w_gen = t->slot_gen; /* the generation slot1 was checked in, not a newer one */
		t->w_cgid = t->cgid;
	}
	if (!WHY_HAS(CGS_WHY_SPLIT) || !tl || !t->slot1)
		return;
	tl_read(tl, now, t->w_cum);
	t->w_own = own_at(tl, cpu, t->cgid, t->slot1, at, now);
	t->w_cpu1 = cpu + 1;
}

/* The wait of t ended now: its cgroup's waiting count falls. */
static __always_inline void why_unmark(struct cgs_task *t, __u64 now)
{
	if (!WHY_HAS(CGS_WHY_COUNT) || !t || !t->w_some1)
		return;
	__u32 some1 = t->w_some1;
	struct cgs_cg_shard *g = some_of(some1);

	t->w_some1 = 0;
	if (!g)
		return;
	/*
	 * Was the slot recycled since the mark? The loader zeroed the count
	 * when it took the slot back, and a slot that changed hands is not ours
	 * to decrement. The same cgroup can get the same slot back when few are
	 * free, hence the check of the count too.
	 */
	if (t->w_gen != slot_gen) {
		__u32 k = some1 - 1;
		__u64 *owner = bpf_map_lookup_elem(&slot_owner, &k);
		if (!owner || *owner != t->w_cgid || g->wait_n <= 0)
			return;
	}
	__sync_fetch_and_add(&g->wait_n, -1);
	if (g->wait_n == 0)
		__sync_fetch_and_add(&g->some_ns, elapsed(now, g->wait_since));
}

/* ns of the waiter's cgroup spent behind `other`: into the preemption pair's figures. */
static __always_inline void behind_add(__u64 victim, __u64 other, __u64 ns);

/*
 * Name the other cgroups that a wait of [ws, now] on this tl was spent behind.
 * They are the two with the most time among the CPU's latest CGS_TL_RING slices
 * and its running one, with at most `budget` ns between them. The rest stays
 * unnamed: other_cgroups_ns less the named pairs.
 */
static __always_inline void why_name(const struct cgs_cpu_tl *tl, __u64 own, __u64 ws, __u64 now,
				     __u64 budget)
{
	__u64 c1 = 0, n1 = 0, c2 = 0, n2 = 0;
	__u32 head = tl->head;

	/* A wait that ends on another CPU: its CPU may still run the slice. */
	if (tl->cur_kind == CGS_KIND_CG && tl->cur_cgid != own && tl->last && now > tl->last) {
		c1 = tl->cur_cgid;
		n1 = now - (tl->last > ws ? tl->last : ws);
	}
	for (__u32 i = 1; i <= CGS_TL_RING; i++) {
		const struct cgs_tl_slice *e = &tl->ring[(head - i) & (CGS_TL_RING - 1)];
		__u64 a = e->start > ws ? e->start : ws, b = e->end < now ? e->end : now;

		if (e->end <= ws)
			break;
		if (e->cgid == own || b <= a)
			continue;
		if (e->cgid == c1 || !c1) {
			c1 = e->cgid;
			n1 += b - a;
		} else if (e->cgid == c2 || !c2) {
			c2 = e->cgid;
			n2 += b - a;
		} else if (b - a > n2) {
			c2 = e->cgid; /* a third cgroup: the larger slice keeps the name */
			n2 = b - a;
		}
	}
	if (n1 > budget)
		n1 = budget;
	if (n2 > budget - n1)
		n2 = budget - n1;
	if (c1 && n1)
		behind_add(own, c1, n1);
	if (c2 && n2)
		behind_add(own, c2, n2);
}

/*
 * A run-queue wait of d ns of task t ends now, at the switch-in: split it into
 * s, the shard of t's cgroup's figures that this CPU writes (NULL: not found).
 * The argument at is t's cgroup's figures on this CPU, for a wait that began
 * here. The parts add up to d by construction: each part is at most what is
 * left, and what the totals do not explain is unattributed.
 */
static __always_inline void why_split(struct cgs_task *t, const struct cgs_cg_hot *at, struct cgs_cg_shard *s,
				      __u64 d, __u64 now)
{
	if (!WHY_HAS(CGS_WHY_SPLIT))
		return;
	__u32 cpu = t->w_cpu1 - 1;
	struct cgs_cpu_tl *tl = t->w_cpu1 ? tl_of(cpu) : NULL;
	__u64 left = d, p;

	t->w_cpu1 = 0;
	if (!s)
		return;
	if (!tl) {
		SHARD_ADD(s->wb_unknown_ns, d);
		return;
	}
	__u64 at_end[CGS_KIND__COUNT];
	tl_read(tl, now, at_end);
#define WHY_PART(k, field)                                           \
	p = elapsed(at_end[k], t->w_cum[k]);                         \
	p = p < left ? p : left;                                     \
	SHARD_ADD(s->field, p);                                      \
	left -= p;
	WHY_PART(CGS_KIND_IDLE, wb_idle_ns)
	WHY_PART(CGS_KIND_RT, wb_rt_ns)
	WHY_PART(CGS_KIND_KTHREAD, wb_kthread_ns)
#undef WHY_PART
	__u64 cg = elapsed(at_end[CGS_KIND_CG], t->w_cum[CGS_KIND_CG]);
	cg = cg < left ? cg : left;
	__u64 same = elapsed(own_at(tl, cpu, t->cgid, t->slot1, cpu == bpf_get_smp_processor_id() ? at : NULL, now),
			     t->w_own);
	same = same < cg ? same : cg;
	SHARD_ADD(s->wb_same_ns, same);
	SHARD_ADD(s->wb_other_ns, cg - same);
	SHARD_ADD(s->wb_unknown_ns, left - cg);
	if (WHY_HAS(CGS_WHY_NAMES) && cg > same)
		why_name(tl, t->cgid, t->queued_ns, now, cg - same);
}

#endif /* CGS_WHY_BPF_H */
