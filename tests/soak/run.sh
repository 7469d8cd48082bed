#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make soak: cgsched under churn for CGS_SOAK_SECONDS (default 600), not in
# make test. On CPU 1 a switch storm (a pipe ping-pong between two cgroups);
# on CPU 0 a throttled burner (20 % quota) and cgroups that come and go,
# CGS_SOAK_CHURN a minute (default 5000), each given a task for ~1 ms and
# removed. Meanwhile `cgsched top --json -i 1 --max-cgroups 256 --why` and
# `cgsched enforce` (the burner's cap, a soft cap on the storm) run, their
# RSS and open fds sampled every 5 s.
#
# Beside them, `cgsched watch` (a rule on the burner, --memory 4M, --keep
# 10m, an incident asked for by SIGUSR1 every minute, --max-incidents 5)
# over 200 more cgroups, each with a task waking every 100 ms on CPU 0.
#
# Passes when no observer's RSS grows once everything it bounds has filled
# (the least-squares slope of its minutes' peaks from then on under
# CGS_SOAK_MAX_SLOPE_KB KB a minute, default 64; below, where "then" is
# derived) and no fd count grows after the first minute; every second has
# its interval; every churned cgroup is shown,
# under its path, also long after the 256th; none shows again 5 s after its
# removal; no cgroup_map_full or parked_lost; enforce logged no failure;
# the watch's history stayed within its bound and reached it (intervals let
# go); its incidents were written, the oldest removed past 5,
# none failed;
# nothing is left attached or pinned; and the kernel log has no new
# warning. Prints the figures and writes .output/soak.json.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CGSCHED=$ROOT/cgsched
CGWORK=$ROOT/.output/workloads/cgwork
CHURN=$ROOT/.output/workloads/churn
SECS=${CGS_SOAK_SECONDS:-600}
RATE=${CGS_SOAK_CHURN:-5000}
MAX_SLOPE=${CGS_SOAK_MAX_SLOPE_KB:-64}
OUT=$ROOT/.output/soak.json
T=$(mktemp -d)
CGS_RUN=$$

[ "$(id -u)" = 0 ] || { echo "soak: needs root" >&2; exit 2; }
. "$ROOT/tests/live/lib.sh"
cg_detect || exit 2
S=/cgs-soak-$$
F=$S-fleet # the watch's 200 cgroups: beside $S, not under top's --cgroup and its 256 slots
PIDS=""

cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait_bounded "$p" 20 "soak process $p" >/dev/null 2>&1; done
	for d in $(find "$CG_ROOT$S" "$CG_ROOT$F" -depth -type d 2>/dev/null); do
		for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
		for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$d" 2>/dev/null && break; sleep 0.2; done
	done
	[ -n "${CGS_SOAK_KEEP:-}" ] && echo "soak: files kept in $T" || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail_n=0
check() { # check OK|FAIL WHAT
	echo "  $1  $2"
	[ "$1" = ok ] || fail_n=$((fail_n + 1))
}

mkdir -p "$CG_ROOT$S/storm-a" "$CG_ROOT$S/storm-b" "$CG_ROOT$S/thr" "$CG_ROOT$S/churn" "$CG_ROOT$F" || exit 1
if [ "$CG_VER" = 2 ]; then
	echo +cpu >"$CG_ROOT$S/cgroup.subtree_control" || exit 1
	echo +cpu >"$CG_ROOT$S/churn/cgroup.subtree_control" 2>/dev/null
	echo +cpu >"$CG_ROOT$F/cgroup.subtree_control" 2>/dev/null
fi
dmesg_before=$(dmesg 2>/dev/null | wc -l)
dmesg >/dev/null 2>&1 || { echo "soak: cannot read the kernel log (dmesg)" >&2; exit 2; }
command -v bpftool >/dev/null || { echo "soak: bpftool missing (make deps)" >&2; exit 2; }
pinned_before=$(find /sys/fs/bpf 2>/dev/null | wc -l)

