#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The whole suite, as `make test` runs it: unit tests (Criterion), then the
# live-kernel tests on this machine. Ends with one "total: N passed, N failed" line.
set -u
cd "$(dirname "$0")/.."
passed=0 failed=0 skipped=0

out=$(LANG=C .output/unit-tests 2>&1)
echo "$out" | grep -v '^\[----\]' | tail -n 20
syn=$(echo "$out" | grep 'Synthesis:')
p=$(echo "$syn" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
f=$(echo "$syn" | sed -n 's/.*Failing: \([0-9]*\) | Crashing: \([0-9]*\).*/\1 \2/p')
if [ -z "$p" ]; then
	echo "unit tests did not run"
	failed=$((failed + 1))
else
	passed=$((passed + p))
	for n in $f; do failed=$((failed + n)); done
fi

live=$(tests/live/run.sh 2>&1 | tee /dev/stderr | tail -n 1)
lp=$(echo "$live" | sed -n 's/^live: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p')
if [ -z "$lp" ]; then
	echo "live tests did not finish: $live"
	failed=$((failed + 1))
else
	set -- $lp
	passed=$((passed + $1)) failed=$((failed + $2)) skipped=$((skipped + $3))
fi

echo "total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
