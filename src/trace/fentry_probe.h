/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Whether the kernel loads fentry/fexit programs at all, for a few ms: a
 * refused full load of the tracer's object cost ~20 ms of start-up (a
 * parse of vmlinux BTF by libbpf, its maps made and thrown away) on a
 * kernel that refuses every fentry program (docs/performance.md,
 * "Start-up").
 */
#ifndef CGS_FENTRY_PROBE_H
#define CGS_FENTRY_PROBE_H

#include <stddef.h>

/*
 * The BTF type id of the function (BTF_KIND_FUNC) called name in raw BTF
 * data (/sys/kernel/btf/vmlinux's format: no base BTF); -ENOENT when it is
 * not there, -EINVAL when the data cannot be walked (a kind this walker
 * does not know, a length that does not add up).
 */
int btf_func_id(const void *data, size_t len, const char *name);
/*
 * Load (not attach) a two-instruction fexit program on the kernel function
 * name: 0 when it loads; -errno of the kernel's refusal; or 1 when it
 * could not be tried (no vmlinux BTF, name not in it): the caller then
 * learns by loading for real.
 */
int fexit_probe(const char *name);

#endif
