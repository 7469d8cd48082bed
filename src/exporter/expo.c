// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The Prometheus text format and OpenMetrics, written by hand for speed (expo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/util.h"
#include "exporter/expo.h"

void expo_init(struct expo *x, enum expo_format f)
{
	*x = (struct expo){ .fmt = f };
}

void expo_free(struct expo *x)
{
	free(x->p);
	x->p = NULL;
	x->n = x->cap = 0;
}

void expo_reserve(struct expo *x, size_t n)
{
	char *p;

	if (x->oom || n <= x->cap || !(p = realloc(x->p, n)))
		return; /* growing as it goes is the fallback */
	x->p = p;
	x->cap = n;
}

/* expo_put's slow path: the buffer doubles (from 64 KB) until it fits. */
void expo_put_grow(struct expo *x, const char *s, size_t len)
{
	size_t cap = x->cap ? x->cap : 65536;

	if (x->oom)
		return;
	while (cap < x->n + len + 1)
		cap *= 2;
	char *p = realloc(x->p, cap);
	if (!p) {
		x->oom = true;
		return;
	}
	x->p = p;
	x->cap = cap;
	memcpy(x->p + x->n, s, len);
	x->n += len;
	x->p[x->n] = 0;
}

void expo_puts(struct expo *x, const char *s)
{
	expo_put(x, s, strlen(s));
}

