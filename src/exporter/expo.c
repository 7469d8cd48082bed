// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The Prometheus text format and OpenMetrics, written by hand for speed (expo.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/util.h"
#include "exporter/expo.h"
#include "lib/textput.h"

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

/* Room for len more bytes and a 0 after them: the buffer doubles (from 64 KB) until it fits. */
static bool room(struct expo *x, size_t len)
{
	size_t cap = x->cap ? x->cap : 65536;

	if (x->n + len + 1 <= x->cap)
		return true;
	if (x->oom)
		return false;
	while (cap < x->n + len + 1)
		cap *= 2;
	char *p = realloc(x->p, cap);
	if (!p) {
		x->oom = true;
		return false;
	}
	x->p = p;
	x->cap = cap;
	return true;
}

/* expo_put's slow path. */
void expo_put_grow(struct expo *x, const char *s, size_t len)
{
	if (!room(x, len))
		return;
	memcpy(x->p + x->n, s, len);
	x->n += len;
	x->p[x->n] = 0;
}

void expo_puts(struct expo *x, const char *s)
{
	expo_put(x, s, strlen(s));
}

/* The longest number a sample ends with: 20 digits, or 11 and a fraction of 9 as seconds. */
#define NUM_MAX 24

/* ns as seconds at d, exactly ("1.5", "0.000002", "3"); returns its end. */
static char *put_ns_sec(char *d, uint64_t ns)
{
	/* The seconds, then ".", the nine digits of the fraction, less its trailing zeros. */
	uint32_t frac = ns % 1000000000ULL;

	d = text_u64(d, ns / 1000000000ULL);
	if (!frac)
		return d;
	*d = '.';
	for (int i = 0; i < 4; i++, frac /= 100)
		memcpy(d + 8 - 2 * i, &text_digit_pairs[(frac % 100) * 2], 2);
	d[1] = '0' + frac;
	d += 10;
	while (d[-1] == '0')
		d--;
	return d;
}

/* Alone (not at a sample's end): room for what it writes only, as a writer on a fixed buffer has no more. */
void expo_u64(struct expo *x, uint64_t v)
{
	size_t len = text_ndigits(v);

	if (room(x, len)) {
		text_digits_before(x->p + x->n + len, v);
		x->n += len;
		x->p[x->n] = 0;
	}
}

