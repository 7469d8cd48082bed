# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# cgsched watch: the flight recorder (src/watch/). Its incidents decoded as
# users read them: report.json by check (record's schema), trace.pftrace by
# Perfetto's own schema (perfetto_check.py, where the venv is).

PYVENV=${PYVENV:-$ROOT/.output/venv}

# watch_start ARGS...: a watch writing into $WDIR (default $TMP/inc), its pid file in $TMP.
watch_start() {
	cgs_start watch --dir "${WDIR:-$TMP/inc}" --pid-file "$TMP/watch.pid" "$@" || fail "watch did not start"
}

# incidents: the incidents' names, one a line (hidden ones are half-written).
incidents() { ls "$TMP/inc" 2>/dev/null; }

# A workload that behaves for 12 s (10 ms of work every 100 ms under a
# quota of 50) and then outruns its quota for 3 s: exactly one incident
# (max-throttled-run=3 fires once the first 3 periods in a row are
# throttled, and the rate limit holds the rest of the burst), written 5 s
# after it, when the burst is over: its window holds the whole burst and
# the 12 s before it. The trace's throttle slices of the cgroup against
# the kernel's throttled time over the same window (report.json's
# kernel_stat, cpu.stat's growth over the window's intervals): within 2 %,
# as the other timelines (t_timeline.sh): an episode is its unthrottle's
# time less its throttle's, cpu.stat's the same pair on the kernel's clock.
test_watch_burst_one_incident() {
	cg_create wburst && W=$CG
	cg_quota "$W" 50000 100000
	# A second rule that never fires here: -t adds up.
	watch_start -i 1 -t "max-throttled-run=3@$W" -t "max-runq-p99=1h@unit=none.service" --before 15s --after 5s
	cg_spawn "$W" sh -c "\"$CGWORK\" pulse 12 1 100000 10000 >/dev/null; exec \"$CGWORK\" burn 1 3 1 >/dev/null"
	wait_bounded "$SPAWNED" 60 "the workload"
	wait_line "$TMP/cgs.err" "incident: $W"
	cgs_stop TERM || fail "watch did not stop cleanly"
	cat "$TMP/cgs.err" | grep -v "^cgsched: tracing" | cut -c1-400
	n=$(incidents | wc -l)
	[ "$n" = 1 ] || fail "$n incidents, expected exactly one: $(incidents | tr '\n' ' ')"
	I="$TMP/inc/$(incidents)"
	ls "$I"
	[ -s "$I/report.json" ] && [ -s "$I/trace.pftrace" ] && [ -s "$I/summary.txt" ] || fail "an incident without its files"
	cat "$I/summary.txt"
	# record's schema: check reads it as it reads a record's report.
	"$CGSCHED" check "$I/report.json" --max-throttled-pct 100 >"$TMP/check.out" 2>&1 ||
		fail "check does not take the incident's report: $(cat "$TMP/check.out")"
	[ "$(jq -r .cgroup "$I/report.json")" = "$W" ] || fail "the report is not of $W"
	kern=$(jq .kernel_stat.throttled_ns "$I/report.json")
	echo "report: $(jq -c '{wall_ns, cpu_pct, thr: .throttle | {count, ns}, kernel_stat: .kernel_stat | {nr_throttled, throttled_ns}}' "$I/report.json")"
	[ "${kern:-0}" -gt 1000000000 ] || fail "the window's kernel throttled time is $kern ns: the burst is not in it"
	[ -x "$PYVENV/bin/python" ] || { echo "no Python venv: the trace is checked on the host"; return 0; }
	"$PYVENV/bin/python" "$ROOT/tests/live/perfetto_check.py" "$I/trace.pftrace" >"$TMP/tl.json" ||
		fail "the trace does not decode: $(cat "$TMP/tl.json")"
	[ "$(jq '.problems | length' "$TMP/tl.json")" = 0 ] || fail "problems in the trace: $(jq -c .problems "$TMP/tl.json")"
	tns=$(jq --arg c "$W" '.cgroups[$c].throttle_ns // 0' "$TMP/tl.json")
	within "$tns" "$kern" 2 "the trace's throttle slices vs cpu.stat over the window" || fail "throttled time off"
	set -- $(jq -r --arg c "$W" '"\(.spans[$c].first_ns) \(.cgroups[$c].throttle_first_ns)"' "$TMP/tl.json")
	before=$(( ($2 - $1) / 1000000000 ))
	echo "the trace has $W from ${before} s before its first throttle"
	[ "$before" -ge 10 ] || fail "the trace holds only $before s before the burst (12 s of figures were kept)"
}

