// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

#include "report/json_out.h"
#include "session/session.h"
#include "lib/stop.h"
#include "lib/util.h"

int session_stopped(void)
{
	fprintf(stderr, "cgsched: stopped by %s before tracing began; nothing is attached\n", stop_name());
	return stop_status();
}

/* A cgroup given a slot: named now, while it most likely exists. False: found removed, unnamed. */
static bool name_learn(void *ctx, uint64_t id)
{
	return cgfs_learn(ctx, id);
}

/* The tracer saw a cgroup go: its name, for the rows that still show it. */
static void name_removed(void *ctx, uint64_t id, const char *path)
{
	cgfs_note_removed(ctx, id, path);
}

/* Whether every removal so far was told (the tracer's word, at each read). */
static void removals_told(void *ctx, bool all)
{
	((struct cgfs *)ctx)->removals_told = all;
}

static void name_forget(void *ctx, uint64_t id)
{
	cgfs_forget(ctx, id);
}

/*
 * --priority, before the load: under a storm the load's own CPU time (the
 * verifier's) waited like every other slice (docs/performance.md).
 */
static int set_priority(struct session *s, const struct cgs_priority *p)
{
	char name[32], rel[PATH_MAX], rt[32];
	int tid, err = priority_apply(p, &tid);

	priority_name(p, name, sizeof(name));
	if (!err) {
		if (p->kind != CGS_PRIO_DEFAULT)
			cgs_debug("priority %s on every thread, reset on fork", name);
		return 0;
	}
	/* setpriority says EACCES for a nice it may not lower. */
	if (err == -EACCES)
		err = -EPERM;
	if (err == -EPERM && priority_refused_by_group(p)) {
		cgfs_self(&s->fs, rel, sizeof(rel));
		if (cgfs_read(&s->fs, rel, "cpu.rt_runtime_us", rt, sizeof(rt)) < 0)
			snprintf(rt, sizeof(rt), "unknown");
		rt[strcspn(rt, "\n")] = 0;
		cgs_err("--priority %s: the kernel refused a real-time policy in cgsched's cpu cgroup %s "
			"(cpu.rt_runtime_us %s: real-time group scheduling gives it no runtime); run cgsched "
			"from a cgroup with runtime, such as the root, or use nice:N", name, rel, rt);
	} else if (err == -EPERM && p->kind == CGS_PRIO_RT) {
		cgs_err("--priority %s: not permitted: needs CAP_SYS_NICE, or an RLIMIT_RTPRIO of at least %d (ulimit -r)",
			name, p->value);
	} else if (err == -EPERM) {
		cgs_err("--priority %s: not permitted: needs CAP_SYS_NICE, or an RLIMIT_NICE of at least %d (ulimit -e)",
			name, 20 - p->value);
	} else {
		cgs_err("--priority %s: cannot set thread %d: %s", name, tid, strerror(-err));
	}
	return CGS_EXIT_USAGE;
}

int session_open(struct session *s, const struct session_opts *o)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->fs.mnt_fd = -1;
	if ((err = cgfs_open_or_explain(&s->fs)))
		goto fail;
	scx_read(&s->scx, NULL);
	if (o->ncgroups > CGS_MAX_FILTERS) {
		cgs_err("at most %d --cgroup options", CGS_MAX_FILTERS);
		err = CGS_EXIT_USAGE;
		goto fail;
	}
	for (int i = 0; i < o->ncgroups; i++) {
		char rel[PATH_MAX];
		if (cgpath_normalize(s->fs.mnt, o->cgroups[i], rel, sizeof(rel)) ||
		    cgfs_id(&s->fs, rel, &s->filter_ids[i])) {
			cgs_err("--cgroup %s: no such cgroup in the cpu hierarchy (cgroup v%d at %s)",
				o->cgroups[i], s->fs.version, s->fs.mnt);
			err = CGS_EXIT_USAGE;
			goto fail;
		}
		s->filter_paths[i] = strdup(rel);
		s->nfilter++;
	}
	struct tracer_opts to = {
		.cfg = &o->tc,
		.max_tasks = 65536,
		.filter_ids = s->filter_ids,
		.nfilter = s->nfilter,
		.on_learn = name_learn,
		.on_removed = name_removed,
		.on_removals_told = removals_told,
		.on_forget = name_forget,
		.names_ctx = &s->fs,
		.stop = &cgs_stop,
	};
	if ((err = set_priority(s, &o->priority)))
		goto fail;
	if (cgs_stop) {
		err = session_stopped();
		goto fail;
	}
	if ((err = tracer_start(&s->tr, &to))) {
		err = err == -EINTR ? session_stopped() : CGS_EXIT_USAGE;
		goto fail;
	}
	if (o->around_base)
		o->around_base(o->around_ctx, false);
	err = snapshot_take(&s->tr, &s->base, &(struct snapshot_how){ .per_cpu = o->tc.per_cpu });
	if (o->around_base)
		o->around_base(o->around_ctx, true);
	if (err) {
		cgs_err("reading the BPF maps failed: %s", strerror(-err));
		err = CGS_EXIT_FAIL;
		goto fail;
	}
	snapshot_make_origin(&s->base);
	s->tr.attached_ns = s->base.t_ns;
	heap_trim();
	s->trimmed_ns = now_ns();
	return 0;
