# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Crash-safe enforce: the journal of the values found (SIGKILL, restart,
# SIGTERM gives the originals back), apply --restore, bad journals, one
# enforce per journal; enforce's drops and its soft-cap list; what a killed
# record leaves. Each enforce gets a journal of its own under $TMP.

# The files a limit lives in (as t_limits.sh), and reading one back.
j_quota() { [ "$CG_VER" = 1 ] && echo cpu.cfs_quota_us || echo cpu.max; }
j_weight() { [ "$CG_VER" = 1 ] && echo cpu.shares || echo cpu.weight; }
j_read() { cat "$CG_ROOT$1/$2"; }
j_unlimited() { case "$(j_read "$1" "$(j_quota)")" in -1 | max*) return 0 ;; esac; return 1; }

# j_enforce LOG ARGS...: enforce in the background, EP its pid, waits for its start.
j_enforce() {
	_log=$1
	shift
	: >"$_log"
	"$CGSCHED" enforce "$@" >"$_log" 2>&1 &
	EP=$!
	CGS_BG="$CGS_BG $EP" # killed on exit if the test fails
	wait_line "$_log" enforcing
}

j_stop() {
	kill -TERM "$EP"
	wait_bounded "$EP" 20 "enforce after SIGTERM"
	[ "$WAIT_RC" = 0 ] || fail "enforce exited $WAIT_RC, not 0: $(cat "$1")"
}

# SIGKILL while a soft cap holds: the limits stay as enforce set them and
# the journal has the originals; the next enforce puts them back first, so
# that its own SIGTERM restores the true originals, not the capped values.
test_journal_sigkill_restart_restores() {
	cg_create j-soft && S=$CG
	cg_create j-rival && C=$CG
	J=$TMP/sk.journal
	q0=$(j_read "$S" "$(j_quota)")
	w0=$(j_read "$S" "$(j_weight)")
	printf '[%s]\nsoft_max = 20%%\nweight = 300\n' "$S" >"$TMP/sk.ini"
	j_enforce "$TMP/e1" "$TMP/sk.ini" -i 0.3 --min-waits 5 --journal "$J"
	cg_spawn "$S" "$CGWORK" burn 1 30 0 >/dev/null
	cg_spawn "$C" "$CGWORK" burn 1 30 0 >/dev/null
	for i in $(seq 1 $((40 * CGS_TIME_SCALE))); do
		j_unlimited "$S" || break
		nap 0.1
	done
	j_unlimited "$S" && fail "not soft-capped within $(scaled 4) s: $(cat "$TMP/e1")"
	kill -KILL "$EP"
	wait "$EP" 2>/dev/null
	q1=$(j_read "$S" "$(j_quota)")
	w1=$(j_read "$S" "$(j_weight)")
	echo "before: quota '$q0' weight $w0; after SIGKILL mid-soft-cap: quota '$q1' weight $w1"
	cat "$J"
	[ "$q1" != "$q0" ] && [ "$w1" != "$w0" ] || fail "SIGKILL should leave the values enforce set"
	grep -q "^set [0-9]* $S $(j_quota) " "$J" && grep -q "^set [0-9]* $S $(j_weight) $w0\$" "$J" ||
		fail "the journal does not hold the originals"
	j_enforce "$TMP/e2" "$TMP/sk.ini" -i 0.3 --min-waits 5 --journal "$J"
	sleep 1 # a few intervals: the weight set again, the cap again while the rival burns
	j_stop "$TMP/e2"
	cat "$TMP/e2"
	grep -q "$J: left by enforce pid" "$TMP/e2" || fail "no line says the journal was found"
	[ "$(grep -n "from the journal" "$TMP/e2" | head -n 1 | cut -d: -f1)" -lt "$(grep -n enforcing "$TMP/e2" | cut -d: -f1)" ] ||
		fail "the journal was not put back before anything else"
	q2=$(j_read "$S" "$(j_quota)")
	w2=$(j_read "$S" "$(j_weight)")
	echo "after restart and SIGTERM: quota '$q2' weight $w2"
	[ "$q2" = "$q0" ] && [ "$w2" = "$w0" ] || fail "not the original values"
	[ ! -e "$J" ] || fail "the journal is left after a clean restore"
}

