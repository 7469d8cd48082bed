// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/mapwin.h"

/*
 * The window grows to a quarter more than asked, rounded up to steps of
 * this many entries. A run then needs only a few mmaps (one per part
 * each), and at most a quarter of the mapping is unused.
 */
#define MAPWIN_STEP 256

int mapwin_open(struct mapwin *w, int fd, size_t esize, uint32_t nparts, uint32_t max)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(w, 0, sizeof(*w));
	/* To whole pages, as the kernel maps the array (and checks a mapping's end against). */
	w->len = ((size_t)nparts * max * esize + page - 1) / page * page;
	w->esize = esize;
	w->nparts = nparts;
	w->max = max;
	w->fd = fd;
	/* Address space only: no memory, no access, until a window is mapped over it. */
	w->base = mmap(NULL, w->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (w->base == MAP_FAILED) {
		w->base = NULL;
		return -errno;
	}
	return 0;
}

int mapwin_cover(struct mapwin *w, uint32_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint32_t want;

	if (n <= w->win)
		return 0;
	uint64_t grown = ((uint64_t)n + n / 4 + MAPWIN_STEP - 1) / MAPWIN_STEP * MAPWIN_STEP;
	want = grown > w->max ? w->max : (uint32_t)grown;
	for (uint32_t k = 0; k < w->nparts; k++) {
		/* Part k's entries [win, want), to whole pages; a page shared with the next part is mapped twice, the same bytes. */
		size_t from = ((size_t)k * w->max + w->win) * w->esize / page * page;
		size_t to = (((size_t)k * w->max + want) * w->esize + page - 1) / page * page;
		if (to > w->len)
			to = w->len;
		void *p = mmap((char *)w->base + from, to - from, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			       w->fd, (off_t)from);
		if (p == MAP_FAILED)
			return -errno; /* the window as it was: what is mapped stays so */
	}
	w->win = want;
	return 0;
}

void mapwin_close(struct mapwin *w)
{
	if (w->base)
		munmap(w->base, w->len);
	memset(w, 0, sizeof(*w));
}
