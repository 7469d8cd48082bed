// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel's bandwidth figures of every cgroup, in one pass. A cgroup
 * iterator (v6.1+) walks the cpu hierarchy. It copies each task group's
 * cfs_bandwidth, the fields behind cpu.stat and cpu.max (or cfs_quota_us), into
 * an array in walk order, which the loader reads through mmap. It prints
 * nothing: a cgroup iterator cannot resume once its text output fills the 32 KB
 * seq buffer, and the records of many cgroups need more.
 *
 * With thousands of cgroups, the walk is a refresh's largest single cost
 * (docs/performance.md). So the cgroup's own fields are direct loads through
 * the iterator's BTF pointer. The task group is reached from its css by a cast
 * the verifier cannot follow (bpf_rdonly_cast needs v6.2). Its bandwidth fields
 * therefore come in two probe reads, the limits and the statistics, rather than
 * one per field; its weight (tg->shares), far before them, takes a third. Each
 * record goes to an array slot per cgroup, with no hash update.
 */
#ifdef CGS_VMLINUX_H
#include CGS_VMLINUX_H
#else
#include "kernel_types.h"
#endif
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "cgsched.h"
#include "compat.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Records written by this pass (the loader zeroes it before each pass). */
__u32 n = 0;
/* Cgroups this pass could not store: more than the map's records (the loader grows it). */
__u64 full = 0;
/* Cgroups whose bandwidth block could not be read (counted, not skipped silently). */
__u64 unread = 0;
/* Where a field of cfs_bandwidth is in the kernel, counted from `period`. */
#define CFSB_OFF(f) (bpf_core_field_offset(struct cfs_bandwidth, f) - \
		     bpf_core_field_offset(struct cfs_bandwidth, period))
/* Where a field of cfs_bandwidth ends, counted from `period`. */
#define CFSB_END(f) (CFSB_OFF(f) + bpf_core_field_size(struct cfs_bandwidth, f))
/*
 * The block read in one go: from period to throttled_time, or to burst_time
 * where the kernel counts bursts (5.14+). Each end is the running kernel's
 * (CO-RE), so the block reaches the last field read.
 */
#define CFSB_MAX 1024
__u8 cfsb[CFSB_MAX] = {};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, CGS_KSTAT_MAX);
	__type(key, __u32);
	__type(value, struct cgs_kstat);
} kstats SEC(".maps");

/* A field of the block just read, by its kernel offset and size (int or u64). */
static __always_inline __u64 cfsb_get(__u32 off, __u32 size)
{
	if (off > CFSB_MAX - 8)
		return 0;
	return size == 4 ? *(__u32 *)&cfsb[off] : *(__u64 *)&cfsb[off];
}
#define CFSB(f) cfsb_get(CFSB_OFF(f), bpf_core_field_size(struct cfs_bandwidth, f))

/*
 * Find the cgroup's cpu css and the record for walk place i. The css is NULL on
 * v2 where the cpu controller is not enabled for the cgroup. Returns NULL when
 * either is missing; a missing record is counted (full).
 */
static __always_inline struct cgs_kstat *record_of(struct cgroup *cg, __u32 i, struct cgroup_subsys_state **css)
{
	struct cgs_kstat *v;

	*css = cg->subsys[bpf_core_enum_value(enum cgroup_subsys_id, cpu_cgrp_id)];
	if (!*css)
		return NULL;
	v = bpf_map_lookup_elem(&kstats, &i);
	if (!v)
		full++;
	return v;
}

/*
 * Finish a record, the same way in both programs. Fill in the period grid,
 * which places the throttles in their periods (limited groups only;
 * report/periods.h). Fill in the bursts where the kernel counts them: callers
 * pass 0 where it does not. Then count the record.
 */
static __always_inline int record_done(struct cgs_kstat *v, struct task_group *tg, __u32 i, bool bursts,
				       __u64 nr_burst, __u64 burst_time)
{
	v->period_end_ns = v->quota_ns != ~0ULL ? tg_next_refill(tg) : 0;
	v->nr_burst = nr_burst;
	v->burst_time_ns = burst_time;
	v->has_bursts = bursts;
	n = i + 1;
	return 0;
}

