#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/bench/progstat.sh CMD [ARGS...]: start a tracer (CMD, e.g.
# "./cgsched top -i 1h" or "runqlat 3600"), run the wake-up storm of
# make bench three times (16 cgroups, a perf bench pipe pair in each,
# 20,000 loops) and print, for each BPF program CMD loaded, its run time per
# run from the kernel's bpf_stats (which adds ~50 ns a run of its own).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/live/lib.sh"
. "$ROOT/tests/bench/storm.sh"
[ "$(id -u)" = 0 ] || { echo "progstat: needs root" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: progstat.sh CMD [ARGS...]" >&2; exit 2; }
cg_detect || exit 2
D=$CG_ROOT/cgs-progstat-$$
T=$(mktemp -d)
STATS0=$(sysctl -n kernel.bpf_stats_enabled)
TP=""
cleanup() {
	sysctl -qw kernel.bpf_stats_enabled="$STATS0"
	[ -n "$TP" ] && kill -INT "$TP" 2>/dev/null && wait "$TP" 2>/dev/null
	for i in $(seq 1 16); do
		kill -9 $(cat "$D/c$i/cgroup.procs" 2>/dev/null) 2>/dev/null
	done
	sleep 0.2
	rmdir "$D"/c* "$D" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

storm_make "$D" || exit 1
prog_ids >"$T/ids0"
"$@" >/dev/null 2>&1 &
TP=$!
sleep 2
sysctl -qw kernel.bpf_stats_enabled=1
bpftool prog show -j >"$T/before"
for r in 1 2 3; do
	storm_run "$D" 20000
done
bpftool prog show -j >"$T/after"
sysctl -qw kernel.bpf_stats_enabled="$STATS0"
jq -r --slurpfile b "$T/before" --slurpfile ids0 "$T/ids0" '.[] | select(.run_cnt != null) |
	. as $a | select($ids0[0] | index($a.id) | not) |
	# A program that had not run when the stats were turned on has no counts yet.
	($b[0][] | select(.id == $a.id) | { run_cnt: (.run_cnt // 0), run_time_ns: (.run_time_ns // 0) }) as $o |
	select($a.run_cnt - $o.run_cnt > 1000) |
	"\(.name) \((($a.run_time_ns - $o.run_time_ns) / ($a.run_cnt - $o.run_cnt)) | floor) ns/run over \($a.run_cnt - $o.run_cnt) runs"' "$T/after"
