#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make bench: what cgsched costs, measured against nothing attached, against
# empty programs on the same tracepoints (the floor), and against runqlat
# from Debian's libbpf-tools, alternating in one run (A B C D A B C D ...)
# so that drift hits every mode alike. Ratios are taken round by round.
#
#   pipe     taskset -c 0 perf bench sched pipe: each op is 2 switches + 2 wake-ups
#   storm    16 cgroups each running a perf bench pipe pair at once (CGS_BENCH_STORM_LOOPS
#            loops each, default 60000): the storm's CPU time per event (4 per
#            loop; BPF programs run in the storm tasks' context, so their cost
#            is in it), and its wall time (noisier: idle gaps, shuffles); then
#            once more with kernel.bpf_stats_enabled: each tool's programs' own
#            run time per run, less the floor's (the stats' clock reads and an
#            empty program): the program cost, free of the storm's noise
#   scale    10,000 cgroups, each with a task waking every 500 ms: one top
#            refresh's CPU time (median of eight), and the map memory bound
#   startup  from main() to attached and counting (cgsched -v); and whole
#            processes, paired: top -q -i 1 -n 1 against runqlat 1 1, their
#            CPU time and peak RSS (CGS_BENCH_STARTUP pairs, default 10)
#   idle     an idle cgsched watch against plain top, each refreshing every second:
#            the loader's CPU a second and RSS
#   late     how late output comes while a perf bench pipe pair per CPU starves
#            ordinary tasks, with and without --priority rt, started from an
#            ordinary or a real-time shell, sleep 2 for reference
#            (tests/bench/late.sh; its own rounds, each under one storm)
#
# Prints a table and writes .output/bench.json. Never asserts a timing.
# CGS_BENCH_ROUNDS (default 6), CGS_BENCH_LOOPS (default 100000),
# CGS_BENCH_SCALE (default 10000; 0 skips the scale run), CGS_BENCH_BASE
# (a cgsched binary to time beside this one: modes base and base-split, and
# the scale run's figures alternated with it), CGS_BENCH_MODES
# (the modes of the rounds, default all; "" skips the rounds and startup),
# CGS_BENCH_LATE (rounds of the late part, default 3; 0 skips it),
# CGS_BENCH_LATE_BOUND (seconds one command may take there, default 40),
# CGS_BENCH_BIG (0 skips the big-host guest), CGS_BENCH_BIG_CPUS (its vCPUs,
# default 64).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CGSCHED=$ROOT/cgsched
FLOOR=$ROOT/.output/bench-floor
CPUTIME=$ROOT/.output/bench-cputime
CGWORK=$ROOT/.output/workloads/cgwork
OUT=$ROOT/.output/bench.json
ROUNDS=${CGS_BENCH_ROUNDS:-6}
LOOPS=${CGS_BENCH_LOOPS:-100000}
SCALE=${CGS_BENCH_SCALE:-10000}
STORM_LOOPS=${CGS_BENCH_STORM_LOOPS:-60000}
T=$(mktemp -d)
TP=""

[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 2; }
command -v perf >/dev/null || { echo "bench: perf missing (make deps)" >&2; exit 2; }
. "$ROOT/tests/live/lib.sh"
. "$ROOT/tests/bench/storm.sh"
cg_detect || exit 2
# tasks: cgsched with top --tasks (every cgroup's tasks, the per-task map's
# 4096 entries ample for the storm's 32), for what the drill-down adds.
# why: cgsched with top --why (the split of every wait into causes);
# why-split and why-count: --why's parts alone (CGS_WHY_PARTS): the split by
# what ran, then with the waiting count, without the naming of other cgroups.
# timeline: cgsched with top --timeline (a Perfetto trace; waits of 10 ms or more one by one).
# watch: cgsched watch as its unit runs it (a rule, every interval kept, long waits kept).
# shared: cgsched with one shard shared by every CPU (CGS_SHARDS=1): the
# atomic adds of a host with more CPUs than shards (docs/design.md, "Memory").
# base: another build of cgsched, CGS_BENCH_BASE (for example the commit
# before a change of the hot path), when given; base-split: the same with
# the split alone (CGS_WHY_PARTS=split), for a change of the split.
modes="none floor cgsched shared tasks why why-split why-count timeline watch"
[ -n "${CGS_BENCH_BASE:-}" ] && modes="$modes base base-split"
command -v runqlat >/dev/null && modes="$modes runqlat"
modes=${CGS_BENCH_MODES-$modes}
LATE=${CGS_BENCH_LATE:-3}

