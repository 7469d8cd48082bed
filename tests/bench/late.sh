#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# late.sh DIR ROUNDS CGSCHED OUT: how late output comes when every CPU runs
# a perf bench sched pipe pair (in cgroup DIR, made by the caller), which
# starves ordinary tasks (docs/performance.md, "An observer under a
# storm"); for make bench (run.sh), never asserted. Per round, under one
# storm, each mode in turn; a line "ROUND MODE WALL_MS LATE_MS IVL_LATE_MS"
# each, appended to OUT. "Started ordinarily": as from a shell of normal
# priority (chrt -o 0), which the storm starves from the fork on; "started
# raised": from this real-time shell, as a service with a real-time policy
# or `chrt` would start it, so --priority holds from the exec on.
#
#   sleep         sleep 2, started ordinarily: the reference
#   hist          cgsched hist -d 2, started ordinarily: late = wall - 2 s
#   hist-rt       the same with --priority rt
#   hist-rt-raised  hist -d 2 --priority rt, started raised
#   top           cgsched top --json -i 1 -n 4, started ordinarily: late =
#                 wall - 4 s; IVL_LATE_MS the longest gap between two tables
#                 less the 1 s interval
#   top-rt-raised top ... --priority rt, started raised
#   hist-quiet    hist -d 2 without the storm, for what start-up is anyway
#
# Must run at a real-time priority, its children inheriting it (run.sh:
# chrt -f): this shell's clock and bounds keep time while the storm runs.
# bash for EPOCHREALTIME and read -t: no clock or sleep that would fork a
# starved process. Each command is bounded (CGS_BENCH_LATE_BOUND s, default
# 40): a run killed at the bound counts as late by the bound, and says so.
set -u
DIR=$1 ROUNDS=$2 CGSCHED=$3 OUT=$4
BOUND=${CGS_BENCH_LATE_BOUND:-40}
NCPU=$(nproc)
T=$(mktemp -d)
exec 9<> <(:) # a pipe nobody writes: read -t 9 is a sleep without a fork

# No command substitution while the storm runs: its fork would be an
# ordinary task, starved like the rest. Builtins only: NOW in ms.
now() { NOW=${EPOCHREALTIME/./}; NOW=$((NOW / 1000)); }
nap() { read -r -t "$1" -u 9; } # seconds, fractions allowed

storm_stop() {
	local i pids
	for i in 1 2 3 4 5 6 7 8 9 10; do
		mapfile -t pids <"$DIR/cgroup.procs"
		((${#pids[@]})) || return 0
		kill -9 "${pids[@]}" 2>/dev/null
		nap 0.1
	done
}
trap 'storm_stop; rm -rf "$T"' EXIT

# One perf bench pair per CPU, pinned; a real-time timeout bounds each
# whatever happens to this shell, and starts it as an ordinary task.
storm_start() {
	local c
	for ((c = 0; c < NCPU; c++)); do
		chrt -f -R 60 timeout -s KILL $((BOUND * 8)) sh -c 'echo $$ >"$0/cgroup.procs" && exec taskset -c "$1" perf bench sched pipe -l 1000000000' \
			"$DIR" "$c" >/dev/null 2>&1 &
		disown
	done
	nap 1
}

# run MODE IDEAL_MS CMD...: time CMD; its line, and top's output kept for
# later. One killed at the bound counts as the bound: a starved process
# needs CPU to die too, so it is reaped after the storm (REAP).
REAP=()
run() {
	local mode=$1 ideal=$2 t0 st p note=""
	shift 2
	now
	t0=$NOW
	"$@" >"$T/$R-$mode.out" 2>"$T/err" &
	p=$!
	while :; do
		{ read -r st <"/proc/$p/stat"; } 2>/dev/null || break
		st=${st##*) }
		[ "${st%% *}" = Z ] && break
		now
		if ((NOW - t0 > BOUND * 1000)); then
			kill -9 "$p" 2>/dev/null
			note=" killed-at-bound"
			REAP+=("$p")
			break
		fi
		nap 0.01
	done
	[ -z "$note" ] && wait "$p" 2>/dev/null
	now
	echo "$R $mode $((NOW - t0)) $((NOW - t0 - ideal))$note" >>"$T/lines"
}

# top: the longest gap between two tables, less the interval (after the storm: jq forks).
ivl_late() {
	jq -s '[.[] | select(.kind == "interval") | .time] | . as $t |
		[range(1; length) | ($t[.] - $t[. - 1] - 1) * 1000] | max // 0 | floor' "$T/$1-$2.out" 2>/dev/null || echo 0
}

for ((R = 1; R <= ROUNDS; R++)); do
	: >"$T/lines"
	run hist-quiet 2000 chrt -o 0 "$CGSCHED" hist -q -d 2
	storm_start
	run sleep 2000 chrt -o 0 sleep 2
	run hist 2000 chrt -o 0 "$CGSCHED" hist -q -d 2
	run hist-rt 2000 chrt -o 0 "$CGSCHED" hist -q -d 2 --priority rt
	run hist-rt-raised 2000 "$CGSCHED" hist -q -d 2 --priority rt
	run top 4000 chrt -o 0 "$CGSCHED" top -q --json -i 1 -n 4
	run top-rt-raised 4000 "$CGSCHED" top -q --json -i 1 -n 4 --priority rt
	storm_stop
	((${#REAP[@]})) && wait "${REAP[@]}" 2>/dev/null
	REAP=()
	while read -r r mode wall late note; do
		ivl=0
		[ "${mode#top}" != "$mode" ] && ivl=$(ivl_late "$r" "$mode")
		echo "$r $mode $wall $late $ivl${note:+ $note}" >>"$OUT"
	done <"$T/lines"
	printf 'o' >&2
done
