# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Names a person uses: the layouts of systemd, Docker, containerd, CRI-O and
# Kubernetes (both cgroup drivers) built for real in the cpu hierarchy, below
# this run's own cgroup, with workloads inside.

# Container ids (64 hex digits) and pod UIDs, fixed so a failure can be read.
names_ids() {
	for n in 1 2 3 4 5 6; do
		eval "ID$n=$(echo "cgsched-container-$n" | sha256sum | cut -c1-64)"
	done
	PUID1=3f0c1a2b-4d5e-6f70-8192-a3b4c5d6e7f8
	PUID1_=$(echo "$PUID1" | tr - _)
	PUID2=0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0
	PUID3=7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d
}

# names_layout TOP: the directories, each a cgroup; sets the leaves' paths.
names_layout() {
	names_ids
	T=$1
	POD1=$T/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$PUID1_.slice
	C1=$POD1/cri-containerd-$ID1.scope
	C2=$POD1/cri-containerd-$ID2.scope
	POD2=$T/kubepods/besteffort/pod$PUID2
	C3=$POD2/$ID3
	POD3=$T/kubepods/pod$PUID3
	C6=$POD3/crio-$ID6
	D4=$T/system.slice/docker-$ID4.scope
	D5=$T/docker/$ID5
	U1=$T/system.slice/web\\x2dfront.service
	# A unit whose name, unescaped, holds an escape byte and a broken UTF-8 byte.
	U2=$T/system.slice/odd\\x1b\\xff.service
	LEAVES="$C1 $C2 $C3 $C6 $D4 $D5 $U1 $U2"
	for d in $POD1 $POD2 $POD3 $T/system.slice $T/docker $LEAVES; do
		mkdir -p "$CG_ROOT$d" || return 1
	done
	# v2: the cpu controller down to the leaves; find lists parents first.
	if [ "$CG_VER" = 2 ]; then
		for d in $(cd "$CG_ROOT$T" && find . -type d); do
			[ -n "$(find "$CG_ROOT$T/$d" -mindepth 1 -maxdepth 1 -type d)" ] || continue
			echo +cpu >"$CG_ROOT$T/$d/cgroup.subtree_control" || return 1
		done
	fi
}

# want PATH JQ_EXPR EXPECTED: the summary row of PATH in top's JSON says so.
want() {
	got=$(cgs_summary "$1" "$2")
	[ "$got" = "$3" ] || fail "$1: $2 is '$got', expected '$3'"
}

# One burner in each leaf, all on CPU 0 at once (they wait for each other), for SECS.
names_burn() {
	pids=""
	for l in $LEAVES; do
		cg_spawn "$l" "$CGWORK" burn 1 "$1" 0 >/dev/null
		pids="$pids $SPAWNED"
	done
	for p in $pids; do
		wait_bounded "$p" $(( $1 + 30 )) "burner in a layout" || return 1
	done
}

