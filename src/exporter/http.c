// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The /metrics endpoint: libmicrohttpd's thread, auth, negotiation (http.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"
#include "exporter/webconfig.h"
#include "exporter/http.h"

/*
 * Bounds against hostile clients (docs/metrics.md, "Security"). A client
 * has HEAD_DEADLINE_S for its whole request, however slowly it sends it.
 * Its head is all of it: a body is refused, never read. libmicrohttpd's
 * own timeout is for inactivity only, so a byte sent now and then would
 * hold a connection forever. CONN_LIMIT is far above what scrapers use.
 * So slow clients from many addresses, PER_IP_LIMIT each, do not fill it
 * before the deadline frees their slots.
 */
#define HEAD_DEADLINE_S 10
/* Inactivity, and the time a kept-alive connection has for its next request's head (a 15 s scrape interval keeps one). */
#define IDLE_S 30
#define CONN_LIMIT 256u
#define PER_IP_LIMIT 8u
#define CONN_MEMORY 32768u /* a request head and its answer's headers */
/*
 * A client has this long to read an answer of /metrics to its end. While
 * it is sent, each answer holds a working set of its own: the figures of
 * one moment, about 1 KB a cgroup. A client reading a byte now and then
 * would hold it forever. A scraper's timeout is at most its interval, a
 * few minutes at most, so this bound hurts no real scraper.
 */
#define ANSWER_DEADLINE_S 120
/* Tests make it shorter (seconds), to see it end an answer within their bounds. */
#define ANSWER_DEADLINE_ENV "CGSCHED_TEST_ANSWER_DEADLINE"
/*
 * Answers of /metrics one client address may be sent at once. The
 * exporter sends a few at once in all; a reader that never reads holds
 * one till its deadline. So one address cannot hold them all: a scraper
 * and a person's curl from one host still get theirs.
 */
#define ANSWERS_PER_ADDR 2
/* Addresses tracked with answers in flight: above the answers the exporter sends at once. */
#define ANSWER_ADDRS 16
/* The pieces libmicrohttpd asks for (what a connection's memory leaves for them, under CONN_MEMORY). */
#define ANSWER_BLOCK 16384

/* A connection, from accept until closed (the reaper's list). */
struct conn {
	struct conn *next, *prev;
	int fd;            /* our dup of its socket: shutdown() here ends it, the number never reused meanwhile */
	uint64_t start_ns;  /* of what is timed: a head (from accept, or the last request's end), or an answer */
	uint64_t limit_ns;  /* how long that may take */
	bool timed;         /* a head or an answer is on the clock */
	bool reaped;
	bool answering;     /* the clock is an answer's (counted apart, for -v) */
};

struct http_server {
	struct MHD_Daemon *d;
	int fd;
	int family;      /* of the listening socket */
	struct webconfig *wc;
	struct http_source src;
	char url[128];
	char log[256];   /* libmicrohttpd's last message: the reason a start failed */
	pthread_mutex_t lock;  /* conns, and the reaper's stop */
	pthread_cond_t wake;
	struct conn *conns;
	pthread_t reaper;
	bool reaper_on, stopping;
	uint64_t reaped;       /* slow heads ended, for -v */
	uint64_t reaped_answers; /* answers not read within the deadline, for -v */
	uint64_t answer_limit_ns; /* ANSWER_DEADLINE_S, or the test's */
	struct {
		unsigned char addr[16];
		unsigned n;      /* 0: a free entry */
	} answers[ANSWER_ADDRS]; /* answers of /metrics in flight by client address (under lock) */
};

/* A new connection's entry, its head on the clock: NULL when out of memory or of descriptors. */
static struct conn *conn_new(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct conn *k = NULL;

	if (!ci || !(k = calloc(1, sizeof(*k))))
		return NULL;
	if ((k->fd = fcntl(ci->connect_fd, F_DUPFD_CLOEXEC, 0)) < 0)
		goto fail;
	k->start_ns = now_ns();
	k->limit_ns = HEAD_DEADLINE_S * 1000000000ULL;
	k->timed = true;
	return k;
fail:
	free(k);
	return NULL;
}

