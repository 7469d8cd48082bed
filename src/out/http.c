// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The /metrics endpoint: libmicrohttpd's thread, auth, negotiation (http.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/webconfig.h"
#include "out/http.h"

struct http_server {
	struct MHD_Daemon *d;
	int fd;
	int family;      /* of the listening socket */
	struct webconfig *wc;
	http_render_fn render;
	void *ctx;
	char url[128];
	char log[256];   /* libmicrohttpd's last message: the reason a start failed */
};

int http_parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err, size_t errlen)
{
	char host[64];
	const char *colon, *port;
	unsigned long p;
	char *end;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close || close[1] != ':' || (size_t)(close - s - 1) >= sizeof(host)) {
			snprintf(err, errlen, "expected [IPv6]:PORT");
			return -1;
		}
		memcpy(host, s + 1, close - s - 1);
		host[close - s - 1] = 0;
		port = close + 2;
	} else {
		if (!(colon = strrchr(s, ':')) || (size_t)(colon - s) >= sizeof(host)) {
			snprintf(err, errlen, "expected ADDRESS:PORT, e.g. 127.0.0.1:9863 or :9863");
			return -1;
		}
		memcpy(host, s, colon - s);
		host[colon - s] = 0;
		port = colon + 1;
	}
	errno = 0;
	p = strtoul(port, &end, 10);
	if (!*port || *end || errno || p < 1 || p > 65535 || *port == '+' || *port == '-') {
		snprintf(err, errlen, "port '%s': expected 1 to 65535", port);
		return -1;
	}
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	if (!host[0]) { /* ":PORT": every address, as Prometheus exporters take it */
		v6->sin6_family = AF_INET6;
		v6->sin6_addr = in6addr_any;
		v6->sin6_port = htons(p);
		*len = sizeof(*v6);
	} else if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(p);
		*len = sizeof(*v4);
	} else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(p);
		*len = sizeof(*v6);
	} else {
		snprintf(err, errlen, "'%s' is not a numeric IPv4 or IPv6 address", host);
		return -1;
	}
	return 0;
}

/* Whether a listen address names a host (":PORT" does not). */
static bool host_given(const char *listen)
{
	return listen[0] != ':';
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct http_server *s = cls;

	vsnprintf(s->log, sizeof(s->log), fmt, ap);
	s->log[strcspn(s->log, "\n")] = 0;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *type, char *body,
			      size_t len, bool must_free)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body,
								  must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r) {
		if (must_free)
			free(body);
		return MHD_NO;
	}
	if (type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static bool authorised(struct http_server *s, struct MHD_Connection *c)
{
	char *pass = NULL, *user;
	bool ok;

	if (!s->wc || !s->wc->nusers)
		return true;
	user = MHD_basic_auth_get_username_password(c, &pass);
	ok = user && pass && webconfig_check_user(s->wc, user, pass);
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_len, void **req)
{
	static char landing[] = "<html><head><title>cgsched</title></head><body><h1>cgsched export</h1>"
				"<p><a href=\"/metrics\">/metrics</a>: the scheduler's treatment of each cgroup "
				"(docs/metrics.md).</p></body></html>\n";
	static char not_found[] = "404 not found: cgsched serves /metrics\n";
	static char bad_method[] = "405 method not allowed: GET or HEAD\n";
	static char failed[] = "500 internal error: the metrics could not be gathered (see cgsched's log)\n";
	static char denied[] = "401 unauthorized\n";
	struct http_server *s = cls;

	if (!*req) { /* the headers are in: answer on the next call, with any body drained */
		*req = s;
		return MHD_YES;
	}
	if (*upload_len) {
		*upload_len = 0; /* a body is ignored, not an error */
		return MHD_YES;
	}
	/* Authentication first: an unauthorised client learns nothing, not even which paths exist. */
	if (!authorised(s, c)) {
		struct MHD_Response *r = MHD_create_response_from_buffer(strlen(denied), denied, MHD_RESPMEM_PERSISTENT);
		if (!r)
			return MHD_NO;
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
		enum MHD_Result ret = MHD_queue_basic_auth_fail_response(c, "cgsched", r);
		MHD_destroy_response(r);
		return ret;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", bad_method,
			      strlen(bad_method), false);
	if (!strcmp(url, "/"))
		return answer(c, MHD_HTTP_OK, "text/html; charset=utf-8", landing, strlen(landing), false);
	if (strcmp(url, "/metrics"))
		return answer(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", not_found, strlen(not_found), false);

	struct expo x;
	expo_init(&x, expo_negotiate(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT)));
	if (s->render(s->ctx, &x) || x.oom || !x.p) {
		expo_free(&x);
		return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", failed, strlen(failed), false);
	}
	/* The buffer is the response's now: freed by libmicrohttpd once sent. */
	return answer(c, MHD_HTTP_OK, expo_content_type(x.fmt), x.p, x.n, true);
}

/* GnuTLS priorities for the lowest TLS version allowed (min_version). */
static const char *tls_priorities(int min_tls)
{
	switch (min_tls) {
	case 13: return "NORMAL:-VERS-ALL:+VERS-TLS1.3";
	case 12: return "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";
	case 11: return "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1";
	default: return "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1:+VERS-TLS1.0";
	}
}

/*
 * The daemon on s->fd, with s->wc's TLS and users: 0, or -1 with err. The
 * server's thread takes this one's signal mask: with every signal blocked
 * there, SIGTERM, SIGINT and SIGHUP reach the command's own thread, whose
 * wait they interrupt.
 */
static int start_daemon(struct http_server *s, const char *listen, char *err, size_t errlen)
{
	bool tls = s->wc && s->wc->cert_pem;
	sigset_t all, old;

	if (tls && !MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		snprintf(err, errlen, "--web-config asks for TLS, and this libmicrohttpd was built without it");
		return -1;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	/* ITC: so that a reload can take the listening socket over (MHD_quiesce_daemon). */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_ITC | (tls ? MHD_USE_TLS : 0);
	if (s->family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* TLS's options, or none: an array libmicrohttpd reads up to its END. */
	struct MHD_OptionItem tls_opts[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, tls ? s->wc->cert_pem : NULL },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, tls ? s->wc->key_pem : NULL },
		{ MHD_OPTION_HTTPS_PRIORITIES, 0, tls ? (void *)tls_priorities(s->wc->min_tls) : NULL },
		{ MHD_OPTION_END, 0, NULL },
	};
	s->log[0] = 0;
	s->d = MHD_start_daemon(flags, 0, NULL, NULL, handle, s,
				MHD_OPTION_LISTEN_SOCKET, s->fd,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
				/* Bounded: a few scrapers, none holding a connection for long. */
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)32,
				/* One address cannot hold them all and keep the scraper out. */
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)8,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
				MHD_OPTION_ARRAY, tls ? tls_opts : &tls_opts[3],
				MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->d) {
		snprintf(err, errlen, "cannot serve on %s: %s%s", listen, s->log[0] ? s->log : "libmicrohttpd refused",
			 tls ? " (are cert_file and key_file a matching PEM certificate and key?)" : "");
		return -1;
	}
	return 0;
}

