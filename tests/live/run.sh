#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run the live-kernel tests: real BPF on the running kernel, real cgroups.
# Usage: tests/live/run.sh [TEST_NAME_SUBSTRING]
# Prints "CGS-TEST PASS|FAIL|SKIP name" per test (the QEMU stage reads these)
# and ends with "N passed, N failed".
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/live/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "live tests need root" >&2
	exit 2
fi
cg_detect || exit 2
# Classic tracepoints and the tests' kernel checks want tracefs.
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null

pass=0 failn=0 skip=0
trap 'cg_cleanup; [ -n "${CGS_PID:-}" ] && kill -9 $CGS_PID 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

for f in "$ROOT"/tests/live/t_*.sh; do
	. "$f"
done
echo "live tests on $(uname -r), cgroup v$CG_VER at $CG_ROOT"
for t in $(sed -n 's/^\(test_[a-z0-9_]*\)() *{.*/\1/p' "$ROOT"/tests/live/t_*.sh); do
	case "$t" in *"${1:-}"*) ;; *) continue ;; esac
	start=$(date +%s)
	( set -u; CGS_PID=""; CGS_BG=""; trap 'kill -9 $CGS_PID $CGS_BG 2>/dev/null; cg_cleanup' EXIT; $t ) >"$TMP/$t.log" 2>&1
	rc=$?
	cg_cleanup
	secs=$(( $(date +%s) - start ))
	if [ $rc = 0 ]; then
		pass=$((pass + 1)); echo "CGS-TEST PASS $t (${secs}s)"
	elif [ $rc = 77 ]; then
		skip=$((skip + 1)); echo "CGS-TEST SKIP $t: $(tail -n 1 "$TMP/$t.log")"
	else
		failn=$((failn + 1)); echo "CGS-TEST FAIL $t (${secs}s)"
	fi
	[ $rc = 0 ] || sed 's/^/    /' "$TMP/$t.log"
	[ $rc = 0 ] && [ -n "${CGS_VERBOSE_TESTS:-}" ] && sed 's/^/    /' "$TMP/$t.log"
done
echo "live: $pass passed, $failn failed, $skip skipped"
[ $failn = 0 ]
