# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What an installation carries besides the binary (issue 34): the man page
# and the bash completion, both held to the parser's own option tables
# (cgsched --list-commands, cgsched CMD --list-options).

MAN=$ROOT/.output/cgsched.8

dist_need() {
	[ -f "$MAN" ] || { echo "no $MAN here (make builds it): a test for the host"; exit 77; }
	for _c in "$@"; do
		command -v "$_c" >/dev/null || { echo "no $_c here"; exit 77; }
	done
}

# The man page renders without a warning, and every command's section
# holds every option of that command's table; so does its --help (the
# section is made of it, but the help is what a reader trusts).
test_dist_man_page() {
	dist_need groff man bash
	groff -man -ww -z "$MAN" 2>"$TMP/w" || fail "groff failed on the man page"
	[ ! -s "$TMP/w" ] || fail "groff warns: $(head -5 "$TMP/w")"
	MANWIDTH=100 man -l "$MAN" 2>/dev/null | col -b >"$TMP/page" || fail "man -l could not show it"
	grep -q '^NAME' "$TMP/page" && grep -q '^EXIT STATUS' "$TMP/page" || fail "no NAME or EXIT STATUS section"
	n=0
	for c in $("$CGSCHED" --list-commands); do
		# The command's section: from its heading to the next.
		awk -v c="$c" '/^   [a-z]+$/ { on = ($1 == c) } on' "$TMP/page" >"$TMP/sec"
		[ -s "$TMP/sec" ] || fail "no section for $c"
		"$CGSCHED" "$c" --help >"$TMP/help" || fail "$c --help failed"
		# -h and --help are every command's, and the page says so once.
		for o in $("$CGSCHED" "$c" --list-options | sed 's/=$//' | grep -vx -e -h -e --help); do
			n=$((n + 1))
			case $o in
			--*) pat="$o([^a-z-]|$)" ;;
			*) pat="(^|[ ,])$o([^a-zA-Z]|$)" ;;
			esac
			grep -Eq -- "$pat" "$TMP/help" || fail "$c: $o is in the parser's table, not in --help"
			grep -Eq -- "$pat" "$TMP/sec" || fail "$c: $o is in the parser's table, not in the man page"
		done
	done
	echo "$n options of $("$CGSCHED" --list-commands | wc -l) commands, each in its --help and the man page"
}

# complete WORDS...: what the completion offers for the last word.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _cgsched; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$ROOT/dist/cgsched.bash" "$@"
}

# The completion: commands, each command's options from its table, the
# values of options with few, files after one that takes a path, and the
# command record runs after "--". Each value offered is one cgsched takes.
test_dist_bash_completion() {
	dist_need bash
	PATH=$ROOT:$PATH
	export PATH
	[ "$(complete_words cgsched rec)" = record ] || fail "cgsched rec: $(complete_words cgsched rec)"
	[ "$(complete_words cgsched "" | wc -l)" = "$(cgsched --list-commands | wc -l)" ] || fail "not every command offered"
	complete_words cgsched record --rep | grep -qx -- --repeat || fail "record --rep: $(complete_words cgsched record --rep)"
	complete_words cgsched check r.json --ju | grep -qx -- --junit || fail "check --ju"
	# Every long option of each command's table, and only those.
	for c in $(cgsched --list-commands); do
		want=$(cgsched "$c" --list-options | grep -c -- '^--')
		got=$(complete_words cgsched "$c" -- | wc -l)
		[ "$got" = "$want" ] || fail "$c: $got long options offered, $want in its table"
	done
	[ "$(complete_words cgsched check r.json --format "")" = "$(printf 'text\ngithub')" ] || fail "--format's values"
	: >"$TMP/junit-here.xml"
	complete_words cgsched check r.json --junit "$TMP/junit-h" | grep -qx "$TMP/junit-here.xml" || fail "no file after --junit"
	complete_words cgsched record -- tru | grep -qx true || fail "record -- tru: no command offered"
	# The values it offers for options with few: each accepted.
	for v in $(complete_words cgsched top --sort ""); do
		cgsched top --sort "$v" --help >/dev/null || fail "--sort $v offered, refused"
	done
	for v in $(complete_words cgsched top --group-by ""); do
		cgsched top --group-by "$v" --help >/dev/null || fail "--group-by $v offered, refused"
	done
	for o in --sched-backend --throttle-backend; do
		for v in $(complete_words cgsched top "$o" ""); do
			cgsched top "$o" "$v" --help >/dev/null || fail "$o $v offered, refused"
		done
	done
	echo "commands, options, values and files completed"
}