# Every layout named as a person names it, in JSON (whole ids) and in the
# table (ids cut to 12), on this kernel's cgroup version; odd bytes escaped
# in the table and valid UTF-8 in JSON.
test_names_from_layouts() {
	cg_create names && names_layout "$CG" || fail "cannot build the layouts"
	cgs_start top --cgroup "$T" --json -i 1h || fail "top --json did not start"
	names_burn 1 || fail "burners"
	cgs_stop || fail "top --json"
	"$UTF8CHECK" "$TMP/cgs.out" || fail "the JSON is not UTF-8"
	jq -e . "$TMP/cgs.out" >/dev/null || fail "the JSON does not parse"
	want "$C1" '.name | [.kind, .runtime, .container_id, .pod_uid, .qos] | join(" ")' "pod containerd $ID1 $PUID1 burstable"
	want "$C2" '.name.container_id' "$ID2"
	want "$C3" '.name | [.kind, .container_id, .pod_uid, .qos, (.runtime // "-")] | join(" ")' "pod $ID3 $PUID2 besteffort -"
	want "$C6" '.name | [.runtime, .container_id, .pod_uid, .qos] | join(" ")' "crio $ID6 $PUID3 guaranteed"
	want "$D4" '.name | [.kind, .runtime, .container_id, .unit] | join(" ")' "container docker $ID4 docker-$ID4.scope"
	want "$D5" '.name | [.kind, .runtime, .container_id] | join(" ")' "container docker $ID5"
	want "$U1" '.name | [.kind, .unit] | join(" ")' "unit web-front.service"
	want "$U2" '.name.unit | explode | .[3:5] | map(tostring) | join(",")' "27,65533"
	echo "names: all 8 layouts as expected in JSON"

	cgs_start top --cgroup "$T" -i 1h || fail "top did not start"
	names_burn 1 || fail "burners"
	cgs_stop || fail "top"
	sed -n '/^Summary/,$p' "$TMP/cgs.out" >"$TMP/table"
	cat "$TMP/table"
	for w in "pod $PUID1/$(echo "$ID1" | cut -c1-12)" "pod $PUID2/$(echo "$ID3" | cut -c1-12)" \
		"docker $(echo "$ID4" | cut -c1-12)" "unit web-front.service" 'unit odd\x1b\xff.service'; do
		grep -qF -- "$w" "$TMP/table" || fail "the table does not show '$w'"
	done
	head -n 2 "$TMP/table" | grep -q ' WHO ' || fail "no WHO column"
	! grep -q "$(printf '\033')" "$TMP/table" || fail "a raw escape byte reached the terminal"
}

# Pod, namespace and container names from the runtimes' state files, laid
# out as containerd, CRI-O and Docker write them under a host root of the
# test's own (CGSCHED_HOST_ROOT, as for cgsched run in a container with the
# host's / mounted there); a file naming another pod adds nothing.
names_state() { # names_state DIR: the files for the layout's containers
	_h=$1
	_c=$1/run/containerd/io.containerd.runtime.v2.task/k8s.io
	_o=$1/run/containers/storage/overlay-containers
	mkdir -p "$_c/$ID1" "$_c/$ID2" "$_c/$ID3" "$_o/$ID6/userdata" "$1/var/lib/docker/containers/$ID4" || return 1
	# Each file says where its runtime put the cgroup (linux.cgroupsPath, Docker's
	# CgroupParent): here below the test's own cgroup, so as whole paths.
	for _x in "$ID1 nginx $C1" "$ID2 sidecar $C2"; do
		set -- $_x
		printf '{"linux":{"cgroupsPath":"%s"},"annotations":{"io.kubernetes.cri.container-type":"container","io.kubernetes.cri.sandbox-name":"web-7d4f9","io.kubernetes.cri.sandbox-namespace":"shop","io.kubernetes.cri.sandbox-uid":"%s","io.kubernetes.cri.container-name":"%s"}}\n' \
			"$3" "$PUID1" "$2" >"$_c/$1/config.json"
	done
	printf '{"linux":{"cgroupsPath":"%s"},"annotations":{"io.kubernetes.cri.sandbox-name":"intruder","io.kubernetes.cri.sandbox-namespace":"x","io.kubernetes.cri.sandbox-uid":"%s","io.kubernetes.cri.container-name":"intruder"}}\n' \
		"$C3" "$PUID1" >"$_c/$ID3/config.json"
	printf '{"linux":{"cgroupsPath":"%s"},"annotations":{"io.kubernetes.pod.name":"db-0","io.kubernetes.pod.namespace":"data","io.kubernetes.pod.uid":"%s","io.kubernetes.container.name":"postgres"}}\n' \
		"$C6" "$PUID3" >"$_o/$ID6/userdata/config.json"
	printf '{"ID":"%s","Name":"/web","Config":{"Labels":{}}}\n' "$ID4" >"$_h/var/lib/docker/containers/$ID4/config.v2.json"
	printf '{"CgroupParent":"%s"}\n' "$T/system.slice" >"$_h/var/lib/docker/containers/$ID4/hostconfig.json"
}

