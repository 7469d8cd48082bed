# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The wake-up storm of make bench, shared by run.sh and progstat.sh (sourced;
# or run as `sh storm.sh DIR LOOPS`, for timing it as one command):
# 16 cgroups under DIR, a perf bench sched pipe pair in each, all at once.

storm_make() { # storm_make DIR (CG_VER from lib.sh's cg_detect)
	mkdir -p "$1" || return 1
	[ "$CG_VER" = 2 ] && echo +cpu >"$1/cgroup.subtree_control"
	for i in $(seq 1 16); do mkdir "$1/c$i" || return 1; done
}

storm_run() { # storm_run DIR LOOPS: until every pair has finished
	_pids=""
	for i in $(seq 1 16); do
		sh -c 'echo $$ >"$0" && exec perf bench sched pipe -l "$1"' "$1/c$i/cgroup.procs" "$2" >/dev/null 2>&1 &
		_pids="$_pids $!"
	done
	wait $_pids
}

# The ids of the BPF programs loaded now, as a JSON array.
prog_ids() { bpftool prog show -j | jq -c '[.[].id]'; }

# Run as a command (not sourced: then $0 is the sourcing script).
case $0 in */storm.sh | storm.sh) storm_run "$1" "$2" ;; esac
