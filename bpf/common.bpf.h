/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the scheduler programs (sched.bpf.c) and the throttle backends
 * (throttle.bpf.h) share: kernel types, settings, drop counters, the --cgroup
 * filter and small helpers. They build into one object, loaded once, so the
 * maps and globals here are defined once.
 */
#ifndef CGS_COMMON_BPF_H
#define CGS_COMMON_BPF_H

#ifdef CGS_VMLINUX_H
#include CGS_VMLINUX_H
#else
#include "kernel_types.h"
#endif
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "compat.bpf.h"
#include "cgsched.h"

/* Settings, fixed before load; the verifier prunes what they turn off. */
const volatile bool targ_filter = false;       /* --cgroup given */
const volatile bool targ_task_storage = true;  /* else LRU hash by pid */
const volatile __u64 targ_hist_div = 1000;      /* ns per histogram unit: us, or ms with -m */
const volatile __u32 targ_max_cgroups = 1024;   /* --max-cgroups: cg_hot and cg_shard slots */
/* cg_shard's shards per slot (sched.bpf.c); fewer than the possible CPUs: targ_shared. */
const volatile __u32 targ_shards = 1;
const volatile bool targ_shared = false;

/*
 * Add to a field of cg_shard. The add is atomic where CPUs share the shard: a
 * fetch-less add, which every kernel from 5.8 allows tracing programs. It is
 * plain where the shard is one CPU's own.
 */
#define SHARD_ADD(field, v)                                     \
	do {                                                    \
		if (targ_shared)                                \
			__sync_fetch_and_add(&(field), (v));    \
		else                                            \
			(field) += (v);                         \
	} while (0)

/* Advanced by the loader before each read; selects the cgs_max slot. */
__u64 epoch = 0;
/* Advanced by the loader every <= 200 ms: tasks re-check whether they can be throttled. */
__u64 lim_gen = 0;
/* Advanced by the loader each time it hands slots back for reuse (sched.bpf.c). */
__u32 slot_gen = 0;
/*
 * Advanced at each cpu cgroup's removal (cg_rmdir). A task's cached id is keyed
 * by its task_group's address, and kmalloc may give a removed group's address
 * to a new one. Without this, a task moved into the new group while asleep
 * would keep the removed group's id.
 */
__u32 tg_gen = 0;

/* The cgroup id each slot holds figures of; 0: free. Mmapped by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1024); /* --max-cgroups */
	__type(key, __u32);
	__type(value, __u64);
} slot_owner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CGS_DROP__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* cgroup ids named with --cgroup; each matches its descendants too. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, CGS_MAX_FILTERS);
	__type(key, __u64);
	__type(value, __u8);
} filter SEC(".maps");

static __always_inline void count_drop(__u32 what)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &what);

	if (n)
		(*n)++;
}

/* Whether a task group, or one of its ancestors, was named with --cgroup. */
static __always_inline bool tg_matches(struct task_group *tg, bool direct)
{
	for (int i = 0; i < CGS_MAX_DEPTH && tg; i++) {
		__u64 id = tg_cgid(tg, direct);
		if (bpf_map_lookup_elem(&filter, &id))
			return true;
		tg = tg_parent(tg, direct);
	}
	if (tg)
		count_drop(CGS_DROP_DEPTH);
	return false;
}

/*
 * Time since then, never negative. A wait that began on another CPU compares
 * two CPUs' rq clocks, and with an unstable sched_clock they can disagree by up
 * to a tick.
 */
static __always_inline __u64 elapsed(__u64 now, __u64 then)
{
	return now > then ? now - then : 0;
}

_Static_assert((CGS_HIST_SLOTS & (CGS_HIST_SLOTS - 1)) == 0, "log2_slot masks with CGS_HIST_SLOTS - 1");

/* us > c as 0 or 1 with no branch: c - us wraps and sets bit 63 (for us < 2^63). */
#define CGS_GT(us, c) (((__u64)(c) - (us)) >> 63)

/*
 * floor(log2(us)) for us >= 1, and slot 0 for 0..1, as in bcc; us < 2^63 (ns /
 * 1000 here). It has no branches: five if-steps made 32 paths per call, which
 * the verifier walked one by one, each with its own constant slot
 * (docs/performance.md, "Start-up").
 */
static __always_inline __u32 log2_slot(__u64 us)
{
	__u64 s, slot;

	s = CGS_GT(us, 0xffffffffULL) << 5; us >>= s; slot = s;
	s = CGS_GT(us, 0xffffULL) << 4; us >>= s; slot |= s;
	s = CGS_GT(us, 0xffULL) << 3; us >>= s; slot |= s;
	s = CGS_GT(us, 0xfULL) << 2; us >>= s; slot |= s;
	s = CGS_GT(us, 0x3ULL) << 1; us >>= s; slot |= s;
	slot |= CGS_GT(us, 0x1ULL);
	/* At most the last slot, also without a branch; the mask bounds the index for the verifier. */
	s = CGS_GT(slot, CGS_HIST_SLOTS - 1);
	return (slot ^ ((slot ^ (CGS_HIST_SLOTS - 1)) & -s)) & (CGS_HIST_SLOTS - 1);
}

/* max_update for a packed maximum (cgsched.h, CGS_PMAX_*). */
static __always_inline void max_pupdate(__u64 *m, __u64 v)
{
	__u64 e = epoch, tag = CGS_PMAX_TAG(e), *slot = &m[e & 1];

	if (v > CGS_PMAX_VMAX)
		v = CGS_PMAX_VMAX;
	if ((*slot & ~CGS_PMAX_VMAX) != tag || (*slot & CGS_PMAX_VMAX) < v)
		*slot = tag | v;
}

static __always_inline void max_update(struct cgs_max *m, __u64 v)
{
	__u64 e = epoch;
	struct cgs_max *slot = &m[e & 1];

	if (slot->epoch != e) {
		slot->epoch = e;
		slot->value = 0;
	}
	if (v > slot->value)
		slot->value = v;
}

#endif /* CGS_COMMON_BPF_H */