# The two observers, started before the load.
printf '[%s/thr]\nmax = 20%%\n\n[%s/storm-a]\nsoft_max = 50%%\n' "$S" "$S" >"$T/limits.ini"
"$CGSCHED" top --json -i 1 --max-cgroups 256 --cgroup "$S" --why -v >"$T/top.jsonl" 2>"$T/top.err" &
TOP=$!
"$CGSCHED" enforce "$T/limits.ini" -i 1 --journal "$T/enforce.journal" >"$T/enforce.log" 2>&1 &
ENF=$!
WMEM=4194304
"$CGSCHED" watch -i 1 --keep 10m --memory "$WMEM" --rate-limit 1m --max-incidents 5 -t "max-throttled-pct=50@$S/thr" \
	--dir "$T/inc" --pid-file "$T/watch.pid" >/dev/null 2>"$T/watch.err" &
WAT=$!
PIDS="$TOP $ENF $WAT"
wait_line "$T/top.err" tracing
wait_line "$T/enforce.log" enforcing
wait_line "$T/watch.err" tracing

# The load: storm on CPU 1, burner and churn on CPU 0.
"$CGWORK" pingpong 1000000000 1 "$CG_ROOT$S/storm-a/cgroup.procs" "$CG_ROOT$S/storm-b/cgroup.procs" 50 \
	>/dev/null 2>&1 &
PIDS="$PIDS $!"
cg_spawn "$S/thr" "$CGWORK" burn 1 "$((SECS + 30))" 0 >/dev/null
PIDS="$PIDS $SPAWNED"
for i in $(seq 1 200); do
	mkdir "$CG_ROOT$F/f$i" || exit 1
	cg_spawn "$F/f$i" taskset -c 0 "$CGWORK" wake "$((SECS + 30))" 100000 >/dev/null
	PIDS="$PIDS $SPAWNED"
done
start=$(date +%s)
taskset -c 0 "$CHURN" "$CG_ROOT$S/churn" "$RATE" "$SECS" "$T/churn.log" 2>"$T/churn.err" &
CH=$!
PIDS="$PIDS $CH"

