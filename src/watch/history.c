// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched watch's memory of the past (history.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "watch/history.h"

/* ---- the ring ---- */

static void *ring_at(const struct ring *r, size_t i)
{
	return (char *)r->a + ((r->head + i) % r->cap) * r->esize;
}

static int ring_push(struct ring *r, const void *x)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		char *a = malloc(cap * r->esize);
		if (!a)
			return -ENOMEM;
		/* Unrolled into the new array, oldest first. */
		for (size_t i = 0; i < r->n; i++)
			memcpy(a + i * r->esize, ring_at(r, i), r->esize);
		free(r->a);
		r->a = a;
		r->cap = cap;
		r->head = 0;
	}
	memcpy(ring_at(r, r->n), x, r->esize);
	r->n++;
	return 0;
}

static void ring_pop(struct ring *r)
{
	r->head = (r->head + 1) % r->cap;
	r->n--;
}

/* ---- packing ---- */

static size_t put_u(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	return n;
}

static size_t put_i(uint8_t *b, int64_t v)
{
	return put_u(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* A varint from b[*at..len): false when it runs past the end or is too long. */
static bool get_u(const uint8_t *b, size_t len, size_t *at, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*at >= len)
			return false;
		uint8_t c = b[(*at)++];
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

static bool get_i(const uint8_t *b, size_t len, size_t *at, int64_t *v)
{
	uint64_t u;

	if (!get_u(b, len, at, &u))
		return false;
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return true;
}

#define BITMAP_BYTES ((CG_NWORDS + 7) / 8)

size_t hist_pack_row(uint8_t *buf, const struct cg_sample *s, const struct kstat_fig *kf)
{
	size_t n = put_u(buf, s->id);
	uint8_t *map = buf + n;

	memset(map, 0, BITMAP_BYTES);
	n += BITMAP_BYTES;
	for (size_t i = 0; i < CG_NWORDS; i++) {
		if (!s->c.w[i])
			continue;
		map[i / 8] |= (uint8_t)(1u << (i % 8));
		n += put_u(buf + n, s->c.w[i]);
	}
	n += put_u(buf + n, s->runq_max_ns);
	n += put_u(buf + n, s->thr_max_ns);
	n += put_u(buf + n, s->thr_inh_by);
	buf[n++] = kf ? 1 : 0;
	if (!kf)
		return n;
	const struct kstat *k = &kf->k;
	buf[n++] = (uint8_t)(k->ok | k->has_bursts << 1);
	n += put_i(buf + n, k->quota_us);
	n += put_i(buf + n, k->usage_ns);
	const uint64_t u[] = { k->period_us, k->burst_us, k->nr_periods, k->nr_throttled, k->throttled_ns,
			       k->shares, k->weight, k->nr_bursts, k->burst_ns, k->period_end_ns,
			       kf->g.periods, kf->g.throttled, kf->g.throttled_ns, kf->g.bursts, kf->g.burst_ns };
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		n += put_u(buf + n, u[i]);
	return n;
}

size_t hist_unpack_row(const uint8_t *buf, size_t len, struct cg_sample *s, struct kstat_fig *kf, bool *has_k)
{
	size_t at = 0;
	uint64_t v;

	memset(s, 0, sizeof(*s));
	*has_k = false;
	if (!get_u(buf, len, &at, &s->id) || len - at < BITMAP_BYTES)
		return 0;
	const uint8_t *map = buf + at;
	at += BITMAP_BYTES;
	for (size_t i = 0; i < CG_NWORDS; i++)
		if ((map[i / 8] >> (i % 8) & 1) && !get_u(buf, len, &at, &s->c.w[i]))
			return 0;
	if (!get_u(buf, len, &at, &s->runq_max_ns) || !get_u(buf, len, &at, &s->thr_max_ns) ||
	    !get_u(buf, len, &at, &s->thr_inh_by) || at >= len)
		return 0;
	s->runq_max_all_ns = s->runq_max_ns;
	s->thr_max_all_ns = s->thr_max_ns;
	if (!buf[at++])
		return at;
	if (at >= len)
		return 0;
	memset(kf, 0, sizeof(*kf));
	kf->id = s->id;
	struct kstat *k = &kf->k;
	k->ok = buf[at] & 1;
	k->has_bursts = buf[at] >> 1 & 1;
	at++;
	if (!get_i(buf, len, &at, &k->quota_us) || !get_i(buf, len, &at, &k->usage_ns))
		return 0;
	uint64_t *u[] = { &k->period_us, &k->burst_us, &k->nr_periods, &k->nr_throttled, &k->throttled_ns,
			  &k->shares, &k->weight, &k->nr_bursts, &k->burst_ns, &k->period_end_ns,
			  &kf->g.periods, &kf->g.throttled, &kf->g.throttled_ns, &kf->g.bursts, &kf->g.burst_ns };
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (!get_u(buf, len, &at, &v))
			return 0;
		*u[i] = v;
	}
	*has_k = true;
	return at;
}

/* ---- the chunks ---- */

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

/* n bytes at the end of the newest chunk, or of a new one; NULL when none can be mapped. */
static uint8_t *chunk_take(struct history *h, size_t n, struct hist_chunk **in)
{
	struct hist_chunk *c = h->last;

	if (!c || c->size - c->used < n) {
		/* An interval bigger than a chunk has one of its own size. */
		size_t size = page_round(sizeof(*c) + n);
		if (size < h->chunk_size)
			size = h->chunk_size;
		void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		c = m;
		*c = (struct hist_chunk){ .size = size, .used = sizeof(*c) };
		if (h->last)
			h->last->next = c;
		else
			h->first = c;
		h->last = c;
		h->nchunks++;
		h->bytes += size;
	}
	uint8_t *p = (uint8_t *)c + c->used;
	c->used += n;
	c->live++;
	*in = c;
	return p;
}

/*
 * Give back an interval's rows. Intervals go oldest first, so an emptied
 * chunk is the oldest, and is unmapped. The newest chunk, once emptied, is
 * kept and reused from its start.
 */
static void chunk_give(struct history *h, struct hist_chunk *c)
{
	if (--c->live)
		return;
	if (c == h->last) {
		c->used = sizeof(*c);
		return;
	}
	struct hist_chunk **at = &h->first;
	while (*at != c)
		at = &(*at)->next;
	*at = c->next;
	h->nchunks--;
	h->bytes -= c->size;
	munmap(c, c->size);
}

/* ---- the history ---- */

void history_init(struct history *h, size_t budget)
{
	memset(h, 0, sizeof(*h));
	h->budget = budget;
	h->chunk_size = page_round(budget / 16 < (16 << 10) ? 16 << 10 : budget / 16 > (1 << 20) ? 1 << 20 : budget / 16);
	h->iv.esize = sizeof(struct hist_iv);
	h->ep.esize = sizeof(struct cgs_episode);
	h->wt.esize = sizeof(struct cgs_wait);
}

void history_free(struct history *h)
{
	for (struct hist_chunk *c = h->first, *next; c; c = next) {
		next = c->next;
		munmap(c, c->size);
	}
	free(h->iv.a);
	free(h->scratch);
	free(h->ep.a);
	free(h->wt.a);
	memset(h, 0, sizeof(*h));
}

/* The oldest interval goes: its entry, and its chunk when it was the last there. */
static void pop_iv(struct history *h)
{
	struct hist_iv *v = ring_at(&h->iv, 0);

	chunk_give(h, v->chunk);
	h->bytes -= sizeof(*v);
	ring_pop(&h->iv);
}

int history_add(struct history *h, const struct snapshot *d, const struct idtab *kfigs, uint64_t t0, uint64_t t1)
{
	struct hist_iv v = { .t0 = t0, .t1 = t1 };
	size_t cap = 16 + d->npre * 40, n = 0, rows = 0;
	uint8_t *b;

	/* The rows that moved: a cgroup idle all interval has nothing to keep. */
	for (size_t i = 0; i < d->n; i++) {
		const struct cg_counters *c = &d->cg[i].c;
		bool moved = false;
		for (size_t k = 0; k < CG_NWORDS && !moved; k++)
			moved = c->w[k] != 0;
		if (moved || d->cg[i].runq_max_ns || d->cg[i].thr_max_ns)
			cap += HIST_ROW_MAX, rows++;
	}
	/*
	 * Pack into a scratch buffer of the worst case's size, kept for the
	 * next interval. Then copy the result into the chunks at its exact
	 * size, which is usually far smaller.
	 */
	if (cap > h->scratch_cap) {
		uint8_t *nb = realloc(h->scratch, cap);
		if (!nb)
			goto fail;
		h->scratch = nb;
		h->scratch_cap = cap;
	}
	b = h->scratch;
	n += put_u(b + n, rows);
	for (size_t i = 0; i < d->n; i++) {
		const struct cg_sample *s = &d->cg[i];
		bool moved = s->runq_max_ns || s->thr_max_ns;
		for (size_t k = 0; k < CG_NWORDS && !moved; k++)
			moved = s->c.w[k] != 0;
		if (!moved)
			continue;
		const struct kstat_fig *kf = kfigs ? idtab_find(kfigs, s->id) : NULL;
		n += hist_pack_row(b + n, s, kf);
	}
	n += put_u(b + n, d->npre);
	for (size_t i = 0; i < d->npre; i++) {
		n += put_u(b + n, d->pre[i].victim);
		n += put_u(b + n, d->pre[i].preemptor);
		n += put_u(b + n, d->pre[i].count);
		n += put_u(b + n, d->pre[i].behind_ns);
	}
	if (!(v.blob = chunk_take(h, n, &v.chunk)))
		goto fail;
	memcpy(v.blob, b, n);
	v.len = n;
	memcpy(v.drops, d->drops, sizeof(v.drops));
	if (ring_push(&h->iv, &v))
		goto fail;
	h->bytes += sizeof(v);
	return 0;
fail:
	if (v.chunk)
		chunk_give(h, v.chunk);
	h->dropped_iv++;
	return -ENOMEM;
}

/*
 * Events arrive between intervals, from the ring buffers, as many as the
 * kernel sends. So the budget is enforced as each one arrives, not at the
 * next interval's trim.
 */
void history_add_episode(struct history *h, const struct cgs_episode *e)
{
	if (ring_push(&h->ep, e)) {
		h->dropped_ep++;
		return;
	}
	h->bytes += sizeof(*e);
	if (h->bytes > h->budget)
		history_trim(h);
}

void history_add_wait(struct history *h, const struct cgs_wait *w)
{
	if (ring_push(&h->wt, w)) {
		h->dropped_wt++;
		return;
	}
	h->bytes += sizeof(*w);
	if (h->bytes > h->budget)
		history_trim(h);
}

uint64_t history_oldest(const struct history *h)
{
	return h->iv.n ? ((const struct hist_iv *)ring_at(&h->iv, 0))->t0 : 0;
}

void history_trim(struct history *h)
{
	/*
	 * Drop intervals while over the budget, but always keep the newest.
	 * Memory comes back in whole chunks, so a trim may drop up to one
	 * chunk (1/16 of the budget) more than the budget requires.
	 */
	while (h->bytes > h->budget && h->iv.n > 1) {
		pop_iv(h);
		h->dropped_iv++;
	}
	/*
	 * Events from before the oldest interval have no figures beside them,
	 * so they go too, uncounted: their window is gone. If still over the
	 * budget, drop the oldest events themselves, counted.
	 */
	uint64_t from = history_oldest(h);
	while (h->ep.n && ((struct cgs_episode *)ring_at(&h->ep, 0))->end_ns < from) {
		ring_pop(&h->ep);
		h->bytes -= sizeof(struct cgs_episode);
	}
	while (h->wt.n && ((struct cgs_wait *)ring_at(&h->wt, 0))->end_ns < from) {
		ring_pop(&h->wt);
		h->bytes -= sizeof(struct cgs_wait);
	}
	while (h->bytes > h->budget && (h->ep.n || h->wt.n)) {
		if (h->wt.n >= h->ep.n) {
			ring_pop(&h->wt);
			h->bytes -= sizeof(struct cgs_wait);
			h->dropped_wt++;
		} else {
			ring_pop(&h->ep);
			h->bytes -= sizeof(struct cgs_episode);
			h->dropped_ep++;
		}
	}
}

void history_forget_before(struct history *h, uint64_t t)
{
	while (h->iv.n > 1 && ((struct hist_iv *)ring_at(&h->iv, 0))->t1 < t)
		pop_iv(h);
	history_trim(h);
}

size_t history_count(const struct history *h)
{
	return h->iv.n;
}

void history_bounds(const struct history *h, size_t i, uint64_t *t0, uint64_t *t1)
{
	const struct hist_iv *v = ring_at(&h->iv, i);

	*t0 = v->t0;
	*t1 = v->t1;
}

const struct cgs_episode *history_episode(const struct history *h, size_t i)
{
	return i < h->ep.n ? ring_at(&h->ep, i) : NULL;
}

const struct cgs_wait *history_wait(const struct history *h, size_t i)
{
	return i < h->wt.n ? ring_at(&h->wt, i) : NULL;
}

/* A cgroup's sums over the window. */
struct acc {
	uint64_t id;
	struct cg_sample s;
};

static int cmp_cg(const void *a, const void *b)
{
	const struct cg_sample *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_pre(const void *a, const void *b)
{
	const struct preempt_sample *x = a, *y = b;

	if (x->victim != y->victim)
		return x->victim < y->victim ? -1 : 1;
	return x->preemptor < y->preemptor ? -1 : x->preemptor > y->preemptor;
}

/* Appended as read; summed by pair once sorted (merge_pre). */
static int add_pre(struct snapshot *out, const struct preempt_sample *p)
{
	if (out->npre == out->precap) {
		size_t cap = out->precap ? 2 * out->precap : 64;
		struct preempt_sample *q = realloc(out->pre, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		out->pre = q;
		out->precap = cap;
	}
	out->pre[out->npre++] = *p;
	return 0;
}

static void merge_pre(struct snapshot *out)
{
	size_t n = 0;

	if (!out->npre)
		return; /* and out->pre may be NULL, which qsort may not be given */
	qsort(out->pre, out->npre, sizeof(*out->pre), cmp_pre);
	for (size_t i = 0; i < out->npre; i++) {
		if (n && !cmp_pre(&out->pre[n - 1], &out->pre[i])) {
			out->pre[n - 1].count += out->pre[i].count;
			out->pre[n - 1].behind_ns += out->pre[i].behind_ns;
		} else {
			out->pre[n++] = out->pre[i];
		}
	}
	out->npre = n;
}

int history_window(const struct history *h, uint64_t from, uint64_t to, bool (*keep)(void *ctx, uint64_t id),
		   void *ctx, struct snapshot *out, struct idtab *kfigs, uint64_t *t0, uint64_t *t1)
{
	struct idtab sums = IDTAB_INIT(struct acc);
	int err = 0;

	memset(out, 0, sizeof(*out));
	*kfigs = (struct idtab)IDTAB_INIT(struct kstat_fig);
	*t0 = *t1 = 0;
	for (size_t i = 0; i < h->iv.n && !err; i++) {
		const struct hist_iv *v = ring_at(&h->iv, i);
		if (v->t1 <= from || v->t1 > to)
			continue;
		if (!*t0)
			*t0 = v->t0;
		*t1 = v->t1;
		for (size_t d = 0; d < CGS_DROP__COUNT; d++)
			out->drops[d] += v->drops[d];
		size_t at = 0;
		uint64_t rows, npre;
		if (!get_u(v->blob, v->len, &at, &rows))
			break;
		for (uint64_t r = 0; r < rows; r++) {
			struct cg_sample s;
			struct kstat_fig kf;
			bool has_k, fresh;
			size_t used = hist_unpack_row(v->blob + at, v->len - at, &s, &kf, &has_k);
			if (!used)
				break;
			at += used;
			if (keep && !keep(ctx, s.id))
				continue;
			struct acc *a = idtab_put(&sums, s.id, &fresh);
			if (!a) {
				err = -ENOMEM;
				break;
			}
			if (fresh)
				a->s.id = s.id;
			for (size_t k = 0; k < CG_NWORDS; k++)
				a->s.c.w[k] += s.c.w[k];
			if (s.runq_max_ns > a->s.runq_max_ns)
				a->s.runq_max_ns = a->s.runq_max_all_ns = s.runq_max_ns;
			if (s.thr_max_ns > a->s.thr_max_ns)
				a->s.thr_max_ns = a->s.thr_max_all_ns = s.thr_max_ns;
			if (s.thr_inh_by)
				a->s.thr_inh_by = s.thr_inh_by;
			if (!has_k)
				continue;
			struct kstat_fig *f = idtab_put(kfigs, s.id, &fresh);
			if (!f) {
				err = -ENOMEM;
				break;
			}
			struct kstat_growth g = fresh ? (struct kstat_growth){} : f->g;
			f->k = kf.k; /* the last read's configuration and counters */
			f->g = (struct kstat_growth){ g.periods + kf.g.periods, g.throttled + kf.g.throttled,
						      g.throttled_ns + kf.g.throttled_ns, g.bursts + kf.g.bursts,
						      g.burst_ns + kf.g.burst_ns };
		}
		if (!get_u(v->blob, v->len, &at, &npre))
			continue;
		for (uint64_t p = 0; p < npre && !err; p++) {
			struct preempt_sample q;
			if (!get_u(v->blob, v->len, &at, &q.victim) || !get_u(v->blob, v->len, &at, &q.preemptor) ||
			    !get_u(v->blob, v->len, &at, &q.count) || !get_u(v->blob, v->len, &at, &q.behind_ns))
				break;
			if (keep && !keep(ctx, q.victim))
				continue;
			err = add_pre(out, &q);
		}
	}
	if (!err && sums.used && !(out->cg = calloc(sums.used, sizeof(*out->cg))))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < sums.cap; i++) {
		struct acc *a = idtab_at(&sums, i);
		if (a)
			out->cg[out->n++] = a->s;
	}
	out->cap = out->n;
	idtab_free(&sums);
	if (err)
		goto fail;
	if (out->n)
		qsort(out->cg, out->n, sizeof(*out->cg), cmp_cg);
	merge_pre(out);
	out->t_ns = *t1;
	return 0;
fail:
	snapshot_free(out);
	idtab_free(kfigs);
	return err;
}
