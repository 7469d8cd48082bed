/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The few kernel types cgsched reads, declared by hand instead of a full
 * vmlinux.h, so the build never depends on the build machine's kernel. Every
 * struct is preserve_access_index. Clang emits CO-RE relocations, and libbpf
 * fixes the offsets against the running kernel's BTF at load time. So only the
 * field names must be right, not the layout or completeness. Fields that differ
 * between kernels are in compat.bpf.h as flavours. Set
 * VMLINUX_H=path/to/vmlinux.h to build against a full header instead.
 */
#ifndef CGS_KERNEL_TYPES_H
#define CGS_KERNEL_TYPES_H

#include <linux/types.h>

typedef __u8 u8;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
typedef __s64 s64;
typedef _Bool bool;
enum { false = 0, true = 1 };

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct kernfs_node {
	u64 id;
};

struct cgroup_subsys_state;

struct cgroup_root {
	int hierarchy_id;
};

struct cgroup {
	struct kernfs_node *kn;
	struct cgroup_root *root;
	int level;
	struct cgroup_subsys_state *subsys[16]; /* index by CO-RE enum value, not this bound */
};

enum cgroup_subsys_id {
	cpu_cgrp_id = 1, /* relocated at load time: bpf_core_enum_value() */
};

struct bpf_iter_meta {
	void *seq;
	u64 session_id;
	u64 seq_num;
};

struct bpf_iter__cgroup {
	struct bpf_iter_meta *meta;
	struct cgroup *cgroup;
};

struct cgroup_subsys_state {
	struct cgroup *cgroup;
};

struct cfs_bandwidth {
	s64 period;          /* ktime_t */
	u64 quota;
	u64 burst;
	int nr_periods;
	int nr_throttled;
	int nr_burst;        /* v5.14+, as burst_time: bpf_core_field_exists() */
	u64 throttled_time;
	u64 burst_time;
};

struct task_group {
	struct cgroup_subsys_state css;
	unsigned long shares; /* scale_load()ed cpu.shares */
	struct task_group *parent;
	struct cfs_bandwidth cfs_bandwidth;
};

struct rq {
	int cpu;
	u64 clock;
	u64 clock_task;
};

struct cfs_rq {
	struct rq *rq;
	struct task_group *tg;
	int throttled;       /* a bitfield since v6.18: read with BPF_CORE_READ_BITFIELD */
	int throttle_count;
	u64 throttled_clock;
};

struct sched_entity {
	struct sched_entity *parent;
	struct cfs_rq *cfs_rq;
	u64 exec_start;            /* rq->clock_task at the entity's last update_curr */
	u64 sum_exec_runtime;
	u64 prev_sum_exec_runtime; /* sum_exec_runtime when it was last picked (set_next_entity) */
};

/* CONFIG_SCHED_INFO (schedstat, delayacct): the rq clock at the task's last switch-in. */
struct sched_info {
	unsigned long long last_arrival;
	unsigned long long last_queued; /* the rq clock when its current wait began; 0: none */
};

struct signal_struct {
	int nr_threads;
};

struct task_struct {
	unsigned int __state;
	int on_cpu;          /* CONFIG_SMP: running on some CPU now */
	unsigned int flags;
	int prio;
	int pid;
	int tgid;
	char comm[16];
	struct sched_entity se;
	struct task_group *sched_task_group;
	struct sched_info sched_info;
	struct signal_struct *signal;
};

#pragma clang attribute pop

/* x86-64 kprobe context, the kernel's layout and names (bpf_tracing.h's PT_REGS_*). */
#define __VMLINUX_H__
struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

#endif /* CGS_KERNEL_TYPES_H */