/* libmicrohttpd's thread: each connection into the reaper's list when accepted, out when closed. */
static void on_conn(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_ConnectionNotificationCode what)
{
	struct http_server *s = cls;
	struct conn *k = *ctx;

	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		if (!(k = conn_new(c)))
			return;
		pthread_mutex_lock(&s->lock);
		k->next = s->conns;
		if (s->conns)
			s->conns->prev = k;
		s->conns = k;
		pthread_mutex_unlock(&s->lock);
		*ctx = k;
	} else if (what == MHD_CONNECTION_NOTIFY_CLOSED && k) {
		pthread_mutex_lock(&s->lock);
		if (k->prev)
			k->prev->next = k->next;
		else
			s->conns = k->next;
		if (k->next)
			k->next->prev = k->prev;
		pthread_mutex_unlock(&s->lock);
		close(k->fd);
		free(k);
		*ctx = NULL;
	}
}

/* A request answered: a kept-alive connection's next head is waited for, within IDLE_S. */
static void on_done(void *cls, struct MHD_Connection *c, void **req, enum MHD_RequestTerminationCode why)
{
	struct http_server *s = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = ci ? ci->socket_context : NULL;

	if (!k)
		return;
	pthread_mutex_lock(&s->lock);
	k->timed = true;
	k->answering = false;
	k->start_ns = now_ns();
	k->limit_ns = IDLE_S * 1000000000ULL;
	pthread_mutex_unlock(&s->lock);
}

/* The connection's clock (SOCKET_CONTEXT: its entry in the reaper's list): a limit from now, or off (0). */
static void conn_clock(struct http_server *s, struct MHD_Connection *c, uint64_t limit_ns, bool answering)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = ci ? ci->socket_context : NULL;

	if (!k)
		return;
	pthread_mutex_lock(&s->lock);
	k->timed = limit_ns != 0;
	k->answering = answering;
	k->start_ns = now_ns();
	k->limit_ns = limit_ns;
	pthread_mutex_unlock(&s->lock);
}

/*
 * Every half second, end each connection whose head is not in after
 * HEAD_DEADLINE_S, or whose answer is not read after ANSWER_DEADLINE_S.
 */
static void *reaper(void *arg)
{
	struct http_server *s = arg;

	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += 500000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->wake, &s->lock, &until);
		uint64_t now = now_ns();
		for (struct conn *k = s->conns; k; k = k->next)
			if (k->timed && !k->reaped && now - k->start_ns > k->limit_ns) {
				shutdown(k->fd, SHUT_RDWR); /* libmicrohttpd reads the end, and closes it */
				k->reaped = true;
				if (k->answering)
					s->reaped_answers++;
				else
					s->reaped++;
			}
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

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
	char *own = must_free ? body : NULL; /* ours to free until a response has it */
	enum MHD_Result ret = MHD_NO;

	if (!r)
		goto out;
	own = NULL;
	if (type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
out:
	if (r)
		MHD_destroy_response(r);
	free(own);
	return ret;
}

/* The client's address in 16 bytes: IPv6, or IPv4 mapped (::ffff:a.b.c.d), as a v6 socket sees it. */
static void client_addr(struct MHD_Connection *c, unsigned char out[16])
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	memset(out, 0, 16);
	if (sa && sa->sa_family == AF_INET6) {
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	} else if (sa && sa->sa_family == AF_INET) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	}
}

static enum webauth authorised(struct http_server *s, struct MHD_Connection *c)
{
	char *pass = NULL, *user;
	unsigned char addr[16];
	enum webauth a;

	if (!s->wc || !s->wc->nusers)
		return WEBAUTH_OK;
	client_addr(c, addr);
	user = MHD_basic_auth_get_username_password(c, &pass);
	a = webconfig_auth(s->wc, addr, user, pass, now_ns());
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return a;
}

/* An answer of /metrics in flight: the source's, whose source it is, and to which address. */
struct answer {
	struct http_server *s;
	void *a;
	unsigned char addr[16];
};

/* One more answer in flight to addr; false if it has ANSWERS_PER_ADDR already (or no entry is free). */
static bool answers_take(struct http_server *s, const unsigned char addr[16])
{
	int at = -1;
	bool ok = false;

	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < ANSWER_ADDRS; i++) {
		if (s->answers[i].n && !memcmp(s->answers[i].addr, addr, 16)) {
			at = i;
			break;
		}
		if (!s->answers[i].n && at < 0)
			at = i;
	}
	if (at >= 0 && s->answers[at].n < ANSWERS_PER_ADDR) {
		memcpy(s->answers[at].addr, addr, 16);
		s->answers[at].n++;
		ok = true;
	}
	pthread_mutex_unlock(&s->lock);
	return ok;
}

