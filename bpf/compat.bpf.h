/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one place for differences between kernel versions. Each flavour
 * (struct foo___name) names the kernel change it handles; each accessor
 * returns a normalised value. `direct` is a compile-time constant: true in
 * tp_btf programs, whose task pointers the verifier trusts for plain loads
 * (cheaper than bpf_probe_read_kernel), false in raw_tp programs.
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
 * The cgroup id of a task group: the kernfs node id of the cgroup its cpu
 * css belongs to. On v1 that is the cpu hierarchy's cgroup, on v2 the
 * nearest ancestor with the cpu controller enabled: the level where CFS
 * bandwidth applies. kernfs_node.id is u64 since v5.5 (67c0496e87d1).
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

static __always_inline int task_pid(struct task_struct *p, bool direct)
{
	return direct ? p->pid : BPF_CORE_READ(p, pid);
}

#endif /* CGS_COMPAT_BPF_H */