SEC("iter/cgroup")
int cgroup_bw(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cg = ctx->cgroup;
	struct cgroup_subsys_state *css;
	struct cgs_kstat *v;
	__u32 i = n, a_end = CFSB_END(burst), b_off = CFSB_OFF(nr_periods), b_end = CFSB_END(throttled_time), end;
	bool bursts = bpf_core_field_exists(struct cfs_bandwidth, nr_burst) &&
		      bpf_core_field_exists(struct cfs_bandwidth, burst_time);
	unsigned long shares = 0;

	if (!cg)
		return 0;
	/*
	 * Read two blocks: the limits (period to burst) and the statistics
	 * (nr_periods to throttled_time or burst_time). The two timers between
	 * them are skipped. A probe read copies 8 bytes a step, so the two
	 * blocks' 64 bytes cost less than the ~230 of the whole span
	 * (docs/performance.md).
	 */
	if (CFSB_END(quota) > a_end)
		a_end = CFSB_END(quota);
	if (CFSB_OFF(nr_throttled) < b_off)
		b_off = CFSB_OFF(nr_throttled);
	if (CFSB_OFF(throttled_time) < b_off)
		b_off = CFSB_OFF(throttled_time);
	if (CFSB_END(nr_throttled) > b_end)
		b_end = CFSB_END(nr_throttled);
	if (CFSB_END(nr_periods) > b_end)
		b_end = CFSB_END(nr_periods);
	if (bursts) {
		if (CFSB_OFF(nr_burst) < b_off)
			b_off = CFSB_OFF(nr_burst);
		if (CFSB_OFF(burst_time) < b_off)
			b_off = CFSB_OFF(burst_time);
		if ((end = CFSB_END(nr_burst)) > b_end)
			b_end = end;
		if ((end = CFSB_END(burst_time)) > b_end)
			b_end = end;
	}
	/* A layout where they meet (none known): one block, as far as the last. */
	if (b_off < a_end) {
		a_end = b_end > a_end ? b_end : a_end;
		b_off = b_end = 0;
	}
	if (!(v = record_of(cg, i, &css)))
		return 0;
	/* css is the first member of task_group: the same address. */
	struct task_group *tg = (void *)css;
	void *from = &tg->cfs_bandwidth.period;
	if (a_end >= CFSB_MAX || b_end >= CFSB_MAX || b_off > b_end ||
	    bpf_probe_read_kernel(cfsb, a_end & (CFSB_MAX - 1), from) ||
	    (b_end && bpf_probe_read_kernel(&cfsb[b_off & (CFSB_MAX - 1)], (b_end - b_off) & (CFSB_MAX - 1),
					    from + b_off))) {
		unread++;
		return 0;
	}
	/* The weight, far from the bandwidth block: a read of its own (0 if it fails: unknown). */
	if (bpf_core_read(&shares, sizeof(shares), &tg->shares))
		shares = 0;
	v->id = cg->kn->id;
	v->period_ns = CFSB(period);
	v->quota_ns = CFSB(quota);
	v->burst_ns = CFSB(burst);
	v->nr_periods = CFSB(nr_periods);
	v->nr_throttled = CFSB(nr_throttled);
	v->throttled_ns = CFSB(throttled_time);
	v->shares_raw = shares;
	return record_done(v, tg, i, bursts, bursts ? CFSB(nr_burst) : 0, bursts ? CFSB(burst_time) : 0);
}

/*
 * The same figures where the kernel has bpf_rdonly_cast (v6.2+). The task group
 * becomes a typed read-only pointer, and its fields are direct loads instead of
 * three probe reads a cgroup. The loader loads this program first, and
 * cgroup_bw where the kernel refuses it (no such kfunc; kstat_src.c). The
 * extern is weak because libbpf resolves every extern of the object at load,
 * also those of a program not loaded.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

SEC("iter/cgroup")
int cgroup_bw_cast(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cg = ctx->cgroup;
	struct cgroup_subsys_state *css;
	struct task_group *tg;
	struct cgs_kstat *v;
	__u32 i = n;

	if (!cg)
		return 0;
	if (!(v = record_of(cg, i, &css)))
		return 0;
	/* css is the first member of task_group: the same address. */
	tg = bpf_rdonly_cast(css, bpf_core_type_id_kernel(struct task_group));
	v->id = cg->kn->id;
	v->period_ns = tg->cfs_bandwidth.period;
	v->quota_ns = tg->cfs_bandwidth.quota;
	v->burst_ns = tg->cfs_bandwidth.burst;
	v->nr_periods = tg->cfs_bandwidth.nr_periods;
	v->nr_throttled = tg->cfs_bandwidth.nr_throttled;
	v->throttled_ns = tg->cfs_bandwidth.throttled_time;
	v->shares_raw = tg->shares;
	/*
	 * Load the burst fields only where they exist; CO-RE poisons the
	 * others, which are never reached.
	 */
	if (bpf_core_field_exists(struct cfs_bandwidth, nr_burst) &&
	    bpf_core_field_exists(struct cfs_bandwidth, burst_time))
		return record_done(v, tg, i, true, tg->cfs_bandwidth.nr_burst, tg->cfs_bandwidth.burst_time);
	return record_done(v, tg, i, false, 0, 0);
}
