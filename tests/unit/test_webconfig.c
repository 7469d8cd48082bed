// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched export's --web-config: what is taken, what is refused and how it is said, bcrypt checks. */
#include <criterion/criterion.h>
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exporter/webconfig.h"

/* Password "pw". */
#define PW_HASH "$2b$10$aaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOyMe"

static int parse(const char *text, const char *base, struct webconfig *wc, char *err, size_t len)
{
	return webconfig_parse(text, strlen(text), base, wc, err, len);
}

/* The text must be refused with one line holding every one of the words. */
static void refused(const char *text, const char *w1, const char *w2)
{
	struct webconfig wc;
	char err[512];

	cr_assert_eq(parse(text, "/etc/cgsched", &wc, err, sizeof(err)), -1, "accepted: %s", text);
	cr_expect(!strchr(err, '\n'), "two lines: %s", err);
	cr_expect(strstr(err, w1), "'%s' not in '%s'", w1, err);
	if (w2)
		cr_expect(strstr(err, w2), "'%s' not in '%s'", w2, err);
	cr_expect_null(wc.users);
	cr_expect_null(wc.cert_file);
	webconfig_free(&wc);
}

Test(webconfig, empty)
{
	static const char *texts[] = { "", "# nothing\n\n  # at all\n", "---\n", "~\n",
				       "tls_server_config:\nbasic_auth_users:\n", "tls_server_config: {}\n" };
	struct webconfig wc;
	char err[256];

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		cr_assert_eq(parse(texts[i], NULL, &wc, err, sizeof(err)), 0, "'%s': %s", texts[i], err);
		cr_expect_null(wc.cert_file);
		cr_expect_null(wc.key_file);
		cr_expect_eq(wc.min_tls, 12);
		cr_expect_eq(wc.nusers, 0);
		cr_expect(webconfig_check_user(&wc, "anyone", "anything"), "no users: no authentication");
		cr_expect(webconfig_check_user(&wc, NULL, NULL));
		webconfig_free(&wc);
	}
}

