# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Bad input, everywhere, in one table (issue 19): every case of
# tests/live/badinput.tsv must end with exit status 2, one line on stderr
# saying what was wrong, nothing on stdout, and nothing written: the cpu
# files of a test tree unchanged, no cgroup made in it, no file left in the
# working directory (where -o and --timeline point). What each case gave is
# docs/bad-input.md; the test fails when that page differs from what it saw
# (CGS_BADINPUT_DOC=write rewrites it). Every case is caught before anything
# is traced, so the whole table (about 350 cases) takes about 5 s here; the
# guest runs the paths and environments (about 80 cases, 10 s).

BI_TSV=$ROOT/tests/live/badinput.tsv
BI_DOC=$ROOT/docs/bad-input.md

# bi_base CMD: the arguments that make CMD a valid run ("@CMD,... ARGS" rows).
bi_base() {
	case $1 in
	top) echo '-n 1' ;;
	hist) echo '-d 1' ;;
	record) echo '-- true' ;;
	check) echo '$F/ok.json --max-throttled-pct 100' ;;
	apply | enforce) echo '$F/ok.ini' ;;
	export) echo '--listen 127.0.0.1:$PORT' ;;
	watch) echo '--dir $W/inc --pid-file $W/w.pid' ;;
	esac
}

# The table with "@" rows expanded: kind, env, command, input, pattern.
bi_expand() {
	while IFS='	' read -r kind env cmd input pat; do
		case $kind in '#'* | '') continue ;; esac
		case $cmd in
		@*)
			list=${cmd%% *}
			list=${list#@}
			extra=${cmd#"@$list"}
			[ "$list" = all ] && list=top,hist,stat,record,check,apply,enforce,export,watch,probe
			for c in $(echo "$list" | tr , ' '); do
				b=$(bi_base "$c")
				printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$env" "$c$extra${b:+ $b}" "$input" "$pat"
			done
			;;
		*) printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$env" "$cmd" "$input" "$pat" ;;
		esac
	done <"$BI_TSV"
}

# bi_exec ENV ARGS...: cgsched ARGS in ENV, bounded (SIGTERM: enforce and
# export restore and stop cleanly, so a case that starts one still ends).
bi_exec() {
	_env=$1
	shift
	case $_env in
	- | nokprobe) exec timeout "$BI_T" "$CGSCHED" "$@" ;;
	user) exec $BI_USER timeout "$BI_T" "$CGSCHED" "$@" ;;
	# Mount namespaces of their own: the host's mounts are untouched.
	nobtf) exec unshare -m --propagation private sh -c \
		'mount -t tmpfs none /sys/kernel/btf || exit 99; exec "$@"' sh timeout "$BI_T" "$CGSCHED" "$@" ;;
	nocpu) exec unshare -m --propagation private sh -c \
		'umount -l "$0" || exit 99; exec "$@"' "$CG_ROOT" timeout "$BI_T" "$CGSCHED" "$@" ;;
	rocg) exec unshare -m --propagation private sh -c \
		'mount -o remount,ro,bind "$0" || exit 99; exec "$@"' "$CG_ROOT" timeout "$BI_T" "$CGSCHED" "$@" ;;
	*) echo "no environment '$_env'" >&2; exit 99 ;;
	esac
}

# What no case may change: the cpu files of the test tree, and its cgroups.
# bi_snap writes them to $TMP/bi.now and says what differs from $TMP/bi.ref
# (one process a case: the guest runs the table under emulation).
bi_snap() {
	for _d in "$CGA" "$CGA"/*/ "$CGA"/*/*/ "$CGA"/*/*/*/; do
		[ -d "$_d" ] && echo "cgroup ${_d%/}"
	done >"$TMP/bi.dirs"
	awk -v ref="$TMP/bi.ref" -v now="$TMP/bi.now" '
	BEGIN { while ((getline l < ref) > 0) was[l] = 1 }
	FILENAME ~ /\/cpu\.(stat|pressure)/ { next }
	{ l = FILENAME ~ /bi\.dirs$/ ? $0 : FILENAME ": " $0; print l > now; seen[l] = 1 }
	END {
		for (l in seen) if (!(l in was)) { printf "%s (new) ", l; d = 1 }
		for (l in was) if (!(l in seen)) { printf "%s (was) ", l; d = 1 }
		exit d
	}' "$TMP/bi.dirs" "$CGA"/cpu.* "$CGA"/*/cpu.* 2>/dev/null
}

