#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# podlike.sh PROCS ROOT STATE CAPS CMD...: CMD run as the Helm chart's
# container runs it (test_dist_helm_pod): moved into the cgroup whose
# cgroup.procs is PROCS and given a cgroup namespace rooted there (as a
# container's), in a mount namespace of its own where every mount under
# /sys is read-only and each directory listed in the file STATE is bound
# read-only at ROOT/its path (the chart's hostPath mounts under /host),
# and with only the capabilities CAPS ("+bpf,+perfmon,...") left in its
# bounding set. Everything goes with the process: nothing is left mounted.
set -eu
procs=$1 root=$2 state=$3 caps=$4
shift 4
if [ -z "${PODLIKE_INSIDE:-}" ]; then
	echo $$ >"$procs"
	PODLIKE_INSIDE=1 exec unshare --mount --propagation private --cgroup "$0" "$procs" "$root" "$state" "$caps" "$@"
fi
unset PODLIKE_INSIDE
for m in $(findmnt -rno TARGET -R /sys); do
	mount -o remount,bind,ro "$m"
done
while read -r p; do
	mkdir -p "$root$p"
	if [ -d "$p" ]; then
		mount --bind "$p" "$root$p"
		mount -o remount,bind,ro "$root$p"
	fi
done <"$state"
exec setpriv --bounding-set="-all,$caps" "$@"
