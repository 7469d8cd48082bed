// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The benchmark's floor: empty programs on the tracepoints cgsched uses, so
 * `make bench` can tell the cost of being attached at all from the cost of
 * cgsched's work.
 */
#include "kernel_types.h"
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_switch) { return 0; }

SEC("tp_btf/sched_wakeup")
int BPF_PROG(floor_wakeup) { return 0; }

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(floor_wakeup_new) { return 0; }
