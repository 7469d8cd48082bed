# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# cgsched apply and enforce: limits files, dry-run, rollback, bad files,
# soft caps driven by measured contention, restoring, reloading.

# The files a limit lives in, per cgroup version (to read them back).
quota_file() { [ "$CG_VER" = 1 ] && echo cpu.cfs_quota_us || echo cpu.max; }
weight_file() { [ "$CG_VER" = 1 ] && echo cpu.shares || echo cpu.weight; }
readf() { cat "$CG_ROOT$1/$2"; }
burst_file() { [ "$CG_VER" = 1 ] && echo cpu.cfs_burst_us || echo cpu.max.burst; }
# has_burst CG: the kernel has CFS burst control (Linux 5.14+; not 5.10).
has_burst() { [ -e "$CG_ROOT$1/$(burst_file)" ]; }
unlimited() { case "$(readf "$1" "$(quota_file)")" in -1 | max*) return 0 ;; esac; return 1; }
# Every cpu.* file of the given cgroups, to compare before and after.
state() { for c in "$@"; do for f in "$CG_ROOT$c"/cpu.*; do printf '%s %s\n' "$f" "$(cat "$f" 2>/dev/null | head -n 1)"; done; done | grep -v cpu.stat; }

test_apply_dry_run_and_apply() {
	cg_create lim-a && A=$CG
	cg_create lim-b && B=$CG
	n=$(basename "$A")
	# Without CFS burst (before 5.14) a burst key is refused, by name (below).
	burst="burst = 5ms" want_burst=5000
	if ! has_burst "$B"; then
		printf '[%s]\nburst = 5ms\n' "$B" >"$TMP/nb.ini"
		"$CGSCHED" apply "$TMP/nb.ini" >/dev/null 2>"$TMP/e" && fail "a burst applied on a kernel without burst"
		echo "no CFS burst here: $(cat "$TMP/e")"
		grep -q "no CFS burst control" "$TMP/e" || fail "the refusal does not say why"
		burst="" want_burst=""
	fi
	cat >"$TMP/l.ini" <<INI
; a comment
[$n]
max = 20%
weight = 200

[$B]
max = 50ms/100ms
$burst

[$A/new]
create = yes
weight = 50
INI
	before=$(state "$A" "$B")
	"$CGSCHED" apply "$TMP/l.ini" --dry-run >"$TMP/o" || fail "dry run failed"
	cat "$TMP/o"
	[ "$(state "$A" "$B")" = "$before" ] && [ ! -d "$CG_ROOT$A/new" ] || fail "dry run wrote something"
	grep -q "$A $(quota_file): .* -> " "$TMP/o" || fail "no old -> new line"
	"$CGSCHED" apply "$TMP/l.ini" >"$TMP/o" || fail "apply failed"
	if [ "$CG_VER" = 1 ]; then
		[ "$(readf "$A" cpu.cfs_quota_us)" = 20000 ] && [ "$(readf "$A" cpu.shares)" = 2048 ] &&
			[ "$(readf "$B" cpu.cfs_burst_us 2>/dev/null)" = "$want_burst" ] && [ "$(readf "$A/new" cpu.shares)" = 512 ] ||
			fail "v1 values not as the file says"
	else
		[ "$(readf "$A" cpu.max)" = "20000 100000" ] && [ "$(readf "$A" cpu.weight)" = 200 ] &&
			[ "$(readf "$B" cpu.max.burst 2>/dev/null)" = "$want_burst" ] && [ "$(readf "$A/new" cpu.weight)" = 50 ] ||
			fail "v2 values not as the file says"
	fi
	"$CGSCHED" apply "$TMP/l.ini" | grep -q "in force already" || fail "a second apply should change nothing"
	echo "applied: quota $(readf "$A" "$(quota_file)"), weight file $(readf "$A" "$(weight_file)")"
}