# A workload that outruns its quota three times, 2 s apart: one incident
# under a rate limit of 1 minute, the other firings counted in it; a second
# watch beside it with no rate limit writes one for each burst (the test
# can tell the two apart).
test_watch_flapping_rate_limited() {
	cg_create wflap && F=$CG
	cg_quota "$F" 30000 100000
	watch_start -i 500ms -t "max-throttled-run=3@$F" --after 1s --rate-limit 1m
	"$CGSCHED" watch --dir "$TMP/inc2" --pid-file "$TMP/watch2.pid" -i 500ms -t "max-throttled-run=3@$F" \
		--after 1s --rate-limit 0 2>"$TMP/w2.err" &
	W2=$!
	wait_line "$TMP/w2.err" "cgsched: tracing"
	cg_run "$F" sh -c "for i in 1 2 3; do \"$CGWORK\" burn 1 1 1 >/dev/null; sleep 2; done" || fail "the bursts failed"
	nap 2
	kill -TERM "$W2"
	wait_bounded "$W2" 20 "the second watch"
	cgs_stop TERM || fail "watch did not stop cleanly"
	n=$(incidents | wc -l)
	n2=$(ls "$TMP/inc2" | wc -l)
	st=$(grep "watch stopped" "$TMP/cgs.err")
	echo "rate limit 1m: $n incident(s); none: $n2; $st" | cut -c1-400
	[ "$n" = 1 ] || fail "$n incidents under a rate limit of 1 minute: $(incidents | tr '\n' ' ')"
	[ "$n2" = 3 ] || fail "$n2 incidents without a rate limit, for 3 bursts (one a burst: a streak is one trouble)"
	echo "$st" | grep -Eq "fired, [1-9][0-9]* in a rate limit" || fail "the firings in the rate limit are not counted: $st"
}

# On demand (SIGUSR1 through --dump), a watch SIGKILLed while writing one
# (a pause between its files, for the test only) leaves a hidden directory,
# never a named half incident; the next watch removes it and says so.
test_watch_dump_and_kill() {
	CGSCHED_TEST_INCIDENT_PAUSE_MS=3000 watch_start -i 500ms
	nap 1.5
	"$CGSCHED" watch --dump --dir "$TMP/inc" --pid-file "$TMP/nope.pid" >/dev/null 2>"$TMP/e"
	rc=$?
	echo "--dump without a watch: $rc: $(cat "$TMP/e")"
	[ "$rc" = 2 ] || fail "--dump with no watch running: exit $rc"
	"$CGSCHED" watch --dump --dir "$TMP/inc" --pid-file "$TMP/watch.pid" >"$TMP/dump.out" 2>"$TMP/dump.err" &
	D=$!
	# Inside the pause: the report written, not the trace.
	deadline 20
	while [ -z "$(ls -A "$TMP/inc" 2>/dev/null)" ] && ! past_deadline; do nap 0.1; done
	nap 0.5
	kill -KILL "$CGS_PID"
	wait "$CGS_PID" 2>/dev/null
	CGS_PID=""
	kill "$D" 2>/dev/null
	wait "$D" 2>/dev/null
	echo "after SIGKILL: $(ls -A "$TMP/inc" | tr '\n' ' ')"
	[ -z "$(incidents)" ] || fail "a named incident after a SIGKILL mid-write: $(incidents)"
	[ -n "$(ls -A "$TMP/inc")" ] || fail "nothing was being written when the watch was killed: the test shows nothing"
	watch_start -i 500ms
	grep -q "removed 1 half-written" "$TMP/cgs.err" || fail "the next watch did not remove it: $(cat "$TMP/cgs.err")"
	[ -z "$(ls -A "$TMP/inc")" ] || fail "left in $TMP/inc: $(ls -A "$TMP/inc")"
	nap 1.5
	"$CGSCHED" watch --dump --dir "$TMP/inc" --pid-file "$TMP/watch.pid" >"$TMP/dump.out" 2>"$TMP/dump.err" ||
		fail "--dump failed: $(cat "$TMP/dump.err")"
	p=$(cat "$TMP/dump.out")
	echo "--dump: $p"
	[ -s "$p/report.json" ] && [ -s "$p/trace.pftrace" ] || fail "--dump's incident lacks its files: $(ls "$p")"
	[ "$(jq -r .cgroup "$p/report.json")" = / ] || fail "an incident on demand is of every cgroup"
	cgs_stop TERM || fail "watch did not stop cleanly"
	[ ! -e "$TMP/watch.pid" ] || fail "the pid file is left behind"
}

