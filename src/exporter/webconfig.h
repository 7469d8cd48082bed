/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The --web-config file of cgsched export. It follows part of the
 * Prometheus exporter toolkit's web configuration
 * (docs/web-configuration.md there):
 *
 *   tls_server_config:
 *     cert_file: server.crt   # PEM; relative to the config file's directory
 *     key_file: server.key
 *     min_version: TLS12      # TLS10, TLS11, TLS12 (default) or TLS13
 *   basic_auth_users:
 *     alice: $2y$10$...       # bcrypt hashes only
 *
 * Both sections are optional: an empty file means plain HTTP, no
 * authentication. Every other key of the toolkit (client_ca_file,
 * cipher_suites, http_server_config, ...) is refused, not ignored: a
 * setting the operator believes in must not silently do nothing.
 */
#ifndef CGS_WEBCONFIG_H
#define CGS_WEBCONFIG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* "$2y$10$" and 53 characters of bcrypt's base64. */
#define WEBCONFIG_BCRYPT_LEN 60

struct crypt_data;

/* Addresses whose bcrypt time is kept apart (webconfig_auth): far above a host's scrapers. */
#define WEBCONFIG_ADDRS 64

/* A client address's bcrypt time not yet paid back, as of at_ns. */
struct webaddr {
	unsigned char addr[16];     /* IPv6, or IPv4 mapped (::ffff:a.b.c.d) */
	uint64_t debt_ns, at_ns;
	bool used;
	bool known;                 /* a password from it checked right before */
};

struct webuser {
	char *name;
	char *hash;
	/* private: the last password that verified, so a scrape repeating it costs no bcrypt */
	char *ok_pw;
	size_t ok_len;
};

struct webconfig {
	char *cert_file, *key_file; /* resolved paths; NULL: plain HTTP */
	char *cert_pem, *key_pem;   /* their contents, NUL-terminated (webconfig_load reads them); NULL when no TLS */
	int min_tls;                /* 10, 11, 12 or 13 (TLS version x10); 12 by default */
	size_t nusers;
	struct webuser *users;      /* none: no authentication */
	/* private: bcrypt's scratch (32 KiB, kept), and the hash an unknown user is checked against */
	struct crypt_data *crypt;
	char dummy_hash[WEBCONFIG_BCRYPT_LEN + 1];
	/* private: bcrypt CPU time of unknown addresses not yet paid back (webconfig_auth), as of debt_at_ns */
	uint64_t debt_ns, debt_at_ns;
	struct webaddr addrs[WEBCONFIG_ADDRS]; /* private: each address's own */
	pthread_mutex_t lock;       /* private: webconfig_auth and webconfig_carry */
};

/*
 * Parse YAML text. base_dir: for relative cert/key paths (NULL: as given).
 * 0, or -1 with one line (no newline) in err, "line N: ..." where the file
 * says where. Does not read the cert/key files. On error *wc holds nothing
 * to free (webconfig_free is harmless all the same).
 */
int webconfig_parse(const char *text, size_t len, const char *base_dir, struct webconfig *wc, char *err,
		    size_t errlen);
/*
 * Read and parse the file at path, then read cert/key files into
 * cert_pem/key_pem (each must hold PEM of its kind). 0, or -1 with the one
 * line in err, prefixed by the path ("FILE: line 3: ..." or "FILE:
 * cert_file /x/y: No such file or directory").
 */
int webconfig_load(const char *path, struct webconfig *wc, char *err, size_t errlen);
/* Frees and zeroes all, the cached passwords and the key's PEM first wiped. */
void webconfig_free(struct webconfig *wc);
/*
 * True if the config has users and user/password match one (bcrypt), or
 * if it has no users. A wrong password or an unknown user costs one full
 * bcrypt, so timing tells neither. An unknown user is checked against a
 * dummy hash of the first user's cost. A repeat of a user's last right
 * password is compared in constant time, without bcrypt. Not thread-safe:
 * the cache and bcrypt's scratch in *wc are shared by all calls. It needs
 * no lock if only one thread calls it at a time.
 */
bool webconfig_check_user(struct webconfig *wc, const char *user, const char *password);

/* A right password remembered for that user: no bcrypt needed (constant time). */
bool webconfig_cached(const struct webconfig *wc, const char *user, const char *password);

/*
 * The server's check: webconfig_check_user within budgets of bcrypt time,
 * for a client at addr (16 bytes: IPv6, or IPv4 mapped). Each address has
 * its own: a second's burst, then 1/WEBCONFIG_BCRYPT_SHARE of the clock
 * (now_ns: monotonic). Addresses that never checked a password right
 * share one more: WEBCONFIG_STRANGERS_BURST_NS, then
 * 1/WEBCONFIG_STRANGERS_SHARE of the clock. Past a budget, a password not
 * remembered is not checked (WEBAUTH_BUSY, answered 503). So a stranger's
 * guesses cannot hold the server's thread, at any hash cost, and a
 * guesser at one address cannot lock a scraper at another out. A
 * scraper whose password checked before goes on, from the cache.
 * Thread-safe (a lock in *wc).
 */
#define WEBCONFIG_BCRYPT_SHARE 4
#define WEBCONFIG_BCRYPT_BURST_NS 1000000000ULL
#define WEBCONFIG_STRANGERS_SHARE 2
#define WEBCONFIG_STRANGERS_BURST_NS 2000000000ULL
enum webauth { WEBAUTH_OK, WEBAUTH_DENIED, WEBAUTH_BUSY };
enum webauth webconfig_auth(struct webconfig *wc, const unsigned char addr[16], const char *user,
			    const char *password, uint64_t now_ns);
/*
 * Before serving with wc, a reload of old: keep old's remembered passwords
 * for users whose name and hash are unchanged, and every address's budget.
 * So a reload neither asks a scraper for a bcrypt again nor gives guessers
 * a fresh budget. old may be in use meanwhile (its lock is taken).
 */
void webconfig_carry(struct webconfig *wc, struct webconfig *old);

#endif