# --- The Helm chart and the manifest rendered from it ---------------------
HELM=$ROOT/.output/tools/helm
K8SCHECK=$ROOT/.output/tools/k8scheck
CHART=$ROOT/dist/helm/cgsched

k8s_need() {
	[ -x "$HELM" ] && [ -x "$K8SCHECK" ] ||
		{ echo "no helm or k8scheck in .output/tools (make k8s-tools builds them with Go): a test for the host"; exit 77; }
	dist_need jq "$@"
}

# render NAME [HELM ARGS...]: the chart rendered into $TMP/NAME.yaml and
# checked by k8scheck; its objects as JSON lines in $TMP/NAME.json.
render() {
	_n=$1
	shift
	"$HELM" template cgsched "$CHART" --namespace cgsched "$@" >"$TMP/$_n.yaml" 2>"$TMP/$_n.err" ||
		fail "helm template $*: $(cat "$TMP/$_n.err")"
	"$K8SCHECK" -json <"$TMP/$_n.yaml" >"$TMP/$_n.json" 2>"$TMP/$_n.chk" ||
		fail "k8scheck refuses helm template $*: $(cat "$TMP/$_n.chk")"
}

# jq over a render's objects: kq NAME FILTER (the objects slurped as an array).
kq() { jq -rs "$2" "$TMP/$1.json"; }