# apply --restore: --dry-run writes nothing; then the values go back and the
# journal goes; a cgroup gone since is skipped and said.
test_journal_apply_restore() {
	cg_create j-ar && A=$CG
	cg_create j-gone && G=$CG
	J=$TMP/ar.journal
	before=$(j_read "$A" "$(j_weight)")
	printf '[%s]\nweight = 300\n[%s]\nweight = 50\n' "$A" "$G" >"$TMP/ar.ini"
	j_enforce "$TMP/e" "$TMP/ar.ini" -i 0.3 --journal "$J"
	kill -KILL "$EP"
	wait "$EP" 2>/dev/null
	set_w=$(j_read "$A" "$(j_weight)")
	rmdir "$CG_ROOT$G"
	"$CGSCHED" apply --restore "$J" --dry-run >"$TMP/o" 2>&1 || fail "dry run failed: $(cat "$TMP/o")"
	cat "$TMP/o"
	[ "$(j_read "$A" "$(j_weight)")" = "$set_w" ] && [ -e "$J" ] || fail "the dry run wrote something"
	"$CGSCHED" apply --restore "$J" >"$TMP/o" 2>&1 || fail "apply --restore failed: $(cat "$TMP/o")"
	cat "$TMP/o"
	[ "$(j_read "$A" "$(j_weight)")" = "$before" ] || fail "not put back: $(j_read "$A" "$(j_weight)")"
	grep -q "$G $(j_weight): the cgroup no longer exists, skipped" "$TMP/o" || fail "the gone cgroup is not named"
	[ ! -e "$J" ] || fail "the journal is left"
	"$CGSCHED" apply --restore "$J" 2>"$TMP/e"
	rc=$?
	[ $rc = 2 ] && grep -q "no such journal" "$TMP/e" || fail "a missing journal: exit $rc: $(cat "$TMP/e")"
}

