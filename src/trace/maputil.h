/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading whole BPF maps from userspace. */
#ifndef CGS_MAPUTIL_H
#define CGS_MAPUTIL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Iterate a hash map: in batches where the kernel has them (v5.6+), else
 * one key at a time. Calls fn for each key with its values. For a per-CPU
 * map, pass nvals = ncpus: each value is padded to 8 bytes. For a plain
 * map, pass nvals = 0: its one value is packed at its own size. Stops at
 * fn's first nonzero return and returns it.
 */
int each_elem(int fd, size_t ksz, size_t vsz, int nvals,
	      int (*fn)(void *ctx, const void *key, const void *vals), void *ctx);

#endif
