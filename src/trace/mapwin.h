/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A BPF array of `nparts` parts of `max` entries each (CPU x slot, shard x
 * slot), mapped only as far as entries are in use: the first `win` entries
 * of each part. The kernel maps every page of a BPF array at mmap, so they
 * all count in the RSS at once. Mapping the whole bound would make the
 * loader's RSS follow --max-cgroups, not the cgroups seen
 * (docs/performance.md). The address range is reserved whole, so entry i
 * of part k stays at base + (k * max + i) * esize as the window grows.
 * Entries past the window must not be touched. slots.c covers every slot
 * it has learnt before any reader sees it.
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

/* Reserve the address range of map fd (read-write) and map nothing yet. 0 or -errno. */
int mapwin_open(struct mapwin *w, int fd, size_t esize, uint32_t nparts, uint32_t max);
/* Map entries [0, n) of every part. The window grows in steps and never shrinks. 0 or -errno. */
int mapwin_cover(struct mapwin *w, uint32_t n);
void mapwin_close(struct mapwin *w);

#endif
