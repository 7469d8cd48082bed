#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The loader's one cleanup rule (CONTRIBUTING.md, "Clean up"): a function
# of src/ has at most one label. It is "out" when every path leaves through
# it, or "fail" when only failures do. Every goto goes to that label. A
# return inside a block, straight after a free or a close, is an early
# return that frees by hand: it too should leave through the label.
# A planted file is checked first, so the check is known to catch each
# fault. Ends with "cleanup: N passed, N failed".
cd "$(dirname "$0")/.."

# check FILE...: one line per fault, "FILE:LINE: what".
check() {
	awk '
	FNR == 1 { infn = 0 }
	/^[a-z].*\(/ && !/;$/ { name = $0 }
	/^\{$/ { infn = 1; fn = name; nlab = 0 }
	/^\}$/ { infn = 0 }
	infn && /^[a-z_][a-z0-9_]*:$/ {
		lab = substr($0, 1, length($0) - 1)
		if (++nlab > 1)
			print FILENAME ":" FNR ": a second label, " lab ", in " fn
		if (lab != "out" && lab != "fail")
			print FILENAME ":" FNR ": the label " lab ": name it out (every path) or fail (failures only)"
	}
	infn && /^\t\t+return/ && prev ~ /(free|close|closedir|destroy|_stop)\(/ {
		print FILENAME ":" FNR ": a free, then an early return: leave through out or fail"
	}
	{ if ($0 !~ /^[ \t]*$/) prev = $0 }
	infn && match($0, /goto [a-z_0-9]+;/) {
		to = substr($0, RSTART + 5, RLENGTH - 6)
		if (to != "out" && to != "fail")
			print FILENAME ":" FNR ": goto " to ": jump only to out or fail"
	}' "$@"
}

plant=/tmp/cgs-cleanup.$$.c
cat >"$plant" <<'EOF'
int planted(char *p)
{
	if (!p) {
		free(p);
		return 1;
	}
	goto again;
again:
	return 0;
out:
	return 1;
}
EOF
found=$(check "$plant" | wc -l)
rm -f "$plant"
bad=0
if [ "$found" != 4 ]; then
	echo "cleanup: the planted file gave $found faults, not 4: the check is broken"
	bad=1
fi
faults=$(check src/*/*.c)
if [ -n "$faults" ]; then
	echo "$faults"
	bad=1
fi
if [ $bad = 0 ]; then echo "cleanup: 1 passed, 0 failed"; else echo "cleanup: 0 passed, 1 failed"; fi
