// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "maputil.h"

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
			if (inp || (errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP)) {
				err = -errno;
				goto out;
			}
			goto slow;
		}
		for (__u32 i = 0; i < count; i++)
			if ((err = fn(ctx, keys + i * ksz, vals + i * stride)))
				goto out;
		if (r)
			goto out; /* ENOENT: that was the last batch */
		memcpy(in, out, sizeof(in));
		inp = in;
	}
slow:
	/* No batch ops: walk keys. */
	{
		char *k = NULL, next[64];
		while (!bpf_map_get_next_key(fd, k, next)) {
			if (!bpf_map_lookup_elem(fd, next, vals) && (err = fn(ctx, next, vals)))
				goto out;
			memcpy(keys, next, ksz);
			k = keys;
		}
	}
out:
	free(keys);
	free(vals);
	return err;
}


int each_slot(int fd, size_t vsz, int nvals, uint32_t n,
	      int (*fn)(void *ctx, uint32_t slot, const void *vals), void *ctx)
{
	size_t stride = ((vsz + 7) & ~7UL) * nvals;
	uint32_t batch = 256, next = 0, in, out, *keys = malloc(sizeof(*keys) * batch);
	char *vals = malloc(stride * batch);
	bool batched = true;
	int err = 0;

	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	while (next < n) {
		uint32_t count = n - next < batch ? n - next : batch;
		if (batched) {
			in = next - 1; /* the batch resumes after the key given */
			int r = bpf_map_lookup_batch(fd, next ? &in : NULL, &out, keys, vals, &count, NULL);
			if (r && errno != ENOENT) {
				if (next || (errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP)) {
					err = -errno;
					goto out;
				}
				batched = false; /* no batch ops here: one slot at a time */
				continue;
			}
			if (!count)
				break;
		} else {
			count = 1;
			keys[0] = next;
			if (bpf_map_lookup_elem(fd, &next, vals)) {
				err = -errno;
				goto out;
			}
		}
		for (uint32_t i = 0; i < count && keys[i] < n; i++)
			if ((err = fn(ctx, keys[i], vals + i * stride)))
				goto out;
		next = keys[count - 1] + 1;
	}
out:
	free(keys);
	free(vals);
	return err;
}
