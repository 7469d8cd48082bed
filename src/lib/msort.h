/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A stable merge sort with its comparison inline, for the arrays sorted at
 * every read or refresh of thousands of cgroups. The C library's qsort
 * calls its comparison through a pointer and copies elements byte by
 * byte, which shows in a refresh's profile (docs/performance.md).
 *
 * MSORT_DEFINE(name, type, before) defines
 *   static void name(type *a, type *tmp, size_t n)
 * which sorts a[0..n), tmp holding n elements; before(x, y) (pointers to
 * elements) says whether *x goes before *y.
 */
#ifndef CGS_MSORT_H
#define CGS_MSORT_H

#include <stddef.h>
#include <string.h>

#define MSORT_DEFINE(name, type, before)                                                        \
	static void name(type *a, type *tmp, size_t n)                                          \
	{                                                                                       \
		type *from = a, *to = tmp;                                                      \
		for (size_t w = 1; w < n; w *= 2) {                                             \
			for (size_t lo = 0; lo < n; lo += 2 * w) {                              \
				size_t mid = lo + w < n ? lo + w : n;                           \
				size_t hi = lo + 2 * w < n ? lo + 2 * w : n;                    \
				size_t i = lo, j = mid, k = lo;                                 \
				while (i < mid && j < hi)                                       \
					to[k++] = before(&from[j], &from[i]) ? from[j++] : from[i++]; \
				while (i < mid)                                                 \
					to[k++] = from[i++];                                    \
				while (j < hi)                                                  \
					to[k++] = from[j++];                                    \
			}                                                                       \
			type *t_ = from;                                                        \
			from = to;                                                              \
			to = t_;                                                                \
		}                                                                               \
		if (from != a)                                                                  \
			memcpy(a, from, n * sizeof(*a));                                        \
	}

#endif
