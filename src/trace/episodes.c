// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The ring buffers' records and the episodes still open (episodes.h). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sched.skel.h"
#include "trace/episodes.h"
#include "lib/util.h"

/* Append one ring-buffer record to a bounded log (max entries); a record past it is counted in *truncated. */
static void log_append(void **e, size_t *n, size_t *cap, uint64_t *truncated, const void *data, size_t esize,
		       size_t max)
{
	if (grow_array(e, cap, *n, esize, 256, max)) {
		(*truncated)++;
		return;
	}
	memcpy((char *)*e + (*n)++ * esize, data, esize);
}

static int on_episode(void *ctx, void *data, size_t size)
{
	struct tracer *t = ctx;

	if (size < sizeof(struct cgs_episode))
		return 0;
	log_append((void **)&t->log.e, &t->log.n, &t->log.cap, &t->log.truncated, data, sizeof(*t->log.e),
		   CGS_EPISODES_MAX);
	if (t->tap.episode)
		t->tap.episode(t->tap.ctx, data);
	return 0;
}

static int on_wait(void *ctx, void *data, size_t size)
{
	struct tracer *t = ctx;

	if (size >= sizeof(struct cgs_wait) && t->tap.wait)
		t->tap.wait(t->tap.ctx, data);
	return 0;
}

void tracer_poll(struct tracer *t, int timeout_ms)
{
	if (t->rb)
		ring_buffer__poll(t->rb, timeout_ms);
	else
		usleep(timeout_ms * 1000);
}

void tracer_poll_fd(struct tracer *t, int fd, int timeout_ms)
{
	if (fd < 0) {
		tracer_poll(t, timeout_ms);
		return;
	}
	/* The ring buffers' epoll fd is readable while one of them has data: both waited on, then read. */
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = t->rb ? ring_buffer__epoll_fd(t->rb) : -1, .events = POLLIN } };

	poll(p, 2, timeout_ms);
	if (t->rb)
		ring_buffer__consume(t->rb);
}

void tracer_discard_episodes(struct tracer *t)
{
	struct episode_log el;

	tracer_take_episodes(t, &el);
	free(el.e);
}

void tracer_set_tap(struct tracer *t, const struct tracer_tap *tap)
{
	t->tap = *tap;
}

void tracer_take_episodes(struct tracer *t, struct episode_log *out)
{
	if (t->rb)
		ring_buffer__consume(t->rb);
	*out = t->log;
	memset(&t->log, 0, sizeof(t->log));
}

/*
 * Call cb(ctx, cgid, start) for each throttle whose episode is not in the
 * log yet. With fentry and kprobe, these are in thr_start, open until the
 * unthrottle's probe fires. With any_backend, thr_opened is walked too:
 * the tracepoint backend sees an episode end only at a later switch. An
 * error from cb stops the walk and is returned.
 */
static int each_unended(struct tracer *t, bool any_backend, int (*cb)(void *ctx, uint64_t cgid, uint64_t start),
			void *ctx)
{
	bool tp = t->skel && t->skel->rodata->targ_thr == CGS_THR_TRACEPOINT;
	union {
		struct cgs_thr_start st;
		struct cgs_opened op;
	} v;
	__u64 key, next;
	int fd, err;

	if (!t->skel || t->skel->rodata->targ_thr == CGS_THR_NONE || (tp && !any_backend))
		return 0;
	fd = bpf_map__fd(tp ? t->skel->maps.thr_opened : t->skel->maps.thr_start);
	for (__u64 *prev = NULL; !bpf_map_get_next_key(fd, prev, &next); prev = &key) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue; /* ended since: in the log */
		if ((err = tp ? cb(ctx, v.op.cgid, v.op.start) : cb(ctx, v.st.cgid, v.st.at)))
			return err;
	}
	return 0;
}

struct open_ctx {
	uint64_t cgid, now;
	struct cgs_episode *e;
	size_t n, cap;
};

static int open_one(void *vctx, uint64_t cgid, uint64_t start)
{
	struct open_ctx *o = vctx;

	if (cgid != o->cgid || start >= o->now)
		return 0;
	if (ARRAY_GROW(o->e, o->n, o->cap, 4))
		return -ENOMEM;
	/* Its CPU is the cfs_rq's, which the loader cannot read, so none is given. */
	o->e[o->n++] = (struct cgs_episode){ .cgid = cgid, .start_ns = start, .end_ns = o->now, .cpu = UINT32_MAX };
	return 0;
}

int tracer_open_episodes(struct tracer *t, uint64_t cgid, uint64_t now, struct cgs_episode **out, size_t *n)
{
	struct open_ctx o = { .cgid = cgid, .now = now };
	/* Skip the tracepoint backend's entries: it sees an end only at a later switch, so they may be over. */
	int err = each_unended(t, false, open_one, &o);

	if (err) {
		free(o.e);
		o.e = NULL;
		o.n = 0;
	}
	*out = o.e;
	*n = o.n;
	return err;
}

static int pending_one(void *ctx, uint64_t cgid, uint64_t start)
{
	struct cg_pending *p = ctx;

	(void)start;
	if (ARRAY_GROW(p->id, p->n, p->cap, 16))
		return -ENOMEM;
	p->id[p->n++] = cgid;
	return 0;
}

int tracer_pending(struct tracer *t, struct cg_pending *p)
{
	p->n = 0;
	int err = each_unended(t, true, pending_one, p);
	if (err)
		p->n = 0;
	else if (p->n)
		qsort(p->id, p->n, sizeof(*p->id), u64_cmp);
	/* Episodes that ended before the walk are delivered now, to the log and the tap. */
	if (t->rb)
		ring_buffer__consume(t->rb);
	return err;
}

bool cg_pending_has(const struct cg_pending *p, uint64_t id)
{
	return p->n && bsearch(&id, p->id, p->n, sizeof(*p->id), u64_cmp);
}

void cg_pending_free(struct cg_pending *p)
{
	free(p->id);
	*p = (struct cg_pending){ 0 };
}

void episodes_open(struct tracer *t, uint64_t long_wait_ns)
{
	int err;

	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.episodes), on_episode, t, NULL);
	if (!t->rb)
		cgs_warn("no throttle episode list (ring buffer: %s); counts and histograms are complete",
			 strerror(errno));
	else if (long_wait_ns && (err = ring_buffer__add(t->rb, bpf_map__fd(t->skel->maps.waits), on_wait, t)))
		cgs_warn("no long waits in the timeline (ring buffer: %s)", strerror(-err));
}

void episodes_close(struct tracer *t)
{
	ring_buffer__free(t->rb);
	t->rb = NULL;
	free(t->log.e);
	memset(&t->log, 0, sizeof(t->log));
	memset(&t->tap, 0, sizeof(t->tap));
}