# Symlinks planted in --dir, each to a victim directory of files: one named
# as a half-written incident before the start, one named as the oldest
# incident once the watch runs. Neither the start's sweep nor the bound of
# --max-incidents removes anything through them.
test_watch_planted_symlinks() {
	V=$TMP/victim
	mkdir -p "$V/start" "$V/bound" "$TMP/inc"
	chmod 755 "$TMP/inc"
	for f in a b c; do echo precious >"$V/start/$f"; echo precious >"$V/bound/$f"; done
	ln -s "$V/start" "$TMP/inc/.20200101-000000-asked-root.new-AbCdEf"
	watch_start -i 500ms --max-incidents 1
	[ "$(ls "$V/start" | wc -l)" = 3 ] || fail "the start removed files through a symlink: $(ls -A "$V/start" | tr '\n' ' ')"
	! grep -q "half-written" "$TMP/cgs.err" || fail "a symlink counted as a half-written incident: $(cat "$TMP/cgs.err")"
	ln -s "$V/bound" "$TMP/inc/00000000-000000-asked-root"
	for i in 1 2; do
		nap 1.1 # a name a second: each its own
		"$CGSCHED" watch --dump --dir "$TMP/inc" --pid-file "$TMP/watch.pid" >>"$TMP/dumps" 2>"$TMP/dump.err" ||
			fail "--dump $i failed: $(cat "$TMP/dump.err")"
	done
	cgs_stop TERM || fail "watch did not stop cleanly"
	echo "left in --dir: $(ls -A "$TMP/inc" | tr '\n' ' '); victims: $(ls -A "$V"/* | tr '\n' ' ')"
	[ "$(ls "$V/bound" | wc -l)" = 3 ] || fail "the bound removed files through a symlink: $(ls -A "$V/bound" | tr '\n' ' ')"
	[ -L "$TMP/inc/00000000-000000-asked-root" ] && [ -L "$TMP/inc/.20200101-000000-asked-root.new-AbCdEf" ] ||
		fail "the symlinks were not left alone"
	[ ! -e "$(head -n 1 "$TMP/dumps")" ] && [ -d "$(tail -n 1 "$TMP/dumps")" ] ||
		fail "the bound did not keep the newest real incident alone: $(ls -A "$TMP/inc" | tr '\n' ' ')"
	rm -rf "$V"
}

# A --dir that another user owns, or that a group or others may write:
# refused at the start, one line, exit 2, no pid file left.
test_watch_dir_not_roots_alone() {
	mkdir -p "$TMP/wide" "$TMP/grp" "$TMP/other"
	chmod 777 "$TMP/wide"
	chmod 775 "$TMP/grp"
	chmod 755 "$TMP/other"
	chown 12345:12345 "$TMP/other" || fail "chown"
	for d in wide grp other; do
		"$CGSCHED" watch --dir "$TMP/$d" --pid-file "$TMP/w.pid" -i 500ms >/dev/null 2>"$TMP/e" &
		P=$!
		wait_bounded "$P" 30 "watch with --dir $d"
		echo "--dir $d ($(stat -c '%U %a' "$TMP/$d")): exit $WAIT_RC: $(cat "$TMP/e")"
		[ "$WAIT_RC" = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] || fail "--dir $d: exit $WAIT_RC, not one line and exit 2"
		case $d in
		other) grep -q "not owned by root" "$TMP/e" ;;
		*) grep -q "writable by group or others" "$TMP/e" ;;
		esac || fail "--dir $d: the line does not say what is wrong"
		[ ! -e "$TMP/w.pid" ] || fail "a refused watch left its pid file"
		[ -z "$(ls -A "$TMP/$d")" ] || fail "a refused watch wrote in --dir $d: $(ls -A "$TMP/$d")"
	done
}

