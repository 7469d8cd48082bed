/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The /metrics endpoint over libmicrohttpd (docs/dependencies.md). Its own
 * thread answers requests and sends what the caller renders, as it is
 * written. It checks TLS and basic auth as --web-config says
 * (exporter/webconfig.h).
 */
#ifndef CGS_HTTP_H
#define CGS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "exporter/expo.h"

struct webconfig;
struct http_server;

/*
 * Where /metrics comes from: an answer is opened, read piece by piece as
 * the client takes it, and closed (also when the client goes away early).
 * Called from the server's thread.
 */
struct http_source {
	/* An answer in format f; NULL with -errno in *err: -EBUSY answers 503, any other 500. */
	void *(*open)(void *ctx, enum expo_format f, int *err);
	/* Up to max bytes of it into buf: their count; 0 at its end; -1 if it failed (the body is cut short). */
	ssize_t (*read)(void *answer, char *buf, size_t max);
	void (*close)(void *answer);
	/*
	 * Answer /healthz (ready false: is it serving?) or /readyz (ready true:
	 * is what it serves sound?). Returns 0 if so, else nonzero (503). Puts
	 * a line saying so, or why not, into buf.
	 */
	int (*health)(void *ctx, bool ready, char *buf, size_t n);
	bool health_open;            /* those two answered without authentication */
	void *ctx;
};

struct http_opts {
	const char *listen;          /* "ADDR:PORT", "[ADDR]:PORT" or ":PORT" (every address) */
	struct webconfig *wc;        /* NULL: plain HTTP, no authentication */
	struct http_source src;
};

/*
 * Parse a listen address; 0, or -1 with the reason in err. Numeric
 * addresses only: a name could resolve to an address not meant.
 */
int http_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err, size_t errlen);
/* Bind, listen and start serving; 0, or -1 with one line in err (the port in use, TLS refused). */
int http_start(struct http_server **out, const struct http_opts *o, char *err, size_t errlen);
/* The URL it serves /metrics at, for messages. */
const char *http_url(const struct http_server *s);
/*
 * Serve with wc from now: a reloaded web config with users, certificate
 * and key. A new daemon takes the listening socket over from the running
 * one (MHD_quiesce_daemon), so no connection is refused meanwhile. Then
 * the old daemon stops, ending its requests in flight. Returns 0, or -1
 * with err, and then the old config serves on.
 */
int http_restart(struct http_server **s, struct webconfig *wc, const char *listen, char *err, size_t errlen);
void http_stop(struct http_server *s);

#endif