static void answers_give(struct http_server *s, const unsigned char addr[16])
{
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < ANSWER_ADDRS; i++)
		if (s->answers[i].n && !memcmp(s->answers[i].addr, addr, 16)) {
			s->answers[i].n--;
			break;
		}
	pthread_mutex_unlock(&s->lock);
}

/* libmicrohttpd asks for the answer's next piece: the source's, as rendered. */
static ssize_t answer_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct answer *w = cls;
	ssize_t n = w->s->src.read(w->a, buf, max);

	return n > 0 ? n : n == 0 ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
}

/* Read to its end, cut short, or never read (HEAD): libmicrohttpd lets it go. */
static void answer_close(void *cls)
{
	struct answer *w = cls;

	w->s->src.close(w->a);
	answers_give(w->s, w->addr);
	free(w);
}

/* The source's answer in format f for addr: NULL with -errno in *err (-ENOMEM, or the source's). */
static struct answer *answer_new(struct http_server *s, const unsigned char addr[16], enum expo_format f, int *err)
{
	struct answer *w = calloc(1, sizeof(*w));

	*err = -ENOMEM;
	if (!w || !(w->a = s->src.open(s->src.ctx, f, err)))
		goto fail;
	memcpy(w->addr, addr, 16);
	w->s = s;
	return w;
fail:
	free(w);
	return NULL;
}

/*
 * Answer /metrics by sending it as it is rendered (chunked), so the
 * exposition, tens of MB with many cgroups, is never all in memory. Its
 * length is therefore not known before its end.
 */
static enum MHD_Result metrics(struct http_server *s, struct MHD_Connection *c)
{
	static char failed[] = "500 internal error: the metrics could not be gathered (see cgsched's log)\n";
	static char busy[] = "503 busy: as many scrapes as cgsched answers at once are being sent; retry\n";
	static char addr_busy[] = "503 busy: this address is being sent as many scrapes as it may be at once; retry\n";
	enum expo_format f = expo_negotiate(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	unsigned char addr[16];
	struct MHD_Response *r = NULL;
	struct answer *w = NULL;
	enum MHD_Result ret = MHD_NO;
	bool taken = false; /* one of addr's answers in flight: ours to give back until w has it */
	int err = -ENOMEM;

	client_addr(c, addr);
	if (!answers_take(s, addr))
		return answer(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", addr_busy, strlen(addr_busy),
			      false);
	taken = true;
	if (!(w = answer_new(s, addr, f, &err))) {
		/* A failure is said, never covered by older bytes. */
		if (err == -EBUSY)
			ret = answer(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", busy, strlen(busy), false);
		else
			ret = answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", failed, strlen(failed),
				     false);
		goto out;
	}
	taken = false; /* w's now: answer_close gives it back */
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, ANSWER_BLOCK, answer_read, w, answer_close);
	if (!r)
		goto out;
	w = NULL; /* the response's now: it calls answer_close when it goes */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, expo_content_type(f));
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	if (ret == MHD_YES)
		conn_clock(s, c, s->answer_limit_ns, true);
out:
	if (r)
		MHD_destroy_response(r);
	if (w)
		answer_close(w);
	if (taken)
		answers_give(s, addr);
	return ret;
}

/* /healthz or /readyz: the source's verdict, 200 or 503, its line as the body. */
static enum MHD_Result health(struct http_server *s, struct MHD_Connection *c, bool ready)
{
	char buf[256];
	int bad = s->src.health(s->src.ctx, ready, buf, sizeof(buf));
	char *body = strdup(buf);

	if (!body)
		return MHD_NO;
	return answer(c, bad ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_OK, "text/plain; charset=utf-8", body,
		      strlen(body), true);
}

/* 401, asking for basic auth's credentials. */
static enum MHD_Result denied(struct MHD_Connection *c)
{
	static char body[] = "401 unauthorized\n";
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	ret = MHD_queue_basic_auth_fail_response(c, "cgsched", r);
	MHD_destroy_response(r);
	return ret;
}

