#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run each libFuzzer harness of tests/fuzz for SECONDS (default 60) from its
# seeds in tests/fuzz/corpus/NAME; what it finds goes to .output/fuzz/corpus-NAME
# (the tree's seeds stay as they are), a crash to .output/fuzz/crash-NAME-*.
# Ends with "fuzz: N passed, N failed". Usage: tests/fuzz/run.sh [SECONDS]
#
# A harness is one CPU-bound process: they run one a CPU, side by side
# (each still gets SECONDS of a CPU), and report in their names' order.
set -u
cd "$(dirname "$0")/../.."
secs=${1:-60}
cpus=$(nproc 2>/dev/null || echo 1)

# fuzz_one HARNESS: run it; its report to .output/fuzz/NAME.result, whose
# first line is "ok" or "failed".
fuzz_one() {
	name=${1##*/fuzz_}
	rm -f ".output/fuzz/$name.result"
	mkdir -p ".output/fuzz/corpus-$name"
	# stdout and stderr closed in the harness (cgsched's error lines); libFuzzer and the sanitizers keep theirs.
	"$1" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
		-artifact_prefix=".output/fuzz/crash-$name-" ".output/fuzz/corpus-$name" "tests/fuzz/corpus/$name" \
		>".output/fuzz/$name.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' ".output/fuzz/$name.log")
	cov=$(grep -o 'cov: [0-9]*' ".output/fuzz/$name.log" | tail -n 1)
	if [ $rc = 0 ] && [ -n "$runs" ]; then
		printf 'ok\nfuzz %s: %s executions in %ss, %s, nothing found\n' "$name" "$runs" "$secs" "$cov"
	else
		printf 'failed\nfuzz %s: FAILED (exit %s); the report:\n' "$name" "$rc"
		grep -E -A25 'ERROR|runtime error|SUMMARY|deadly signal' ".output/fuzz/$name.log" | head -n 40 | sed 's/^/    /'
		ls .output/fuzz/crash-"$name"-* 2>/dev/null | sed 's/^/    input: /'
	fi >".output/fuzz/$name.result"
}

# Lane L of CPUS runs every CPUS-th harness from the L-th.
lane=0
while [ $lane -lt "$cpus" ]; do
	(
		i=0
		for h in .output/fuzz/fuzz_*; do
			[ -x "$h" ] || continue
			[ $((i % cpus)) = $lane ] && fuzz_one "$h"
			i=$((i + 1))
		done
	) &
	lane=$((lane + 1))
done
wait

pass=0 failn=0
for h in .output/fuzz/fuzz_*; do
	[ -x "$h" ] || continue
	r=".output/fuzz/${h##*/fuzz_}.result"
	if [ "$(head -n 1 "$r" 2>/dev/null)" = ok ]; then pass=$((pass + 1)); else failn=$((failn + 1)); fi
	if [ -s "$r" ]; then tail -n +2 "$r"; else echo "fuzz ${h##*/fuzz_}: FAILED (no report)"; fi
done
echo "fuzz: $pass passed, $failn failed"
[ $failn = 0 ]