fail:
	session_close(s);
	return err;
}

void session_close(struct session *s)
{
	tracer_stop(&s->tr);
	snapshot_free(&s->base);
	cgfs_close(&s->fs);
	for (int i = 0; i < s->nfilter; i++)
		free(s->filter_paths[i]);
	s->nfilter = 0;
}

bool session_sleep_until(struct session *s, uint64_t deadline_ns)
{
	return session_wait_input(s, deadline_ns, -1) == 0;
}

/*
 * main() keeps a refresh's blocks in the heap, never trimmed, so that the
 * next refresh does not fault them in afresh. A rare larger block (a burst
 * of removals, an incident of cgsched watch) would then stay resident for
 * the rest of a run of days. So once a minute, between refreshes, the free
 * pages go back to the system. The cost is one refresh's page faults a
 * minute.
 */
#define TRIM_EVERY_NS (60 * 1000000000ULL)

int session_wait_input(struct session *s, uint64_t deadline_ns, int fd)
{
	while (!cgs_stop && !output_closed()) {
		uint64_t now = now_ns();
		if (now >= deadline_ns)
			return 0;
		if (now - s->trimmed_ns >= TRIM_EVERY_NS) {
			heap_trim();
			s->trimmed_ns = now;
		}
		uint64_t left_ms = (deadline_ns - now + 999999) / 1000000;
		if (s->tick) {
			uint64_t t = (uint64_t)s->tick(s->tick_ctx, now);
			left_ms = t < left_ms ? t : left_ms;
		}
		/* A signal interrupts the polls (no SA_RESTART): cgs_stop is seen at once. */
		tracer_recheck_limits(&s->tr); /* a quota set meanwhile is seen within 200 ms */
		tracer_maintain(&s->tr);       /* removed cgroups' slots come back, read or not */
		if (fd < 0) {
			tracer_poll(&s->tr, left_ms > 200 ? 200 : (int)left_ms);
			continue;
		}
		tracer_poll(&s->tr, 0); /* the events so far; the wait is for the input */
		/*
		 * A key within 100 ms of its press. A signal other than a stop
		 * (the terminal's SIGWINCH: curses tells the new size as a key)
		 * is input too.
		 */
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, left_ms > 100 ? 100 : (int)left_ms);
		if (r > 0 || (r < 0 && errno == EINTR && !cgs_stop))
			return 1;
	}
	return -1;
}

void session_json_meta(const struct session *s, const char *kind, struct json_meta *m)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	*m = (struct json_meta){
		.kind = kind,
		.realtime = ts.tv_sec + ts.tv_nsec / 1e9,
		.map_bytes = tracer_map_bytes(&s->tr),
	};
	session_trace_info(s, &m->ti);
}

const char *session_describe(const struct session *s, char *buf, size_t n)
{
	char x[160];

	scx_describe(&s->scx, x, sizeof(x));
	snprintf(buf, n, "cgroup v%d at %s, backend %s, throttle backend %s%s%s", s->fs.version, s->fs.mnt,
		 s->tr.backend, s->tr.thr_backend, x[0] ? "; " : "", x);
	return buf;
}

void session_trace_info(const struct session *s, struct trace_info *ti)
{
	struct utsname u;

	*ti = (struct trace_info){
		.cgroup_version = s->fs.version,
		.sched_backend = s->tr.backend,
		.thr_backend = s->tr.thr_backend,
		.task_state = s->tr.task_storage ? "task_storage" : "lru_hash",
		.ncpus = s->tr.ncpus,
		.scx = s->scx,
	};
	if (!uname(&u))
		snprintf(ti->kernel, sizeof(ti->kernel), "%s", u.release);
}

const char *session_cgroup_name(void *session, uint64_t id)
{
	struct session *s = session;
	const char *last;
	const char *p = cgfs_path(&s->fs, id, false, &last);

	return p ? p : last;
}