# The pid file is locked while a watch runs. A second watch with it is
# refused (one line, exit 2) and the first's pid stays in it. After a
# SIGKILL the file is left, naming a pid that another process may reuse:
# here a decoy whose pid is written into it. --dump signals no process
# that does not hold the lock: the decoy lives on, unsignalled (it ends by
# our SIGTERM, 143, not by SIGUSR1, 138). The next watch takes the file over.
test_watch_pid_file_lock() {
	watch_start -i 500ms
	first=$CGS_PID
	"$CGSCHED" watch --dir "$TMP/inc2" --pid-file "$TMP/watch.pid" -i 500ms >/dev/null 2>"$TMP/e2" &
	W2=$!
	wait_bounded "$W2" 30 "a second watch with the same pid file"
	echo "a second watch: exit $WAIT_RC: $(cat "$TMP/e2")"
	[ "$WAIT_RC" = 2 ] && [ "$(wc -l <"$TMP/e2")" = 1 ] || fail "a second watch: exit $WAIT_RC, not one line and exit 2"
	grep -q "cgsched watch $first is running with it" "$TMP/e2" || fail "the line does not name the running watch"
	[ "$(cat "$TMP/watch.pid")" = "$first" ] || fail "the pid file was changed: $(cat "$TMP/watch.pid"), not $first"
	kill -0 "$first" || fail "the first watch is gone"
	kill -KILL "$first"
	wait "$first" 2>/dev/null
	CGS_PID=""
	[ -e "$TMP/watch.pid" ] || fail "no pid file after a SIGKILL: the test shows nothing"
	sleep "$(scaled 120)" &
	DECOY=$!
	CGS_BG=$DECOY
	echo "$DECOY" >"$TMP/watch.pid"
	"$CGSCHED" watch --dump --dir "$TMP/inc" --pid-file "$TMP/watch.pid" >"$TMP/dump.out" 2>"$TMP/dump.err" &
	D=$!
	wait_bounded "$D" 30 "--dump with a stale pid file"
	echo "--dump, the stale file naming the decoy $DECOY: exit $WAIT_RC: $(cat "$TMP/dump.err")"
	kill -0 "$DECOY" 2>/dev/null || fail "--dump signalled the decoy, which a stale pid file named"
	kill -TERM "$DECOY"
	wait "$DECOY"
	rc=$?
	CGS_BG=""
	[ "$rc" = 143 ] || fail "the decoy ended with $rc, not 143 (SIGTERM): it was signalled before"
	[ "$WAIT_RC" = 2 ] && [ "$(wc -l <"$TMP/dump.err")" = 1 ] && [ ! -s "$TMP/dump.out" ] ||
		fail "--dump with a stale pid file: exit $WAIT_RC, not one line and exit 2"
	grep -q "no watch holds it" "$TMP/dump.err" || fail "the line does not say the file is stale"
	watch_start -i 500ms
	[ "$(cat "$TMP/watch.pid")" = "$CGS_PID" ] || fail "the next watch did not take the stale file over"
	nap 1.5
	p=$("$CGSCHED" watch --dump --dir "$TMP/inc" --pid-file "$TMP/watch.pid" 2>"$TMP/dump.err") ||
		fail "--dump failed: $(cat "$TMP/dump.err")"
	[ -s "$p/report.json" ] || fail "--dump of the new watch wrote no incident"
	cgs_stop TERM || fail "watch did not stop cleanly"
	[ ! -e "$TMP/watch.pid" ] || fail "the pid file is left behind"
}

# A full disk: the incident is not written (said, counted), nothing half
# of it is left, and the watch goes on. The small disk is a 64 KB tmpfs in
# a mount namespace of the watch's own (gone with it, whatever happens to
# the test), reached from here through /proc/PID/root.
test_watch_full_disk() {
	mkdir -p "$TMP/small"
	printf '#!/bin/sh\nmount -t tmpfs -o size=64k tmpfs "%s" || exit 99\nexec "%s" "$@"\n' "$TMP/small" "$CGSCHED" \
		>"$TMP/inns"
	printf '#!/bin/sh\nexec unshare -m --propagation private "%s" "$@"\n' "$TMP/inns" >"$TMP/wrap"
	chmod +x "$TMP/inns" "$TMP/wrap"
	CGSCHED=$TMP/wrap WDIR=$TMP/small/inc watch_start -i 500ms
	D=/proc/$CGS_PID/root$TMP/small
	[ -d "$D/inc" ] || fail "the watch's small disk is not there: $D"
	head -c 60000 /dev/zero >"$D/filler" 2>/dev/null
	echo "the small disk: $(stat -f -c '%T, %b blocks of %S bytes' "$D")"
	nap 2
	kill -USR1 "$CGS_PID"
	wait_line "$TMP/cgs.err" "incident NOT written"
	kill -0 "$CGS_PID" || fail "the watch died on a full disk"
	left=$(ls -A "$D/inc" | wc -l)
	rm -f "$D/filler"
	kill -USR1 "$CGS_PID"
	wait_line "$TMP/cgs.err" "incident: every cgroup"
	cgs_stop TERM || fail "watch did not stop cleanly"
	grep "incident" "$TMP/cgs.err" | cut -c1-300
	grep "watch stopped" "$TMP/cgs.err" | grep -q "1 failed" || fail "the failed incident is not counted: $(grep stopped "$TMP/cgs.err")"
	[ "$left" = 0 ] || fail "$left files or directories left of the incident that did not fit"
}

