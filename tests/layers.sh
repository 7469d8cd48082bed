#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The loader's layers (docs/design.md): a folder of src/ includes only the
# folders below it, and inside a folder no two files need each other, even
# through others (tsort finds the loop), by includes and by symbols. Ends
# with "layers: N passed, N failed".
cd "$(dirname "$0")/.."
rank() {
	case $1 in
	lib) echo 0 ;; kernel) echo 1 ;; trace | limits) echo 2 ;; figures) echo 3 ;;
	report) echo 4 ;; session) echo 5 ;; exporter | ui | watch) echo 6 ;; cmd) echo 7 ;; *) echo 99 ;;
	esac
}
bad=0
for dir in src/*/; do
	d=$(basename "$dir")
	[ "$(rank "$d")" = 99 ] && { echo "src/$d: a folder docs/design.md does not place"; bad=$((bad + 1)); }
	for inc in $(grep -ho '#include "[a-z]*/' "$dir"*.[ch] | sed 's/#include "//; s|/||' | sort -u); do
		[ "$inc" = "$d" ] && continue
		if [ "$(rank "$inc")" -ge "$(rank "$d")" ]; then
			echo "src/$d includes $inc/, a layer not below it: $(grep -l "#include \"$inc/" "$dir"*.[ch] | tr '\n' ' ')"
			bad=$((bad + 1))
		fi
	done
	# Inside the folder: file a.{c,h} -> b when it includes "d/b.h"; a loop is a knot.
	for f in "$dir"*.[ch]; do
		m=$(basename "${f%.[ch]}")
		echo "$m $m"
		grep -ho "#include \"$d/[a-z_]*\.h\"" "$f" | sed "s|#include \"$d/||; s|\.h\"||" |
			while read -r to; do [ "$to" = "$m" ] || echo "$m $to"; done
	done > /tmp/cgs-layers.$$
	if ! tsort /tmp/cgs-layers.$$ >/dev/null 2>/tmp/cgs-layers-err.$$; then
		echo "src/$d: files that need each other: $(grep -v 'input contains a loop' /tmp/cgs-layers-err.$$ | sed 's/^tsort: //' | tr '\n' ' ')"
		bad=$((bad + 1))
	fi
	rm -f /tmp/cgs-layers.$$ /tmp/cgs-layers-err.$$
done
# The same by symbols, which headers do not show: a.o -> b.o when a uses a
# function or variable that b defines. A loop means two files need each
# other. The objects are make's (.output/src).
for dir in .output/src/*/; do
	[ -d "$dir" ] || { echo "no objects under .output/src: run make first"; bad=$((bad + 1)); break; }
	for o in "$dir"*.o; do
		m=$(basename "$o" .o)
		nm "$o" | awk -v m="$m" '$1 == "U" { print "use", $2, m; next } $2 ~ /^[TDBR]$/ { print "def", $3, m }'
	done | awk '$1 == "def" { def[$2] = $3 } $1 == "use" { use[NR] = $2 " " $3 }
		END { for (i in use) { split(use[i], u, " "); if (u[1] in def) print u[2], def[u[1]] } }' >/tmp/cgs-layers.$$
	if ! tsort /tmp/cgs-layers.$$ >/dev/null 2>/tmp/cgs-layers-err.$$; then
		echo "src/$(basename "$dir"): files that use each other's symbols: $(grep -v 'input contains a loop' /tmp/cgs-layers-err.$$ | sed 's/^tsort: //' | tr '\n' ' ')"
		bad=$((bad + 1))
	fi
	rm -f /tmp/cgs-layers.$$ /tmp/cgs-layers-err.$$
done
if [ $bad = 0 ]; then echo "layers: 1 passed, 0 failed"; else echo "layers: 0 passed, 1 failed"; fi
