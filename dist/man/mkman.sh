#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# mkman.sh CGSCHED IN OUT: the man page from its own text (IN) and, where
# @COMMANDS@ stands, a section per command made of that command's --help,
# as preformatted text (the help is already laid out for a terminal).
set -eu
CGSCHED=$1 IN=$2 OUT=$3
# roff: a backslash doubled; a line starting with . or ' escaped.
roff() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
{
	sed -n '1,/^@COMMANDS@$/p' "$IN" | sed '$d'
	for c in $("$CGSCHED" --list-commands); do
		printf '.SS %s\n.nf\n' "$c"
		"$CGSCHED" "$c" --help | roff
		printf '.fi\n'
	done
	sed -n '/^@COMMANDS@$/,$p' "$IN" | sed '1d'
} | sed -e "s/@VERSION@/$("$CGSCHED" --version | sed 's/^cgsched //')/" \
	-e "s/@DATE@/$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)/" >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