# bi_subst S: S with each "$CG" replaced by the test cgroup (into BI_S).
bi_subst() {
	_s=$1
	BI_S=
	while :; do
		case $_s in
		*'$CG'*) BI_S=$BI_S${_s%%'$CG'*}$CG; _s=${_s#*'$CG'} ;;
		*) break ;;
		esac
	done
	BI_S=$BI_S$_s
}

bi_fixtures() {
	mkdir -p "$F/dir" "$W"
	printf '[%s]\nweight = 300\n' "$CG" >"$F/ok.ini"
	printf '%s\n' '{"schema":"cgsched/record","version":1,"wall_ns":1000000000,"cpu_pct":50,"runq":{"p99_ns":1000},"throttle":{"ns":0,"pct":1}}' >"$F/ok.json"
	: >"$F/empty"
	head -c 1100000 /dev/zero | tr '\0' '\n' >"$F/huge.ini"
	{ printf '[%s]\n' "$CG"; head -c 200000 /dev/zero | tr '\0' a; echo; } >"$F/longline.ini"
	rm -f "$F/fifo" && mkfifo "$F/fifo"
	cp "$F/ok.json" "$F/unreadable.json"
	# Another owner's private file: unreadable also where "not root" is a
	# user namespace (uid 0 unmapped: its owner bits would apply otherwise).
	chown 12345:12345 "$F/unreadable.json" && chmod 600 "$F/unreadable.json"
	ln -sf /etc "$F/link-out"
	ln -sf "$CGA" "$F/link-cg"
	# Journals replayed as root: another user's, one others may write, and a
	# lock file planted as a hard link to a file of value.
	printf 'cgsched-journal 1\npid 1\nboot x\nhierarchy 1 /\nend 0\n' >"$F/others.journal"
	cp "$F/others.journal" "$F/wide.journal"
	chown 12345:12345 "$F/others.journal"
	chmod 666 "$F/wide.journal"
	echo precious >"$F/victim"
	rm -f "$F/hl.journal.lock" && ln "$F/victim" "$F/hl.journal.lock"
	# Config files acted on as root: another user's, and ones others may write.
	cp "$F/ok.ini" "$F/others.ini" && chown 12345:12345 "$F/others.ini"
	cp "$F/ok.ini" "$F/wide.ini" && chmod 666 "$F/wide.ini"
	: >"$F/wide.yml" && chmod 664 "$F/wide.yml"
}

