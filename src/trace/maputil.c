// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "trace/maputil.h"

/* One key at a time, for kernels without batch lookups. keys holds a key, vals one element's values. */
static int each_elem_slow(int fd, size_t ksz, char *keys, char *vals,
			  int (*fn)(void *ctx, const void *key, const void *vals), void *ctx)
{
	char *k = NULL, next[64];
	int err;

	while (!bpf_map_get_next_key(fd, k, next)) {
		if (!bpf_map_lookup_elem(fd, next, vals) && (err = fn(ctx, next, vals)))
			return err;
		memcpy(keys, next, ksz);
		k = keys;
	}
	return 0;
}

/*
 * Iterate a hash map: batched where the kernel has it (v5.6+), one key at
 * a time otherwise. Calls fn for each key with its value(s): nvals = ncpus
 * values for a per-CPU map, one for nvals = 0 (a plain map).
 */
int each_elem(int fd, size_t ksz, size_t vsz, int nvals,
		     int (*fn)(void *ctx, const void *key, const void *vals), void *ctx)
{
	/* The kernel packs plain values at their size, pads per-CPU ones to 8 bytes. */
	size_t stride = nvals ? ((vsz + 7) & ~7UL) * nvals : vsz, batch = 256;
	char *keys = malloc(ksz * batch), *vals = malloc(stride * batch);
	char in[16], out[16], *inp = NULL;
	int err = 0;

	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		__u32 count = batch;
		int r = bpf_map_lookup_batch(fd, inp, out, keys, vals, &count, NULL);
		if (r && errno != ENOENT) {
			if (inp || (errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP))
				err = -errno;
			else
				err = each_elem_slow(fd, ksz, keys, vals, fn, ctx);
			goto out;
		}
		for (__u32 i = 0; i < count; i++)
			if ((err = fn(ctx, keys + i * ksz, vals + i * stride)))
				goto out;
		if (r)
			goto out; /* ENOENT: that was the last batch */
		memcpy(in, out, sizeof(in));
		inp = in;
	}
out:
	free(keys);
	free(vals);
	return err;
}

