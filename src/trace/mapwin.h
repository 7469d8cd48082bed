/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A BPF array of `nparts` parts of `max` entries each (CPU x slot, shard x
 * slot), mapped only as far as entries are in use: the first `win` of each
 * part. The kernel maps a BPF array's every page at mmap (RSS from the
 * start), so a mapping of the whole bound made the loader's RSS that of
 * --max-cgroups, not of the cgroups seen: 22 MB at 16,384 slots with 10,000
 * in use (docs/performance.md). The address range is reserved whole, so
 * entry i of part k stays at base + (k * max + i) * esize as the window
 * grows; entries past the window are not to be touched (slots.c covers
 * every slot it has learnt before any reader sees it).
 */
#ifndef CGS_MAPWIN_H
#define CGS_MAPWIN_H

#include <stddef.h>
#include <stdint.h>

struct mapwin {
	void *base;        /* the reserved range; NULL: not open */
	size_t len;        /* nparts * max * esize, to whole pages */
	size_t esize;
	uint32_t nparts, max;
	uint32_t win;      /* entries of each part mapped */
	int fd;
};

/* Reserve the range of a map (fd, read-write), nothing mapped yet. 0 or -errno. */
int mapwin_open(struct mapwin *w, int fd, size_t esize, uint32_t nparts, uint32_t max);
/* Entries [0, n) of every part mapped (grown in steps, never shrunk). 0 or -errno. */
int mapwin_cover(struct mapwin *w, uint32_t n);
void mapwin_close(struct mapwin *w);

#endif
