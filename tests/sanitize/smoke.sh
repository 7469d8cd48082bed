#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A short live smoke of the loader built with ASan and UBSan
# (.output/asan/cgsched): top, hist, record, check, apply --dry-run, apply
# --restore, watch, and bad input, on the running kernel. Any sanitizer report fails
# it, leaks too.
# Ends with "sanitize: N passed, N failed".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CGS_RUN=$$
. "$ROOT/tests/live/lib.sh"
ASAN=$ROOT/.output/asan/cgsched
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87
pass=0 failn=0
cg_detect || exit 2
trap 'cg_cleanup; rm -rf "$TMP"' EXIT
# A signal would end the shell without its EXIT trap; a reader that
# closes early (| head) sends SIGPIPE.
trap 'exit 130' INT TERM HUP PIPE

# run WANT_RC LABEL ARGS...: the sanitized cgsched, bounded; its exit status
# must be WANT_RC and its stderr free of sanitizer reports.
run() {
	want=$1 label=$2
	shift 2
	"$ASAN" "$@" >"$TMP/o" 2>"$TMP/e" </dev/null &
	p=$!
	end=$(( $(date +%s) + 60 ))
	while ! proc_gone $p && [ "$(date +%s)" -lt "$end" ]; do sleep 0.1; done
	proc_gone $p || { kill -9 $p; echo "sanitize $label: did not end within 60 s"; }
	wait $p
	rc=$?
	if [ "$rc" = "$want" ] && ! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error|UndefinedBehaviorSanitizer' "$TMP/e"; then
		pass=$((pass + 1))
		echo "sanitize $label: exit $rc, no report"
	else
		failn=$((failn + 1))
		echo "sanitize $label: exit $rc (expected $want)"
		grep -E -A20 'Sanitizer|runtime error' "$TMP/e" | head -n 30 | sed 's/^/    /'
		[ "$rc" != "$want" ] && tail -n 5 "$TMP/e" | sed 's/^/    /'
	fi
}

cg_create san && S=$CG
cg_quota "$S" 20000 100000
cg_spawn "$S" "$CGWORK" burn 1 30 0 >/dev/null
run 0 "top --json" top --json -i 300ms -n 2 -r 0
run 0 "top" top -i 300ms -n 1 --cgroup "$S"
run 0 "hist" hist -d 0.5 --cgroup "$S" --per-cpu
run 0 "hist --metric throttle" hist --metric throttle -d 0.5 --cgroup "$S"
run 0 "record" record -q --cpu-max 25% -o "$TMP/r.json" -- "$CGWORK" spin 0.2
run 0 "check pass" check "$TMP/r.json" --max-throttled-pct 100
run 1 "check fail" check "$TMP/r.json" --max-throttled-pct 1 --max-runq-p99 1ns --baseline "$TMP/r.json" --max-regression 5
printf '[%s]\nmax = 30%%\nweight = 200\n[%s/new]\ncreate = yes\n' "$S" "$S" >"$TMP/l.ini"
run 0 "apply --dry-run" apply --dry-run "$TMP/l.ini"
echo '{"schema":null}' >"$TMP/bad.json"
run 2 "check bad report" check "$TMP/bad.json" --max-throttled-pct 5
run 2 "apply /dev/zero" apply /dev/zero
run 2 "top bad option" top -xq
run 0 "stat" stat
# enforce's journal put back (one of this boot, naming this run's cgroup), and a malformed one.
wf=cpu.shares; [ "$CG_VER" = 2 ] && wf=cpu.weight
printf 'cgsched-journal 1\npid 1\nboot %s\nhierarchy %s %s\nset %s %s %s 77\nend 1\n' \
	"$(cat /proc/sys/kernel/random/boot_id)" "$CG_VER" "$CG_ROOT" "$(stat -c %i "$CG_ROOT$S")" "$S" "$wf" >"$TMP/j"
run 0 "apply --restore" apply --restore "$TMP/j"
printf 'cgsched-journal 1\npid 1\n' >"$TMP/j"
run 2 "apply --restore, bad journal" apply --restore "$TMP/j"
run 0 "record --cleanup" record --cleanup
# watch: a trigger that fires on the throttled burner (an incident written
# 1 s after), one asked for by SIGUSR1, then SIGTERM; the daemon's whole
# life (the history's bound, the incidents' writer) under the sanitizers.
"$ASAN" watch -i 300ms --after 1s --keep 10s --memory 256K -t "max-throttled-pct=1@$S" --dir "$TMP/inc" \
	--pid-file "$TMP/w.pid" >"$TMP/o" 2>"$TMP/e" </dev/null &
W=$!
# seen TEXT: TEXT in its stderr within 20 s (not wait_line, whose failure would leave the watch running).
seen() {
	for _i in $(seq 200); do grep -qF "$1" "$TMP/e" && return 0; sleep 0.1; done
	return 1
}
seen "incident: $S" && kill -USR1 $W && seen "incident: every cgroup"
kill -TERM $W
wait_bounded $W 30 "sanitized watch" >/dev/null
if [ "$WAIT_RC" = 0 ] && [ "$(ls "$TMP/inc" | wc -l)" = 2 ] &&
	! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error|UndefinedBehaviorSanitizer' "$TMP/e"; then
	pass=$((pass + 1))
	echo "sanitize watch: exit 0, 2 incidents, no report"
else
	failn=$((failn + 1))
	echo "sanitize watch: exit $WAIT_RC, incidents: $(ls "$TMP/inc" 2>/dev/null | tr '\n' ' ')"
	grep -E -A20 'Sanitizer|runtime error' "$TMP/e" | head -n 30 | sed 's/^/    /'
	tail -n 5 "$TMP/e" | sed 's/^/    /'
fi
echo "sanitize: $pass passed, $failn failed"
[ $failn = 0 ]