# A bad journal: one line, exit 2, nothing written, the journal kept, from
# apply --restore and from enforce alike. One of an earlier boot is removed
# without a write: its cgroups went at shutdown.
test_journal_bad_and_stale() {
	cg_create j-bad && B=$CG
	id=$(stat -c %i "$CG_ROOT$B")
	w0=$(j_read "$B" "$(j_weight)")
	boot=$(cat /proc/sys/kernel/random/boot_id)
	head="cgsched-journal 1\npid 1\nboot $boot\nhierarchy $CG_VER $CG_ROOT\n"
	printf '[%s]\nweight = 300\n' "$B" >"$TMP/b.ini"
	bad=0
	for f in "no end|set $id $B $(j_weight) 77\n|:6:" \
		"not a limit file|set $id $B cgroup.procs 1\nend 1\n|:5:" \
		"bad value|set $id $B $(j_weight) 77x\nend 1\n|:5:" \
		"end miscounted|set $id $B $(j_weight) 77\nend 2\n|:6:"; do
		name=${f%%|*}; rest=${f#*|}; body=${rest%|*}; want=${rest##*|}
		printf "$head$body" >"$TMP/bad.journal"
		cp "$TMP/bad.journal" "$TMP/bad.copy"
		"$CGSCHED" apply --restore "$TMP/bad.journal" >"$TMP/o" 2>"$TMP/e"
		rc=$?
		echo "apply --restore, $name -> exit $rc: $(cat "$TMP/e")"
		{ [ $rc = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && grep -q "bad.journal$want" "$TMP/e" &&
			cmp -s "$TMP/bad.journal" "$TMP/bad.copy"; } || bad=$((bad + 1))
		# Bounded: an enforce that took the journal would run on.
		"$CGSCHED" enforce "$TMP/b.ini" --journal "$TMP/bad.journal" >"$TMP/o" 2>"$TMP/e" &
		CGS_BG="$CGS_BG $!"
		wait_bounded $! 10 "enforce with a bad journal ($name)"
		rc=$WAIT_RC
		echo "enforce, $name -> exit $rc: $(cat "$TMP/e")"
		{ [ $rc = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && cmp -s "$TMP/bad.journal" "$TMP/bad.copy"; } || bad=$((bad + 1))
	done
	[ $bad = 0 ] || fail "$bad bad journals not refused as they should be"
	[ "$(j_read "$B" "$(j_weight)")" = "$w0" ] || fail "a bad journal changed something"
	# The same journal, well formed, but of another boot: removed, nothing written.
	printf "cgsched-journal 1\npid 1\nboot 00000000-0000-0000-0000-000000000000\nhierarchy $CG_VER $CG_ROOT\nset $id $B $(j_weight) 77\nend 1\n" >"$TMP/old.journal"
	"$CGSCHED" apply --restore "$TMP/old.journal" >"$TMP/o" 2>&1 || fail "a stale journal: $(cat "$TMP/o")"
	cat "$TMP/o"
	grep -q "earlier boot" "$TMP/o" && [ ! -e "$TMP/old.journal" ] || fail "a stale journal should be removed and said so"
	[ "$(j_read "$B" "$(j_weight)")" = "$w0" ] || fail "a stale journal's value was written"
	# And of this boot: written.
	printf "${head}set $id $B $(j_weight) 77\nend 1\n" >"$TMP/ok.journal"
	"$CGSCHED" apply --restore "$TMP/ok.journal" >"$TMP/o" 2>&1 || fail "a good journal refused: $(cat "$TMP/o")"
	[ "$(j_read "$B" "$(j_weight)")" = 77 ] || fail "a good journal's value not written"
}

# One enforce per journal: a second is refused (exit 2, one line, nothing
# changed), so is apply --restore meanwhile; another journal is fine.
test_journal_second_instance_refused() {
	cg_create j-one && O=$CG
	J=$TMP/one.journal
	printf '[%s]\nweight = 300\n' "$O" >"$TMP/one.ini"
	printf '[%s]\nweight = 50\n' "$O" >"$TMP/two.ini"
	j_enforce "$TMP/e" "$TMP/one.ini" -i 0.3 --journal "$J"
	w=$(j_read "$O" "$(j_weight)")
	# In the background, bounded: one that is not refused would run on.
	"$CGSCHED" enforce "$TMP/two.ini" -i 0.3 --journal "$J" >"$TMP/o" 2>"$TMP/e2" &
	CGS_BG="$CGS_BG $!"
	wait_bounded $! 10 "a second enforce on the same journal"
	rc=$WAIT_RC
	echo "second enforce -> exit $rc: $(cat "$TMP/e2")"
	[ $rc = 2 ] && [ "$(wc -l <"$TMP/e2")" = 1 ] && grep -q "pid $EP" "$TMP/e2" || fail "a second enforce on one journal not refused"
	[ "$(j_read "$O" "$(j_weight)")" = "$w" ] || fail "the refused enforce changed something"
	"$CGSCHED" apply --restore "$J" >"$TMP/o" 2>"$TMP/e2"
	rc=$?
	echo "apply --restore meanwhile -> exit $rc: $(cat "$TMP/e2")"
	[ $rc = 2 ] && grep -q "is running with this journal" "$TMP/e2" || fail "apply --restore beside a running enforce"
	j_stop "$TMP/e"
}

# Drops are logged: more busy cgroups than --max-cgroups traces.
test_journal_enforce_logs_drops() {
	cg_create j-fleet && F=$CG
	cg_enable_children "$F"
	"$CGWORK" fleet "$CG_ROOT$F" 24 60 5 >"$TMP/fleet" &
	CGS_BG="$CGS_BG $!"
	wait_line "$TMP/fleet" ready
	printf '[%s]\nweight = 200\n' "$F" >"$TMP/d.ini"
	j_enforce "$TMP/e" "$TMP/d.ini" -i 0.3 --journal "$TMP/d.journal" --max-cgroups 16
	sleep 1
	j_stop "$TMP/e"
	grep drops: "$TMP/e"
	grep -q "drops:.*cgroup_map_full=[1-9].*raise it" "$TMP/e" || fail "cgroup_map_full not logged: $(cat "$TMP/e")"
}

# The soft-cap list follows the cgroups: three matched, two removed, one left (-v counts it).
test_journal_soft_list_shrinks() {
	cg_create j-sl && P=$CG
	cg_enable_children "$P"
	for c in a b c; do mkdir "$CG_ROOT$P/$c"; done
	printf '[%s/*]\nsoft_max = 20%%\n' "$P" >"$TMP/sl.ini"
	j_enforce "$TMP/e" "$TMP/sl.ini" -i 0.3 --journal "$TMP/sl.journal" -v
	rmdir "$CG_ROOT$P/b" "$CG_ROOT$P/c"
	sleep 1
	j_stop "$TMP/e"
	grep "soft-cap states" "$TMP/e"
	grep -q "soft-cap states: 1 (2 dropped" "$TMP/e" || fail "the soft-cap list did not shrink"
}

# Without --journal: /run/cgsched/enforce.journal, there while a change is
# in force, gone after SIGTERM (the other tests give each enforce its own
# journal; this one skips when some other enforce holds the default one).
test_journal_default_path() {
	cg_create j-def && D=$CG
	DJ=/run/cgsched/enforce.journal
	made_dir=""
	[ -d /run/cgsched ] || made_dir=1
	printf '[%s]\nweight = 300\n' "$D" >"$TMP/def.ini"
	: >"$TMP/e"
	"$CGSCHED" enforce "$TMP/def.ini" -i 0.3 >"$TMP/e" 2>&1 &
	EP=$!
	CGS_BG="$CGS_BG $EP"
	for i in $(seq 1 200); do
		grep -q enforcing "$TMP/e" && break
		if proc_gone "$EP"; then
			grep -q "another cgsched enforce" "$TMP/e" && { echo "SKIP: $(cat "$TMP/e")"; exit 77; }
			fail "enforce ended: $(cat "$TMP/e")"
		fi
		nap 0.1
	done
	grep -q "journal $DJ\$" "$TMP/e" || fail "not the default journal: $(cat "$TMP/e")"
	for i in $(seq 1 30); do
		grep -q "^set [0-9]* $D " "$DJ" 2>/dev/null && break
		nap 0.1
	done
	grep -q "^set [0-9]* $D $(j_weight) " "$DJ" || fail "no entry in $DJ"
	j_stop "$TMP/e"
	[ ! -e "$DJ" ] || fail "$DJ left after a clean exit"
	# enforce leaves its lock file (removing one races with its next taker); a test leaves nothing.
	[ -n "$made_dir" ] && rm -f "$DJ.lock" && rmdir /run/cgsched
	return 0
}

# No change the journal does not cover: with the journal's directory gone,
# a new matching cgroup's weight is left alone, and that is logged.
test_journal_unwritable_no_change() {
	cg_create j-nw && P=$CG
	cg_enable_children "$P"
	mkdir "$TMP/jdir"
	printf '[%s/*]\nweight = 300\n' "$P" >"$TMP/nw.ini"
	j_enforce "$TMP/e" "$TMP/nw.ini" -i 0.3 --journal "$TMP/jdir/j"
	rm -rf "$TMP/jdir"
	mkdir "$CG_ROOT$P/late"
	w0=$(j_read "$P/late" "$(j_weight)")
	sleep 1
	w1=$(j_read "$P/late" "$(j_weight)")
	j_stop "$TMP/e"
	cat "$TMP/e"
	echo "weight of the new cgroup: $w0 -> $w1"
	[ "$w1" = "$w0" ] || fail "changed without a journal"
	grep -q "journal $TMP/jdir/j: cannot write it (No such file or directory): 1 change not made" "$TMP/e" ||
		fail "the refusal is not logged"
}

# A cgroup removed and made again under its name within one pass (what
# systemctl restart does): the new one's original is journalled before
# enforce writes to it, and put back at SIGTERM, and after SIGKILL by apply
# --restore. (Found reading the code: enforce once kept the first cgroup's
# id, so the second one's change was never journalled nor restored.)
test_journal_remade_cgroup() {
	cg_create j-re && R=$CG
	J=$TMP/re.journal
	printf '[%s]\nmax = 50%%\n' "$R" >"$TMP/re.ini"
	for how in TERM KILL; do
		j_enforce "$TMP/e" "$TMP/re.ini" -i 1 --journal "$J"
		j_limited_soon "$R" || fail "$how: not limited: $(cat "$TMP/e")"
		old=$(stat -c %i "$CG_ROOT$R")
		# Back to back: the next pass (1 s apart) finds the new one under the name.
		rmdir "$CG_ROOT$R" && mkdir "$CG_ROOT$R" || fail "cannot make $R again"
		new=$(stat -c %i "$CG_ROOT$R")
		[ "$new" != "$old" ] || fail "the kernel gave the new cgroup the old id $old"
		j_limited_soon "$R" || fail "$how: the new cgroup not limited: $(cat "$TMP/e")"
		grep "^set " "$J"
		grep -q "^set $new $R $(j_quota) " "$J" || fail "$how: the new cgroup's value is not in the journal: $(cat "$J")"
		grep -q "^set $old " "$J" && fail "$how: the old cgroup's entry is still in the journal"
		if [ $how = TERM ]; then
			j_stop "$TMP/e"
		else
			kill -KILL "$EP"
			wait "$EP" 2>/dev/null
			j_unlimited "$R" && fail "SIGKILL should leave the limit"
			"$CGSCHED" apply --restore "$J" >"$TMP/o" 2>&1 || fail "apply --restore failed: $(cat "$TMP/o")"
			cat "$TMP/o"
		fi
		cat "$TMP/e"
		j_unlimited "$R" || fail "after $how: the new cgroup keeps enforce's quota $(j_read "$R" "$(j_quota)")"
		[ ! -e "$J" ] || fail "after $how: the journal is left"
		echo "$how: the cgroup made again (id $old -> $new) got the limit, and lost it with enforce"
	done
}

# j_limited_soon REL: its quota set within 3 s (the enforce passes are 1 s apart).
j_limited_soon() {
	for i in $(seq 1 $((30 * CGS_TIME_SCALE))); do
		j_unlimited "$1" || return 0
		nap 0.1
	done
	return 1
}

# A journal is replayed as root: one that another user owns, or that others
# may write, is refused (exit 2, one line, nothing written); so is a lock
# file that is a hard link planted in a shared directory, which is never
# truncated (the file it links to keeps its bytes).
test_journal_untrusted_refused() {
	cg_create j-tr && T=$CG
	id=$(stat -c %i "$CG_ROOT$T")
	w0=$(j_read "$T" "$(j_weight)")
	boot=$(cat /proc/sys/kernel/random/boot_id)
	printf "cgsched-journal 1\npid 1\nboot $boot\nhierarchy $CG_VER $CG_ROOT\nset $id $T $(j_weight) 77\nend 1\n" >"$TMP/good"
	bad=0
	for how in "owner|chown 65534" "mode|chmod 0662"; do
		name=${how%%|*}
		cp "$TMP/good" "$TMP/$name.journal"
		${how#*|} "$TMP/$name.journal"
		"$CGSCHED" apply --restore "$TMP/$name.journal" >"$TMP/o" 2>"$TMP/e"
		rc=$?
		echo "apply --restore, journal with another $name -> exit $rc: $(cat "$TMP/e")"
		[ $rc = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && [ -e "$TMP/$name.journal" ] || bad=$((bad + 1))
	done
	[ "$(j_read "$T" "$(j_weight)")" = "$w0" ] || fail "an untrusted journal's value was written"
	[ $bad = 0 ] || fail "$bad untrusted journals not refused"
	# The lock file, a hard link to a file of value (a test file here, /etc/shadow in the attack).
	echo precious >"$TMP/victim"
	ln "$TMP/victim" "$TMP/hl.journal.lock"
	printf '[%s]\nweight = 300\n' "$T" >"$TMP/tr.ini"
	"$CGSCHED" enforce "$TMP/tr.ini" -i 0.3 --journal "$TMP/hl.journal" >"$TMP/o" 2>"$TMP/e" &
	CGS_BG="$CGS_BG $!"
	wait_bounded $! 10 "enforce with a planted lock file"
	echo "enforce, lock file a hard link -> exit $WAIT_RC: $(cat "$TMP/e")"
	[ "$WAIT_RC" = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ] && grep -q "hard link" "$TMP/e" || fail "a hard-linked lock file not refused"
	[ "$(cat "$TMP/victim")" = precious ] || fail "the lock file's link target was truncated"
	[ "$(j_read "$T" "$(j_weight)")" = "$w0" ] || fail "the refused enforce changed something"
}
