# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Input that once landed limits on the wrong cgroup, crashed check, or never
# ended (issue 18): each case here failed before its fix.

# one_line_exit2 LABEL CMD...: one line on stderr, exit 2, within 10 s (scaled).
one_line_exit2() {
	_what=$1
	shift
	"$@" >"$TMP/o" 2>"$TMP/e" &
	wait_bounded $! 10 "$_what"
	echo "$_what -> exit $WAIT_RC: $(cat "$TMP/e")"
	[ "$WAIT_RC" = 2 ] && [ "$(wc -l <"$TMP/e")" = 1 ]
}

# check: reports it cannot read are bad input (exit 2 naming the field),
# never a pass and never a crash; /dev/zero and a FIFO end at once.
test_check_reads_reports_strictly() {
	b='"schema":"cgsched/record","version":1,"wall_ns":1000,"cpu_pct":50,"runq":{"p99_ns":1000},"throttle":{"ns":0,"pct":'
	echo '{"schema":null,"version":1}' >"$TMP/null.json"
	echo "{${b}\"abc\"}}" >"$TMP/str.json"
	echo "{${b}false}}" >"$TMP/false.json"
	echo "{${b}[]}}" >"$TMP/arr.json"
	echo "{${b}-5}}" >"$TMP/neg.json"
	echo "{${b}-Infinity}}" >"$TMP/inf.json"
	echo '{"schema":"cgsched/record","version":1,"runq":{"p99_ns":1e30}}' >"$TMP/big.json"
	echo '{"schema":"cgsched/record","version":1}' >"$TMP/missing.json"
	echo "{${b}1}} trailing" >"$TMP/junk.json"
	for v in '"1"' 1.9 true 0 3; do echo "{${b}1},\"version\":$v}" | sed 's/"version":1,//' >"$TMP/v$v.json"; done
	rm -f "$TMP/fifo" && mkfifo "$TMP/fifo"
	bad=0
	for f in null str false arr neg inf missing junk 'v"1"' v1.9 vtrue v0 v3; do
		one_line_exit2 "check $f.json" "$CGSCHED" check "$TMP/$f.json" --max-throttled-pct 5 || bad=$((bad + 1))
	done
	grep -q 'field throttle.pct is string' "$TMP/e" 2>/dev/null || true
	one_line_exit2 "check big.json" "$CGSCHED" check "$TMP/big.json" --max-runq-p99 1ms || bad=$((bad + 1))
	one_line_exit2 "check missing p99" "$CGSCHED" check "$TMP/missing.json" --max-runq-p99 1ms || bad=$((bad + 1))
	grep -q 'runq.p99_ns is missing' "$TMP/e" || { echo "the missing field is not named"; bad=$((bad + 1)); }
	one_line_exit2 "check /dev/zero" "$CGSCHED" check /dev/zero --max-throttled-pct 5 || bad=$((bad + 1))
	one_line_exit2 "check a FIFO" "$CGSCHED" check "$TMP/fifo" --max-throttled-pct 5 || bad=$((bad + 1))
	one_line_exit2 "check --baseline /dev/urandom" "$CGSCHED" check "$TMP/neg.json" --baseline /dev/urandom --max-regression 5 || bad=$((bad + 1))
	echo "{${b}10}}" >"$TMP/ok.json"
	"$CGSCHED" check "$TMP/ok.json" --max-throttled-pct 5 >"$TMP/o" 2>&1
	rc=$?
	echo "a readable report over the limit -> exit $rc: $(cat "$TMP/o")"
	[ $rc = 1 ] || bad=$((bad + 1))
	[ $bad = 0 ] || fail "$bad reports not refused as they should be"
}