/* The head announces a body: a length other than 0, or a transfer coding. */
static bool has_body(struct MHD_Connection *c)
{
	const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

	return (len && strcmp(len, "0")) ||
	       MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
}

static bool health_url(const char *url, bool *ready)
{
	*ready = !strcmp(url, "/readyz");
	return *ready || !strcmp(url, "/healthz");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_len, void **req)
{
	static char landing[] = "<html><head><title>cgsched</title></head><body><h1>cgsched export</h1>"
				"<p><a href=\"/metrics\">/metrics</a>: the scheduler's treatment of each cgroup "
				"(docs/metrics.md); <a href=\"/healthz\">/healthz</a> and "
				"<a href=\"/readyz\">/readyz</a>: its health.</p></body></html>\n";
	static char not_found[] = "404 not found: cgsched serves /metrics, /healthz and /readyz\n";
	static char bad_method[] = "405 method not allowed: GET or HEAD\n";
	static char busy[] = "503 busy: too many passwords to check just now; one that checked before goes on\n";
	struct http_server *s = cls;

	static char body_refused[] = "413 content too large: cgsched takes no request body\n";

	/*
	 * Everything is answered at the headers, on this first call, with the
	 * head's deadline still running. A body is never read: a response
	 * queued now makes libmicrohttpd drop the rest and close the
	 * connection after it. So a body sent slowly holds nothing.
	 */
	if (*req) {
		*upload_len = 0;
		return MHD_NO;
	}
	*req = s;
	if (has_body(c))
		return answer(c, MHD_HTTP_CONTENT_TOO_LARGE, "text/plain; charset=utf-8", body_refused,
			      strlen(body_refused), false);
	bool ready, is_health = s->src.health && health_url(url, &ready);
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
	/* Probes that carry no password, where the user asked for it (--health-without-auth). */
	if (is_health && s->src.health_open && get)
		return health(s, c, ready);
	/* Authentication first: an unauthorised client learns nothing, not even which paths exist. */
	enum webauth a = authorised(s, c);
	if (a == WEBAUTH_BUSY)
		return answer(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", busy, strlen(busy), false);
	if (a != WEBAUTH_OK)
		return denied(c);
	if (!get)
		return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", bad_method,
			      strlen(bad_method), false);
	if (is_health)
		return health(s, c, ready);
	if (!strcmp(url, "/"))
		return answer(c, MHD_HTTP_OK, "text/html; charset=utf-8", landing, strlen(landing), false);
	if (strcmp(url, "/metrics"))
		return answer(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", not_found, strlen(not_found), false);
	return metrics(s, c);
}

/* A server's own state, its reaper running (every signal blocked there, as in libmicrohttpd's thread). */
static struct http_server *server_new(struct webconfig *wc, const struct http_source *src)
{
	struct http_server *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;
	sigset_t all, old;

	if (!s)
		return NULL;
	*s = (struct http_server){ .fd = -1, .wc = wc, .src = *src, .answer_limit_ns = ANSWER_DEADLINE_S * 1000000000ULL };
	const char *e = getenv(ANSWER_DEADLINE_ENV);
	if (e && atoi(e) > 0)
		s->answer_limit_ns = atoi(e) * 1000000000ULL;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	s->reaper_on = !pthread_create(&s->reaper, NULL, reaper, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->reaper_on)
		goto fail;
	return s;
fail:
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return NULL;
}

/* After its daemon stopped (every answer closed then). */
static void server_free(struct http_server *s)
{
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	if (s->reaper_on)
		pthread_join(s->reaper, NULL);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
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
 * Start the daemon on s->fd, with s->wc's TLS and users. Returns 0, or -1
 * with err. The server's thread inherits this thread's signal mask, which
 * blocks every signal there. So SIGTERM, SIGINT and SIGHUP reach the
 * command's own thread, and interrupt its wait.
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
				MHD_OPTION_NOTIFY_CONNECTION, on_conn, s,
				MHD_OPTION_CONNECTION_LIMIT, CONN_LIMIT,
				/* One address cannot hold many: slow clients need many addresses, and the deadline ends theirs. */
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, PER_IP_LIMIT,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
				MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
				/* Inactivity, also while an answer is read: a reader that stops holds a slot no longer. */
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_S,
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
	struct http_server *s = NULL;
	char why[160], host[INET6_ADDRSTRLEN] = "";
	bool tls = o->wc && o->wc->cert_pem;
	int one = 1, zero = 0;

	*out = NULL;
	if (http_parse_listen(o->listen, &ss, &len, why, sizeof(why))) {
		snprintf(err, errlen, "--listen %s: %s", o->listen, why);
		return -1;
	}
	if (tls && !MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		snprintf(err, errlen, "--web-config asks for TLS, and this libmicrohttpd was built without it");
		return -1;
	}
	if (!(s = server_new(o->wc, &o->src))) {
		snprintf(err, errlen, "out of memory, or no thread");
		return -1;
	}
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
	/* ":PORT" means IPv4 too, whatever net.ipv6.bindv6only says. */
	if (s->fd >= 0 && ss.ss_family == AF_INET6 && !host_given(o->listen))
		setsockopt(s->fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->fd, (struct sockaddr *)&ss, len) || listen(s->fd, 64)) {
		int e = errno;
		snprintf(err, errlen, "--listen %s: %s%s", o->listen, strerror(e),
			 e == EADDRINUSE ? " (another program has the port: choose another with --listen)" :
			 e == EADDRNOTAVAIL ? " (no interface of this host has that address)" : "");
		goto fail;
	}
	s->family = ss.ss_family;
	if (start_daemon(s, o->listen, err, errlen))
		goto fail;
	s->fd = -1; /* the daemon's now: MHD_stop_daemon closes it */
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
fail:
	http_stop(s);
	return -1;
}

