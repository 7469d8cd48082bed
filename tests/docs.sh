#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The writing rules that a machine can check (CONTRIBUTING.md):
# - the README opens with `make run` and `make test`, in about 250 lines;
# - README.md, CONTRIBUTING.md and each docs page average at most 20 words
#   a sentence, none over 45 (../shared/tools/prose-stats, where the
#   project's shared tools are beside the clone; skipped elsewhere);
# - no comment in src/, bpf/ or include/ tells of a guest run, a soak run,
#   a CI run or an issue number.
# Ends with "docs: N passed, N failed".
cd "$(dirname "$0")/.."
pass=0 bad=0
ok() { pass=$((pass + 1)); }
no() { echo "docs: $*"; bad=$((bad + 1)); }

first=$(grep -o 'make [a-z]*' README.md | head -n 2 | tr '\n' ' ')
[ "$first" = "make run make test " ] && ok || no "README.md's first two commands are '$first', not make run and make test"
lines=$(wc -l <README.md)
# "About 250": a few lines of slack for a new link, none for a new section.
[ "$lines" -le 260 ] && ok || no "README.md has $lines lines, over about 250"

ps=${CGS_PROSE_STATS:-../shared/tools/prose-stats}
if [ -x "$ps" ]; then
	for f in README.md CONTRIBUTING.md docs/*.md docs/commands/*.md; do
		# "F: W words, S sentences, A words a sentence, N over 30, M over 45"
		set -- $("$ps" "$f" 2>/dev/null | head -n 1 | sed 's/.*, \([0-9.]*\) words a sentence, [0-9]* over 30, \([0-9]*\) over 45.*/\1 \2/')
		if [ $# -ne 2 ]; then
			no "$f: prose-stats gave no figures"
		elif awk -v a="$1" 'BEGIN { exit !(a <= 20) }' && [ "$2" = 0 ]; then
			ok
		else
			no "$f: $1 words a sentence, $2 sentences over 45 (at most 20, and none)"
			"$ps" --top 3 "$f" 2>/dev/null | tail -n +2
		fi
	done
else
	echo "docs: no $ps here: the prose figures are not checked"
fi

# Comments only: a line in a comment block or after //. The words are those
# of a test run's story; a kernel compat note names a commit, not these.
stories=$(grep -rnE '(/\*|^\s*\*|//).*\b([Gg]uest run|the [0-9.]+ guest|[Ss]oak run|make soak|CI (of|run|at) [0-9a-f]{6,}|[Ii]ssue [0-9]+)' \
	src bpf include 2>/dev/null | head -n 5)
[ -z "$stories" ] && ok || no "comments that tell a test run's story or name an issue:
$stories"

echo "docs: $pass passed, $bad failed"
[ "$bad" = 0 ]