# A write the kernel refuses: what was already written is put back, exit 2.
test_apply_rolls_back() {
	cg_create rb-a && A=$CG
	cg_create rb-b && B=$CG
	cg_quota "$B" 10000 100000
	has_burst "$B" || { echo "no CFS burst here (Linux 5.14): the refusal this test provokes is a burst over the quota"; exit 77; }
	before=$(state "$A" "$B")
	# B's quota is 10 ms: a 50 ms burst is more than the kernel allows.
	printf '[%s]\nweight = 300\n\n[%s]\nburst = 50ms\n' "$A" "$B" >"$TMP/rb.ini"
	"$CGSCHED" apply "$TMP/rb.ini" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	echo "exit $rc: $(cat "$TMP/e")"
	[ $rc = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] || fail "expected one line and exit 2"
	grep -q "rb.ini:4:" "$TMP/e" || fail "the error should name the file and the line of the section"
	[ "$(state "$A" "$B")" = "$before" ] || fail "the weight of $A was not restored"
}

# Bad files: FILE:LINE on one line, exit 2, every cgroup as it was.
test_apply_bad_files() {
	cg_create bad-a && A=$CG
	before=$(state "$A")
	printf '[%s]\nmax = 20%%\n' "$A" >"$TMP/ok.ini"
	bad=0
	for f in "syntax|[$A\nmax = 20%|:1:" \
		"unknown key|[$A]\nmax = 20%\ncolour = red|:3: unknown key" \
		"out of range|[$A]\nweight = 20000|:2: weight" \
		"bad max|[$A]\nmax = 0.1%|:2: max" \
		"burst over quota|[$A]\nmax = 10ms/100ms\nburst = 20ms|:3: burst" \
		"soft over max|[$A]\nmax = 20%\nsoft_max = 30%|:3: soft_max" \
		"missing group|[$A]\nweight = 200\n[$A-missing]\nweight = 100|:3:" \
		"glob create|[$A/*]\ncreate = yes|:2:" \
		"twice|[$A]\nweight = 100\nweight = 200|:3:"; do
		name=${f%%|*}; rest=${f#*|}; body=${rest%|*}; want=${rest##*|}
		printf "%b\n" "$body" >"$TMP/bad.ini"
		"$CGSCHED" apply "$TMP/bad.ini" >"$TMP/o" 2>"$TMP/e"
		rc=$?
		echo "$name -> exit $rc: $(cat "$TMP/e")"
		{ [ $rc = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && [ ! -s "$TMP/o" ] && grep -q -- "$want" "$TMP/e"; } || bad=$((bad + 1))
	done
	[ $bad = 0 ] || fail "$bad bad files not refused as they should be"
	[ "$(state "$A")" = "$before" ] && [ ! -d "$CG_ROOT$A-missing" ] || fail "a bad file changed something"
}

# enforce: a soft-capped burner alone runs above its soft cap; once a second
# group competes on its CPU it is held to it within two intervals (cpu.stat
# counts throttled periods); after the competitor stops it is released.
test_enforce_soft_cap() {
	cg_create soft && S=$CG
	cg_create rival && C=$CG
	printf '[%s]\nsoft_max = 20%%\n' "$S" >"$TMP/s.ini"
	"$CGSCHED" enforce "$TMP/s.ini" -i 0.5 --journal "$TMP/s.journal" >"$TMP/enf" 2>&1 &
	CGS_BG="$CGS_BG $!" # killed on exit if the test fails
	EP=$!
	wait_line "$TMP/enf" enforcing
	cg_spawn "$S" "$CGWORK" burn 1 30 0 >/dev/null
	sleep 2
	unlimited "$S" || fail "capped while alone: $(cat "$TMP/enf")"
	t0=$(awk '$1 == "nr_throttled" { print $2 }' "$CG_ROOT$S/cpu.stat")
	[ "$t0" = 0 ] || fail "throttled $t0 times while alone: it should run above its soft cap"
	cg_spawn "$C" "$CGWORK" burn 1 30 0 >/dev/null
	rival=$SPAWNED
	held=""
	for i in $(seq 1 20); do # two intervals plus start-up slack
		nap 0.1
		unlimited "$S" || { held=$i; break; }
	done
	[ -n "$held" ] || fail "not held to its soft cap within 2 s: $(cat "$TMP/enf")"
	sleep 1
	t1=$(awk '$1 == "nr_throttled" { print $2 }' "$CG_ROOT$S/cpu.stat")
	echo "held after $((held * 100)) ms; quota $(readf "$S" "$(quota_file)"); throttled periods $t0 -> $t1"
	[ "$t1" -gt "$t0" ] || fail "cpu.stat shows no throttling under the soft cap"
	kill $rival
	released=""
	for i in $(seq 1 30); do
		nap 0.1
		unlimited "$S" && { released=$i; break; }
	done
	[ -n "$released" ] || fail "not released after the rival stopped: $(cat "$TMP/enf")"
	echo "released $((released * 100)) ms after the rival stopped"
	kill -TERM $EP
	wait_bounded $EP 20 "enforce after SIGTERM"
	[ "$WAIT_RC" = 0 ] || fail "enforce exited $WAIT_RC, not 0"
	cat "$TMP/enf"
	grep -q "soft cap on: $C run-queue p99" "$TMP/enf" || fail "the log should say why"
	grep -q "soft cap lifted" "$TMP/enf" || fail "the log should say the cap was lifted"
}

# enforce: a value changed behind its back is restored and logged; SIGHUP
# reloads (a bad file keeps the old limits); SIGTERM restores the start.
test_enforce_restore_reload() {
	cg_create keep && K=$CG
	start=$(state "$K")
	printf '[%s]\nweight = 300\n' "$K" >"$TMP/k.ini"
	"$CGSCHED" enforce "$TMP/k.ini" -i 0.3 --journal "$TMP/k.journal" >"$TMP/enf" 2>&1 &
	CGS_BG="$CGS_BG $!" # killed on exit if the test fails
	EP=$!
	wait_line "$TMP/enf" enforcing
	nap 0.3
	w=$(readf "$K" "$(weight_file)")
	[ "$w" = "$( [ "$CG_VER" = 1 ] && echo 3072 || echo 300)" ] || fail "not applied: $w"
	echo 1000 >"$CG_ROOT$K/$(weight_file)"
	sleep 1
	[ "$(readf "$K" "$(weight_file)")" = "$w" ] || fail "not restored after someone else's change"
	grep -q "someone else changed it: restored" "$TMP/enf" || fail "the restore is not logged"
	printf '[%s]\nweight = nonsense\n' "$K" >"$TMP/k.ini"
	kill -HUP $EP
	sleep 1
	grep -q "reload failed, keeping the limits in force: .*k.ini:2:" "$TMP/enf" || fail "a bad reload should be logged with FILE:LINE"
	[ "$(readf "$K" "$(weight_file)")" = "$w" ] || fail "a bad reload changed the limits"
	printf '[%s]\nweight = 50\n' "$K" >"$TMP/k.ini"
	kill -HUP $EP
	sleep 1
	w2=$(readf "$K" "$(weight_file)")
	[ "$w2" = "$( [ "$CG_VER" = 1 ] && echo 512 || echo 50)" ] || fail "the reloaded file was not applied: $w2"
	kill -TERM $EP
	wait_bounded $EP 20 "enforce after SIGTERM"
	[ "$WAIT_RC" = 0 ] || fail "enforce exited $WAIT_RC, not 0"
	cat "$TMP/enf"
	[ "$(state "$K")" = "$start" ] || fail "SIGTERM did not restore the values found at start"
	# A quiet host loses nothing: no drops line (a waking task's one unpaired
	# event a second once made one every interval).
	! grep -q "drops:" "$TMP/enf" || fail "drops logged on a quiet host: $(grep drops: "$TMP/enf" | head -n 3)"
}

# enforce: a cgroup that appears later and matches a glob gets its limits.
test_enforce_new_groups() {
	cg_create parent && P=$CG
	cg_enable_children "$P"
	printf '[%s/*]\nweight = 200\n' "$P" >"$TMP/g.ini"
	"$CGSCHED" enforce "$TMP/g.ini" -i 0.3 --journal "$TMP/g.journal" >"$TMP/enf" 2>&1 &
	CGS_BG="$CGS_BG $!" # killed on exit if the test fails
	EP=$!
	wait_line "$TMP/enf" enforcing
	mkdir "$CG_ROOT$P/late"
	sleep 1
	w=$(readf "$P/late" "$(weight_file)")
	kill -TERM $EP
	wait_bounded $EP 20 "enforce after SIGTERM"
	[ "$WAIT_RC" = 0 ] || fail "enforce exited $WAIT_RC, not 0"
	cat "$TMP/enf"
	[ "$w" = "$( [ "$CG_VER" = 1 ] && echo 2048 || echo 200)" ] || fail "the new cgroup did not get its weight ($w)"
	grep -q "$P/late $(weight_file): .* -> " "$TMP/enf" || fail "not logged"
}

# Lowering a quota and its burst together: the kernel refuses a quota below
# the burst in force, so apply writes the burst first; raising them again
# writes the quota first.
test_apply_lowers_quota_and_burst() {
	cg_create lqb && L=$CG
	has_burst "$L" || { echo "no CFS burst here (Linux 5.14)"; exit 77; }
	printf '[%s]\nmax = 50%%\nburst = 20ms\n' "$L" >"$TMP/hi.ini"
	printf '[%s]\nmax = 10%%\nburst = 5ms\n' "$L" >"$TMP/lo.ini"
	for f in hi lo hi; do
		"$CGSCHED" apply "$TMP/$f.ini" >"$TMP/o" 2>"$TMP/e" || fail "apply $f.ini: exit $?: $(cat "$TMP/e")"
		echo "$f: quota $(readf "$L" "$(quota_file)"), burst $(readf "$L" "$(burst_file)")"
	done
	"$CGSCHED" apply "$TMP/lo.ini" >"$TMP/o" 2>"$TMP/e" || fail "apply lo.ini again: $(cat "$TMP/e")"
	cat "$TMP/o"
	[ "$(readf "$L" "$(burst_file)")" = 5000 ] || fail "burst not lowered: $(readf "$L" "$(burst_file)")"
	case $(readf "$L" "$(quota_file)") in 10000*) ;; *) fail "quota not lowered: $(readf "$L" "$(quota_file)")" ;; esac
	# The file's name then a colon: on cgroup v2 "cpu.max" is also the start of "cpu.max.burst".
	grep -nF " $(burst_file): " "$TMP/o" | cut -d: -f1 >"$TMP/bl"
	grep -nF " $(quota_file): " "$TMP/o" | cut -d: -f1 >"$TMP/ql"
	[ "$(wc -l <"$TMP/bl")" = 1 ] && [ "$(wc -l <"$TMP/ql")" = 1 ] || fail "the plan does not list each file once: $(cat "$TMP/o")"
	[ "$(cat "$TMP/bl")" -lt "$(cat "$TMP/ql")" ] || fail "the plan does not list the burst first: $(cat "$TMP/o")"
}

