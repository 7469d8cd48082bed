#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The loader's layers (docs/design.md): a folder of src/ includes only the
# folders below it. Ends with "layers: N passed, N failed".
cd "$(dirname "$0")/.."
rank() {
	case $1 in
	lib) echo 0 ;; kernel) echo 1 ;; trace | limits) echo 2 ;; figures) echo 3 ;;
	out) echo 4 ;; cmd) echo 5 ;; *) echo 99 ;;
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
done
if [ $bad = 0 ]; then echo "layers: 1 passed, 0 failed"; else echo "layers: 0 passed, 1 failed"; fi
