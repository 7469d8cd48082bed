// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <crypt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "lib/util.h"
#include "exporter/webconfig.h"

/* Far above any real config or certificate chain; read_file_bounded refuses more. */
#define WEBCONFIG_MAX (1u << 20)
#define PEM_MAX (1u << 20)
/* Room for an escaped name or path in a message. */
#define ESC_MAX 256

#define HTPASSWD_HINT "make one with htpasswd -nBC 10 \"\" | tr -d ':\\n'"
#define HASH_FORMAT "expected $2y$10$ followed by 53 characters; " HTPASSWD_HINT

static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

struct ctx {
	yaml_document_t *doc;
	const char *base_dir;
	struct webconfig *wc;
	char *err;
	size_t errlen;
};

/* The one error line, "line N: " first when a node says where. Always -1. */
static int __attribute__((format(printf, 3, 4))) fail(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	size_t off = 0;

	if (!c->err || !c->errlen)
		return -1;
	if (n) {
		int k = snprintf(c->err, c->errlen, "line %zu: ", (size_t)n->start_mark.line + 1);
		off = k < 0 ? 0 : (size_t)k < c->errlen ? (size_t)k : c->errlen - 1;
	}
	va_start(ap, fmt);
	vsnprintf(c->err + off, c->errlen - off, fmt, ap);
	va_end(ap);
	return -1;
}

static yaml_node_t *node(struct ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

static const char *sval(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* The file's text goes into messages escaped: one line, nothing for a terminal to act on. */
static const char *esc(const char *s, char *buf)
{
	return text_escape(s, buf, ESC_MAX);
}

/* YAML's null (an empty value, ~, null): a section or setting left out. */
static bool is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE)
		return false;
	if (!n->data.scalar.length)
		return true;
	v = sval(n);
	return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL"));
}

static const char *kind(const yaml_node_t *n)
{
	return n->type == YAML_MAPPING_NODE ? "a mapping" : n->type == YAML_SEQUENCE_NODE ? "a list" : "a string";
}

/* A scalar's text; NULL (the error said) when n is none or holds a NUL, which C strings would cut. */
static const char *scalar(struct ctx *c, const yaml_node_t *n, const char *what)
{
	if (n->type != YAML_SCALAR_NODE)
		return fail(c, n, "%s: expected a string, not %s", what, kind(n)), NULL;
	if (memchr(n->data.scalar.value, 0, n->data.scalar.length))
		return fail(c, n, "%s: contains a NUL byte", what), NULL;
	return sval(n);
}

/* Pair i's key, a name, given once in its mapping; NULL (the error said) otherwise. */
static const char *key_name(struct ctx *c, const yaml_node_t *map, yaml_node_pair_t *p, const char *section)
{
	const yaml_node_t *k = node(c, p->key);
	const char *pre = section ? section : "", *sep = section ? ": " : "";
	char buf[ESC_MAX];

	if (k->type != YAML_SCALAR_NODE)
		return fail(c, k, "%s%sexpected a name as key, not %s", pre, sep, kind(k)), NULL;
	if (memchr(k->data.scalar.value, 0, k->data.scalar.length))
		return fail(c, k, "%s%sa key contains a NUL byte", pre, sep), NULL;
	for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
		const yaml_node_t *o = node(c, q->key);
		if (o->type == YAML_SCALAR_NODE && o->data.scalar.length == k->data.scalar.length &&
		    !memcmp(o->data.scalar.value, k->data.scalar.value, k->data.scalar.length))
			return fail(c, k, "%s%s%s given twice", pre, sep, esc(sval(k), buf)), NULL;
	}
	return sval(k);
}

static char *resolve(const char *base, const char *path)
{
	size_t bl;
	char *out;

	if (path[0] == '/' || !base || !*base)
		return strdup(path);
	bl = strlen(base);
	if (asprintf(&out, "%s%s%s", base, base[bl - 1] == '/' ? "" : "/", path) < 0)
		return NULL;
	return out;
}

