/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Check cheaply whether the kernel loads fentry/fexit programs at all. A
 * full load of the tracer's object makes libbpf parse vmlinux BTF and
 * create every map. On a kernel that refuses all fentry programs, that
 * work is thrown away, so a small probe comes first (docs/performance.md,
 * "Start-up"). The same walk of the raw BTF tells whether a type is there,
 * without parsing all of it.
 */
#ifndef CGS_FENTRY_PROBE_H
#define CGS_FENTRY_PROBE_H

#include <stddef.h>

/*
 * Find the BTF type id of the type of this kind (BTF_KIND_*) called name
 * in raw BTF data. The data has the format of /sys/kernel/btf/vmlinux,
 * with no base BTF. Returns -ENOENT if there is no such type. Returns
 * -EINVAL if the data cannot be walked: a kind this walker does not know,
 * or a length that does not add up.
 */
int btf_type_id(const void *data, size_t len, unsigned kind, const char *name);
/* btf_type_id of a function (BTF_KIND_FUNC). */
int btf_func_id(const void *data, size_t len, const char *name);
/*
 * Whether vmlinux BTF has a struct called name: 1 or 0. Returns -EINVAL if
 * it cannot be read or walked; the caller then parses it with libbpf. The
 * walk reads no more than the types' headers, so it costs far less than
 * libbpf's parse.
 */
int vmlinux_has_struct(const char *name);
/*
 * Load, but do not attach, a two-instruction fexit program on the kernel
 * function name. Returns 0 if it loads, or the -errno of the kernel's
 * refusal. Returns 1 if the probe could not be tried (no vmlinux BTF, or
 * name is not in it); the caller then finds out by loading for real.
 */
int fexit_probe(const char *name);

#endif