void expo_ns_sec(struct expo *x, uint64_t ns)
{
	char b[NUM_MAX + 8]; /* the fraction is written whole, then its trailing zeros cut */
	size_t len = put_ns_sec(b, ns) - b;

	if (len <= NUM_MAX) /* always: the bound is for the compiler */
		expo_put(x, b, len);
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

/* What a sample's name and labels take: name, suffix, braces, comma, the space. */
static size_t head_len(const struct expo *x, size_t slen, size_t llen, size_t elen)
{
	return x->family_len + slen + llen + elen + 4;
}

/* name[suffix][{labels[,extra]}] and the space, at d (room made); returns its end. */
static char *put_head(const struct expo *x, char *d, const char *suffix, size_t slen, const char *labels, size_t llen,
		      const char *extra, size_t elen)
{
	text_copy(d, x->family, x->family_len);
	d += x->family_len;
	text_copy(d, suffix, slen);
	d += slen;
	if (llen || elen) {
		*d++ = '{';
		text_copy(d, labels, llen);
		d += llen;
		if (llen && elen)
			*d++ = ',';
		text_copy(d, extra, elen);
		d += elen;
		*d++ = '}';
	}
	*d++ = ' ';
	return d;
}

static size_t len_of(const char *s)
{
	return s ? strlen(s) : 0;
}

void expo_sample_begin(struct expo *x, const char *suffix, const char *labels, const char *extra)
{
	size_t slen = len_of(suffix), llen = len_of(labels), elen = len_of(extra);

	if (room(x, head_len(x, slen, llen, elen))) {
		x->n = put_head(x, x->p + x->n, suffix, slen, labels, llen, extra, elen) - x->p;
		x->p[x->n] = 0;
	}
}

/* A whole sample of a number: one check for room, as a scrape writes ~200,000 of them. */
static void sample_num(struct expo *x, const char *suffix, const char *labels, size_t llen, const char *extra,
		       uint64_t v, bool sec)
{
	size_t slen = len_of(suffix), elen = len_of(extra);

	if (!room(x, head_len(x, slen, llen, elen) + NUM_MAX + 1))
		return;
	char *d = put_head(x, x->p + x->n, suffix, slen, labels, llen, extra, elen);
	d = sec ? put_ns_sec(d, v) : text_u64(d, v);
	*d++ = '\n';
	*d = 0;
	x->n = d - x->p;
}

void expo_sample_u64_l(struct expo *x, const char *labels, size_t llen, const char *extra, uint64_t v)
{
	sample_num(x, NULL, labels, llen, extra, v, false);
}

void expo_sample_sec_l(struct expo *x, const char *labels, size_t llen, const char *extra, uint64_t ns)
{
	sample_num(x, NULL, labels, llen, extra, ns, true);
}

void expo_sample_u64(struct expo *x, const char *labels, const char *extra, uint64_t v)
{
	sample_num(x, NULL, labels, len_of(labels), extra, v, false);
}

void expo_sample_sec(struct expo *x, const char *labels, const char *extra, uint64_t ns)
{
	sample_num(x, NULL, labels, len_of(labels), extra, ns, true);
}

void expo_sample_f(struct expo *x, const char *labels, const char *extra, double v)
{
	char b[40];

	expo_sample_begin(x, NULL, labels, extra);
	expo_put(x, b, snprintf(b, sizeof(b), "%.17g", v));
	expo_sample_end(x);
}

void expo_hist_us_l(struct expo *x, const char *labels, size_t llen, const uint64_t *slots, unsigned nslots,
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
	if (hi >= (int)nle)
		hi = nle - 1;
	/*
	 * Every bucket's line begins alike, "name_bucket{labels,", and ends
	 * "le=\"...\"} count". So one check for room per line is enough;
	 * a large scrape has hundreds of thousands of these lines.
	 */
	size_t line = head_len(x, 7, llen, 48) + NUM_MAX + 1;
	uint64_t cum = 0;
	for (int i = 0; i <= hi; i++) {
		cum += slots[i];
		if (!room(x, line))
			return;
		char *d = put_head(x, x->p + x->n, "_bucket", 7, labels, llen, le[i], le_len[i]);
		d = text_u64(d, cum);
		*d++ = '\n';
		*d = 0;
		x->n = d - x->p;
	}
	sample_num(x, "_bucket", labels, llen, "le=\"+Inf\"", total, false);
	sample_num(x, "_sum", labels, llen, NULL, sum_ns, true);
	sample_num(x, "_count", labels, llen, NULL, total, false);
}

void expo_hist_us(struct expo *x, const char *labels, const uint64_t *slots, unsigned nslots, uint64_t sum_ns)
{
	expo_hist_us_l(x, labels, len_of(labels), slots, nslots, sum_ns);
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

void expo_hist_fixed_l(struct expo *x, const char *labels, size_t llen, const char *const *le, const uint64_t *counts,
		       unsigned n, uint64_t sum, bool sum_ns)
{
	char extra[48];
	uint64_t cum = 0;

	for (unsigned i = 0; i < n; i++) {
		cum += counts[i];
		snprintf(extra, sizeof(extra), "le=\"%s\"", le[i]);
		sample_num(x, "_bucket", labels, llen, extra, cum, false);
	}
	cum += counts[n];
	sample_num(x, "_bucket", labels, llen, "le=\"+Inf\"", cum, false);
	sample_num(x, "_sum", labels, llen, NULL, sum, sum_ns);
	sample_num(x, "_count", labels, llen, NULL, cum, false);
}

void expo_hist_fixed(struct expo *x, const char *labels, const char *const *le, const uint64_t *counts, unsigned n,
		     uint64_t sum, bool sum_ns)
{
	expo_hist_fixed_l(x, labels, len_of(labels), le, counts, n, sum, sum_ns);
}
