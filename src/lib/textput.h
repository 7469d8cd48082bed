/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Fast writers for the pieces of text that the exporter's exposition and
 * --json are made of. A scrape or refresh of many cgroups writes millions
 * of short pieces and hundreds of thousands of numbers
 * (docs/performance.md, "A scrape's writer").
 */
#ifndef CGS_TEXTPUT_H
#define CGS_TEXTPUT_H

#include <stddef.h>
#include <stdint.h>

/* The longest number text_u64 writes: 20 digits. */
#define TEXT_U64_MAX 20

/*
 * Copy len bytes in overlapping fixed-size moves that read only
 * [s, s + len). This avoids a call to memcpy for each short piece, which
 * would cost a large share of a render's time.
 */
static inline void text_copy(char *d, const char *s, size_t len)
{
	if (len >= 16) {
		if (len > 128) {
			__builtin_memcpy(d, s, len);
			return;
		}
		for (size_t i = 0; i + 16 < len; i += 16)
			__builtin_memcpy(d + i, s + i, 16);
		__builtin_memcpy(d + len - 16, s + len - 16, 16);
	} else if (len >= 8) {
		uint64_t a, b;
		__builtin_memcpy(&a, s, 8);
		__builtin_memcpy(&b, s + len - 8, 8);
		__builtin_memcpy(d, &a, 8);
		__builtin_memcpy(d + len - 8, &b, 8);
	} else if (len >= 4) {
		uint32_t a, b;
		__builtin_memcpy(&a, s, 4);
		__builtin_memcpy(&b, s + len - 4, 4);
		__builtin_memcpy(d, &a, 4);
		__builtin_memcpy(d + len - 4, &b, 4);
	} else {
		for (size_t i = 0; i < len; i++)
			d[i] = s[i];
	}
}

extern const char text_digit_pairs[200];  /* "00" to "99": digits two at a time */
extern const uint64_t text_pow10[20];

/* The digits of v in decimal (1 for 0): from its bits (log10 2 ~ 1233/4096), then one comparison. */
static inline unsigned text_ndigits(uint64_t v)
{
	unsigned n = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12; /* the digits of 2^bits - 1, or one fewer */

	return n + (v >= text_pow10[n]) + !v;
}

/* v in decimal ending just before end; returns where it begins. */
static inline char *text_digits_before(char *end, uint64_t v)
{
	while (v >= 100) {
		end -= 2;
		__builtin_memcpy(end, &text_digit_pairs[(v % 100) * 2], 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		__builtin_memcpy(end, &text_digit_pairs[v * 2], 2);
	} else {
		*--end = '0' + v;
	}
	return end;
}

/*
 * v in decimal at d (room for TEXT_U64_MAX); returns its end. Written in
 * place: built apart and copied, the copy's wide load stalled on the
 * digits' narrow stores (store forwarding).
 */
static inline char *text_u64(char *d, uint64_t v)
{
	char *end = d + text_ndigits(v);

	text_digits_before(end, v);
	return end;
}

#endif
