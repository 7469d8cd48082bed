/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * printf's "%.17g" without printf: a double's 17 significant digits,
 * rounded as glibc rounds them (to nearest from the exact binary value,
 * ties to even), in the same form (fixed or exponent, trailing zeros
 * dropped). glibc's general path, big-number arithmetic, was 5 % of a
 * --json refresh of 10,000 rows for one percentage a row (perf,
 * docs/performance.md).
 */
#ifndef CGS_FMT_G17_H
#define CGS_FMT_G17_H

#include <stddef.h>

/*
 * Write v into out (at least 32 bytes, no NUL) and return the length; 0
 * where v is outside what this covers (0, not finite, |v| under 1e-6 (the
 * double nearest 1e-6 among them) or from 2^53 on): the caller's snprintf writes those.
 */
size_t fmt_g17(double v, char *out);

#endif
