# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The harness cannot hang: a stuck test costs its own bound, fails by name
# with its processes' state in the log, leaves nothing behind, and the tests
# after it still run.

test_harness_bounds_a_stuck_test() {
	t0=$(date +%s)
	# Each of its tests once, whatever CGS_TEST_REPEAT this run has: the totals are checked.
	CGS_TEST_DIR="$ROOT/tests/live/harness" CGS_TEST_TIMEOUT=3 CGS_TIME_SCALE=1 CGS_VERBOSE_TESTS= CGS_TEST_REPEAT=1 \
		sh "$ROOT/tests/live/run.sh" >"$TMP/h.out" 2>&1
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	sed 's/^/  | /' "$TMP/h.out"
	echo "the nested run exited $rc after $secs s"
	[ $rc != 0 ] || fail "a stuck test must fail the run"
	grep -q '^CGS-TEST FAIL test_a_stuck ([0-9]*s): timed out after 3s$' "$TMP/h.out" || fail "the stuck test is not named as timed out"
	for w in 'sleep 4243' 'SigIgn:' 'SigCgt:' 'wchan:' 'about to wait forever'; do
		grep -q "$w" "$TMP/h.out" || fail "the report lacks '$w'"
	done
	grep -q '^CGS-TEST PASS test_b_after_it' "$TMP/h.out" || fail "the test after the stuck one did not run"
	grep -q '^live: 1 passed, 1 failed, 0 skipped$' "$TMP/h.out" || fail "wrong totals"
	[ $secs -le $(scaled 15) ] || fail "the stuck test cost ${secs}s, far more than its 3 s bound"
	for p in /proc/[0-9]*/cmdline; do
		# sleep 3: a watchdog's clock (run.sh), killed once its test ended.
		case "$(tr '\0' ' ' <"$p" 2>/dev/null)" in "sleep 424"[23]* | "sleep 3 ") fail "left running: ${p%/cmdline}" ;; esac
	done
	left=$(ls "$CG_ROOT" | grep -- '-stuck$' || true)
	[ -z "$left" ] || fail "cgroup left behind: $left"
}
