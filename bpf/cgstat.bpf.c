// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kernel's bandwidth figures of every cgroup in one pass: a cgroup
 * iterator (v6.1+) walks the cpu hierarchy and copies each task group's
 * cfs_bandwidth (the fields cpu.stat and cpu.max/cfs_quota_us show) into a
 * map that the loader reads in batches. It prints nothing: a cgroup
 * iterator cannot resume once its text output fills the seq buffer (~4 KB).
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

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before each pass; entries of older passes are stale. */
__u64 gen = 0;
__u64 full = 0;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct cgs_kstat);
} kstats SEC(".maps");

SEC("iter/cgroup")
int cgroup_bw(struct bpf_iter__cgroup *ctx)
{
	struct cgroup *cg = ctx->cgroup;
	struct cgroup_subsys_state *css;

	if (!cg)
		return 0;
	css = BPF_CORE_READ(cg, subsys[bpf_core_enum_value(enum cgroup_subsys_id, cpu_cgrp_id)]);
	if (!css)
		return 0; /* v2: the cpu controller is not enabled here */
	/* css is the first member of task_group: the same address. */
	struct task_group *tg = (void *)css;
	struct cgs_kstat v = {
		.gen = gen,
		.quota_ns = BPF_CORE_READ(tg, cfs_bandwidth.quota),
		.period_ns = BPF_CORE_READ(tg, cfs_bandwidth.period),
		.burst_ns = BPF_CORE_READ(tg, cfs_bandwidth.burst),
		.nr_periods = BPF_CORE_READ(tg, cfs_bandwidth.nr_periods),
		.nr_throttled = BPF_CORE_READ(tg, cfs_bandwidth.nr_throttled),
		.throttled_ns = BPF_CORE_READ(tg, cfs_bandwidth.throttled_time),
	};
	__u64 id = BPF_CORE_READ(cg, kn, id);
	if (bpf_map_update_elem(&kstats, &id, &v, BPF_ANY))
		__sync_fetch_and_add(&full, 1);
	return 0;
}