static int parse_tls(struct ctx *c, const yaml_node_t *n)
{
	const yaml_node_t *certn = NULL, *keyn = NULL, *minn = NULL;
	const char *cert = NULL, *key = NULL;
	struct webconfig *wc = c->wc;

	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(c, n, "tls_server_config: expected a mapping (cert_file, key_file, min_version), not %s",
			    kind(n));
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = key_name(c, n, p, "tls_server_config"), *v;
		const yaml_node_t *vn = node(c, p->value);
		char buf[ESC_MAX];

		if (!k)
			return -1;
		if (!strcmp(k, "cert_file") || !strcmp(k, "key_file") || !strcmp(k, "min_version")) {
			char what[64];
			snprintf(what, sizeof(what), "tls_server_config: %s", k);
			if (!(v = scalar(c, vn, what)))
				return -1;
			if (is_null(vn))
				continue;
			if (k[0] == 'c')
				cert = v, certn = vn;
			else if (k[0] == 'k')
				key = v, keyn = vn;
			else
				minn = vn;
			continue;
		}
		return fail(c, node(c, p->key), "tls_server_config: %s is not supported by cgsched", esc(k, buf));
	}
	if (certn && !keyn)
		return fail(c, certn, "tls_server_config: cert_file given without key_file");
	if (keyn && !certn)
		return fail(c, keyn, "tls_server_config: key_file given without cert_file");
	/* A TLS setting without TLS would be a promise not kept. */
	if (minn && !certn)
		return fail(c, minn, "tls_server_config: min_version given without cert_file and key_file");
	if (minn) {
		const char *v = sval(minn);
		char buf[ESC_MAX];
		if (strlen(v) != 5 || strncmp(v, "TLS1", 4) || v[4] < '0' || v[4] > '3')
			return fail(c, minn, "tls_server_config: min_version: %s is not one of TLS10, TLS11, TLS12, TLS13",
				    esc(v, buf));
		wc->min_tls = 10 + v[4] - '0';
	}
	if (cert) {
		if (!(wc->cert_file = resolve(c->base_dir, cert)) || !(wc->key_file = resolve(c->base_dir, key)))
			return fail(c, NULL, "out of memory");
	}
	return 0;
}

/*
 * Returns NULL if h is a bcrypt hash, else why not. A bcrypt hash is $2a$,
 * $2b$ or $2y$, a cost of 04..31, $, then a 22-character salt and a
 * 31-character hash in bcrypt's base64.
 */