test_bad_input_table() {
	cg_create bad && cg_enable_children "$CG" && cg_create sub "$CG" || fail "cannot make the test cgroups"
	CG=/cgs-test-$CGS_RUN-bad
	CGA=$CG_ROOT$CG
	# Values other than the defaults, so a write of a default shows.
	cg_quota "$CG" 20000 100000
	if [ "$CG_VER" = 1 ]; then
		echo 512 >"$CGA/cpu.shares" && echo 256 >"$CGA/sub/cpu.shares"
	else
		echo 50 >"$CGA/cpu.weight"
	fi
	F=$TMP/bi-f W=$TMP/bi-w IN=$TMP/bi-f/in
	NL='
'
	ESC=$(printf '\033')
	PORT=$((20000 + CGS_RUN % 20000))
	BI_T=$(scaled 10)
	# Not root: a real unprivileged user where setpriv can make one (util-linux),
	# else a user namespace that maps no one (busybox in the guest): uid 65534 both.
	if setpriv --help 2>&1 | grep -q -- --reuid; then
		BI_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"
	else
		BI_USER="unshare -U"
	fi
	bi_fixtures
	# The environment the page was written in: its lines name the hierarchy.
	kprobes=yes
	[ -r /sys/bus/event_source/devices/kprobe/type ] || [ -w /sys/kernel/tracing/kprobe_events ] || kprobes=no
	seen="cgroup v$CG_VER at $CG_ROOT, kprobes: $kprobes"
	: >"$TMP/bi.ref"
	bi_snap >/dev/null
	mv "$TMP/bi.now" "$TMP/bi.ref"
	bi_expand >"$TMP/bi.cases"
	: >"$TMP/bi.res"
	n=0 bad=0 skipped=0 host=0
	t0=$(date +%s)
	# Under emulation (the guest, CGS_TIME_SCALE > 1) a case costs 100-250 ms
	# (cgsched alone takes 83 ms to start there): options, values and files,
	# whose lines depend on neither the kernel nor the cgroup version, are
	# left to the host; paths and environments run.
	slow=
	[ "$CGS_TIME_SCALE" -gt 1 ] && slow=1
	# Few processes a case: cgsched under timeout, and bi_snap's awk.
	while IFS='	' read -r kind env cmd input pat; do
		n=$((n + 1))
		if [ "$env" = nokprobe ] && [ $kprobes = yes ]; then
			skipped=$((skipped + 1))
			continue
		fi
		case $slow$kind in 1options | 1values | 1files) host=$((host + 1)); continue ;; esac
		if [ "$input" != - ]; then
			bi_subst "$input"
			printf '%b' "$BI_S" >"$IN"
		fi
		eval "set -- $cmd"
		(cd "$W" && bi_exec "$env" "$@") </dev/null >"$TMP/bi.out" 2>"$TMP/bi.err"
		rc=$?
		lines=0 line=
		while IFS= read -r l || [ -n "$l" ]; do
			lines=$((lines + 1))
			[ $lines = 1 ] && line=$l
		done <"$TMP/bi.err"
		why=
		[ "$rc" = 2 ] || why="$why exit $rc, not 2;"
		[ "$lines" = 1 ] || why="$why $lines lines on stderr, not 1;"
		case $line in "cgsched: error: "*) ;; *) why="$why not 'cgsched: error: ...';" ;; esac
		[ -s "$TMP/bi.out" ] && why="$why stdout: $(head -c 200 "$TMP/bi.out" | tr '\n' ' ');"
		for f in "$W"/* "$W"/.[!.]*; do
			[ -e "$f" ] || [ -L "$f" ] || continue
			why="$why left in the working directory: $(ls -A "$W" | tr '\n' ' ');"
			rm -rf "${W:?}"/* "$W"/.[!.]*
			break
		done
		if ! bi_snap >"$TMP/bi.diff"; then
			why="$why wrote: $(cat "$TMP/bi.diff");"
			mv "$TMP/bi.now" "$TMP/bi.ref"
		fi
		if [ -n "$why" ]; then
			bad=$((bad + 1))
			echo "FAIL cgsched $cmd [$env]:$why"
			sed 's/^/    stderr: /' "$TMP/bi.err" | head -n 5
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$env" "$cmd" "$input" "$rc" "$line" "$lines" "$pat" \
			"${why:-ok}" >>"$TMP/bi.res"
	done <"$TMP/bi.cases"
	# The lines against the patterns, all at once (ERE, as grep -E); a case wrong already counts once.
	awk -F'\t' -v cnt="$TMP/bi.cnt" '$6 !~ $8 {
		printf "FAIL cgsched %s [%s]: the line does not match /%s/\n    stderr: %s\n", $3, $2, $8, $6
		if ($9 == "ok") n++
	} END { print n + 0 > cnt }' "$TMP/bi.res"
	bad=$((bad + $(cat "$TMP/bi.cnt")))
	echo "$n cases ($skipped skipped: kprobes here; $host left to the host), $bad wrong, in $(( $(date +%s) - t0 )) s"
	bi_doc "$seen" <"$TMP/bi.res" >"$TMP/bad-input.md"
	[ $bad = 0 ] || fail "$bad of $n cases of bad input not refused as they should be"
	if [ -n "$slow" ]; then
		echo "the page is checked on the host, not here (only a part of the table ran)"
	elif [ "${CGS_BADINPUT_DOC:-}" = write ]; then
		cp "$TMP/bad-input.md" "$BI_DOC" && echo "wrote $BI_DOC"
	elif [ ! -f "$BI_DOC" ]; then
		echo "no $BI_DOC here: the page is checked where the tree is"
	elif ! grep -qxF "Seen on: $seen." "$BI_DOC"; then
		echo "$BI_DOC was written on another setup ($(grep '^Seen on:' "$BI_DOC")): not compared"
	elif ! diff -u "$BI_DOC" "$TMP/bad-input.md"; then
		fail "docs/bad-input.md is out of date: CGS_BADINPUT_DOC=write tests/live/run.sh bad_input_table rewrites it"
	fi
}

# The page: results (kind, env, command, input, exit, line, lines) on stdin.
bi_doc() {
	awk -F'\t' -v seen="$1" -v F="$F" -v W="$W" -v IN="$IN" -v CG="$CG" -v CGA="$CGA" -v PORT="$PORT" '
	function repl(s, from, to,   i, out) {
		out = ""
		while (from != "" && (i = index(s, from)) > 0) {
			out = out substr(s, 1, i - 1) to
			s = substr(s, i + length(from))
		}
		return out s
	}
	function cell(s) { gsub(/\|/, "\\|", s); gsub(/`/, "'\''", s); return s }
	BEGIN {
		env["-"] = ""
		env["user"] = "not root"
		env["nobtf"] = "no BTF"
		env["nocpu"] = "no cpu controller"
		env["rocg"] = "cgroupfs read-only"
		env["nokprobe"] = "no kprobes"
		title["options"] = "Options"
		title["values"] = "Values"
		title["files"] = "Files"
		title["paths"] = "Paths"
		title["environments"] = "Environments"
		print "# Bad input"
		print ""
		print "This page lists every bad input that cgsched is tested with, and what"
		print "cgsched says to each. Each case must end the same way:"
		print ""
		print "- exit status 2;"
		print "- one line on stderr, which says what was wrong, and what to do where that"
		print "  is not plain;"
		print "- nothing on stdout;"
		print "- nothing written."
		print ""
		print "*Nothing written* means three things:"
		print ""
		print "- The cpu files of a test tree are as they were. The tree is `$CG` and"
		print "  `$CG/sub`. The files hold quota, period, burst, shares or weight."
		print "- No cgroup was made in the tree."
		print "- The working directory `$W` is still empty. `-o` and `--timeline` point"
		print "  there."
		print ""
		print "cgsched catches each case before it traces or changes anything."
		print ""
		print "The cases are in [tests/live/badinput.tsv](../tests/live/badinput.tsv)."
		print "`tests/live/t_badinput.sh` runs them in `make test`. The test fails when a"
		print "case does not end as above, or when this page differs from what the cases"
		print "gave. `CGS_BADINPUT_DOC=write tests/live/run.sh bad_input_table` rewrites"
		print "this page."
		print ""
		print "Seen on: " seen "."
		print ""
		print "## The names in the command lines"
		print ""
		print "| name | what it stands for |"
		print "| --- | --- |"
		print "| `$F` | a directory of fixtures (below) |"
		print "| `$IN` | a file that holds the text the case shows after it; in that text `\\n` is a newline, `\\0` a NUL, `\\033` an escape byte |"
		print "| `$W` | the working directory, empty before each case |"
		print "| `$CG` | the test cgroup, relative to the hierarchy |"
		print "| `$CGA` | the test cgroup'\''s absolute path |"
		print "| `$NL` | a newline |"
		print "| `$ESC` | the escape byte |"
		print "| `$PORT` | a port |"
		print ""
		print "The fixtures in `$F`:"
		print ""
		print "| file | what it is |"
		print "| --- | --- |"
		print "| `ok.ini` | a valid limits file: `[$CG]` and `weight = 300` |"
		print "| `ok.json` | a valid report |"
		print "| `empty` | an empty file |"
		print "| `dir` | a directory |"
		print "| `fifo` | a FIFO |"
		print "| `huge.ini` | a file of 1.1 MB |"
		print "| `longline.ini` | a file with a 200,000-byte line |"
		print "| `unreadable.json` | a report of mode 600, owned by another user |"
		print "| `link-out` | a symlink to `/etc` |"
		print "| `link-cg` | a symlink to the test cgroup |"
		print "| `others.journal` | a journal owned by another user |"
		print "| `wide.journal` | a journal of mode 666 |"
		print "| `hl.journal.lock` | a hard link to another file |"
		print "| `others.ini` | `ok.ini`, owned by another user |"
		print "| `wide.ini` | `ok.ini`, of mode 666 |"
		print "| `wide.yml` | an empty web config of mode 664 |"
		print ""
		print "The environments:"
		print ""
		print "| environment | how the case runs |"
		print "| --- | --- |"
		print "| not root | as uid 65534, by `setpriv` or in a user namespace |"
		print "| no BTF | with `/sys/kernel/btf` hidden under a tmpfs, in a mount namespace of its own |"
		print "| no cpu controller | with the cpu hierarchy unmounted, in a mount namespace of its own |"
		print "| cgroupfs read-only | with the cpu hierarchy remounted read-only, in a mount namespace of its own |"
		print "| no kprobes | on a kernel built without kprobes; on other kernels these cases are skipped |"
	}
	{
		if ($1 != kind) {
			kind = $1
			printf "\n## %s\n\n| command line | environment | exit | stderr |\n| --- | --- | --- | --- |\n", title[kind]
		}
		c = "`cgsched " cell($3) "`"
		if ($4 != "-")
			c = c "<br>`$IN`: `" cell($4) "`"
		l = repl($6, IN, "$IN")
		l = repl(l, F, "$F")
		l = repl(l, W, "$W")
		l = repl(l, CGA, "$CGA")
		l = repl(l, CG, "$CG")
		l = repl(l, "127.0.0.1:" PORT, "127.0.0.1:$PORT")
		gsub(/cgsched-record-[0-9]+/, "cgsched-record-PID", l)
		if ($7 != 1)
			l = l " (" $7 " lines)"
		printf "| %s | %s | %s | `%s` |\n", c, env[$2], $5, cell(l)
	}'
}