int http_start(struct http_server **out, const struct http_opts *o, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct http_server *s;
	char why[160];
	bool tls = o->wc && o->wc->cert_pem;
	int one = 1;

	*out = NULL;
	if (http_parse_listen(o->listen, &ss, &len, why, sizeof(why))) {
		snprintf(err, errlen, "--listen %s: %s", o->listen, why);
		return -1;
	}
	if (tls && !MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		snprintf(err, errlen, "--web-config asks for TLS, and this libmicrohttpd was built without it");
		return -1;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*s = (struct http_server){ .fd = -1, .wc = o->wc, .render = o->render, .ctx = o->ctx };
	/* Our own socket: a port in use is then one clear errno, not a NULL daemon. */
	s->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0 && errno == EAFNOSUPPORT && ss.ss_family == AF_INET6 && !host_given(o->listen)) {
		/* ":PORT" on a host without IPv6: every IPv4 address, then. */
		struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
		in_port_t port = ((struct sockaddr_in6 *)&ss)->sin6_port;
		memset(&ss, 0, sizeof(ss));
		v4->sin_family = AF_INET;
		v4->sin_addr.s_addr = htonl(INADDR_ANY);
		v4->sin_port = port;
		len = sizeof(*v4);
		s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	}
	int zero = 0;
	/* ":PORT" means IPv4 too, whatever net.ipv6.bindv6only says. */
	if (s->fd >= 0 && ss.ss_family == AF_INET6 && !host_given(o->listen))
		setsockopt(s->fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->fd, (struct sockaddr *)&ss, len) || listen(s->fd, 64)) {
		int e = errno;
		snprintf(err, errlen, "--listen %s: %s%s", o->listen, strerror(e),
			 e == EADDRINUSE ? " (another program has the port: choose another with --listen)" :
			 e == EADDRNOTAVAIL ? " (no interface of this host has that address)" : "");
		http_stop(s);
		return -1;
	}
	s->family = ss.ss_family;
	if (start_daemon(s, o->listen, err, errlen)) {
		http_stop(s);
		return -1;
	}
	s->fd = -1; /* the daemon's now: MHD_stop_daemon closes it */
	char host[INET6_ADDRSTRLEN] = "";
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
	snprintf(s->url, sizeof(s->url), ss.ss_family == AF_INET6 ? "%s://[%s]:%u/metrics" : "%s://%s:%u/metrics",
		 tls ? "https" : "http", host,
		 ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
						 ((struct sockaddr_in6 *)&ss)->sin6_port));
	*out = s;
	return 0;
}

const char *http_url(const struct http_server *s)
{
	return s->url;
}

int http_restart(struct http_server **sp, struct webconfig *wc, const char *listen, char *err, size_t errlen)
{
	struct http_server *old = *sp, *s = malloc(sizeof(*s));
	bool tls = wc && wc->cert_pem;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*s = *old;
	s->wc = wc;
	/* The listening socket, taken from the old daemon, which accepts no more from now. */
	int fd = MHD_quiesce_daemon(old->d);
	if (fd < 0) {
		snprintf(err, errlen, "cannot take the listening socket over from the running server");
		free(s);
		return -1;
	}
	s->fd = fd;
	if (start_daemon(s, listen, err, errlen)) {
		/* The old config serves on: a daemon of its own again on the socket. */
		MHD_stop_daemon(old->d);
		old->d = NULL;
		old->fd = fd;
		char why[256];
		size_t n = strlen(err);
		if (start_daemon(old, listen, why, sizeof(why)))
			snprintf(err + n, errlen - n, "; nor could the old config serve again: %s", why);
		else
			old->fd = -1;
		free(s);
		return -1;
	}
	s->fd = -1;
	/* In-flight requests of the old daemon end with it (a scrape retries at its next interval). */
	MHD_stop_daemon(old->d);
	/* The URL's scheme follows TLS, turned on or off by the reload. */
	const char *rest = strstr(old->url, "://");
	if (rest)
		snprintf(s->url, sizeof(s->url), "%s%.*s", tls ? "https" : "http", (int)sizeof(s->url) - 6, rest);
	free(old);
	*sp = s;
	return 0;
}

void http_stop(struct http_server *s)
{
	if (!s)
		return;
	if (s->d)
		MHD_stop_daemon(s->d);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}
