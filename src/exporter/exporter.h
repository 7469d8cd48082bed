/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Serve a session's figures on /metrics (cgsched export, enforce
 * --listen). A scrape gathers its inputs under a lock that the command's
 * own loop shares. Each cgroup's series stay until a grace period after
 * the cgroup is removed. They are rendered by exporter/metrics.h and sent
 * over HTTP by exporter/http.h.
 */
#ifndef CGS_EXPORTER_H
#define CGS_EXPORTER_H

#include <stdbool.h>
#include <stdint.h>

struct session;
struct demand_all;

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
 * Check the web config and bind the port. Call it before tracing starts,
 * so a bad file or a port in use costs nothing. Returns 0, or
 * CGS_EXIT_USAGE after printing why. Serving starts with exporter_attach,
 * once the session is open.
 */
int exporter_open(struct exporter **x, const struct exporter_opts *o);
/*
 * Serve the session's figures (why: the session traces the wait causes),
 * with every cgroup's demand from dem (NULL: none). 0 or CGS_EXIT_USAGE.
 */
int exporter_attach(struct exporter *x, struct session *s, bool why, bool split, struct demand_all *dem);
const char *exporter_url(const struct exporter *x);
/*
 * The lock around the session's maps and cgroup cache. Every scrape holds
 * it, and the command's own reads of the session take it too. With x NULL,
 * these do nothing.
 */
void exporter_lock(struct exporter *x);
void exporter_unlock(struct exporter *x);
/* Housekeeping from the command's loop (takes the lock): notice removed cgroups. */
void exporter_tick(struct exporter *x);
/* The throttle episodes so far into each cgroup's periods (call about every second; a scrape does too). */
void exporter_episodes(struct exporter *x);
/*
 * On SIGHUP, read the web config again (users, certificate and key) and
 * serve with it from now, so a renewed certificate needs no restart. A
 * file that fails to load, or to serve, leaves the old one in force.
 * Either way, one line says what happened (say NULL: stderr). Do not call
 * it with the exporter's lock held.
 */
void exporter_reload(struct exporter *x, void (*say)(const char *line));
void exporter_close(struct exporter *x);

#endif
