// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The smallest sched_ext scheduler: one callback that does nothing, so the
 * kernel's defaults run every task from the global FIFO queue. The tests load it on
 * a kernel with sched_ext (tests/live/t_scx.sh) to see what cgsched reports
 * when CFS, and with it CFS bandwidth control, is no longer in charge.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct task_struct;

/*
 * Only the member set here: libbpf fills the running kernel's struct
 * sched_ext_ops member by member, by name, so this builds without a BTF
 * that has sched_ext (the build host's has none).
 */
struct sched_ext_ops {
	void (*enable)(struct task_struct *p);
	char name[128];
};

/*
 * A callback that does nothing: libbpf 1.1 loads the kernel's BTF, which
 * it needs to fill struct_ops maps, only for an object with programs.
 */
SEC("struct_ops/cgs_enable")
void BPF_PROG(cgs_enable, struct task_struct *p)
{
}

/* ".struct_ops", not ".struct_ops.link": Debian 12's libbpf (1.1) knows only this one; scx_min.c makes the link itself. */
SEC(".struct_ops")
struct sched_ext_ops cgs_scx_min = {
	.enable = (void *)cgs_enable,
	.name = "cgs_scx_min",
};

char LICENSE[] SEC("license") = "GPL";