void expo_u64(struct expo *x, uint64_t v)
{
	char b[24];
	int i = sizeof(b);

	do {
		b[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	expo_put(x, b + i, sizeof(b) - i);
}

void expo_ns_sec(struct expo *x, uint64_t ns)
{
	char f[10];
	uint64_t frac = ns % 1000000000ULL;
	int len = 9;

	expo_u64(x, ns / 1000000000ULL);
	if (!frac)
		return;
	for (int i = 8; i >= 0; i--, frac /= 10)
		f[i] = '0' + frac % 10;
	while (f[len - 1] == '0')
		len--;
	expo_put(x, ".", 1);
	expo_put(x, f, len);
}

/* Backslash and newline escaped, and the double quote where quote (label values, OpenMetrics' HELP). */
static void escaped(struct expo *x, const char *v, bool quote)
{
	const char *run = v;

	for (; *v; v++) {
		const char *esc = *v == '\\' ? "\\\\" : *v == '\n' ? "\\n" : *v == '"' && quote ? "\\\"" : NULL;
		if (!esc)
			continue;
		expo_put(x, run, v - run);
		expo_put(x, esc, 2);
		run = v + 1;
	}
	expo_put(x, run, v - run);
}

void expo_label_value(struct expo *x, const char *v)
{
	escaped(x, v, true);
}

/* The family name of a sample name: "_total" and "_info" are the samples' in OpenMetrics. */
static size_t family_len(const char *name, enum expo_type t)
{
	size_t n = strlen(name);
	const char *sfx = t == EXPO_COUNTER ? "_total" : t == EXPO_INFO ? "_info" : NULL;

	if (sfx && n > strlen(sfx) && !strcmp(name + n - strlen(sfx), sfx))
		n -= strlen(sfx);
	return n;
}

void expo_family(struct expo *x, const char *name, enum expo_type t, const char *help)
{
	static const char *const text_type[] = { "counter", "gauge", "histogram", "gauge" };
	static const char *const om_type[] = { "counter", "gauge", "histogram", "info" };
	bool om = x->fmt == EXPO_OPENMETRICS;
	size_t flen = om ? family_len(name, t) : strlen(name);

	x->type = t;
	/* Samples are named from the stem: counters and info add their suffix back. */
	x->family = name;
	x->family_len = strlen(name);
	expo_puts(x, "# HELP ");
	expo_put(x, name, flen);
	expo_put(x, " ", 1);
	/* HELP: the text format escapes backslash and newline; OpenMetrics the quote too. */
	escaped(x, help, x->fmt == EXPO_OPENMETRICS);
	expo_puts(x, "\n# TYPE ");
	expo_put(x, name, flen);
	expo_put(x, " ", 1);
	expo_puts(x, om ? om_type[t] : text_type[t]);
	expo_put(x, "\n", 1);
	/* A unit only where the family name ends with it, as OpenMetrics requires. */
	static const char *const units[] = { "seconds", "bytes" };
	for (size_t i = 0; om && i < ARRAY_SIZE(units); i++) {
		size_t ul = strlen(units[i]);
		if (flen > ul + 1 && !strncmp(name + flen - ul, units[i], ul) && name[flen - ul - 1] == '_') {
			expo_puts(x, "# UNIT ");
			expo_put(x, name, flen);
			expo_put(x, " ", 1);
			expo_puts(x, units[i]);
			expo_put(x, "\n", 1);
		}
	}
}

void expo_sample_begin(struct expo *x, const char *suffix, const char *labels, const char *extra)
{
	bool l = labels && *labels, e = extra && *extra;

	expo_put(x, x->family, x->family_len);
	if (suffix)
		expo_puts(x, suffix);
	if (l || e) {
		expo_put(x, "{", 1);
		if (l)
			expo_puts(x, labels);
		if (l && e)
			expo_put(x, ",", 1);
		if (e)
			expo_puts(x, extra);
		expo_put(x, "}", 1);
	}
	expo_put(x, " ", 1);
}

void expo_sample_u64(struct expo *x, const char *labels, const char *extra, uint64_t v)
{
	expo_sample_begin(x, NULL, labels, extra);
	expo_u64(x, v);
	expo_sample_end(x);
}

void expo_sample_sec(struct expo *x, const char *labels, const char *extra, uint64_t ns)
{
	expo_sample_begin(x, NULL, labels, extra);
	expo_ns_sec(x, ns);
	expo_sample_end(x);
}

void expo_sample_f(struct expo *x, const char *labels, const char *extra, double v)
{
	char b[40];

	expo_sample_begin(x, NULL, labels, extra);
	expo_put(x, b, snprintf(b, sizeof(b), "%.17g", v));
	expo_sample_end(x);
}

void expo_hist_us(struct expo *x, const char *labels, const uint64_t *slots, unsigned nslots,
		  uint64_t sum_ns)
{
	/* The upper bounds of the slots, "le" as text: 2^(i+1) us (made once; renders are serialised). */
	static char le[40][48];
	static size_t le_len[40];
	static unsigned nle;
	uint64_t total = 0;
	int hi = -1;

	if (!nle) {
		for (unsigned i = 0; i < 40; i++) {
			/* Fits: the longest, le="1099511.627776", is 22 bytes, so this never grows. */
			struct expo t = { .p = le[i], .cap = sizeof(le[i]) };
			expo_puts(&t, "le=\"");
			expo_ns_sec(&t, (1ULL << (i + 1)) * 1000ULL);
			expo_puts(&t, "\"");
			le_len[i] = t.n;
		}
		nle = 40;
	}
	for (unsigned i = 0; i < nslots; i++) {
		total += slots[i];
		if (slots[i])
			hi = i;
	}
	/* The last slot holds everything above it: only +Inf bounds it. */
	if (hi >= (int)nslots - 1)
		hi = nslots - 2;
	/*
	 * Every bucket's line begins alike, "name_bucket{labels,": made once
	 * and copied (a scrape of 10,000 cgroups has 150,000 bucket lines).
	 */
	char pre[512];
	size_t llen = labels ? strlen(labels) : 0;
	struct expo t = { .p = pre, .cap = sizeof(pre) };
	if (x->family_len + llen + 10 < sizeof(pre)) {
		expo_put(&t, x->family, x->family_len);
		expo_put(&t, "_bucket{", 8);
		expo_put(&t, labels, llen);
		if (llen)
			expo_put(&t, ",", 1);
	}
	uint64_t cum = 0;
	for (int i = 0; i <= hi && i < (int)nle; i++) {
		cum += slots[i];
		if (t.n) {
			expo_put(x, pre, t.n);
			expo_put(x, le[i], le_len[i]);
			expo_put(x, "} ", 2);
		} else {
			expo_sample_begin(x, "_bucket", labels, le[i]);
		}
		expo_u64(x, cum);
		expo_sample_end(x);
	}
	expo_sample_begin(x, "_bucket", labels, "le=\"+Inf\"");
	expo_u64(x, total);
	expo_sample_end(x);
	expo_sample_begin(x, "_sum", labels, NULL);
	expo_ns_sec(x, sum_ns);
	expo_sample_end(x);
	expo_sample_begin(x, "_count", labels, NULL);
	expo_u64(x, total);
	expo_sample_end(x);
}

void expo_finish(struct expo *x)
{
	if (x->fmt == EXPO_OPENMETRICS)
		expo_puts(x, "# EOF\n");
}

const char *expo_content_type(enum expo_format f)
{
	return f == EXPO_OPENMETRICS ? EXPO_CT_OPENMETRICS : EXPO_CT_TEXT;
}

/* The q of one media range's parameters ("version=1.0.0;q=0.5"); version checked for OpenMetrics. */
static double media_q(const char *params, size_t len, bool om, bool *ok)
{
	double q = 1;

	*ok = true;
	while (len) {
		const char *semi = memchr(params, ';', len);
		size_t plen = semi ? (size_t)(semi - params) : len;
		char p[64];
		size_t k = 0;
		for (size_t i = 0; i < plen && k + 1 < sizeof(p); i++)
			if (params[i] != ' ' && params[i] != '\t')
				p[k++] = params[i];
		p[k] = 0;
		if (!strncasecmp(p, "q=", 2))
			q = strtod(p + 2, NULL);
		else if (om && !strncasecmp(p, "version=", 8) && strcmp(p + 8, "1.0.0"))
			*ok = false; /* 0.0.1 was a draft: not what this writes */
		if (!semi)
			break;
		len -= plen + 1;
		params = semi + 1;
	}
	return q;
}

enum expo_format expo_negotiate(const char *accept)
{
	double q_om = -1, q_text = -1;

	for (const char *s = accept; s && *s;) {
		const char *comma = strchr(s, ',');
		const char *end = comma ? comma : s + strlen(s);
		const char *semi = memchr(s, ';', end - s);
		const char *tend = semi ? semi : end;
		while (s < tend && (*s == ' ' || *s == '\t'))
			s++;
		while (tend > s && (tend[-1] == ' ' || tend[-1] == '\t'))
			tend--;
		size_t tlen = tend - s;
		bool om = tlen == 28 && !strncasecmp(s, "application/openmetrics-text", 28);
		bool text = (tlen == 10 && !strncasecmp(s, "text/plain", 10)) ||
			    (tlen == 3 && !strncmp(s, "*/*", 3)) || (tlen == 6 && !strncasecmp(s, "text/*", 6));
		bool ok = true;
		double q = semi ? media_q(semi + 1, end - semi - 1, om, &ok) : 1;
		if (om && ok && q > q_om)
			q_om = q;
		if (text && q > q_text)
			q_text = q;
		s = comma ? comma + 1 : end;
	}
	return q_om > 0 && q_om >= q_text ? EXPO_OPENMETRICS : EXPO_TEXT;
}

void expo_hist_fixed(struct expo *x, const char *labels, const char *const *le, const uint64_t *counts, unsigned n,
		     uint64_t sum, bool sum_ns)
{
	char extra[48];
	uint64_t cum = 0;

	for (unsigned i = 0; i < n; i++) {
		cum += counts[i];
		snprintf(extra, sizeof(extra), "le=\"%s\"", le[i]);
		expo_sample_begin(x, "_bucket", labels, extra);
		expo_u64(x, cum);
		expo_sample_end(x);
	}
	cum += counts[n];
	expo_sample_begin(x, "_bucket", labels, "le=\"+Inf\"");
	expo_u64(x, cum);
	expo_sample_end(x);
	expo_sample_begin(x, "_sum", labels, NULL);
	if (sum_ns)
		expo_ns_sec(x, sum);
	else
		expo_u64(x, sum);
	expo_sample_end(x);
	expo_sample_begin(x, "_count", labels, NULL);
	expo_u64(x, cum);
	expo_sample_end(x);
}