static const char *bcrypt_bad(const char *h, size_t len)
{
	int cost;

	if (len != WEBCONFIG_BCRYPT_LEN || h[0] != '$' || h[1] != '2' || !h[2] || !strchr("aby", h[2]) ||
	    h[3] != '$' || h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' || h[6] != '$')
		return HASH_FORMAT;
	for (size_t i = 7; i < len; i++)
		if (!h[i] || !strchr(b64, h[i]))
			return HASH_FORMAT;
	cost = (h[4] - '0') * 10 + h[5] - '0';
	/*
	 * Every request with credentials costs a bcrypt in the server's one
	 * thread. Cost 14 takes about a second, already too slow for a
	 * scrape. Above it, a stranger's wrong passwords would stall scraping
	 * for minutes.
	 */
	if (cost < 4 || cost > 14)
		return "its cost is not 04..14 (each check costs 2^cost rounds; 10 is usual); " HTPASSWD_HINT;
	/*
	 * The salt's 16 bytes in 22 characters end in 4 bits of padding. The
	 * hash's 23 bytes in 31 characters end in 2. bcrypt writes them as
	 * zeros and its output is compared whole, so a hash with other bits
	 * there could never match.
	 */
	if ((strchr(b64, h[28]) - b64) & 15 || (strchr(b64, h[59]) - b64) & 3)
		return "its salt or hash ends in a character bcrypt never writes; " HTPASSWD_HINT;
	return NULL;
}

static int parse_users(struct ctx *c, const yaml_node_t *n)
{
	struct webconfig *wc = c->wc;
	size_t count;

	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(c, n, "basic_auth_users: expected a mapping of user names to bcrypt hashes, not %s",
			    kind(n));
	count = n->data.mapping.pairs.top - n->data.mapping.pairs.start;
	if (!count)
		return 0;
	if (!(wc->users = calloc(count, sizeof(*wc->users))))
		return fail(c, NULL, "out of memory");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const yaml_node_t *kn = node(c, p->key), *vn = node(c, p->value);
		const char *name, *why;
		char buf[ESC_MAX];
		struct webuser *u;

		if (kn->type == YAML_SCALAR_NODE && is_null(kn))
			return fail(c, kn, "basic_auth_users: empty user name");
		if (!(name = key_name(c, n, p, "basic_auth_users")))
			return -1;
		/* Basic auth sends "user:password" and splits at the first colon. */
		if (strchr(name, ':'))
			return fail(c, kn, "basic_auth_users: %s: a user name cannot contain ':'", esc(name, buf));
		if (vn->type != YAML_SCALAR_NODE)
			why = HASH_FORMAT;
		else
			why = bcrypt_bad(sval(vn), vn->data.scalar.length);
		if (why)
			return fail(c, vn, "basic_auth_users: %s: not a bcrypt hash (%s)", esc(name, buf), why);
		u = &wc->users[wc->nusers++];
		/* Counted first: webconfig_free frees what was copied. */
		if (!(u->name = strdup(name)) || !(u->hash = strdup(sval(vn))))
			return fail(c, NULL, "out of memory");
	}
	/*
	 * An unknown user is checked against a hash of the first user's cost, so
	 * it takes as long as a known one; the salt and hash are any valid pair.
	 */
	snprintf(wc->dummy_hash, sizeof(wc->dummy_hash), "%.7s%s", wc->users[0].hash,
		 "B5I5AKDMLg.WSy5ioLB1mujIgifhwP5eoYT2Ge0n6X1voeOoD9nhS");
	return 0;
}

static int parse_doc(struct ctx *c)
{
	yaml_node_t *root = yaml_document_get_root_node(c->doc);

	if (!root || is_null(root))
		return 0;
	if (root->type != YAML_MAPPING_NODE)
		return fail(c, root, "expected a mapping with tls_server_config and/or basic_auth_users, not %s",
			    kind(root));
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const char *k = key_name(c, root, p, NULL);
		const yaml_node_t *v = node(c, p->value);
		char buf[ESC_MAX];
		int rc;

		if (!k)
			return -1;
		if (!strcmp(k, "tls_server_config"))
			rc = parse_tls(c, v);
		else if (!strcmp(k, "basic_auth_users"))
			rc = parse_users(c, v);
		else
			rc = fail(c, node(c, p->key), "%s is not supported by cgsched", esc(k, buf));
		if (rc)
			return rc;
	}
	return 0;
}

static int yaml_fail(struct ctx *c, const yaml_parser_t *y)
{
	const char *what = y->problem ? y->problem : "cannot parse";

	if (y->error == YAML_MEMORY_ERROR)
		return fail(c, NULL, "out of memory");
	/* The reader (bad UTF-8, control bytes) knows a byte offset, not a line. */
	if (y->error == YAML_READER_ERROR)
		return fail(c, NULL, "byte %zu: %s", y->problem_offset, what);
	if (y->context)
		return fail(c, NULL, "line %zu: %s (%s at line %zu)", (size_t)y->problem_mark.line + 1, what,
			    y->context, (size_t)y->context_mark.line + 1);
	return fail(c, NULL, "line %zu: %s", (size_t)y->problem_mark.line + 1, what);
}