STATS0=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)
cleanup() {
	sysctl -qw kernel.bpf_stats_enabled="$STATS0" 2>/dev/null
	[ -n "$TP" ] && kill -TERM "$TP" 2>/dev/null && wait "$TP" 2>/dev/null
	# The fleet's maker first: left running, it made cgroups after the
	# sweep below (a bench stopped while it made 10,000 left 600 behind).
	[ -n "${FP:-}" ] && kill -9 "$FP" 2>/dev/null && wait "$FP" 2>/dev/null
	for d in "$CG_ROOT"/cgs-bench-$$*; do
		[ -d "$d" ] || continue
		for c in "$d"/*/ "$d"; do
			[ -d "$c" ] && { kill -9 $(cat "$c/cgroup.procs" 2>/dev/null) 2>/dev/null; }
		done
		sleep 0.2
		find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for() { # wait_for FILE PATTERN [SECONDS, default 10]
	for i in $(seq 1 $((${3:-10} * 20))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "bench: '$2' never appeared in $1: $(cat "$1")" >&2
	return 1
}

# "RUN_NS RUN_CNT" summed over this mode's programs (IDS: those its start added).
prog_stats() {
	bpftool prog show -j | jq -r --argjson ids "$IDS" \
		'[.[] | select(.id as $i | $ids | index($i))] | "\(map(.run_time_ns // 0) | add // 0) \(map(.run_cnt // 0) | add // 0)"'
}

start() { # start MODE: attach it (or nothing) and wait until it counts
	TP=""
	case $1 in
	none) return 0 ;;
	floor) "$FLOOR" 2>"$T/err" & TP=$!; wait_for "$T/err" ready ;;
	cgsched) "$CGSCHED" top -v -i 1h >/dev/null 2>"$T/err" & TP=$!; wait_for "$T/err" tracing
		sed -n 's/.*; \([0-9.]*\) ms after start/\1/p' "$T/err" >>"$T/startup" ;;
	shared) CGS_SHARDS=1 "$CGSCHED" top -i 1h >/dev/null 2>"$T/err" & TP=$!; wait_for "$T/err" tracing ;;
	base) "$CGS_BENCH_BASE" top -i 1h >/dev/null 2>"$T/err" & TP=$!; wait_for "$T/err" tracing ;;
	base-split) CGS_WHY_PARTS=split "$CGS_BENCH_BASE" top --why -i 1h >/dev/null 2>"$T/err" & TP=$!; wait_for "$T/err" tracing ;;
	tasks) "$CGSCHED" top --tasks -i 1h >/dev/null 2>"$T/err" & TP=$!; wait_for "$T/err" tracing ;;
	why) "$CGSCHED" top --why -i 1h >/dev/null 2>"$T/err" & TP=$!; wait_for "$T/err" tracing ;;
	why-split) CGS_WHY_PARTS=split "$CGSCHED" top --why -i 1h >/dev/null 2>"$T/err" & TP=$!; wait_for "$T/err" tracing ;;
	why-count) CGS_WHY_PARTS=split,count "$CGSCHED" top --why -i 1h >/dev/null 2>"$T/err" & TP=$!; wait_for "$T/err" tracing ;;
	timeline) "$CGSCHED" top --timeline "$T/bench.pftrace" -i 1h >/dev/null 2>"$T/err" & TP=$!; wait_for "$T/err" tracing ;;
	watch) "$CGSCHED" watch -t max-runq-p99=1h --dir "$T/inc" --pid-file "$T/w.pid" >/dev/null 2>"$T/err" & TP=$!
		wait_for "$T/err" tracing ;;
	runqlat) stdbuf -oL runqlat 3600 >"$T/err" 2>&1 & TP=$!; wait_for "$T/err" Tracing ;;
	esac
}

stop() {
	[ -n "$TP" ] || return 0
	kill -TERM "$TP" 2>/dev/null
	wait "$TP" 2>/dev/null
	TP=""
}

pipe() { taskset -c 0 perf bench sched pipe -l "$LOOPS" 2>/dev/null | awk '/usecs\/op/ { print $1 }'; }

storm() { "$CPUTIME" sh "$ROOT/tests/bench/storm.sh" "$CG_ROOT/cgs-bench-$$-storm" "$STORM_LOOPS"; } # "WALL_US CPU_US"

[ -n "$modes" ] || ROUNDS=0
echo "bench: $(uname -r), $(nproc) CPUs, cgroup v$CG_VER; modes: ${modes:-none}; $ROUNDS rounds; late: $LATE rounds"
storm_make "$CG_ROOT/cgs-bench-$$-storm" || exit 1
: >"$T/samples" >"$T/startup" >"$T/json"

# The storm again with bpf_stats on: "RUN_NS RUN_CNT" of the mode's programs.
stat_storm() {
	[ "$IDS" = "[]" ] && { echo "0 0"; return; }
	sysctl -qw kernel.bpf_stats_enabled=1
	b=$(prog_stats)
	storm >/dev/null
	a=$(prog_stats)
	sysctl -qw kernel.bpf_stats_enabled=0
	echo "$a $b" | awk '{ print $1 - $3, $2 - $4 }'
}

for r in $(seq 1 "$ROUNDS"); do
	for m in $modes; do
		ids0=$(prog_ids)
		start "$m" || exit 1
		IDS=$(prog_ids | jq -c --argjson old "$ids0" '. - $old')
		echo "$r $m $(pipe) $(storm) $(stat_storm)" >>"$T/samples"
		stop
	done
	printf '.' >&2
done
echo >&2

# Per round: added cost of each mode over "none" in the same round.
[ -s "$T/samples" ] && awk -v modes="$modes" -v sevents=$((16 * STORM_LOOPS * 4)) '
	{ pipe[$1, $2] = $3; storm[$1, $2] = $4; scpu[$1, $2] = $5; prog[$1, $2] = $7 ? $6 / $7 : 0; if ($1 > R) R = $1 }
	function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
	function stats(a, n, name, unit,   m) { sort(a, n); m = (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
		printf "%-34s %10.3f %10.3f %10.3f %s\n", name, a[1], m, a[n], unit
		json = json sprintf("%s\"%s\": {\"min\": %.4f, \"median\": %.4f, \"max\": %.4f, \"unit\": \"%s\"}", json ? ", " : "", name, a[1], m, a[n], unit) }
	END {
		split(modes, M, " ")
		printf "%-34s %10s %10s %10s\n", "figure", "min", "median", "max"
		for (k = 1; k in M; k++) { n = 0; for (r = 1; r <= R; r++) v[++n] = pipe[r, M[k]]; stats(v, n, "pipe " M[k], "us/op") }
		for (k = 2; k in M; k++) { n = 0; for (r = 1; r <= R; r++) v[++n] = (pipe[r, M[k]] - pipe[r, "none"]) * 1000 / 4; stats(v, n, "pipe added " M[k], "ns/event") }
		for (k = 2; k in M; k++) { n = 0; for (r = 1; r <= R; r++) v[++n] = (storm[r, M[k]] - storm[r, "none"]) / 1000; stats(v, n, "storm added " M[k], "ms/storm") }
		for (k = 2; k in M; k++) { n = 0; for (r = 1; r <= R; r++) v[++n] = (storm[r, M[k]] - storm[r, "none"]) * 1000 / sevents; stats(v, n, "storm added per event " M[k], "ns/event") }
		for (k = 1; k in M; k++) { n = 0; for (r = 1; r <= R; r++) v[++n] = scpu[r, M[k]] / 1000; stats(v, n, "storm cpu " M[k], "ms/storm") }
		for (k = 2; k in M; k++) { n = 0; for (r = 1; r <= R; r++) v[++n] = (scpu[r, M[k]] - scpu[r, "none"]) * 1000 / sevents; stats(v, n, "storm cpu added per event " M[k], "ns/event") }
		for (k = 2; k in M; k++) { n = 0; for (r = 1; r <= R; r++) v[++n] = prog[r, M[k]]; stats(v, n, "storm program " M[k], "ns/run") }
		for (k = 3; k in M; k++) { n = 0; for (r = 1; r <= R; r++) v[++n] = prog[r, M[k]] - prog[r, "floor"]; stats(v, n, "storm program less floor " M[k], "ns/run") }
		if (("1", "runqlat") in pipe) {
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, "cgsched"] - prog[r, "floor"]) / (prog[r, "runqlat"] - prog[r, "floor"]); stats(v, n, "ratio cgsched/runqlat (storm program)", "x")
			n = 0; for (r = 1; r <= R; r++) v[++n] = (pipe[r, "cgsched"] - pipe[r, "none"]) / (pipe[r, "runqlat"] - pipe[r, "none"]); stats(v, n, "ratio cgsched/runqlat (pipe)", "x")
			n = 0; for (r = 1; r <= R; r++) v[++n] = (scpu[r, "cgsched"] - scpu[r, "none"]) / (scpu[r, "runqlat"] - scpu[r, "none"]); stats(v, n, "ratio cgsched/runqlat (storm cpu)", "x")
			n = 0; for (r = 1; r <= R; r++) v[++n] = (storm[r, "cgsched"] - storm[r, "none"]) / (storm[r, "runqlat"] - storm[r, "none"]); stats(v, n, "ratio cgsched/runqlat (storm wall)", "x")
		}
		# A ratio only where both of its modes ran (CGS_BENCH_MODES may leave some out).
		if (("1", "tasks") in pipe && ("1", "runqlat") in pipe) {
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, "tasks"] - prog[r, "floor"]) / (prog[r, "runqlat"] - prog[r, "floor"]); stats(v, n, "ratio tasks/runqlat (storm program)", "x")
		}
		if (("1", "tasks") in pipe) {
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, "tasks"] - prog[r, "floor"]) / (prog[r, "cgsched"] - prog[r, "floor"]); stats(v, n, "ratio tasks/cgsched (storm program)", "x")
		}
		if (("1", "shared") in pipe) {
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, "shared"] - prog[r, "floor"]) / (prog[r, "cgsched"] - prog[r, "floor"]); stats(v, n, "ratio shared/cgsched (storm program)", "x")
		}
		if (("1", "base") in pipe) {
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, "cgsched"] - prog[r, "floor"]) / (prog[r, "base"] - prog[r, "floor"]); stats(v, n, "ratio cgsched/base (storm program)", "x")
		}
		if (("1", "base-split") in pipe && ("1", "why-split") in pipe) {
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, "why-split"] - prog[r, "floor"]) / (prog[r, "base-split"] - prog[r, "floor"]); stats(v, n, "ratio why-split/base-split (storm program)", "x")
		}
		if (("1", "base-split") in pipe && ("1", "runqlat") in pipe) {
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, "base-split"] - prog[r, "floor"]) / (prog[r, "runqlat"] - prog[r, "floor"]); stats(v, n, "ratio base-split/runqlat (storm program)", "x")
		}
		# --why and its parts alone, each against runqlat and the default path.
		for (k = 1; k in M; k++) {
			if (M[k] !~ /^why/ || !(("1", M[k]) in pipe))
				continue
			if (("1", "runqlat") in pipe) {
				n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, M[k]] - prog[r, "floor"]) / (prog[r, "runqlat"] - prog[r, "floor"]); stats(v, n, "ratio " M[k] "/runqlat (storm program)", "x")
			}
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, M[k]] - prog[r, "floor"]) / prog[r, "floor"]; stats(v, n, "ratio " M[k] " less floor/floor (storm program)", "x")
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, M[k]] - prog[r, "floor"]) / (prog[r, "cgsched"] - prog[r, "floor"]); stats(v, n, "ratio " M[k] "/cgsched (storm program)", "x")
		}
		if (("1", "timeline") in pipe) {
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, "timeline"] - prog[r, "floor"]) / (prog[r, "cgsched"] - prog[r, "floor"]); stats(v, n, "ratio timeline/cgsched (storm program)", "x")
		}
		if (("1", "watch") in pipe) {
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, "watch"] - prog[r, "floor"]) / (prog[r, "cgsched"] - prog[r, "floor"]); stats(v, n, "ratio watch/cgsched (storm program)", "x")
		}
		if (("1", "timeline") in pipe && ("1", "runqlat") in pipe) {
			n = 0; for (r = 1; r <= R; r++) v[++n] = (prog[r, "timeline"] - prog[r, "floor"]) / (prog[r, "runqlat"] - prog[r, "floor"]); stats(v, n, "ratio timeline/runqlat (storm program)", "x")
		}
		n = 0; for (r = 1; r <= R; r++) v[++n] = (pipe[r, "cgsched"] - pipe[r, "none"]) / (pipe[r, "floor"] - pipe[r, "none"]); stats(v, n, "ratio cgsched/floor (pipe)", "x")
		print json > "/dev/stderr"
	}' "$T/samples" 2>"$T/json" | tee "$T/table"

su=$(sort -n "$T/startup" | awk '{ a[NR] = $1 } END { if (NR) printf "{\"min\": %s, \"median\": %s, \"max\": %s, \"unit\": \"ms\"}", a[1], a[int((NR+1)/2)], a[NR]; else printf "null" }')
echo "startup (main to attached): $su"

# Start-up as a whole process: `cgsched top -q -i 1 -n 1` against
# `runqlat 1 1`, alternating, CGS_BENCH_STARTUP pairs (default 10; 0 skips
# it). Each run's CPU time (user + system, bench-cputime) and peak RSS
# (GNU time's %M). Both run for one second, which costs little CPU; the
# rest is loading, verifying and attaching. The ratio is taken pair by
# pair: cgsched's CPU over runqlat's.
startup_pairs="null"
if [ "${CGS_BENCH_STARTUP:-10}" -gt 0 ] && command -v runqlat >/dev/null && [ -x /usr/bin/time ]; then
	: >"$T/pairs"
	for i in $(seq 1 "${CGS_BENCH_STARTUP:-10}"); do
		c=$(/usr/bin/time -f "%M" -o "$T/rss" "$CPUTIME" "$CGSCHED" top -q -i 1 -n 1 2>/dev/null | tail -n 1)
		cr=$(cat "$T/rss")
		r=$(/usr/bin/time -f "%M" -o "$T/rss" "$CPUTIME" runqlat 1 1 2>/dev/null | tail -n 1)
		rr=$(cat "$T/rss")
		echo "${c#* } $cr ${r#* } $rr" >>"$T/pairs"
	done
	awk '{ n++; cpu_c[n] = $1 / 1000; rss_c[n] = $2 / 1024; cpu_r[n] = $3 / 1000; rss_r[n] = $4 / 1024; q[n] = $1 / $3 }
		function sort(a, k,   i, j, t) { for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
		function med(a, k) { return (k % 2) ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2 }
		END { sort(cpu_c, n); sort(cpu_r, n); sort(rss_c, n); sort(rss_r, n); sort(q, n)
			printf "start-up, whole process (%d pairs): cgsched %.1f ms CPU (%.1f-%.1f), %.1f MiB; runqlat %.1f ms CPU (%.1f-%.1f), %.1f MiB\n", n, med(cpu_c, n), cpu_c[1], cpu_c[n], med(rss_c, n), med(cpu_r, n), cpu_r[1], cpu_r[n], med(rss_r, n) > "/dev/stderr"
			printf "ratio cgsched/runqlat (start-up CPU): %.2f (%.2f-%.2f)\n", med(q, n), q[1], q[n] > "/dev/stderr"
			printf "{\"pairs\": %d, \"cgsched_cpu_ms\": %.1f, \"runqlat_cpu_ms\": %.1f, \"cgsched_rss_mib\": %.1f, \"runqlat_rss_mib\": %.1f, \"ratio\": %.2f, \"ratio_min\": %.2f, \"ratio_max\": %.2f}",
				n, med(cpu_c, n), med(cpu_r, n), med(rss_c, n), med(rss_r, n), med(q, n), q[1], q[n] }' "$T/pairs" 2>&1 >"$T/pairs.json"
	startup_pairs=$(cat "$T/pairs.json")
fi

# Output under a storm that starves ordinary tasks: a real-time shell keeps
# the time (late.sh), bounded here too, also at a real-time priority.
late="null"
if [ "$LATE" -gt 0 ]; then
	mkdir -p "$CG_ROOT/cgs-bench-$$-late"
	echo "late: $LATE rounds of sleep, hist -d 2 and top -i 1 -n 4 under a pipe pair per CPU, with and without --priority rt"
	chrt -f 50 timeout $(( LATE * ${CGS_BENCH_LATE_BOUND:-40} * 8 )) \
		bash "$ROOT/tests/bench/late.sh" "$CG_ROOT/cgs-bench-$$-late" "$LATE" "$CGSCHED" "$T/late"
	echo >&2
	grep -h killed "$T/late" | sed 's/^/late: bounded: /'
	# Per mode: min, median, max of LATE_MS (and of IVL_LATE_MS for top).
	late=$(awk '{ n[$2]++; l[$2, n[$2]] = $4; g[$2, n[$2]] = $5 }
		function med(a, m, k,   i, j, t, v) { for (i = 1; i <= k; i++) v[i] = a[m, i]
			for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
			return sprintf("{\"min\": %d, \"median\": %d, \"max\": %d, \"unit\": \"ms\"}", v[1], (k % 2) ? v[(k+1)/2] : (v[k/2] + v[k/2+1]) / 2, v[k]) }
		END { split("sleep hist-quiet hist hist-rt hist-rt-raised top top-rt-raised", M, " ")
			for (i = 1; i in M; i++) { m = M[i]; if (!(m in n)) continue
			printf "%s\"%s\": %s", c++ ? ", " : "", m, med(l, m, n[m])
			if (m ~ /^top/) printf ", \"%s-gap\": %s", m, med(g, m, n[m]) }
		}' "$T/late")
	late="{$late}"
	echo "late (ms past due: min, median, max): $late" | sed 's/, "unit": "ms"//g'
fi

# The scale run's commands, for this build and CGS_BENCH_BASE alike.
# scale_tops BIN TAG: the default view (a table of the top rows), then
# --json with every row: their -v lines in $T/TAG.top.err and
# $T/TAG.topj.err, the JSON in $T/TAG.top.json.
scale_tops() {
	"$1" top -v -q -i 1 -n 10 --max-cgroups 16384 >/dev/null 2>"$T/$2.top.err"
	"$1" top -v -q --json -i 2 -n 7 -r 0 --max-cgroups 16384 >"$T/$2.top.json" 2>"$T/$2.topj.err"
}

# scale_scrapes BIN TAG: cgsched export on the fleet, 30 scrapes; a line a
# scrape in $T/TAG.scrapes, "CPU_MS WALL_MS LIVE_CGROUPS" (the CPU of the
# gathering and rendering, as the exporter measures it in its own thread),
# the last body in $T/TAG.scrape.txt, its stderr in $T/TAG.export.err.
scale_scrapes() {
	local port=$(( 21000 + $$ % 1000 )) e
	"$1" export -q --listen "127.0.0.1:$port" --max-cgroups 16384 2>"$T/$2.export.err" &
	e=$!
	sleep 3 # every fleet task wakes within 500 ms: all of them in the maps
	: >"$T/$2.scrapes"
	for i in $(seq 1 30); do
		curl -sS --max-time 20 "http://127.0.0.1:$port/metrics" >"$T/$2.scrape.txt" || break
		awk '/^cgsched_scrape_cpu_seconds / { c = $2 } /^cgsched_scrape_duration_seconds / { w = $2 }
		     /^cgsched_cgroups\{state="live"\}/ { n = $2 } END { printf "%.3f %.3f %d\n", c * 1000, w * 1000, n }' \
			"$T/$2.scrape.txt" >>"$T/$2.scrapes"
	done
	kill -TERM $e 2>/dev/null
	wait $e 2>/dev/null
}

# The median of a column of numbers, the first two (warm-up) left out; 0 for none.
median_after_warmup() {
	tail -n +3 | sort -n | awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : 0 }'
}

# "TABLE JSON SCRAPE": one run's medians (ms of CPU) of a table's refresh
# (3-10), --json of every row (3-7) and a scrape (3-30) of build $1.
scale_medians() {
	scale_tops "$1" vs
	scale_scrapes "$1" vs
	echo "$(sed -n 's/.*refresh: \([0-9.]*\) ms CPU.*/\1/p' "$T/vs.top.err" | median_after_warmup)" \
	     "$(sed -n 's/.*refresh: \([0-9.]*\) ms CPU.*/\1/p' "$T/vs.topj.err" | median_after_warmup)" \
	     "$(median_after_warmup <"$T/vs.scrapes")"
}