# Limits files: long lines and sections whole, never the root, kernel bounds,
# no endless inputs. Dry runs show what would be written.
test_limits_file_edges() {
	long=my-very-long-application-name-for-the-batch-tier-workers
	cg_create "$long" && L=$CG
	bad=0
	# A section name past inih's 49 bytes: the plan names the whole path.
	printf '[%s/x]\ncreate = yes\nweight = 200\n' "$L" >"$TMP/long.ini"
	"$CGSCHED" apply --dry-run "$TMP/long.ini" >"$TMP/o" 2>&1 || bad=$((bad + 1))
	cat "$TMP/o"
	grep -qx "  $L/x: create" "$TMP/o" || { echo "the long section was cut"; bad=$((bad + 1)); }
	# 52 bytes of "./" before the name: cut at 49 it was "/", the root.
	printf '[/%s%s]\nweight = 51\n' "$(printf './%.0s' $(seq 1 19))" "${L#/}" >"$TMP/dots.ini"
	"$CGSCHED" apply --dry-run "$TMP/dots.ini" >"$TMP/o" 2>&1
	grep -q "^  $L cpu\.\(shares\|weight\): .*-> \(522\|51\)$" "$TMP/o" || { echo "./-padded section: $(cat "$TMP/o")"; bad=$((bad + 1)); }
	# A 1,000-byte comment ending in "weight = 1": accepted, its tail not read; line numbers right after it.
	c=$(head -c 1000 /dev/zero | tr '\0' c)
	printf '; %s weight = 1\n[%s]\nweight = 300\nbogus = 1\n' "$c" "$L" >"$TMP/comment.ini"
	"$CGSCHED" apply --dry-run "$TMP/comment.ini" >"$TMP/o" 2>"$TMP/e"
	echo "a long comment, then an unknown key on line 4 -> $(cat "$TMP/e")"
	grep -q "comment.ini:4: unknown key 'bogus'" "$TMP/e" || { echo "wrong line after a long line"; bad=$((bad + 1)); }
	printf '; %s weight = 1\n[%s]\nweight = 300\n' "$c" "$L" >"$TMP/comment.ini"
	"$CGSCHED" apply --dry-run "$TMP/comment.ini" >"$TMP/o" 2>&1 || { echo "a valid file with a long comment refused"; bad=$((bad + 1)); }
	grep -q "cpu\.\(shares\|weight\): .*-> \(3072\|300\)$" "$TMP/o" || { echo "not the value of the section: $(cat "$TMP/o")"; bad=$((bad + 1)); }
	# Globs never select the root; the root itself is refused.
	for s in '*' '/*' '**'; do
		printf '[%s]\nweight = 77\n' "$s" >"$TMP/g.ini"
		"$CGSCHED" apply --dry-run "$TMP/g.ini" >"$TMP/o" 2>&1
		if grep -q '^  / ' "$TMP/o"; then echo "[$s] selects the root"; bad=$((bad + 1)); fi
		grep -q "^  $L " "$TMP/o" || { echo "[$s] does not select $L: $(cat "$TMP/o")"; bad=$((bad + 1)); }
	done
	for s in '/' '.' '//'; do
		printf '[%s]\nweight = 77\n' "$s" >"$TMP/r.ini"
		one_line_exit2 "apply [$s]" "$CGSCHED" apply --dry-run "$TMP/r.ini" || bad=$((bad + 1))
	done
	# Values past what the kernel takes.
	# (inih trims blanks around a value: " 50%" is "50%".)
	for v in '1e17%' '100000000000000000%' '1000000000000000/100000' '0x10%' '50 %'; do
		printf '[%s]\nmax = %s\n' "$L" "$v" >"$TMP/v.ini"
		one_line_exit2 "max = $v" "$CGSCHED" apply --dry-run "$TMP/v.ini" || bad=$((bad + 1))
	done
	one_line_exit2 "record --cpu-max 1e17%" "$CGSCHED" record --cpu-max 1e17% -- true || bad=$((bad + 1))
	one_line_exit2 "top -i 0x10" "$CGSCHED" top -i 0x10 -n 1 || bad=$((bad + 1))
	# Inputs that never end.
	rm -f "$TMP/fifo" && mkfifo "$TMP/fifo"
	one_line_exit2 "apply /dev/zero" "$CGSCHED" apply /dev/zero || bad=$((bad + 1))
	one_line_exit2 "apply a FIFO" "$CGSCHED" apply "$TMP/fifo" || bad=$((bad + 1))
	one_line_exit2 "enforce /dev/urandom" "$CGSCHED" enforce /dev/urandom || bad=$((bad + 1))
	[ $bad = 0 ] || fail "$bad limits-file cases wrong"
	[ ! -d "$CG_ROOT$L/x" ] || fail "a dry run made a cgroup"
}

# A reader that goes away (enforce | head) must not kill enforce before it
# restores; the kernel refuses a quota below its burst, so it restores in
# reverse order (burst first, then the quota).
test_enforce_closed_output_restores() {
	cg_create pipe && P=$CG
	cg_quota "$P" 20000 100000
	start=$(for f in "$CG_ROOT$P"/cpu.*; do printf '%s %s\n' "$f" "$(head -n 1 "$f")"; done | grep -v cpu.stat)
	printf '[%s]\nmax = 50ms/100ms\nburst = 40ms\n' "$P" >"$TMP/p.ini"
	# Through a FIFO, not a shell pipeline (dash's wait on a pipeline waits for all of it).
	rm -f "$TMP/pipe" && mkfifo "$TMP/pipe"
	"$CGSCHED" enforce "$TMP/p.ini" -i 0.2 --journal "$TMP/p.journal" >"$TMP/pipe" 2>"$TMP/e" &
	EP=$!
	CGS_BG="$CGS_BG $EP"
	head -n 1 <"$TMP/pipe" >"$TMP/o" # returns after the first line: the pipe has no reader now
	nap 0.5
	# A reload logs a line, into the closed pipe (if enforce has not met it already).
	kill -HUP $EP 2>/dev/null
	wait_bounded $EP 20 "enforce after its reader went"
	echo "enforce exited $WAIT_RC after its reader went; first line: $(cat "$TMP/o"); stderr: $(cat "$TMP/e")"
	[ "$WAIT_RC" = 0 ] || fail "enforce did not end cleanly (141 is SIGPIPE: killed before restoring)"
	now=$(for f in "$CG_ROOT$P"/cpu.*; do printf '%s %s\n' "$f" "$(head -n 1 "$f")"; done | grep -v cpu.stat)
	[ "$now" = "$start" ] || fail "not restored: $(echo "$now" | grep -E 'quota|burst|max')"
}