static void init(struct webconfig *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->min_tls = 12;
	pthread_mutex_init(&wc->lock, NULL);
}

int webconfig_parse(const char *text, size_t len, const char *base_dir, struct webconfig *wc, char *err,
		    size_t errlen)
{
	struct ctx c = { .base_dir = base_dir, .wc = wc, .err = err, .errlen = errlen };
	yaml_parser_t y;
	yaml_document_t doc, next;
	int rc;

	init(wc);
	if (err && errlen)
		err[0] = 0;
	if (!yaml_parser_initialize(&y))
		return fail(&c, NULL, "out of memory");
	yaml_parser_set_input_string(&y, (const unsigned char *)text, len);
	if (!yaml_parser_load(&y, &doc)) {
		rc = yaml_fail(&c, &y);
		goto out;
	}
	c.doc = &doc; /* loaded: out deletes it */
	rc = parse_doc(&c);
	/* A second document would be read by nobody: refuse it rather than drop it. */
	if (!rc && yaml_document_get_root_node(&doc)) {
		if (!yaml_parser_load(&y, &next)) {
			rc = yaml_fail(&c, &y);
		} else {
			yaml_node_t *r = yaml_document_get_root_node(&next);
			if (r)
				rc = fail(&c, r, "more than one YAML document");
			yaml_document_delete(&next);
		}
	}
out:
	if (c.doc)
		yaml_document_delete(c.doc);
	yaml_parser_delete(&y);
	if (rc)
		webconfig_free(wc);
	return rc;
}

/* A file named by the config, with the PEM block it must hold. */
static int read_pem(const char *cfg, const char *what, const char *path, const char *marker, char **out,
		    char *err, size_t errlen)
{
	char b1[ESC_MAX], b2[ESC_MAX];
	const char *why;
	size_t len;

	if (read_file_bounded(path, PEM_MAX, out, &len, &why) < 0) {
		snprintf(err, errlen, "%s: %s %s: %s", esc(cfg, b1), what, esc(path, b2), why);
		return -1;
	}
	/* Caught here with its name, not later as a TLS library's riddle. */
	if (memchr(*out, 0, len) || !strstr(*out, "-----BEGIN ") || !strstr(*out, marker)) {
		snprintf(err, errlen, "%s: %s %s: not PEM (no \"%s\" in it)", esc(cfg, b1), what, esc(path, b2),
			 marker);
		return -1;
	}
	return 0;
}

/* The file at path parsed into wc: 0, or -1 with err, and then wc holds nothing to free. */
static int parse_file(const char *path, struct webconfig *wc, char *err, size_t errlen)
{
	char e[512], b[ESC_MAX], *text = NULL, *dir = NULL;
	const char *why, *slash;
	size_t len;
	int rc = -1;

	/* It sets who may read the metrics: a file others can write is refused. */
	if (read_file_config(path, WEBCONFIG_MAX, &text, &len, &why) < 0) {
		snprintf(err, errlen, "%s: %s", esc(path, b), why);
		goto out;
	}
	/* Relative paths in it are relative to its directory, as in Prometheus. */
	if ((slash = strrchr(path, '/')) && !(dir = strndup(path, slash - path + 1))) {
		snprintf(err, errlen, "%s: out of memory", esc(path, b));
		goto out;
	}
	if (webconfig_parse(text, len, dir, wc, e, sizeof(e))) {
		snprintf(err, errlen, "%s: %s", esc(path, b), e);
		goto out;
	}
	rc = 0;
out:
	free(text);
	free(dir);
	return rc;
}

