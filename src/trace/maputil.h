/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading whole BPF maps from userspace. */
#ifndef CGS_MAPUTIL_H
#define CGS_MAPUTIL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Iterate a hash map: batched where the kernel has it (v5.6+), one key at
 * a time otherwise. Calls fn for each key with its value(s): nvals = ncpus
 * values, each padded to 8 bytes, for a per-CPU map; one value for nvals = 0
 * (a plain map, whose values the kernel packs at their own size).
 * Stops at fn's first nonzero return and passes it on.
 */
int each_elem(int fd, size_t ksz, size_t vsz, int nvals,
	      int (*fn)(void *ctx, const void *key, const void *vals), void *ctx);

#endif