# The BPF programs the observers hold (fdinfo's prog_id): none may outlive them.
cat /proc/$TOP/fdinfo/* /proc/$ENF/fdinfo/* /proc/$WAT/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -u >"$T/progs"
# Sample both observers every 5 s while the churn runs.
: >"$T/samples"
soak_end=$(( $(date +%s) + SECS + 120 ))
while ! proc_gone "$CH" && [ "$(date +%s)" -lt "$soak_end" ]; do
	t=$(( $(date +%s) - start ))
	for p in top:$TOP enforce:$ENF watch:$WAT; do
		pid=${p#*:}
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
		echo "${p%%:*} $t ${rss:-0} $fds" >>"$T/samples"
	done
	# An incident asked for every minute (the rule fires once: the burner
	# never stops being throttled), and no sample until it is written and
	# given back (its tens of MB are no growth: bounded 30 s).
	if [ $(( t / 60 )) -gt "${asked:-0}" ]; then
		asked=$(( t / 60 ))
		n0=$(grep -c 'incident: every cgroup' "$T/watch.err")
		kill -USR1 "$WAT"
		_end=$(( $(date +%s) + 30 ))
		while [ "$(grep -c 'incident: every cgroup' "$T/watch.err")" -le "$n0" ] && [ "$(date +%s)" -lt "$_end" ]; do
			sleep 0.2
		done
		sleep 1 # its heap_trim follows the line
	fi
	sleep 5
done
proc_gone "$CH" || { echo "soak: the churn outran its time by 2 minutes" >&2; exit 1; }
wait "$CH"
churn_rc=$?
sleep 8 # the last removals' figures are read and shown
kill -INT "$TOP"
kill -TERM "$ENF"
kill -TERM "$WAT"
wait_bounded "$WAT" 60 "watch after SIGTERM"
wat_rc=$WAIT_RC
wait_bounded "$TOP" 30 "top after SIGINT"
top_rc=$WAIT_RC
wait_bounded "$ENF" 30 "enforce after SIGTERM"
enf_rc=$WAIT_RC
PIDS=$(echo "$PIDS" | sed "s/\b$TOP\b//; s/\b$ENF\b//; s/\b$WAT\b//")

echo "soak: ${SECS} s, churn $RATE a minute, cgroup v$CG_VER at $CG_ROOT"
echo "  churn: $(tail -1 "$T/churn.log")"
[ "$churn_rc" = 0 ] && check ok "churn ran ($(grep -vc '^#' "$T/churn.log") cgroups)" ||
	check FAIL "churn exited $churn_rc: $(cat "$T/churn.err")"
[ "$top_rc" = 0 ] && [ "$enf_rc" = 0 ] && check ok "top and enforce stopped cleanly" ||
	check FAIL "top exited $top_rc, enforce $enf_rc: $(tail -3 "$T/top.err" "$T/enforce.log")"

# Memory: flat once everything an observer bounds has filled. What fills,
# and by when, under this churn:
# - the first minute: each observer's working set (its first refreshes);
# - the churn's removed cgroups: the tracer keeps a removed cgroup's figures
#   60 s (trace/slots.c, GONE_KEEP_NS) and two reads; the kernel figures'
#   bases go after 64 reads without one (figures/kstat_src.c, 64 s at -i 1):
#   from 60 + 60 + 64 s on, as many removed cgroups are held as go;
# - the watch's history: it fills for as many seconds as it keeps intervals
#   at the end (-i 1; from its "watch stopped" line below).
# From the first whole minute after those (the fourth at least), each
# minute's peak: the heap gives its free pages back once a minute
# (session_wait_input) and the next refreshes fault their working set in
# again (~3 MB within a minute for the watch), so peaks compare like with
# like where single samples do not. A leak is a slope of those peaks; four
# minutes of them at least. (Before this rule, a check from the first
# minute failed on steps as these fill: top 13.4 -> 14.5 MB in the third
# minute, the watch 22.1 -> 24.0 MB until the sixth, flat after.)
st=$(grep "watch stopped" "$T/watch.err")
kept_iv=$(echo "$st" | sed -nE 's/.*kept ([0-9]+) intervals.*/\1/p')
steady=4
[ -n "$kept_iv" ] && [ $(( (kept_iv + 59) / 60 + 1 )) -gt "$steady" ] && steady=$(( (kept_iv + 59) / 60 + 1 ))
echo "  memory judged from minute $steady on (the history filled in ~${kept_iv:-?} s; removed cgroups held from ~184 s)"
for who in top enforce watch; do
	line=$(awk -v w="$who" -v m0="$steady" -v secs="$SECS" '$1 == w { m = int($2 / 60); if ($2 < secs && m >= m0 && $3 > pk[m]) pk[m] = $3 }
		END { for (m = m0; m in pk; m++) { n++; x = m; y = pk[m]; sx += x; sy += y; sxx += x * x; sxy += x * y
				if (!lo || y < lo) lo = y; if (y > hi) hi = y; list = list (list ? "," : "") int(y / 1024 + 0.5) }
			if (n < 4) { print "n/a " n; exit }
			printf "%.1f %d %d %d %s\n", (n * sxy - sx * sy) / (n * sxx - sx * sx), lo, hi, n, list }' "$T/samples")
	set -- $line
	if [ "$1" = n/a ]; then
		check FAIL "$who: $2 whole minutes from minute $steady on, 4 needed to judge (CGS_SOAK_SECONDS)"
		continue
	fi
	eval "${who}_slope=$1 ${who}_rss_max=$3"
	awk -v s="$1" -v m="$MAX_SLOPE" 'BEGIN { exit !(s < m && s > -m) }' &&
		check ok "$who RSS flat: slope $1 KB/min over $4 minutes' peaks ($5 MB)" ||
		check FAIL "$who RSS grows: slope $1 KB/min over $4 minutes' peaks ($5 MB)"
done

# fds after the first minute. A sample can land while a read has one file
# open (top's 53-54 in one run): a leak is a floor that rises, so the last
# minute's least against the whole run's least, and at most one more open
# at a sample.
for who in top enforce; do
	set -- $(awk -v w="$who" '$1 == w && $2 >= 60 { n++; if (!f || $4 < fmin) fmin = $4; if ($4 > fmax) fmax = $4; f = 1; T[n] = $2; F[n] = $4 }
		END { for (i = 1; i <= n; i++) if (T[i] >= T[n] - 60 && (!fl || F[i] < fl)) fl = F[i]; print fmin + 0, fmax + 0, fl + 0 }' "$T/samples")
	[ "$3" = "$1" ] && [ $(($2 - $1)) -le 1 ] && check ok "$who fds steady ($1-$2, $3 in the last minute)" ||
		check FAIL "$who fds $1-$2, $3 at least in the last minute"
done

# The watch: its history within the bound and the bound reached; its incidents.
echo "  watch: ${st#*watch stopped: }" | cut -c1-400
set -- $(echo "$st" | sed -E 's/.*: ([0-9]+) incidents written in .*, ([0-9]+) removed for --max-incidents, ([0-9]+) failed.*kept ([0-9]+) intervals \(([^)]*)\), ([0-9]+) bytes of ([0-9]+); let go for the bound: ([0-9]+) intervals.*/\1 \2 \3 \4 \6 \7 \8/')
if [ "$#" = 7 ] && [ "$wat_rc" = 0 ]; then
	[ "$5" -le "$6" ] && [ "$7" -gt 0 ] && check ok "watch history within its bound: $5 of $6 bytes, $4 intervals kept, $7 let go" ||
		check FAIL "watch history: $5 bytes of $6, $7 intervals let go (the bound must be reached and kept)"
	[ "$1" -ge 5 ] && [ "$2" -ge 1 ] && [ "$3" = 0 ] && [ "$(ls "$T/inc" | wc -l)" -le 5 ] &&
		check ok "watch incidents: $1 written, $2 removed past 5, none failed" ||
		check FAIL "watch incidents: $1 written, $2 removed, $3 failed, $(ls "$T/inc" | wc -l) kept (at most 5)"
else
	check FAIL "watch exited $wat_rc; no figures: $(tail -3 "$T/watch.err")"
fi
# Every interval: one a second, no gap.
jq -r 'select(.kind == "interval") | .time' "$T/top.jsonl" >"$T/times"
nint=$(wc -l <"$T/times")
gap=$(awk 'NR > 1 { d = $1 - p; if (d > g) g = d } { p = $1 } END { printf "%.2f", g }' "$T/times")
awk -v n="$nint" -v s="$SECS" -v g="$gap" 'BEGIN { exit !(n >= s && g < 2.5) }' &&
	check ok "$nint intervals, largest gap ${gap} s" || check FAIL "$nint intervals for $SECS s, largest gap $gap s"

# Every churned cgroup shown, by path; when each was last shown.
jq -r 'select(.kind == "interval") | .time as $t | .cgroups[] | select(.path != null) | "\(.path) \($t)"' \
	"$T/top.jsonl" | awk -v p="$S/churn/c" 'index($1, p) == 1 { n = substr($1, length(p) + 1); last[n] = $2 }
	END { for (n in last) print n, last[n] }' | sort -n >"$T/seen"
made=$(grep -vc '^#' "$T/churn.log")
seen=$(wc -l <"$T/seen")
late_seen=$(awk -v m="$made" '$1 >= m - m / 10' "$T/seen" | wc -l)
[ "$seen" = "$made" ] && check ok "all $made churned cgroups shown by path ($late_seen of the last tenth)" ||
	check FAIL "$seen of $made churned cgroups shown by path ($late_seen of the last tenth)"
stale=$(awk 'NR == FNR { if ($1 !~ /^#/) gone[$1] = $3; next } ($1 in gone) && $2 > gone[$1] + 5 { n++ } END { print n + 0 }' \
	"$T/churn.log" "$T/seen")
[ "$stale" = 0 ] && check ok "no removed cgroup shown 5 s after its removal" ||
	check FAIL "$stale removed cgroups shown more than 5 s after their removal"

# Drops: all counted, the ones that mean loss at zero.
drops=$(jq -s -c '[.[] | select(.kind == "interval") | .drops] | reduce .[] as $d ({}; reduce ($d | keys[]) as $k (.; .[$k] += $d[$k]))' "$T/top.jsonl")
echo "  drops over all intervals: $drops"
full=$(echo "$drops" | jq '.cgroup_map_full + .parked_lost')
[ "$full" = 0 ] && check ok "no cgroup_map_full, no parked_lost" || check FAIL "cgroup_map_full + parked_lost = $full"
recycled=$(grep -o 'slots: [0-9]* taken back ([0-9]* so far)' "$T/top.err" | tail -1)
grep -qiE "error|failed" "$T/enforce.log" && check FAIL "enforce logged: $(grep -iE 'error|failed' "$T/enforce.log" | head -3)" ||
	check ok "enforce: $(grep -c . "$T/enforce.log") log lines, no failure"

# Nothing left behind.
left=0
for id in $(cat "$T/progs"); do bpftool prog show id "$id" >/dev/null 2>&1 && left=$((left + 1)); done
pinned=$(( $(find /sys/fs/bpf 2>/dev/null | wc -l) - pinned_before ))
[ -s "$T/progs" ] || check FAIL "no BPF program seen held by top or enforce"
[ "$left" = 0 ] && [ "$pinned" = 0 ] && check ok "nothing attached or pinned after exit ($(wc -l <"$T/progs") programs were held)" ||
	check FAIL "$left programs loaded, $pinned pinned after exit"
dmesg | tail -n +"$((dmesg_before + 1))" >"$T/dmesg"
bad=$(grep -cE 'WARNING|BUG|Oops|Call Trace|general protection' "$T/dmesg")
[ "$bad" = 0 ] && check ok "kernel log clean ($(wc -l <"$T/dmesg") new lines)" ||
	check FAIL "kernel log: $(grep -E 'WARNING|BUG|Oops|Call Trace|general protection' "$T/dmesg" | head -3)"

jq -n --argjson secs "$SECS" --argjson rate "$RATE" --argjson made "$made" --argjson seen "$seen" \
	--argjson intervals "$nint" --argjson gap "$gap" --argjson drops "$drops" \
	--argjson top_slope "${top_slope:-null}" --argjson enforce_slope "${enforce_slope:-null}" \
	--argjson watch_slope "${watch_slope:-null}" --argjson steady "$steady" \
	--argjson top_rss_max "${top_rss_max:-null}" --argjson enforce_rss_max "${enforce_rss_max:-null}" \
	--argjson watch_rss_max "${watch_rss_max:-null}" \
	--arg recycled "$recycled" --argjson failed "$fail_n" \
	'{seconds: $secs, churn_per_minute: $rate, cgroups_made: $made, cgroups_shown: $seen,
	  intervals: $intervals, largest_gap_s: $gap, drops: $drops,
	  steady_from_minute: $steady,
	  rss_slope_kb_per_min: {top: $top_slope, enforce: $enforce_slope, watch: $watch_slope},
	  rss_max_kb: {top: $top_rss_max, enforce: $enforce_rss_max, watch: $watch_rss_max},
	  recycled: $recycled, failed: $failed}' >"$OUT"
echo "soak: $fail_n failed; figures in $OUT"
[ "$fail_n" = 0 ]