int webconfig_load(const char *path, struct webconfig *wc, char *err, size_t errlen)
{
	char sink[1];

	init(wc);
	if (!err || !errlen)
		err = sink, errlen = sizeof(sink);
	if (parse_file(path, wc, err, errlen))
		return -1;
	if (wc->cert_file &&
	    (read_pem(path, "cert_file", wc->cert_file, "CERTIFICATE-----", &wc->cert_pem, err, errlen) ||
	     read_pem(path, "key_file", wc->key_file, "PRIVATE KEY-----", &wc->key_pem, err, errlen)))
		goto fail;
	return 0;
fail:
	webconfig_free(wc);
	return -1;
}

static void wipe_free(char *s, size_t len)
{
	if (s) {
		explicit_bzero(s, len);
		free(s);
	}
}

void webconfig_free(struct webconfig *wc)
{
	for (size_t i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
		wipe_free(wc->users[i].ok_pw, wc->users[i].ok_len);
	}
	free(wc->users);
	free(wc->cert_file);
	free(wc->key_file);
	free(wc->cert_pem);
	if (wc->key_pem)
		wipe_free(wc->key_pem, strlen(wc->key_pem));
	if (wc->crypt)
		wipe_free((char *)wc->crypt, sizeof(*wc->crypt));
	pthread_mutex_destroy(&wc->lock);
	memset(wc, 0, sizeof(*wc));
}

/*
 * Compare in a time that depends on a's length alone, never on where b
 * differs or ends. The caller passes the client's password or user name
 * as a.
 */
static bool ct_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	volatile unsigned char d = alen != blen;

	for (size_t i = 0; i < alen; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)(blen ? b[i < blen ? i : 0] : 0);
	return !d;
}

bool webconfig_check_user(struct webconfig *wc, const char *user, const char *password)
{
	struct webuser *u = NULL;
	const char *setting, *out;
	size_t ulen, plen;
	bool ok;

	if (!wc->nusers)
		return true;
	if (!user || !password)
		return false;
	ulen = strlen(user);
	plen = strlen(password);
	/* Every name compared, none skipped at the first match. */
	for (size_t i = 0; i < wc->nusers; i++)
		if (ct_eq(user, ulen, wc->users[i].name, strlen(wc->users[i].name)) && !u)
			u = &wc->users[i];
	if (u && u->ok_pw && ct_eq(password, plen, u->ok_pw, u->ok_len))
		return true;
	if (!wc->crypt && !(wc->crypt = calloc(1, sizeof(*wc->crypt))))
		return false;
	setting = u ? u->hash : wc->dummy_hash;
	out = crypt_rn(password, setting, wc->crypt, sizeof(*wc->crypt));
	ok = u && out && ct_eq(out, strlen(out), setting, strlen(setting));
	if (ok) {
		char *copy = malloc(plen + 1);
		/* No room to cache: still right, only slower next time. */
		if (copy) {
			memcpy(copy, password, plen + 1);
			wipe_free(u->ok_pw, u->ok_len);
			u->ok_pw = copy;
			u->ok_len = plen;
		}
	}
	/* bcrypt's scratch held the password's key schedule. */
	explicit_bzero(wc->crypt, sizeof(*wc->crypt));
	return ok;
}

bool webconfig_cached(const struct webconfig *wc, const char *user, const char *password)
{
	size_t ulen = strlen(user), plen = strlen(password);
	bool hit = false;

	for (size_t i = 0; i < wc->nusers; i++) {
		const struct webuser *u = &wc->users[i];
		/* Every user compared, none skipped: the time tells nothing. */
		hit |= ct_eq(user, ulen, u->name, strlen(u->name)) && u->ok_pw && ct_eq(password, plen, u->ok_pw, u->ok_len);
	}
	return hit;
}

/* Debt less what the clock paid back since *at (at 1/share of it), as of now. */
static void pay_back(uint64_t *debt, uint64_t *at, uint64_t now, unsigned share)
{
	uint64_t paid = now > *at ? (now - *at) / share : 0;

	*debt = *debt > paid ? *debt - paid : 0;
	*at = now;
}

