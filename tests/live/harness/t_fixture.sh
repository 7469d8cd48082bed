# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Fixtures for the harness's self-test (t_harness.sh), never run on their
# own: a test that hangs as the guest run did, and one that must still run.

# Stuck: a cgroup with a task in it, then a process that ignores SIGINT and
# SIGTERM, waited for without a bound.
test_a_stuck() {
	cg_create stuck && cg_spawn "$CG" sleep 4242
	echo "about to wait forever" >&2
	sh -c 'trap "" INT TERM; exec sleep 4243' &
	wait $!
}

test_b_after_it() {
	echo "ran after the stuck test"
}