const char *http_url(const struct http_server *s)
{
	return s->url;
}

int http_restart(struct http_server **sp, struct webconfig *wc, const char *listen, char *err, size_t errlen)
{
	struct http_server *old = *sp, *s = server_new(wc, &old->src);
	bool tls = wc && wc->cert_pem;
	const char *rest;
	char why[256];
	size_t n;
	int fd;

	if (!s) {
		snprintf(err, errlen, "out of memory, or no thread");
		return -1;
	}
	s->family = old->family;
	/* The listening socket, taken from the old daemon, which accepts no more from now. */
	fd = MHD_quiesce_daemon(old->d);
	if (fd < 0) {
		snprintf(err, errlen, "cannot take the listening socket over from the running server");
		goto fail;
	}
	s->fd = fd;
	if (start_daemon(s, listen, err, errlen)) {
		/* The old config serves on: a daemon of its own again on the socket. */
		MHD_stop_daemon(old->d);
		old->d = NULL;
		old->fd = fd;
		s->fd = -1;
		n = strlen(err);
		if (start_daemon(old, listen, why, sizeof(why)))
			snprintf(err + n, errlen - n, "; nor could the old config serve again: %s", why);
		else
			old->fd = -1;
		goto fail;
	}
	s->fd = -1;
	/* In-flight requests of the old daemon end with it (a scrape retries at its next interval). */
	MHD_stop_daemon(old->d);
	/* The URL's scheme follows TLS, turned on or off by the reload. */
	rest = strstr(old->url, "://");
	if (rest)
		snprintf(s->url, sizeof(s->url), "%s%.*s", tls ? "https" : "http", (int)sizeof(s->url) - 6, rest);
	old->d = NULL;
	http_stop(old);
	*sp = s;
	return 0;
fail:
	server_free(s);
	return -1;
}

void http_stop(struct http_server *s)
{
	if (!s)
		return;
	if (s->d)
		MHD_stop_daemon(s->d);
	if (s->fd >= 0)
		close(s->fd);
	if (s->reaped)
		cgs_debug("http: %llu connection%s ended for a request head not in within %d s",
			  (unsigned long long)s->reaped, s->reaped == 1 ? "" : "s", HEAD_DEADLINE_S);
	if (s->reaped_answers)
		cgs_debug("http: %llu answer%s ended, not read to the end within %llu s",
			  (unsigned long long)s->reaped_answers, s->reaped_answers == 1 ? "" : "s",
			  (unsigned long long)(s->answer_limit_ns / 1000000000ULL));
	server_free(s);
}
