/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The /metrics endpoint over libmicrohttpd (docs/dependencies.md): its own
 * thread answers requests one at a time, asks the caller to render, and
 * checks TLS and basic auth as --web-config says (exporter/webconfig.h).
 */
#ifndef CGS_HTTP_H
#define CGS_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

#include "exporter/expo.h"

struct webconfig;
struct http_server;

/* Fill out with the exposition in format f; 0, or -errno (answered 500). Called from the server's thread. */
typedef int (*http_render_fn)(void *ctx, struct expo *out);

struct http_opts {
	const char *listen;          /* "ADDR:PORT", "[ADDR]:PORT" or ":PORT" (every address) */
	struct webconfig *wc;        /* NULL: plain HTTP, no authentication */
	http_render_fn render;
	void *ctx;
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
 * Serve with wc from now (a reloaded web config: users, certificate, key):
 * a new daemon takes the listening socket over from the running one
 * (MHD_quiesce_daemon: no connection refused meanwhile), then the old one
 * stops, ending its requests in flight. 0, or -1 with err, and the old
 * config serves on.
 */
int http_restart(struct http_server **s, struct webconfig *wc, const char *listen, char *err, size_t errlen);
void http_stop(struct http_server *s);

#endif
