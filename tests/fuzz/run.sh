#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run each libFuzzer harness of tests/fuzz for SECONDS (default 60) from its
# seeds in tests/fuzz/corpus/NAME; what it finds goes to .output/fuzz/corpus-NAME
# (the tree's seeds stay as they are), a crash to .output/fuzz/crash-NAME-*.
# Ends with "fuzz: N passed, N failed". Usage: tests/fuzz/run.sh [SECONDS]
set -u
cd "$(dirname "$0")/../.."
secs=${1:-60}
pass=0 failn=0
for h in .output/fuzz/fuzz_*; do
	[ -x "$h" ] || continue
	name=${h##*/fuzz_}
	mkdir -p ".output/fuzz/corpus-$name"
	# stdout and stderr closed in the harness (cgsched's error lines); libFuzzer and the sanitizers keep theirs.
	"$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
		-artifact_prefix=".output/fuzz/crash-$name-" ".output/fuzz/corpus-$name" "tests/fuzz/corpus/$name" \
		>".output/fuzz/$name.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' ".output/fuzz/$name.log")
	cov=$(grep -o 'cov: [0-9]*' ".output/fuzz/$name.log" | tail -n 1)
	if [ $rc = 0 ] && [ -n "$runs" ]; then
		pass=$((pass + 1))
		echo "fuzz $name: $runs executions in ${secs}s, $cov, nothing found"
	else
		failn=$((failn + 1))
		echo "fuzz $name: FAILED (exit $rc); the report:"
		grep -E -A25 'ERROR|runtime error|SUMMARY|deadly signal' ".output/fuzz/$name.log" | head -n 40 | sed 's/^/    /'
		ls .output/fuzz/crash-"$name"-* 2>/dev/null | sed 's/^/    input: /'
	fi
done
echo "fuzz: $pass passed, $failn failed"
[ $failn = 0 ]