# Cgroup names are anyone's bytes: a terminal escape, a carriage return and
# a byte that is not UTF-8 come out escaped in the table and valid in JSON,
# in top and in stat.
# (The kernel refuses a newline in a cgroup name.)
test_odd_names_escaped() {
	name=$(printf 'cgs-test-%s-odd\033[31mred\rline\377' "$CGS_RUN")
	mkdir "$CG_ROOT/$name" || fail "cannot make a cgroup with an odd name"
	cg_spawn "/$name" "$CGWORK" burn 1 "$(scaled 20)" 0 >/dev/null
	"$CGSCHED" top -i 500ms -n 1 -r 0 >"$TMP/t" 2>&1 || fail "top failed"
	"$CGSCHED" top --json -i 500ms -n 1 -r 0 >"$TMP/j" 2>"$TMP/je" || fail "top --json failed"
	grep -a 'odd' "$TMP/t" | head -n 2
	! grep -q "$(printf '\033')" "$TMP/t" || fail "a raw escape byte reached the table"
	grep -aq 'odd\\x1b\[31mred\\x0dline\\xff' "$TMP/t" || fail "the name is not shown escaped"
	jq -e . "$TMP/j" >/dev/null || fail "JSON does not parse"
	"$UTF8CHECK" "$TMP/j" || fail "JSON is not valid UTF-8"
	p=$(jq -r '.cgroups[] | select(.path | test("odd")) | .path' "$TMP/j" | head -n 1)
	echo "in JSON: $(printf '%s' "$p" | od -c | head -n 2 | tr -s ' ')"
	[ -n "$p" ] || fail "the cgroup is not in the JSON"
	# stat lists every cgroup from the kernel's figures: the same holds there.
	"$CGSCHED" stat >"$TMP/s" 2>&1 || fail "stat failed: $(cat "$TMP/s")"
	"$CGSCHED" stat --json >"$TMP/sj" 2>"$TMP/se" || fail "stat --json failed: $(cat "$TMP/se")"
	grep -a 'odd' "$TMP/s"
	! grep -q "$(printf '\033')" "$TMP/s" || fail "stat: a raw escape byte reached the table"
	grep -aq 'odd\\x1b\[31mred\\x0dline\\xff' "$TMP/s" || fail "stat: the name is not shown escaped"
	jq -e . "$TMP/sj" >/dev/null || fail "stat: JSON does not parse"
	"$UTF8CHECK" "$TMP/sj" || fail "stat: JSON is not valid UTF-8"
	jq -e '.. | objects | select(.path? // "" | test("odd"))' "$TMP/sj" >/dev/null || fail "stat: the cgroup is not in the JSON"
}

# record: a symlink at -o is replaced, not followed; an empty PATH element
# is the current directory; the bad flag in a group is the one named.
test_record_output_and_path() {
	echo keep >"$TMP/victim"
	ln -s "$TMP/victim" "$TMP/r.json"
	"$CGSCHED" record -q -o "$TMP/r.json" -- true 2>/dev/null || fail "record failed"
	[ "$(cat "$TMP/victim")" = keep ] || fail "record -o wrote through a symlink"
	[ ! -L "$TMP/r.json" ] && jq -e '.schema == "cgsched/record"' "$TMP/r.json" >/dev/null || fail "no report at -o"
	printf '#!/bin/sh\necho ran-from-cwd\n' >"$TMP/mycmd"
	chmod +x "$TMP/mycmd"
	out=$(cd "$TMP" && PATH=":/usr/bin:/bin:/sbin" "$CGSCHED" record -q -- mycmd 2>/dev/null) || fail "an empty PATH element was not ./"
	[ "$out" = ran-from-cwd ] || fail "got '$out'"
	"$CGSCHED" top -xq >/dev/null 2>"$TMP/e"
	echo "top -xq: $(cat "$TMP/e")"
	grep -q "bad option '-x'" "$TMP/e" || fail "the wrong option is named"
}
