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
