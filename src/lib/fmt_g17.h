/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * printf's "%.17g" without printf: a double's 17 significant digits,
 * rounded as glibc rounds them (to nearest from the exact binary value,
 * ties to even). The form is the same too: fixed or exponent, with
 * trailing zeros dropped. glibc's general path uses big-number arithmetic,
 * which is slow for one percentage a row (docs/performance.md).
 */
#ifndef CGS_FMT_G17_H
#define CGS_FMT_G17_H

#include <stddef.h>

/*
 * Write v into out (at least 32 bytes, no NUL) and return the length.
 * Returns 0 where v is outside what this covers, and the caller's snprintf
 * writes it instead. That is 0, a value not finite, |v| under 1e-6
 * (including the double nearest 1e-6), or |v| from 2^53 on.
 */
size_t fmt_g17(double v, char *out);

#endif