# The bound: 40 cgroups each waking every 2 ms, figures kept every 100 ms
# under --memory 256K, until the bound lets an interval go (-v's status
# line each interval says so; how soon depends on the machine: ~9 s here,
# over 60 s in the 6.1 guest, where the wakers run slower): the oldest go
# (counted), what is kept stays within the bound, and the newest are there.
test_watch_memory_bound() {
	cg_create wmem && M=$CG
	watch_start -v -i 100ms --memory 256K
	for i in $(seq 1 40); do
		cg_create "m$i" "$M" || fail "mkdir"
		cg_spawn "$CG" "$CGWORK" wake "$(scaled 60)" 2000 >/dev/null
	done
	wait_line "$TMP/cgs.err" "let go for the bound: [1-9]"
	nap 1
	cgs_stop TERM || fail "watch did not stop cleanly"
	st=$(grep "watch stopped" "$TMP/cgs.err")
	echo "$st" | cut -c1-500
	set -- $(echo "$st" | sed -E 's/.*kept ([0-9]+) intervals \(([^)]*)\), ([0-9]+) bytes of ([0-9]+); let go for the bound: ([0-9]+) intervals.*/\1 \3 \4 \5/')
	[ "$#" = 4 ] || fail "no figures of what was kept: $st"
	[ "$2" -le "$3" ] || fail "$2 bytes kept over the bound of $3"
	[ "$4" -gt 0 ] || fail "none let go: the bound was never reached (the test shows nothing)"
	[ "$1" -ge 5 ] || fail "only $1 intervals kept"
}

# make install: the watch's unit with the installed binary's path passes
# systemd-analyze verify, and the watch it starts works with only the
# capabilities its CapabilityBoundingSet keeps: an incident on demand.
test_watch_install() {
	for c in make setpriv systemd-analyze; do
		command -v "$c" >/dev/null || { echo "no $c here"; exit 77; }
	done
	I=$TMP/inst
	make -s -C "$ROOT" install PREFIX="$I" SYSTEMD_UNITDIR="$I/systemd" >"$TMP/inst.log" 2>&1 ||
		fail "make install: $(cat "$TMP/inst.log")"
	U=$I/systemd/cgsched-watch.service
	[ -f "$U" ] || fail "make install left out the watch's unit"
	grep -q "^ExecStart=$I/sbin/cgsched watch" "$U" || fail "the unit does not start the installed binary: $(grep ExecStart "$U")"
	systemd-analyze verify --man=no --recursive-errors=no "$U" || fail "systemd-analyze verify rejects the unit"
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$U" | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
	echo "the unit's capabilities: $caps"
	: >"$TMP/cgs.err"
	setpriv --bounding-set="-all,$caps" "$I/sbin/cgsched" watch -i 500ms --dir "$TMP/inc" --pid-file "$TMP/watch.pid" \
		>"$TMP/cgs.out" 2>"$TMP/cgs.err" &
	CGS_PID=$!
	wait_line "$TMP/cgs.err" tracing
	nap 1
	p=$("$I/sbin/cgsched" watch --dump --dir "$TMP/inc" --pid-file "$TMP/watch.pid") || fail "--dump failed"
	[ -s "$p/report.json" ] || fail "no incident under the unit's capabilities"
	cgs_stop TERM || fail "watch did not stop cleanly"
	rm -rf "$I"
}