test_names_from_runtime_state() {
	cg_create rtstate && names_layout "$CG" || fail "cannot build the layouts"
	# Look-alikes a tenant with a delegated subtree could make: a real
	# container's pod slice and scope, and Docker's scope name, elsewhere.
	SP1=$T/tenant/kubepods-burstable-pod$PUID1_.slice/cri-containerd-$ID1.scope
	SP4=$T/tenant/docker-$ID4.scope
	for d in "$T/tenant" "$T/tenant/kubepods-burstable-pod$PUID1_.slice" "$SP1" "$SP4"; do
		mkdir "$CG_ROOT$d" || fail "mkdir $d"
		[ "$CG_VER" = 2 ] && [ "$d" != "$SP1" ] && [ "$d" != "$SP4" ] && { echo +cpu >"$CG_ROOT$d/cgroup.subtree_control" || fail "+cpu in $d"; }
	done
	[ "$CG_VER" = 2 ] && { echo +cpu >"$CG_ROOT$T/cgroup.subtree_control" || fail "+cpu in $T"; }
	LAYOUT_LEAVES=$LEAVES
	LEAVES="$LEAVES $SP1 $SP4"
	names_state "$TMP/host" || fail "cannot write the state files"
	export CGSCHED_HOST_ROOT="$TMP/host"
	cgs_start top --cgroup "$T" --json -i 1h || fail "top --json did not start"
	names_burn 1 || fail "burners"
	cgs_stop || fail "top --json"
	want "$C1" '.name | [.pod_namespace, .pod_name, .container_name, .pod_uid] | join(" ")' "shop web-7d4f9 nginx $PUID1"
	want "$C2" '.name.container_name' "sidecar"
	want "$C3" '.name | [.pod_name, .container_name, .pod_uid] | map(. // "-") | join(" ")' "- - $PUID2"
	want "$C6" '.name | [.pod_namespace, .pod_name, .container_name] | join(" ")' "data db-0 postgres"
	want "$D4" '.name | [.container_name, (.pod_name // "-")] | join(" ")' "web -"
	want "$D5" '.name.container_name // "-"' "-"
	want "$SP1" '.name | [(.container_name // "-"), (.pod_name // "-"), .container_id] | join(" ")' "- - $ID1"
	want "$SP4" '.name | [(.container_name // "-"), .container_id] | join(" ")' "- $ID4"
	echo "runtime state: names as the files say, none from another pod's file, none for look-alikes elsewhere"
	LEAVES=$LAYOUT_LEAVES # the groups below are the layouts' (a look-alike joins its pod UID's group by path)

	cgs_start top --cgroup "$T" --group-by pod -i 1h || fail "top --group-by pod did not start"
	names_burn 1 || fail "burners"
	cgs_stop || fail "top --group-by pod"
	sed -n '/^Summary/,$p' "$TMP/cgs.out" >"$TMP/table"
	cat "$TMP/table"
	for w in "pod shop/web-7d4f9" "pod data/db-0" "pod $PUID2" "docker web"; do
		grep -qF -- "$w " "$TMP/table" || fail "the table does not show '$w'"
	done
	! grep -q "intruder" "$TMP/table" || fail "a name from another pod's file"

	# --tasks: each process's row names its container too.
	cgs_start top --cgroup "$POD1" --tasks --json -i 1h || fail "top --tasks did not start"
	names_burn 1 || fail "burners"
	cgs_stop || fail "top --tasks"
	got=$(jq -r 'select(.kind == "summary") | [.tasks[].name.container_name] | sort | unique | join(" ")' "$TMP/cgs.out")
	[ "$got" = "nginx sidecar" ] || fail "the tasks' containers are '$got', expected 'nginx sidecar'"
}

