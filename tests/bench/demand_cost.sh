#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/bench/demand_cost.sh [ROUNDS]: the CPU cgsched export takes with
# its demand per period and with --no-demand, alternated on one fleet of
# 1,000 cgroups (200 with a quota), each with a task waking every 500 ms.
# Each turn runs export 40 s and counts its CPU over the last 30 s
# (utime + stime, in 10 ms ticks). Needs root; removes its cgroups.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/live/lib.sh"
cg_detect || exit 2
ROUNDS=${1:-3}
R=$CG_ROOT/cgs-bench-dem-$$
F=""
cleanup() {
	[ -n "$F" ] && kill "$F" 2>/dev/null
	for i in 1 2 3 4 5 6 7 8 9 10; do
		p=$(find "$R" -name cgroup.procs -exec cat {} + 2>/dev/null)
		[ -z "$p" ] && break
		kill -9 $p 2>/dev/null
		sleep 0.3
	done
	find "$R" -depth -type d -exec rmdir {} \; 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$R"
"$ROOT/.output/workloads/cgwork" fleet "$R" 1000 $((ROUNDS * 90 + 30)) 500 >/tmp/cgs-dem-fleet.$$ 2>&1 &
F=$!
for i in $(seq 1 100); do grep -q ready /tmp/cgs-dem-fleet.$$ && break; sleep 0.5; done
rm -f /tmp/cgs-dem-fleet.$$
for i in $(seq 0 5 995); do cg_quota "/cgs-bench-dem-$$/g$i" 50000 100000; done
cpu_ms() { awk '{ print ($14 + $15) * 10 }' "/proc/$1/stat"; }
for round in $(seq 1 "$ROUNDS"); do
	for mode in demand no-demand; do
		"$ROOT/cgsched" export -q --listen 127.0.0.1:$((19870 + $$ % 100)) --max-cgroups 2048 \
			$([ $mode = no-demand ] && echo --no-demand) 2>/dev/null &
		E=$!
		sleep 10
		c0=$(cpu_ms $E)
		sleep 30
		c1=$(cpu_ms $E)
		kill -INT $E
		wait $E
		echo "demand_cost: $mode, round $round: $((c1 - c0)) ms of CPU in 30 s"
	done
done