Test(webconfig, full)
{
	struct webconfig wc;
	char err[256];
	const char *text = "# cgsched export --web-config\n"
			   "tls_server_config:\n"
			   "  cert_file: tls/server.crt\n"
			   "  key_file: /keys/server.key\n"
			   "  min_version: TLS13\n"
			   "basic_auth_users:\n"
			   "  alice: " PW_HASH "\n"
			   "  'bob smith': \"$2y$04$aaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOyMe\"\n"
			   "  carol: $2a$14$aaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOyMe\n";

	cr_assert_eq(parse(text, "/etc/cgsched", &wc, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(wc.cert_file, "/etc/cgsched/tls/server.crt");
	cr_expect_str_eq(wc.key_file, "/keys/server.key", "absolute paths stay");
	cr_expect_null(wc.cert_pem, "parse reads no files");
	cr_expect_eq(wc.min_tls, 13);
	cr_assert_eq(wc.nusers, 3);
	cr_expect_str_eq(wc.users[0].name, "alice");
	cr_expect_str_eq(wc.users[0].hash, PW_HASH);
	cr_expect_str_eq(wc.users[1].name, "bob smith");
	cr_expect_str_eq(wc.users[2].name, "carol");
	webconfig_free(&wc);

	/* Without base_dir, a trailing slash on it, and each version. */
	cr_assert_eq(parse("tls_server_config: {cert_file: a.crt, key_file: b.key, min_version: TLS10}", NULL, &wc,
			   err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(wc.cert_file, "a.crt");
	cr_expect_str_eq(wc.key_file, "b.key");
	cr_expect_eq(wc.min_tls, 10);
	webconfig_free(&wc);
	cr_assert_eq(parse("tls_server_config:\n  cert_file: a.crt\n  key_file: b.key\n  min_version: TLS11\n", "/",
			   &wc, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(wc.cert_file, "/a.crt");
	cr_expect_eq(wc.min_tls, 11);
	webconfig_free(&wc);
	cr_assert_eq(parse("tls_server_config:\n  cert_file: a.crt\n  key_file: b.key\n", "d/", &wc, err,
			   sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(wc.key_file, "d/b.key");
	cr_expect_eq(wc.min_tls, 12, "TLS12 by default");
	webconfig_free(&wc);
	webconfig_free(&wc); /* twice: harmless */
}

Test(webconfig, unsupported_keys)
{
	refused("http_server_config:\n  http2: false\n", "line 1: http_server_config", "not supported by cgsched");
	refused("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: ca.crt\n",
		"line 4: tls_server_config: client_ca_file", "not supported by cgsched");
	refused("tls_server_config:\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n", "cipher_suites",
		"not supported by cgsched");
	refused("tls_server_config:\n  cert: |\n    -----BEGIN CERTIFICATE-----\n", "cert is not supported", NULL);
	refused("basic_auth_users: {}\nrate_limit: 3\n", "line 2: rate_limit", "not supported by cgsched");
	/* Anything the file says reaches the message escaped, on one line. */
	refused("\"evil\\nkey\": 1\n", "evil\\x0akey", NULL);
}

Test(webconfig, tls_errors)
{
	refused("tls_server_config:\n  cert_file: a.crt\n", "line 2: tls_server_config: cert_file given without key_file",
		NULL);
	refused("tls_server_config:\n  key_file: a.key\n  cert_file:\n", "key_file given without cert_file", NULL);
	refused("tls_server_config:\n  min_version: TLS13\n", "min_version given without cert_file", NULL);
	refused("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS14\n", "line 4:",
		"TLS14 is not one of TLS10, TLS11, TLS12, TLS13");
	refused("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: tls12\n", "tls12", NULL);
	refused("tls_server_config:\n  cert_file: [a, b]\n  key_file: b\n", "line 2: tls_server_config: cert_file",
		"expected a string, not a list");
	refused("tls_server_config:\n  cert_file: a\n  key_file: {x: y}\n", "key_file: expected a string, not a mapping",
		NULL);
	refused("tls_server_config: [cert_file]\n", "line 1: tls_server_config: expected a mapping", NULL);
	refused("tls_server_config:\n  cert_file: a\n  cert_file: b\n  key_file: c\n", "line 3:", "cert_file given twice");
	refused("tls_server_config:\n  cert_file: \"a\\0b\"\n  key_file: c\n", "NUL", NULL);
}

Test(webconfig, user_errors)
{
	refused("basic_auth_users:\n  alice: " PW_HASH "\n  alice: " PW_HASH "\n", "line 3: basic_auth_users: alice",
		"given twice");
	refused("basic_auth_users:\n  '': " PW_HASH "\n", "line 2: basic_auth_users: empty user name", NULL);
	refused("basic_auth_users:\n  ? [a, b]\n  : " PW_HASH "\n", "basic_auth_users", "expected a name");
	refused("basic_auth_users:\n  'a:b': " PW_HASH "\n", "a:b", "cannot contain ':'");
	refused("basic_auth_users: [alice]\n", "basic_auth_users: expected a mapping", NULL);
	refused("basic_auth_users: alice\n", "basic_auth_users: expected a mapping", "not a string");
	/* Each way a hash can be wrong names the user and says what a good one is. */
	static const char *bad[] = {
		"secret",
		"",
		"$1$abc$defghijklmnop",                                             /* md5-crypt */
		"{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",                                /* htpasswd -s */
		"$2x$10$aaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOyMe",     /* $2x$: not taken */
		"$2y$1$aaaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOyMe",     /* one-digit cost */
		"$2y$10$aaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOyM",      /* 59 characters */
		"$2y$10$aaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOyMee",    /* 61 */
		"$2y$10$aaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOy+e",     /* not bcrypt's base64 */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[256];
		snprintf(text, sizeof(text), "basic_auth_users:\n  alice: '%s'\n", bad[i]);
		refused(text, "line 2: basic_auth_users: alice: not a bcrypt hash (expected $2y$10$ followed by 53 characters; "
			      "make one with htpasswd -nBC 10 \"\" | tr -d ':\\n')", NULL);
	}
	refused("basic_auth_users:\n  alice:\n", "alice: not a bcrypt hash", "htpasswd");
	refused("basic_auth_users:\n  alice: [a]\n", "alice: not a bcrypt hash", "htpasswd");
	refused("basic_auth_users:\n  alice: $2y$03$aaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOyMe\n",
		"alice: not a bcrypt hash", "04..14");
	refused("basic_auth_users:\n  alice: $2y$32$aaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOyMe\n",
		"alice: not a bcrypt hash", "04..14");
	/* A valid bcrypt cost that would stall the server's one thread on every wrong password. */
	refused("basic_auth_users:\n  alice: $2y$15$aaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOyMe\n",
		"alice: not a bcrypt hash", "04..14");
	/* Bits bcrypt never sets at the end of the salt or of the hash. */
	refused("basic_auth_users:\n  alice: $2y$10$aaaaaaaaaaaaaaaaaaaaaaAHlXNpWukNQVMybciL2fYMYrnxzOyMe\n",
		"alice: not a bcrypt hash", "never writes");
	refused("basic_auth_users:\n  alice: $2y$10$aaaaaaaaaaaaaaaaaaaaaOAHlXNpWukNQVMybciL2fYMYrnxzOyMf\n",
		"alice: not a bcrypt hash", "never writes");
}

Test(webconfig, yaml_errors)
{
	refused("tls_server_config:\n  cert_file: a\n key_file: b\n", "line 3:", NULL);
	refused("basic_auth_users: {alice\n", "line ", NULL);
	refused("- a\n- b\n", "line 1: expected a mapping with tls_server_config", NULL);
	refused("just words\n", "expected a mapping", NULL);
	refused("basic_auth_users:\n---\nbasic_auth_users:\n", "line 3: more than one YAML document", NULL);
	refused("basic_auth_users:\nbasic_auth_users:\n", "line 2: basic_auth_users given twice", NULL);
	refused("? [a]\n: b\n", "expected a name as key", NULL);
	refused("a: \xff\n", "byte ", NULL);
}

Test(webconfig, bcrypt)
{
	struct webconfig wc;
	char err[256], salt[CRYPT_GENSALT_OUTPUT_SIZE], text[256];
	struct crypt_data cd = { 0 };
	const char *h;

	/* One hash made here ($2b$ at the lowest cost), the known one of cost 10. */
	cr_assert_not_null(crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof(salt)));
	cr_assert_not_null(h = crypt_rn("s3cret", salt, &cd, sizeof(cd)));
	snprintf(text, sizeof(text), "basic_auth_users:\n  alice: %s\n  prometheus: " PW_HASH "\n", h);
	cr_assert_eq(parse(text, NULL, &wc, err, sizeof(err)), 0, "%s", err);

	cr_expect(webconfig_check_user(&wc, "alice", "s3cret"));
	cr_expect(!webconfig_check_user(&wc, "alice", "s3cret "));
	cr_expect(!webconfig_check_user(&wc, "alice", "pw"), "another user's password");
	cr_expect(webconfig_check_user(&wc, "prometheus", "pw"));
	cr_expect_not_null(wc.users[1].ok_pw, "the right password is cached");
	cr_expect(!webconfig_check_user(&wc, "prometheus", "pW"));
	cr_expect(!webconfig_check_user(&wc, "prometheus", "p"));
	cr_expect(!webconfig_check_user(&wc, "prometheus", "pww"));
	cr_expect(!webconfig_check_user(&wc, "prometheus", ""));
	cr_expect_str_eq(wc.users[1].ok_pw, "pw", "a wrong one never is");
	/* From the cache: the hash spoilt behind its back, the right password still passes. */
	wc.users[1].hash[20] ^= 1;
	cr_expect(webconfig_check_user(&wc, "prometheus", "pw"), "a repeat costs no bcrypt");
	cr_expect(!webconfig_check_user(&wc, "prometheus", "px"));
	wc.users[1].hash[20] ^= 1;

	cr_expect(!webconfig_check_user(&wc, "mallory", "pw"), "unknown user");
	cr_expect(!webconfig_check_user(&wc, "", ""));
	cr_expect(!webconfig_check_user(&wc, "alic", "s3cret"));
	cr_expect(!webconfig_check_user(&wc, "alicee", "s3cret"));
	cr_expect(!webconfig_check_user(&wc, NULL, "pw"));
	cr_expect(!webconfig_check_user(&wc, "prometheus", NULL));
	cr_expect_str_eq(wc.dummy_hash + 7, "B5I5AKDMLg.WSy5ioLB1mujIgifhwP5eoYT2Ge0n6X1voeOoD9nhS");
	cr_expect(!strncmp(wc.dummy_hash, h, 7), "the dummy has the first user's cost");
	webconfig_free(&wc);
	cr_expect_null(wc.users);
	cr_expect_eq(wc.nusers, 0);
}

static char tmp[64];

static void mk_tmp(void)
{
	strcpy(tmp, "/tmp/cgsched-webconfig.XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
}

static void rm_tmp(void)
{
	static const char *names[] = { "web.yml", "server.crt", "server.key", "empty.yml" };
	char p[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmp, names[i]);
		unlink(p);
	}
	rmdir(tmp);
}

static void put(const char *name, const char *text)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmp, name);
	cr_assert_not_null(f = fopen(p, "w"), "%s", p);
	fputs(text, f);
	fclose(f);
}

#define CERT "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
#define KEY "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"

Test(webconfig, load, .init = mk_tmp, .fini = rm_tmp)
{
	struct webconfig wc;
	char path[128], want[256], err[512];

	snprintf(path, sizeof(path), "%s/web.yml", tmp);
	put("web.yml", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n");

	/* The certificate missing: the file named, as resolved. */
	cr_assert_eq(webconfig_load(path, &wc, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: cert_file %s/server.crt: No such file or directory", path, tmp);
	cr_expect_str_eq(err, want);
	cr_expect_null(wc.cert_file, "nothing left on failure");

	put("server.crt", CERT);
	cr_assert_eq(webconfig_load(path, &wc, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: key_file %s/server.key: No such file or directory", path, tmp);
	cr_expect_str_eq(err, want);

	put("server.key", "not a key\n");
	cr_assert_eq(webconfig_load(path, &wc, err, sizeof(err)), -1);
	cr_expect(strstr(err, "server.key: not PEM"), "%s", err);

	put("server.key", KEY);
	cr_assert_eq(webconfig_load(path, &wc, err, sizeof(err)), 0, "%s", err);
	snprintf(want, sizeof(want), "%s/server.crt", tmp);
	cr_expect_str_eq(wc.cert_file, want);
	cr_expect_str_eq(wc.cert_pem, CERT);
	cr_expect_str_eq(wc.key_pem, KEY);
	webconfig_free(&wc);

	/* Errors in the file: its path, then the line. */
	put("web.yml", "basic_auth_users:\n  alice: x\n");
	cr_assert_eq(webconfig_load(path, &wc, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: line 2: basic_auth_users: alice: not a bcrypt hash", path);
	cr_expect(!strncmp(err, want, strlen(want)), "%s", err);

	put("empty.yml", "");
	snprintf(path, sizeof(path), "%s/empty.yml", tmp);
	cr_assert_eq(webconfig_load(path, &wc, err, sizeof(err)), 0, "%s", err);
	cr_expect_null(wc.cert_pem);
	webconfig_free(&wc);

	snprintf(path, sizeof(path), "%s/none.yml", tmp);
	cr_assert_eq(webconfig_load(path, &wc, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	cr_expect_str_eq(err, want);
	cr_assert_eq(webconfig_load(tmp, &wc, err, sizeof(err)), -1);
	cr_expect(strstr(err, "not a regular file"), "%s", err);
}

/* It sets who may read the metrics: a web config that others may write is refused. */
Test(webconfig, writable_by_others_refused, .init = mk_tmp, .fini = rm_tmp)
{
	struct webconfig wc;
	char path[128], want[256], err[512];

	snprintf(path, sizeof(path), "%s/web.yml", tmp);
	put("web.yml", "");
	cr_assert_eq(chmod(path, 0664), 0);
	cr_assert_eq(webconfig_load(path, &wc, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: writable by others: refused", path);
	cr_expect(!strncmp(err, want, strlen(want)), "%s", err);
	cr_assert_eq(chmod(path, 0644), 0);
	cr_assert_eq(webconfig_load(path, &wc, err, sizeof(err)), 0, "%s", err);
	webconfig_free(&wc);
}

/* Client addresses, as http.c gives them: IPv4 mapped. */
static const unsigned char A1[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 };
static const unsigned char A2[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 2 };
static const unsigned char A3[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 3 };

static struct webaddr *entry(struct webconfig *wc, const unsigned char *a)
{
	for (size_t i = 0; i < WEBCONFIG_ADDRS; i++)
		if (wc->addrs[i].used && !memcmp(wc->addrs[i].addr, a, 16))
			return &wc->addrs[i];
	return NULL;
}

/* bcrypt within a budget: past a second's burst, unremembered passwords wait (BUSY); a remembered one goes on. */
Test(webconfig, bcrypt_budget)
{
	struct webconfig wc;
	char err[256];
	uint64_t now = 1000 * 1000000000ULL;

	cr_assert_eq(parse("basic_auth_users:\n  prometheus: " PW_HASH "\n", NULL, &wc, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(webconfig_auth(&wc, A2, "prometheus", "wrong", now), WEBAUTH_DENIED);
	cr_assert_not_null(entry(&wc, A2));
	cr_expect_gt(entry(&wc, A2)->debt_ns, 1000000, "a cost-10 bcrypt's CPU time is owed: %llu ns",
		     (unsigned long long)entry(&wc, A2)->debt_ns);
	cr_expect_eq(wc.debt_ns, entry(&wc, A2)->debt_ns, "and the strangers' budget owes it too");
	cr_expect_eq(webconfig_auth(&wc, A2, "prometheus", "pw", now), WEBAUTH_OK);
	/* As after a second of guesses: the next unremembered password is not checked. */
	entry(&wc, A2)->debt_ns = WEBCONFIG_BCRYPT_BURST_NS + 1000;
	cr_expect_eq(webconfig_auth(&wc, A2, "prometheus", "guess", now), WEBAUTH_BUSY);
	cr_expect_eq(webconfig_auth(&wc, A2, "prometheus", "pw", now), WEBAUTH_OK, "remembered: no bcrypt, no wait");
	cr_expect_eq(webconfig_auth(&wc, A2, "prometheus", "guess", now + 2000), WEBAUTH_BUSY, "not paid back yet");
	/* Paid back at a quarter of the clock: 4 ns of time per ns of bcrypt. */
	cr_expect_eq(webconfig_auth(&wc, A2, "prometheus", "guess", now + 8000), WEBAUTH_DENIED);
	cr_expect_eq(webconfig_auth(&wc, A2, NULL, NULL, now), WEBAUTH_DENIED);
	webconfig_free(&wc);
}

/* One address's guesses spend its own budget: a first login from another still checks. */
Test(webconfig, bcrypt_budget_per_address)
{
	struct webconfig wc;
	char err[256];
	uint64_t now = 1000 * 1000000000ULL;

	cr_assert_eq(parse("basic_auth_users:\n  prometheus: " PW_HASH "\n", NULL, &wc, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(webconfig_auth(&wc, A2, "prometheus", "guess", now), WEBAUTH_DENIED);
	entry(&wc, A2)->debt_ns = WEBCONFIG_BCRYPT_BURST_NS + 1000; /* a second of guesses from A2 */
	cr_expect_eq(webconfig_auth(&wc, A2, "prometheus", "guess", now), WEBAUTH_BUSY);
	cr_expect_eq(webconfig_auth(&wc, A1, "prometheus", "pw", now), WEBAUTH_OK, "A1's first login: its own budget");
	cr_expect(entry(&wc, A1)->known);
	/* Strangers together past their budget: a new stranger waits, a known address goes on. */
	wc.debt_ns = WEBCONFIG_STRANGERS_BURST_NS + 1000;
	cr_expect_eq(webconfig_auth(&wc, A3, "prometheus", "guess", now), WEBAUTH_BUSY);
	cr_expect_eq(webconfig_auth(&wc, A1, "prometheus", "wrong", now), WEBAUTH_DENIED, "known: checked");
	/* A full table: a new address takes a stranger's entry, never fails. */
	for (unsigned i = 0; i < WEBCONFIG_ADDRS + 4; i++) {
		unsigned char a[16] = { [0] = 0x20, [1] = 0x01, [14] = i >> 8, [15] = i };
		cr_expect_eq(webconfig_auth(&wc, a, "prometheus", "guess", now), WEBAUTH_BUSY, "strangers past their budget");
	}
	cr_expect_not_null(entry(&wc, A1), "a known address keeps its entry");
	webconfig_free(&wc);
}

/* A reload keeps what was remembered for users whose name and hash are unchanged, and the budgets. */
Test(webconfig, carry)
{
	struct webconfig old, same, changed;
	char err[256];
	uint64_t now = 1000 * 1000000000ULL;
	const char *text = "basic_auth_users:\n  prometheus: " PW_HASH "\n";

	cr_assert_eq(parse(text, NULL, &old, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(webconfig_auth(&old, A1, "prometheus", "pw", now), WEBAUTH_OK);
	cr_expect_eq(webconfig_auth(&old, A2, "prometheus", "guess", now), WEBAUTH_DENIED);
	cr_assert_eq(parse(text, NULL, &same, err, sizeof(err)), 0, "%s", err);
	webconfig_carry(&same, &old);
	cr_expect(webconfig_cached(&same, "prometheus", "pw"), "unchanged user and hash: remembered");
	cr_expect_not_null(entry(&same, A2), "the budgets carried");
	cr_expect_eq(entry(&same, A2)->debt_ns, entry(&old, A2)->debt_ns);
	cr_expect(entry(&same, A1)->known);
	/* The same name with another hash: its password must check again. */
	cr_assert_eq(parse("basic_auth_users:\n  prometheus: $2b$10$bbbbbbbbbbbbbbbbbbbbbOAHlXNpWukNQVMybciL2fYMYrnxzOyMe\n",
			   NULL, &changed, err, sizeof(err)), 0, "%s", err);
	webconfig_carry(&changed, &old);
	cr_expect(!webconfig_cached(&changed, "prometheus", "pw"), "a changed hash: forgotten");
	webconfig_free(&old);
	webconfig_free(&same);
	webconfig_free(&changed);
}