# --group-by pod|container|unit: each group's row is the sum of its cgroups'
# rows (counts, times and every histogram slot), seen by a second cgsched
# tracing the same run by path; cgroups of no group keep their rows.
test_group_by_sums() {
	cg_create groups && names_layout "$CG" || fail "cannot build the layouts"
	mkdir -p "$TMP/g"
	cgs_start top --cgroup "$T" --json -i 1h || fail "top by path did not start"
	P_PID=$CGS_PID
	for by in pod container unit; do
		: >"$TMP/g/$by.out"
		"$CGSCHED" top --cgroup "$T" --json -i 1h -v --group-by "$by" >"$TMP/g/$by.out" 2>"$TMP/g/$by.err" &
		eval "G_$by=\$!"
	done
	for by in pod container unit; do
		deadline 20
		until file_has "$TMP/g/$by.err" "cgsched: tracing*"; do
			past_deadline && fail "top --group-by $by did not start: $(cat "$TMP/g/$by.err")"
			nap 0.05
		done
	done
	names_burn 1 || fail "burners"
	for by in pod container unit; do
		eval "kill -INT \$G_$by; wait_bounded \$G_$by 20 \"top --group-by $by\""
		[ "$WAIT_RC" = 0 ] || fail "top --group-by $by exited $WAIT_RC: $(cat "$TMP/g/$by.err")"
	done
	cgs_stop || fail "top by path"
	# sums BY GROUP_PATH MEMBER...: the group row against the path rows' sum.
	sums() {
		_by=$1 _g=$2
		shift 2
		# Histograms end at their last non-empty slot: padded, to add slot by slot.
		_f='def pad: . + [range(64 - length) | 0]; [.oncpu_ns, .runq.count, .switches.voluntary, .wakeups] + (.runq.hist | pad) + (.oncpu_slices.hist | pad)'
		_sum=$(for m in "$@"; do cgs_summary "$m" "$_f | @csv"; done |
			awk -F, '{ for (i = 1; i <= NF; i++) s[i] += $i; n = NF } END { for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), s[i]; print "" }')
		_grp=$(jq -r --arg p "$_g" "select(.kind == \"summary\") | .cgroups[] | select(.path == \$p) | $_f | @csv" "$TMP/g/$_by.out")
		_n=$(jq -r --arg p "$_g" 'select(.kind == "summary") | .cgroups[] | select(.path == $p) | .group.cgroups' "$TMP/g/$_by.out")
		echo "$_by $_g: $_n cgroups; group [$(echo "$_grp" | cut -d, -f1-4)], sum of rows [$(echo "$_sum" | cut -d, -f1-4)]"
		[ -n "$_sum" ] || fail "$_by: no rows for the members of $_g"
		[ "$_n" = $# ] || fail "$_by: $_g should sum $# cgroups, says '$_n'"
		[ "$_grp" = "$_sum" ] || fail "$_by: $_g is $_grp, its cgroups sum to $_sum; each member's on-CPU ns, by path (stopped last) and by container (stopped second): $(for m in "$@"; do echo "$m $(cgs_summary "$m" .oncpu_ns) $(jq -r --arg p "$m" 'select(.kind == "summary") | .cgroups[] | select(.path == $p) | .oncpu_ns' "$TMP/g/container.out")"; done); cgsched -v by $_by: $(grep -v 'running slice of cgroup 1:' "$TMP/g/$_by.err" | tail -n 25 | tr '\n' '|')"
	}
	sums pod "$POD1" "$C1" "$C2"
	sums pod "$POD2" "$C3"
	sums container "$C1" "$C1"
	sums container "$D4" "$D4"
	sums unit "$D4" "$D4"
	sums unit "$U1" "$U1"
	# Cgroups of no pod keep their own rows; no row is in two groups.
	for l in $D4 $D5 $U1; do
		jq -e --arg p "$l" 'select(.kind == "summary") | .cgroups[] | select(.path == $p and (.group | not))' \
			"$TMP/g/pod.out" >/dev/null || fail "pod: $l, of no pod, lost its row"
	done
	rows=$(jq -r 'select(.kind == "summary") | .cgroups | length' "$TMP/g/pod.out")
	[ "$rows" -le 7 ] || fail "pod: $rows rows for 3 pods and 4 other cgroups"
	jq -e 'select(.kind == "summary") | .group_by == "pod"' "$TMP/g/pod.out" >/dev/null || fail "no group_by in the header"
	# The pod's slice holds no process: its row is the pod's, named as one.
	jq -e --arg p "$POD1" --arg u "$PUID1" 'select(.kind == "summary") | .cgroups[] | select(.path == $p) | .name.kind == "pod" and .name.pod_uid == $u' \
		"$TMP/g/pod.out" >/dev/null || fail "pod: $POD1's row is not named as its pod"
}