scale="null"
if [ "$SCALE" -gt 0 ]; then
	echo "scale: making $SCALE cgroups with a task each..."
	mkdir -p "$CG_ROOT/cgs-bench-$$-scale"
	# Each task lives 120 s, and 150 s more for the runs against CGS_BENCH_BASE (~30 s each).
	"$CGWORK" fleet "$CG_ROOT/cgs-bench-$$-scale" "$SCALE" $(( ${CGS_BENCH_BASE:+150} + 120 )) 500 >"$T/fleet" 2>&1 &
	FP=$!
	# Bounded by 10 ms a cgroup (a cgroup and a process each: 10,000 took
	# over 10 s on a slow day here).
	wait_for "$T/fleet" ready $(( SCALE / 100 > 10 ? SCALE / 100 : 10 )) || exit 1
	scale_tops "$CGSCHED" this
	grep refresh "$T/this.top.err" "$T/this.topj.err"
	# Refreshes 3-10 of the table (the first two warm the path cache and
	# the heap): median, min and max of the CPU, and the median's parts.
	sed -n 's/.*refresh: \([0-9.]*\) ms CPU, \([0-9.]*\) ms wall, \([0-9]*\) cgroups; CPU: maps \([0-9.]*\), kernel figures \([0-9.]*\), report \([0-9.]*\) ms/\1 \2 \3 \4 \5 \6/p' \
		"$T/this.top.err" | tail -n +3 | sort -n >"$T/ref"
	ref=$(awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }' "$T/ref")
	refmin=$(head -n 1 "$T/ref" | cut -d' ' -f1)
	refmax=$(tail -n 1 "$T/ref" | cut -d' ' -f1)
	# --json: refreshes 3-7 (a one-refresh figure moved 46-56 ms between runs), their median and range.
	sed -n 's/.*refresh: \([0-9.]*\) ms CPU.*/\1/p' "$T/this.topj.err" | tail -n +3 | sort -n >"$T/refj"
	refj=$(awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' "$T/refj")
	refjmin=$(head -n 1 "$T/refj")
	refjmax=$(tail -n 1 "$T/refj")
	mem=$(jq -s '.[0].map_bytes_max' "$T/this.top.json")
	rows=$(jq -s '.[-2].cgroups | length' "$T/this.top.json")
	drops=$(jq -s '.[-1].drops.cgroup_map_full' "$T/this.top.json")
	set -- $ref
	scale="{\"cgroups\": $SCALE, \"refresh_cpu_ms\": {\"min\": $refmin, \"median\": $1, \"max\": $refmax, \"refreshes\": $(wc -l <"$T/ref")}, \"median_parts_ms\": {\"maps\": $4, \"kernel_figures\": $5, \"report\": $6}, \"refresh_wall_ms\": $2, \"refresh_json_cpu_ms\": $refj, \"refresh_json_cpu_ms_range\": [$refjmin, $refjmax], \"cgroups_in_maps\": $3, \"rows_in_interval\": $rows, \"map_bytes_max\": $mem, \"cgroup_map_full\": $drops}"
	echo "scale: one refresh with $3 cgroups in the maps, as a table: median $1 ms CPU ($refmin-$refmax over $(wc -l <"$T/ref") refreshes; median's parts: maps $4, kernel figures $5, report $6 ms), $2 ms wall; as --json of every row, median $refj ms CPU ($refjmin-$refjmax over $(wc -l <"$T/refj")); map memory bound $mem bytes; map-full drops $drops"
	# The same refreshes on top's screen (a terminal: tmux, 200x50), beside
	# the table's: the screen resolves and sorts every row (its filter and
	# sort by name need them), the table only its first 20.
	scr="null"
	if command -v tmux >/dev/null; then
		TMB="tmux -S $T/tmux.sock"
		$TMB new-session -d -x 200 -y 50 "$CGSCHED top -v -q -i 1 -n 10 --max-cgroups 16384 2>$T/screen.err"
		_end=$(( $(date +%s) + 60 ))
		while $TMB has-session 2>/dev/null && [ "$(date +%s)" -lt "$_end" ]; do sleep 0.5; done
		$TMB kill-server 2>/dev/null
		sed -n 's/.*refresh: \([0-9.]*\) ms CPU.*/\1/p' "$T/screen.err" | tail -n +3 | sort -n >"$T/sref"
		if [ -s "$T/sref" ]; then
			sm=$(awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' "$T/sref")
			sr=$(awk -v s="$sm" -v t="$1" 'BEGIN { printf "%.2f", s / t }')
			scr="{\"refresh_cpu_ms\": {\"min\": $(head -n 1 "$T/sref"), \"median\": $sm, \"max\": $(tail -n 1 "$T/sref"), \"refreshes\": $(wc -l <"$T/sref")}, \"screen_over_table\": $sr}"
			echo "scale: one refresh on top's screen (tmux): median $sm ms CPU ($(head -n 1 "$T/sref")-$(tail -n 1 "$T/sref")), $sr times the table's"
		fi
	fi
	scale="${scale%\}}, \"screen\": $scr}"
	# cgsched export with the same cgroups: the CPU of one scrape, over many scrapes.
	scale_scrapes "$CGSCHED" this
	sbytes=$(wc -c <"$T/this.scrape.txt")
	slines=$(grep -vc '^#' "$T/this.scrape.txt")
	srss=$(awk '/^process_resident_memory_bytes / { print $2 }' "$T/this.scrape.txt")
	# The first two warm the path cache and the heap, as for top.
	tail -n +3 "$T/this.scrapes" | sort -n >"$T/scr"
	if [ -s "$T/scr" ]; then
		set -- $(awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }' "$T/scr")
		smin=$(head -n 1 "$T/scr" | cut -d' ' -f1)
		smax=$(tail -n 1 "$T/scr" | cut -d' ' -f1)
		scrape="{\"cgroups\": $3, \"scrape_cpu_ms\": {\"min\": $smin, \"median\": $1, \"max\": $smax, \"scrapes\": $(wc -l <"$T/scr")}, \"scrape_wall_ms\": $2, \"bytes\": $sbytes, \"samples\": $slines, \"rss_bytes\": $srss}"
		echo "scale: one scrape of cgsched export with $3 cgroups: median $1 ms CPU ($smin-$smax over $(wc -l <"$T/scr") scrapes), $2 ms wall; $slines samples, $sbytes bytes; exporter RSS $srss bytes"
		scale="${scale%\}}, \"export\": $scrape}"
	else
		echo "scale: cgsched export did not answer: $(cat "$T/this.export.err")"
	fi
	# Against another build (CGS_BENCH_BASE, for example the one the issue's
	# figures came from), on the same fleet and alternated: the three figures
	# above as ratios taken in one run, which this machine's speed (it moves
	# by a quarter between sittings) leaves out.
	if [ -n "${CGS_BENCH_BASE:-}" ]; then
		: >"$T/vs"
		for b in base this base this; do
			bin=$CGSCHED
			[ $b = base ] && bin=$CGS_BENCH_BASE
			echo "$b $(scale_medians "$bin")" >>"$T/vs"
		done
		vs=$(awk 'function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
				return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
			function list(x, n,   i, r) { for (i = 1; i <= n; i++) r = r (i > 1 ? ", " : "") x[i]; return "[" r "]" }
			$1 == "base" { nb++; for (k = 2; k <= 4; k++) B[k, nb] = $k } $1 == "this" { nt++; for (k = 2; k <= 4; k++) H[k, nt] = $k }
			END { split("refresh_cpu_ms json_refresh_cpu_ms scrape_cpu_ms", name, " ")
				for (k = 2; k <= 4; k++) { for (i = 1; i <= nb; i++) b[i] = B[k, i]; for (i = 1; i <= nt; i++) h[i] = H[k, i]
					lh = list(h, nt); lb = list(b, nb); mb = med(b, nb); mh = med(h, nt)
					printf "%s\"%s\": {\"this\": %s, \"base\": %s, \"ratio\": %.3f}", (k > 2 ? ", " : "{"), name[k-1], lh, lb, (mb > 0 ? mh / mb : 0) }
				print "}" }' "$T/vs")
		echo "scale: against CGS_BENCH_BASE ($CGS_BENCH_BASE), alternated, medians of each run (ms CPU) and this/base: $vs"
		scale="${scale%\}}, \"vs_base\": $vs}"
	fi
	kill $FP 2>/dev/null
	pkill -P $FP 2>/dev/null
	wait $FP 2>/dev/null
fi

# An idle watch against plain top, both refreshing every second on this
# host as it is (no storm): the loader's own CPU a second (utime + stime
# from /proc) and its RSS, over CGS_BENCH_IDLE_SECS (default 20) each,
# alternating for CGS_BENCH_IDLE rounds (default 3; 0 skips it).
idle="null"
if [ "${CGS_BENCH_IDLE:-3}" != 0 ]; then
	ISECS=${CGS_BENCH_IDLE_SECS:-20}
	: >"$T/idle"
	for r in $(seq 1 "${CGS_BENCH_IDLE:-3}"); do
		for m in top watch; do
			if [ $m = top ]; then
				"$CGSCHED" top -i 1 >/dev/null 2>"$T/err" &
			else
				"$CGSCHED" watch -i 1 -t max-runq-p99=1h --dir "$T/inc" --pid-file "$T/w.pid" >/dev/null 2>"$T/err" &
			fi
			TP=$!
			wait_for "$T/err" tracing || break
			sleep 2 # the first refreshes warm the path cache
			# Its threads' time on a CPU in ns (schedstat): utime's ticks are 10 ms, a second's cost is less.
			c0=$(cat /proc/$TP/task/*/schedstat | awk '{ n += $1 } END { print n }')
			sleep "$ISECS"
			c1=$(cat /proc/$TP/task/*/schedstat | awk '{ n += $1 } END { print n }')
			rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$TP/status)
			stop
			echo "$r $m $(( (c1 - c0) / 1000 )) $rss" >>"$T/idle"
		done
	done
	idle=$(awk -v secs="$ISECS" '{ cpu[$1, $2] = $3 / 1000 / secs; rss[$1, $2] = $4; if ($1 > R) R = $1 }
		function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
			return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
		END { for (r = 1; r <= R; r++) { t[r] = cpu[r, "top"]; w[r] = cpu[r, "watch"]; q[r] = t[r] ? w[r] / t[r] : 0; rt[r] = rss[r, "top"]; rw[r] = rss[r, "watch"] }
			printf "{\"seconds\": %d, \"rounds\": %d, \"top_cpu_ms_per_s\": %.3f, \"watch_cpu_ms_per_s\": %.3f, \"ratio_watch_top\": %.2f, \"top_rss_kb\": %d, \"watch_rss_kb\": %d}\n",
				secs, R, med(t, R), med(w, R), med(q, R), med(rt, R), med(rw, R) }' "$T/idle")
	echo "idle: $idle"
fi

# Big hosts at this machine's speed: a refresh's map read (the loader's own
# code) over arrays laid out as on 64, 192 and 384 CPUs with 1,000 cgroups
# (tests/bench/readmodel.c); the rest of a refresh does not grow with CPUs.
models=""
for c in $(tr ',' '\n' </sys/devices/system/cpu/possible | awk -F- '{ n += ($2 == "" ? 1 : $2 - $1 + 1) } END { print n }') 64 192 384; do
	line=$("$ROOT/.output/bench-readmodel" "$c" 1000 21) || continue
	echo "big host model: $line"
	models="$models${models:+, }$(echo "${line#readmodel }" | tr ' ' '\n' | awk -F= 'NF == 2 { printf "%s\"%s\": %s", n++ ? ", " : "{", $1, $2 } END { print "}" }')"
done
read_models="[$models]"

# Big hosts: memory and a refresh at 64 CPUs, in a 6.12 guest under QEMU
# (TCG: memory and function, not speed) with 1,000 cgroups busy
# (tests/live/t_memory.sh test_memory_big_host). CGS_BENCH_BIG=0 skips it.
big="null"
if [ "${CGS_BENCH_BIG:-1}" != 0 ]; then
	echo "big host: a ${CGS_BENCH_BIG_CPUS:-64}-vCPU 6.12 guest, 1,000 cgroups (a few minutes under TCG)..."
	CGS_VM_KERNEL=6.12 CGS_VM_SMP=${CGS_BENCH_BIG_CPUS:-64} CGS_VM_MEM=4G CGS_VM_TIMEOUT=1800 CGS_TEST_TIMEOUT=300 \
		"$ROOT/tests/vm/run.sh" test_memory_big_host >"$T/big" 2>&1
	line=$(tr -d '\r' <"$ROOT/.output/vm/6.12/console.log" | grep '^BIG-HOST ' | tail -n 1)
	if [ -n "$line" ]; then
		echo "big host: $line"
		big=$(echo "${line#BIG-HOST }" | tr ' ' '\n' | awk -F= 'NF == 2 { printf "%s\"%s\": %s", n++ ? ", " : "{", $1, $2 } END { print "}" }')
	else
		echo "big host: no figures: $(tail -n 5 "$T/big")"
	fi
fi

cat >"$OUT" <<EOF
{"schema": "cgsched/bench", "version": 1, "kernel": "$(uname -r)", "ncpus": $(nproc),
 "cgroup_version": $CG_VER, "rounds": $ROUNDS, "pipe_loops": $LOOPS, "storm_loops": $STORM_LOOPS, "modes": "$modes",
 "figures": {$(cat "$T/json")}, "startup_ms": $su, "startup_pairs": $startup_pairs, "late_ms": $late, "scale": $scale, "idle_watch": $idle, "big_host": $big, "read_model": $read_models}
EOF
jq . "$OUT" >/dev/null && echo "bench: wrote $OUT"
