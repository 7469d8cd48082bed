// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lib/fmt_g17.h"

typedef unsigned __int128 u128;

/* 10^0 .. 10^22: the last times a 53-bit mantissa stays under 2^127. */
static const u128 P10[23] = {
	1,
	10ULL,
	100ULL,
	1000ULL,
	10000ULL,
	100000ULL,
	1000000ULL,
	10000000ULL,
	100000000ULL,
	1000000000ULL,
	10000000000ULL,
	100000000000ULL,
	1000000000000ULL,
	10000000000000ULL,
	100000000000000ULL,
	1000000000000000ULL,
	10000000000000000ULL,
	100000000000000000ULL,
	1000000000000000000ULL,
	10000000000000000000ULL,
	(u128)10000000000000000000ULL * 10ULL,
	(u128)10000000000000000000ULL * 100ULL,
	(u128)10000000000000000000ULL * 1000ULL,
};

size_t fmt_g17(double v, char *out)
{
	char d[17], *o = out;
	int e;
	u128 q = 0;

	if (!isfinite(v) || v == 0)
		return 0;
	if (v < 0) {
		*o++ = '-';
		v = -v;
	}
	/* From 1e-6 (10^22 the largest factor) to 2^53 (a mantissa of whole units at most). */
	if (v < 1e-6 || v >= 9007199254740992.0)
		return 0;
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	/* v = m / 2^sh exactly: a normal double's 53-bit mantissa and its exponent. */
	uint64_t m = (bits & ((1ULL << 52) - 1)) | 1ULL << 52;
	int sh = 1075 - (int)(bits >> 52 & 0x7ff);
	/* The decimal exponent: v is in [2^(52-sh), 2^(53-sh)); the estimate may be one short, put right below. */
	e = (int)floor((52 - sh) * 0.30102999566398120);
	if (e < -6)
		e = -6; /* one short near 1e-6; where it is not, the digits' count says so and v is left out */
	for (int tries = 0;; tries++) {
		int p = 16 - e;
		if (tries == 3 || p < 0 || p > 22)
			return 0;
		u128 x = (u128)m * P10[p]; /* v * 10^p * 2^sh, exactly */
		/* The exponent is right when v * 10^p, before rounding, has 17 digits. */
		q = x >> sh;
		if (q >= P10[17]) {
			e++;
			continue;
		}
		if (q < P10[16]) {
			e--;
			continue;
		}
		if (sh) {
			u128 r = x - (q << sh), half = (u128)1 << (sh - 1);
			if (r > half || (r == half && (q & 1)))
				q++;
		}
		/* Rounded up to 18 digits (99...9.5): 10^16 at the next exponent. */
		if (q == P10[17]) {
			q = P10[16];
			e++;
		}
		break;
	}
	uint64_t u = (uint64_t)q; /* under 10^17: the digits in 64-bit arithmetic */
	for (int i = 16; i >= 0; i--, u /= 10)
		d[i] = (char)('0' + (int)(u % 10));
	int last = 16; /* the last digit kept: trailing zeros go */
	while (last > 0 && d[last] == '0')
		last--;
	if (e < -4) {
		/* d.ddde-0X: e is -5 or -6 here (from -6 on), two exponent digits as printf writes */
		*o++ = d[0];
		if (last > 0) {
			*o++ = '.';
			for (int i = 1; i <= last; i++)
				*o++ = d[i];
		}
		*o++ = 'e';
		*o++ = '-';
		*o++ = '0';
		*o++ = (char)('0' - e);
		return (size_t)(o - out);
	}
	if (e < 0) {
		/* 0.000ddd */
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -e - 1; i++)
			*o++ = '0';
		for (int i = 0; i <= last; i++)
			*o++ = d[i];
		return (size_t)(o - out);
	}
	/* ddd.ddd: e + 1 digits before the point (e <= 15 here) */
	for (int i = 0; i <= e; i++)
		*o++ = d[i];
	if (last > e) {
		*o++ = '.';
		for (int i = e + 1; i <= last; i++)
			*o++ = d[i];
	}
	return (size_t)(o - out);
}
