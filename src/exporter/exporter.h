/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Serving a session's figures on /metrics (cgsched export, enforce
 * --listen): gathers one scrape's inputs under a lock the command's own
 * loop shares, keeps each cgroup's series until a grace period after the
 * cgroup is removed, and renders them (exporter/metrics.h) over HTTP (exporter/http.h).
 */
#ifndef CGS_EXPORTER_H
#define CGS_EXPORTER_H

#include <stdbool.h>
#include <stdint.h>

struct session;

/* 127.0.0.1: the figures name every container on the host; exposing them is a choice (README). */
#define EXPORT_LISTEN_DEFAULT "127.0.0.1:9863"

struct exporter_opts {
	const char *listen;          /* NULL: not serving (enforce without --listen) */
	const char *web_config;      /* NULL: plain HTTP, no authentication */
	uint64_t grace_ns;           /* how long a removed cgroup's series stay */
	uint64_t top_preemptors;     /* per cgroup */
	bool health_open;            /* /healthz and /readyz without authentication */
	bool no_name_labels;         /* namespace, pod, container, unit on cgsched_cgroup_info only */
};

void exporter_opts_init(struct exporter_opts *o);

struct exporter;
/*
 * Check the web config and bind the port (before tracing starts, so a bad
 * file or a port in use costs nothing): 0, or CGS_EXIT_USAGE after its one
 * line. Serving starts with exporter_attach, once the session is open.
 */
int exporter_open(struct exporter **x, const struct exporter_opts *o);
/* Serve the session's figures (why: the session traces the wait causes). 0 or CGS_EXIT_USAGE. */
int exporter_attach(struct exporter *x, struct session *s, bool why, bool split);
const char *exporter_url(const struct exporter *x);
/*
 * The lock around the session's maps and cgroup cache, held by every scrape:
 * the command's own reads of the session take it too. NULL x: nothing.
 */
void exporter_lock(struct exporter *x);
void exporter_unlock(struct exporter *x);
/* Housekeeping from the command's loop (takes the lock): notice removed cgroups. */
void exporter_tick(struct exporter *x);
/* The throttle episodes so far into each cgroup's periods (call about every second; a scrape does too). */
void exporter_episodes(struct exporter *x);
/*
 * SIGHUP: the web config read again (users, certificate and key: a renewed
 * certificate needs no restart) and served from now; a file that fails to
 * load, or to serve, leaves the one in force. One line to say (NULL:
 * stderr) either way. Not with the exporter's lock held.
 */
void exporter_reload(struct exporter *x, void (*say)(const char *line));
void exporter_close(struct exporter *x);

#endif