# enforce: a reload that drops a section with a quota and a burst puts the
# burst back first (the kernel refuses a quota below the burst in force),
# and the exit after it is clean.
test_enforce_reload_restores_burst_first() {
	cg_create rbq && R=$CG
	cg_create rbq-other && O=$CG
	has_burst "$R" || { echo "no CFS burst here (Linux 5.14)"; exit 77; }
	cg_quota "$R" 10000 100000
	start=$(state "$R")
	printf '[%s]\nmax = 50%%\nburst = 20ms\n' "$R" >"$TMP/rbq.ini"
	"$CGSCHED" enforce "$TMP/rbq.ini" -i 0.3 --journal "$TMP/rbq.journal" >"$TMP/enf" 2>&1 &
	CGS_BG="$CGS_BG $!" # killed on exit if the test fails
	EP=$!
	wait_line "$TMP/enf" enforcing
	[ "$(readf "$R" "$(burst_file)")" = 20000 ] || fail "burst not set: $(cat "$TMP/enf")"
	printf '[%s]\nweight = 200\n' "$O" >"$TMP/rbq.ini"
	kill -HUP $EP
	wait_line "$TMP/enf" "reloaded"
	for i in $(seq 1 20); do
		[ "$(state "$R")" = "$start" ] && break
		nap 0.1
	done
	kill -TERM $EP
	wait_bounded $EP 20 "enforce after SIGTERM"
	cat "$TMP/enf"
	[ "$(state "$R")" = "$start" ] || fail "not put back after the reload: $(state "$R")"
	[ "$WAIT_RC" = 0 ] || fail "enforce exited $WAIT_RC, not 0"
}
