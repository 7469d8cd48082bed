/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Write the Prometheus exposition formats: the text format 0.0.4 and
 * OpenMetrics 1.0.0. They differ only in a family's header and in the
 * "# EOF" at the end. In OpenMetrics, a counter's family name loses its
 * "_total", info families have a type of their own, and seconds families
 * state their unit. A scrape of many cgroups has hundreds of thousands of
 * lines, so there is no printf per sample. Numbers are formatted by hand
 * into one growing buffer. Each cgroup's label block is escaped once, then
 * copied.
 */
#ifndef CGS_EXPO_H
#define CGS_EXPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/textput.h"

enum expo_format { EXPO_TEXT, EXPO_OPENMETRICS };

#define EXPO_CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define EXPO_CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

enum expo_type { EXPO_COUNTER, EXPO_GAUGE, EXPO_HISTOGRAM, EXPO_INFO };

struct expo {
	enum expo_format fmt;
	char *p;
	size_t n, cap;
	bool oom;            /* a growth failed: the output is cut, the caller answers 500 */
	const char *family;  /* the family being written (its samples' name stem) */
	size_t family_len;
	enum expo_type type;
};

/*
 * Which format an Accept header asks for. OpenMetrics if it names
 * application/openmetrics-text (version 1.0.0 or none) with a q at least
 * that of text/plain or of any type. Text otherwise, and for a missing
 * header.
 */
enum expo_format expo_negotiate(const char *accept);
const char *expo_content_type(enum expo_format f);

void expo_init(struct expo *x, enum expo_format f);
void expo_free(struct expo *x);
/* Room for n bytes at once (the size of the last scrape): no copying as the text grows. */
void expo_reserve(struct expo *x, size_t n);
void expo_put_grow(struct expo *x, const char *s, size_t len);
/*
 * Append len bytes, keeping the text NUL-terminated. Inline, because a
 * large scrape appends millions of short pieces, and a function call per
 * piece would cost a large share of the rendering.
 */
static inline void expo_put(struct expo *x, const char *s, size_t len)
{
	if (x->n + len + 1 > x->cap) {
		expo_put_grow(x, s, len);
		return;
	}
	text_copy(x->p + x->n, s, len);
	x->n += len;
	x->p[x->n] = 0;
}
void expo_puts(struct expo *x, const char *s);
void expo_u64(struct expo *x, uint64_t v);
/* ns as seconds, exactly: "1.5", "0.000002", "3". */
void expo_ns_sec(struct expo *x, uint64_t ns);
/* A label value, escaped as both formats want (backslash, quote, newline). */
void expo_label_value(struct expo *x, const char *v);

/*
 * Start a family: name is the full sample name of counters ("..._total")
 * and info families ("..._info"), as promtool and the text format want it;
 * the OpenMetrics header drops the suffix. help: one line, no newline.
 */
void expo_family(struct expo *x, const char *name, enum expo_type t, const char *help);
/*
 * Begin one sample of the current family: name{labels[,extra]} value. The
 * labels and extra are label blocks already escaped ('k="v",k2="v2'); each
 * may be NULL or empty. The suffix goes after the family name ("_bucket",
 * "_sum", "_count", or NULL).
 */
void expo_sample_begin(struct expo *x, const char *suffix, const char *labels, const char *extra);
static inline void expo_sample_end(struct expo *x) { expo_put(x, "\n", 1); }
void expo_sample_u64(struct expo *x, const char *labels, const char *extra, uint64_t v);
void expo_sample_sec(struct expo *x, const char *labels, const char *extra, uint64_t ns);
/* The same with labels' length given (llen: strlen(labels)), where the caller keeps it: each _l below too. */
void expo_sample_u64_l(struct expo *x, const char *labels, size_t llen, const char *extra, uint64_t v);
void expo_sample_sec_l(struct expo *x, const char *labels, size_t llen, const char *extra, uint64_t ns);
void expo_sample_f(struct expo *x, const char *labels, const char *extra, double v);
/*
 * Write a histogram of log2 slots in microseconds as cumulative buckets
 * in seconds. Slot 0 holds 0-1 us, slot i 2^i..2^(i+1)-1 us, and the last
 * slot everything above. Buckets go up to the last slot ever counted
 * into, then +Inf; sum_ns is its _sum. Bounds only grow, as the counts do,
 * so a bucket once shown stays.
 */
void expo_hist_us(struct expo *x, const char *labels, const uint64_t *slots, unsigned nslots,
		  uint64_t sum_ns);
void expo_hist_us_l(struct expo *x, const char *labels, size_t llen, const uint64_t *slots, unsigned nslots,
		    uint64_t sum_ns);
/*
 * Write a histogram of fixed bounds. counts[i] holds the observations at
 * most le[i] and above le[i-1]; counts[n] holds those above every bound.
 * le[] holds the label's text ("0.005"). It writes cumulative buckets,
 * +Inf, the sum and the count. With sum_ns, the sum is ns shown as
 * seconds; else it is shown as it is.
 */
void expo_hist_fixed(struct expo *x, const char *labels, const char *const *le, const uint64_t *counts, unsigned n,
		     uint64_t sum, bool sum_ns);
void expo_hist_fixed_l(struct expo *x, const char *labels, size_t llen, const char *const *le, const uint64_t *counts,
		       unsigned n, uint64_t sum, bool sum_ns);
/* The end of the exposition ("# EOF" in OpenMetrics). */
void expo_finish(struct expo *x);

#endif