/*
 * addr's budget: its entry, or a new one. When all are taken, the stranger
 * with the least debt gives its entry up (the strangers' budget still
 * bounds it), else the known address seen longest ago.
 */
static struct webaddr *addr_entry(struct webconfig *wc, const unsigned char addr[16], uint64_t now)
{
	struct webaddr *free_e = NULL, *stranger = NULL, *known = NULL;

	for (size_t i = 0; i < WEBCONFIG_ADDRS; i++) {
		struct webaddr *e = &wc->addrs[i];
		if (e->used && !memcmp(e->addr, addr, 16))
			return e;
		if (!e->used) {
			free_e = free_e ? free_e : e;
			continue;
		}
		pay_back(&e->debt_ns, &e->at_ns, now, WEBCONFIG_BCRYPT_SHARE);
		if (!e->known && (!stranger || e->debt_ns < stranger->debt_ns))
			stranger = e;
		if (e->known && (!known || e->at_ns < known->at_ns))
			known = e;
	}
	struct webaddr *e = free_e ? free_e : stranger ? stranger : known;
	*e = (struct webaddr){ .used = true, .at_ns = now };
	memcpy(e->addr, addr, 16);
	return e;
}

enum webauth webconfig_auth(struct webconfig *wc, const unsigned char addr[16], const char *user,
			    const char *password, uint64_t now_ns)
{
	enum webauth a = WEBAUTH_BUSY;
	struct webaddr *e;

	if (!wc->nusers)
		return WEBAUTH_OK;
	if (!user || !password)
		return WEBAUTH_DENIED;
	pthread_mutex_lock(&wc->lock);
	e = addr_entry(wc, addr, now_ns);
	if (webconfig_cached(wc, user, password)) {
		e->known = true;
		a = WEBAUTH_OK;
		goto out;
	}
	/*
	 * bcrypt's time is paid back at a fraction of the clock. So after a
	 * burst, the server's thread spends at most a quarter of a CPU on one
	 * address's guesses, and half a CPU on all strangers' together,
	 * whatever the hash's cost.
	 */
	pay_back(&e->debt_ns, &e->at_ns, now_ns, WEBCONFIG_BCRYPT_SHARE);
	pay_back(&wc->debt_ns, &wc->debt_at_ns, now_ns, WEBCONFIG_STRANGERS_SHARE);
	if (e->debt_ns <= WEBCONFIG_BCRYPT_BURST_NS && (e->known || wc->debt_ns <= WEBCONFIG_STRANGERS_BURST_NS)) {
		uint64_t c0 = thread_cpu_ns();
		bool ok = webconfig_check_user(wc, user, password);
		uint64_t spent = thread_cpu_ns() - c0;
		e->debt_ns += spent;
		if (!e->known)
			wc->debt_ns += spent;
		e->known |= ok;
		a = ok ? WEBAUTH_OK : WEBAUTH_DENIED;
	}
out:
	pthread_mutex_unlock(&wc->lock);
	return a;
}

void webconfig_carry(struct webconfig *wc, struct webconfig *old)
{
	pthread_mutex_lock(&old->lock);
	for (size_t i = 0; i < wc->nusers; i++) {
		struct webuser *u = &wc->users[i];
		for (size_t j = 0; j < old->nusers; j++) {
			const struct webuser *o = &old->users[j];
			if (strcmp(u->name, o->name) || strcmp(u->hash, o->hash) || !o->ok_pw || u->ok_pw)
				continue;
			/* No room: still right, only one bcrypt more. */
			if ((u->ok_pw = malloc(o->ok_len + 1))) {
				memcpy(u->ok_pw, o->ok_pw, o->ok_len + 1);
				u->ok_len = o->ok_len;
			}
		}
	}
	memcpy(wc->addrs, old->addrs, sizeof(wc->addrs));
	wc->debt_ns = old->debt_ns;
	wc->debt_at_ns = old->debt_at_ns;
	pthread_mutex_unlock(&old->lock);
}
