// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * utf8check FILE: exit 0 if FILE is well-formed UTF-8 (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), else print the offset of the
 * first bad byte and exit 1. The live tests check cgsched's JSON with it: the
 * guest has neither python3 nor an iconv, and jq quietly replaces bad bytes.
 */
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: utf8check FILE\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	long off = 0, start = 0;
	int need = 0, c;
	unsigned cp = 0, min = 0;
	while ((c = getc(f)) != EOF) {
		if (!need)
			start = off; /* where the character being read begins */
		if (need) {
			if ((c & 0xC0) != 0x80)
				goto bad;
			cp = cp << 6 | (c & 0x3F);
			if (--need == 0 && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)))
				goto bad;
		} else if (c >= 0x80) {
			if ((c & 0xE0) == 0xC0)
				need = 1, cp = c & 0x1F, min = 0x80;
			else if ((c & 0xF0) == 0xE0)
				need = 2, cp = c & 0x0F, min = 0x800;
			else if ((c & 0xF8) == 0xF0)
				need = 3, cp = c & 0x07, min = 0x10000;
			else
				goto bad;
		}
		off++;
	}
	fclose(f);
	if (!need)
		return 0;
bad:
	printf("%s: not UTF-8 at byte %ld\n", argv[1], start);
	return 1;
}