# The chart lints clean under --strict; with its defaults, a ServiceMonitor
# and privileged it renders objects the API's types and rules accept
# (tests/k8s/main.go); what it promises is in them (a DaemonSet on every
# node with hostPID, only the named capabilities, every host path
# read-only, the probes, the image of this version); its values schema
# refuses what the chart cannot use; k8scheck refuses a broken object, so
# its pass says something; and the committed manifest is the chart's
# render now.
test_dist_helm_chart() {
	k8s_need
	"$HELM" lint --strict "$CHART" >"$TMP/lint" 2>&1 || fail "helm lint --strict: $(cat "$TMP/lint")"
	grep -q '1 chart(s) linted, 0 chart(s) failed' "$TMP/lint" || fail "helm lint: $(cat "$TMP/lint")"
	render default
	[ "$(kq default '[.[].kind] | sort | join(" ")')" = "DaemonSet Service ServiceAccount" ] ||
		fail "objects: $(kq default '[.[].kind] | join(" ")')"
	C='.[] | select(.kind == "DaemonSet") | .spec.template.spec'
	K="$C | .containers[0]"
	[ "$(kq default "$C | .hostPID")" = true ] || fail "no hostPID"
	[ "$(kq default "$C | .automountServiceAccountToken")" = false ] || fail "a token mounted"
	[ "$(kq default "$C | .tolerations | map(select(.operator == \"Exists\" and .key == null)) | length")" = 1 ] ||
		fail "not tolerating every taint: $(kq default "$C | .tolerations")"
	[ "$(kq default "$K | .securityContext | \"\(.privileged) \(.capabilities.drop) \(.capabilities.add | join(\",\"))\"")" = \
		'false ["ALL"] BPF,PERFMON,DAC_READ_SEARCH,SYS_RESOURCE' ] ||
		fail "capabilities: $(kq default "$K | .securityContext")"
	[ "$(kq default "[$K | .volumeMounts[] | select(.readOnly != true)] | length")" = 0 ] || fail "a host path mounted writable"
	[ "$(kq default "$C | [.volumes[].hostPath.path] | join(\" \")")" = \
		"/sys /run/containerd/io.containerd.runtime.v2.task/k8s.io /run/containers/storage/overlay-containers" ] ||
		fail "host paths: $(kq default "$C | [.volumes[].hostPath.path]")"
	[ "$(kq default "$K | \"\(.livenessProbe.httpGet.path) \(.readinessProbe.httpGet.path) \(.resources.limits.memory)\"")" = \
		"/healthz /readyz 256Mi" ] || fail "probes or limits: $(kq default "$K | [.livenessProbe, .readinessProbe, .resources]")"
	ver=$("$CGSCHED" --version | awk '{ print $2 }')
	[ "$(kq default "$K | .image")" = "cgsched:$ver" ] || fail "image $(kq default "$K | .image"), cgsched is $ver"
	[ "$(kq default '.[] | select(.kind == "Service") | .spec.publishNotReadyAddresses')" = true ] ||
		fail "not-ready pods (figures dropped) would not be scraped"
	render monitor --set serviceMonitor.enabled=true --set serviceMonitor.labels.release=prom
	[ "$(kq monitor '.[] | select(.kind == "ServiceMonitor") | "\(.metadata.labels.release) \(.spec.endpoints[0].port)"')" = "prom metrics" ] ||
		fail "ServiceMonitor: $(kq monitor '.[] | select(.kind == "ServiceMonitor")')"
	render priv --set privileged=true
	[ "$(kq priv "$K | .securityContext | \"\(.privileged) \(.capabilities)\"")" = "true null" ] ||
		fail "privileged: $(kq priv "$K | .securityContext")"
	# The schema: each refused, naming the value.
	for bad in port=70000 export.grace=forever seccompProfile=none nosuch=1 capabilities[0]=bpf; do
		if "$HELM" template cgsched "$CHART" --set "$bad" >/dev/null 2>"$TMP/bad"; then
			fail "helm template took --set $bad"
		fi
		grep -q "${bad%%[=[]*}" "$TMP/bad" || fail "--set $bad refused without naming it: $(cat "$TMP/bad")"
	done
	"$HELM" template cgsched "$CHART" --set serviceMonitor.enabled=true --set service.enabled=false >/dev/null 2>"$TMP/bad" &&
		fail "a ServiceMonitor without its Service"
	grep -q 'needs service.enabled' "$TMP/bad" || fail "ServiceMonitor without a Service: $(cat "$TMP/bad")"
	# k8scheck's refusals: a field of no type, a selector its pods lack, a probe on no port.
	sed 's/containerPort:/containerport:/' "$TMP/default.yaml" | "$K8SCHECK" >/dev/null 2>"$TMP/c1" && fail "k8scheck took an unknown field"
	grep -q 'unknown field' "$TMP/c1" || fail "k8scheck, unknown field: $(cat "$TMP/c1")"
	sed '/matchLabels:/,/template:/ s/app.kubernetes.io\/name: cgsched/app.kubernetes.io\/name: other/' "$TMP/default.yaml" |
		"$K8SCHECK" >/dev/null 2>"$TMP/c2" && fail "k8scheck took a selector that matches no pod"
	grep -q 'does not match the pod template' "$TMP/c2" || fail "k8scheck, selector: $(cat "$TMP/c2")"
	sed 's/port: metrics$/port: metricz/' "$TMP/default.yaml" | "$K8SCHECK" >/dev/null 2>"$TMP/c3" &&
		fail "k8scheck took a probe on a port the container lacks"
	grep -q 'names port "metricz"' "$TMP/c3" || fail "k8scheck, probe port: $(cat "$TMP/c3")"
	# The plain manifest: the chart's render, valid.
	sh "$ROOT/dist/kubernetes/render.sh" "$HELM" >"$TMP/manifest.yaml" || fail "rendering the manifest failed"
	diff "$ROOT/dist/kubernetes/cgsched.yaml" "$TMP/manifest.yaml" >"$TMP/mdiff" ||
		fail "dist/kubernetes/cgsched.yaml is not the chart's render (make k8s-manifest): $(head -20 "$TMP/mdiff")"
	"$K8SCHECK" <"$ROOT/dist/kubernetes/cgsched.yaml" 2>"$TMP/mchk" || fail "the manifest: $(cat "$TMP/mchk")"
	cat "$TMP/default.chk" "$TMP/mchk"
}

# The DaemonSet's container, as a node would run it: its command and
# arguments, only its capabilities (setpriv's bounding set), /sys
# read-only (every mount under it), the runtimes' state directories
# read-only under the root its environment names, in a cgroup namespace
# of its own (as a container's); its probes answer at its port, and its
# /metrics has a cgroup outside its namespace by the host's path.
test_dist_helm_pod() {
	k8s_need curl setpriv unshare findmnt
	P=$(exp_port 0)
	render pod --set port="$P"
	K='.[] | select(.kind == "DaemonSet") | .spec.template.spec.containers[0]'
	kq pod "$K | .args[]" >"$TMP/args"
	caps=$(kq pod "$K | .securityContext.capabilities.add | map(\"+\" + ascii_downcase) | join(\",\")")
	[ "$(kq pod "$K | .env[] | select(.name == \"CGSCHED_HOST_ROOT\") | .value")" = /host ] || fail "no CGSCHED_HOST_ROOT=/host"
	# /host here: $TMP/host, holding each state directory the chart mounts (bound read-only where the host has it).
	H=$TMP/host
	kq pod '.[] | select(.kind == "DaemonSet") | .spec.template.spec.volumes[] | select(.name != "sys") | .hostPath.path' >"$TMP/state"
	cg_create pod && POD=$CG
	cg_create other && B=$CG
	cg_spawn "$B" "$CGWORK" burn 1 "$(scaled 30)" 1
	echo "its arguments: $(tr '\n' ' ' <"$TMP/args"); capabilities $caps"
	# shellcheck disable=SC2046
	"$ROOT/tests/live/podlike.sh" "$CG_ROOT$POD/cgroup.procs" "$H" "$TMP/state" "$caps" \
		env CGSCHED_HOST_ROOT="$H" "$CGSCHED" $(cat "$TMP/args") >"$TMP/cgs.out" 2>"$TMP/cgs.err" &
	CGS_PID=$!
	# Its liveness probe, until it answers (bounded); then readiness.
	deadline 20
	until curl -sf --max-time 2 "http://127.0.0.1:$P/healthz" >"$TMP/live" 2>/dev/null; do
		past_deadline && fail "/healthz never answered: $(cat "$TMP/cgs.err")"
		proc_gone "$CGS_PID" && fail "it exited: $(cat "$TMP/cgs.err")"
		nap 0.2
	done
	deadline 20
	until curl -sf --max-time 2 "http://127.0.0.1:$P/readyz" >"$TMP/ready" 2>/dev/null; do
		past_deadline && fail "/readyz never ready: $(curl -s "http://127.0.0.1:$P/readyz")"
		nap 0.2
	done
	echo "liveness: $(cat "$TMP/live"); readiness: $(cat "$TMP/ready")"
	grep -q '^ok' "$TMP/live" && grep -q '^ready' "$TMP/ready" || fail "probes: $(cat "$TMP/live" "$TMP/ready")"
	# Its namespaces are what the test says: its own cgroup is "/" inside, /sys read-only.
	# (/proc/PID/cgroup shows its cgroups as its namespace's readers see them.)
	inside=$(nsenter -t "$CGS_PID" -C -m sh -c "cat /proc/$CGS_PID/cgroup; findmnt -no OPTIONS /sys/fs/cgroup" 2>&1)
	echo "from inside: $(echo "$inside" | tr '\n' ' ')"
	cpu=$(echo "$inside" | awk -F: -v v="$CG_VER" '(v == 2 && $1 == "0") || (v == 1 && ("," $2 ",") ~ /,cpu,/) { print $3 }')
	[ "$cpu" = / ] || fail "its cpu cgroup is $cpu inside, not its namespace's root: $inside"
	echo "$inside" | tail -n 1 | grep -q '^ro' || fail "/sys/fs/cgroup is writable inside: $inside"
	# The burner's series, by the host's path of a cgroup outside its namespace.
	deadline 20
	until scrape "http://127.0.0.1:$P/metrics" >"$TMP/m.txt" && grep -q "^cgsched_oncpu_seconds_total{cgroup=\"$B\"" "$TMP/m.txt"; do
		past_deadline && fail "no series of $B: $(grep '^cgsched_oncpu_seconds_total' "$TMP/m.txt" | head -5)"
		nap 0.5
	done
	grep "^cgsched_oncpu_seconds_total{cgroup=\"$B\"" "$TMP/m.txt"
	cgs_stop TERM || fail "it did not stop cleanly on SIGTERM (the kubelet's stop)"
	# BPF and PERFMON are each needed: without either it does not start, and says why in one line.
	for drop in bpf perfmon; do
		less=$(echo "$caps" | tr ',' '\n' | grep -vx "+$drop" | paste -sd, -)
		# shellcheck disable=SC2046
		timeout "$(scaled 20)" "$ROOT/tests/live/podlike.sh" "$CG_ROOT$POD/cgroup.procs" "$H" "$TMP/state" "$less" \
			env CGSCHED_HOST_ROOT="$H" "$CGSCHED" $(cat "$TMP/args") >/dev/null 2>"$TMP/less.err"
		rc=$?
		echo "without $drop: exit $rc, $(cat "$TMP/less.err")"
		[ $rc = 2 ] && [ "$(wc -l <"$TMP/less.err")" = 1 ] || fail "without $drop ($less): exit $rc: $(cat "$TMP/less.err")"
	done
}

# --- The Debian package ---------------------------------------------------
# make deb's package (make test builds it): lintian finds no error or
# warning; its Depends name the package of every library the binary needs;
# it holds the binary, the man page, the completion, the units (with the
# installed path, not started or enabled by installing) and the docs; and
# unpacked into a scratch root (dpkg -x), its cgsched is this version and
# runs probe.
test_dist_deb() {
	dist_need dpkg-deb dpkg-architecture lintian objdump man
	deb=$(ls "$ROOT"/.output/deb/cgsched_*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || { echo "no .output/deb/cgsched_*.deb (make deb builds it, as make test does): a test for the host"; exit 77; }
	ver=$("$CGSCHED" --version | awk '{ print $2 }')
	[ "$(dpkg-deb -f "$deb" Version)" = "$ver" ] || fail "the package is $(dpkg-deb -f "$deb" Version), cgsched $ver"
	lintian --fail-on error,warning "$deb" >"$TMP/lint" 2>&1 || fail "lintian: $(cat "$TMP/lint")"
	echo "lintian: $(grep -c '^[EW]:' "$TMP/lint") errors and warnings"
	R=$TMP/root
	rm -rf "$R"
	dpkg-deb -x "$deb" "$R" || fail "dpkg-deb -x failed"
	dpkg-deb -e "$deb" "$R/DEBIAN" || fail "dpkg-deb -e failed"
	for f in usr/sbin/cgsched usr/share/man/man8/cgsched.8.gz usr/share/bash-completion/completions/cgsched \
		lib/systemd/system/cgsched-export.service lib/systemd/system/cgsched-watch.service \
		usr/share/doc/cgsched/copyright usr/share/doc/cgsched/metrics.md.gz; do
		[ -s "$R/$f" ] || fail "the package has no $f"
	done
	grep -q '^ExecStart=/usr/sbin/cgsched export' "$R/lib/systemd/system/cgsched-export.service" ||
		fail "the unit does not start the packaged binary: $(grep ExecStart "$R/lib/systemd/system/cgsched-export.service")"
	# Not started (no deb-systemd-invoke), and enabled only where an earlier install was
	# (dh_installsystemd --no-enable: "debian-installed" guards each unit's enable).
	! grep -qs 'deb-systemd-invoke' "$R/DEBIAN/postinst" && [ "$(grep -c 'debian-installed' "$R/DEBIAN/postinst")" = 2 ] ||
		fail "installing it starts or enables a unit: $(cat "$R/DEBIAN/postinst")"
	MANWIDTH=80 man -l "$R/usr/share/man/man8/cgsched.8.gz" 2>/dev/null | grep -q 'EXIT STATUS' || fail "its man page does not render"
	# Every library the binary needs comes with a package its Depends names.
	dep=$(dpkg-deb -f "$deb" Depends)
	echo "Depends: $dep"
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	for lib in $(objdump -p "$R/usr/sbin/cgsched" | awk '$1 == "NEEDED" { print $2 }'); do
		pkg=$(dpkg -S "*/$ma/$lib" 2>/dev/null | head -n 1 | cut -d: -f1)
		[ -n "$pkg" ] || fail "no installed package has $lib"
		echo "$dep" | tr ',' '\n' | grep -q "^ *$pkg\( \|$\)" || fail "$lib is $pkg's, which Depends does not name"
	done
	"$R/usr/sbin/cgsched" --version | grep -qx "cgsched $ver" || fail "the packaged binary: $("$R/usr/sbin/cgsched" --version)"
	"$R/usr/sbin/cgsched" probe >"$TMP/probe" 2>&1 || fail "probe from the package failed: $(cat "$TMP/probe")"
	grep -q 'scheduler backends' "$TMP/probe" || fail "probe: $(cat "$TMP/probe")"
	head -n 1 "$TMP/probe"
}