# max-behind-one-pct: A and B burn on one CPU, each waiting behind the
# other; the rule on A fires (nearly all of its waits behind B) and the
# incident's report says B, as record --why does. On v2, where the kernel
# keeps cpu.pressure per cgroup, max-psi-some-pct fires for A too (its
# task waits about half the time: "some" ~50 %, over the 20 % limit).
test_watch_behind_one_and_psi() {
	cg_create wa && A=$CG
	cg_create wb && B=$CG
	psi=""
	[ "$CG_VER" = 2 ] && [ -r "$CG_ROOT$A/cpu.pressure" ] && psi="max-psi-some-pct=20@$A"
	watch_start -i 500ms --after 1s -t "max-behind-one-pct=50@$A" ${psi:+-t "$psi"}
	burn_in "$B" 1 3 0 >/dev/null &
	pb=$!
	burn_in "$A" 1 3 0 >/dev/null || fail "A's burn failed"
	wait_bounded "$pb" 20 "B's burn"
	wait_line "$TMP/cgs.err" "incident: $A: max-behind-one-pct"
	[ -z "$psi" ] || wait_line "$TMP/cgs.err" "incident: $A: max-psi-some-pct"
	cgs_stop TERM || fail "watch did not stop cleanly"
	grep "incident:" "$TMP/cgs.err" | cut -c1-300
	v=$(sed -n "s|.*incident: $A: max-behind-one-pct=50@$A, measured \([0-9]*\).*|\1|p" "$TMP/cgs.err")
	[ "${v:-0}" -ge 90 ] || fail "measured ${v:-none} % behind one cgroup, expected nearly all (two burners on one CPU)"
	I=$TMP/inc/$(incidents | grep max-behind-one-pct | head -n 1)
	who=$(jq -r '.waited.causes[0].path' "$I/report.json")
	echo "the incident's report: $(jq -c '.waited.causes[0] | {cause, path, pct}' "$I/report.json")"
	[ "$who" = "$B" ] || fail "the incident's report names $who as what A waited behind, not $B"
}

# --max-incidents: the oldest go first, counted.
test_watch_max_incidents() {
	watch_start -i 500ms --max-incidents 2
	for i in 1 2 3; do
		nap 1.1 # a name a second: each its own
		"$CGSCHED" watch --dump --dir "$TMP/inc" --pid-file "$TMP/watch.pid" >>"$TMP/dumps" 2>"$TMP/dump.err" ||
			fail "--dump $i failed: $(cat "$TMP/dump.err")"
	done
	cgs_stop TERM || fail "watch did not stop cleanly"
	first=$(head -n 1 "$TMP/dumps")
	echo "kept: $(incidents | tr '\n' ' '); $(grep -o '[0-9]* removed for --max-incidents' "$TMP/cgs.err")"
	[ "$(incidents | wc -l)" = 2 ] || fail "$(incidents | wc -l) incidents kept with --max-incidents 2"
	[ ! -e "$first" ] || fail "the oldest ($first) was kept"
	grep -q "3 incidents written.* 1 removed for --max-incidents" "$TMP/cgs.err" || fail "the removal is not counted: $(grep stopped "$TMP/cgs.err")"
}

# max-psi-some-pct reads the cgroups' cpu.pressure: cgroup v2's. On v1 the
# watch refuses it at the start (one line, exit 2, nothing made); on v2 it
# runs.
test_watch_psi_rule() {
	"$CGSCHED" watch -t max-psi-some-pct=10 --dir "$TMP/inc" --pid-file "$TMP/w.pid" -i 500ms \
		>/dev/null 2>"$TMP/e" &
	P=$!
	if [ "$CG_VER" = 1 ]; then
		wait_bounded "$P" 30 "watch on v1"
		echo "v1: exit $WAIT_RC: $(cat "$TMP/e")"
		[ "$WAIT_RC" = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && grep -q "cgroup v2" "$TMP/e" ||
			fail "on v1 the PSI rule should be refused in one line, exit 2"
		[ ! -e "$TMP/inc" ] && [ ! -e "$TMP/w.pid" ] || fail "a refused watch left its directory or pid file"
	else
		wait_line "$TMP/e" "cgsched: tracing"
		kill -TERM "$P"
		wait_bounded "$P" 20 "watch"
		[ "$WAIT_RC" = 0 ] || fail "watch with a PSI rule on v2: exit $WAIT_RC: $(cat "$TMP/e")"
	fi
}
