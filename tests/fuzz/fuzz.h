/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What every harness needs: its input as a C string, and somewhere to print. */
#ifndef CGS_FUZZ_H
#define CGS_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A NUL-terminated copy of the input (the parsers take C strings); free() it. */
static inline char *fuzz_text(const unsigned char *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = 0;
	}
	return s;
}

/* Output the harness exercises but does not look at. */
static inline FILE *fuzz_devnull(void)
{
	static FILE *f;

	return f ? f : (f = fopen("/dev/null", "w"));
}

#endif
