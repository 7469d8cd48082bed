#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Fetch one guest kernel of tests/vm/kernels into .output/vm/kernels/NAME:
# vmlinuz, config, and the name of the package it came from. Once: a kernel
# that is there is used as it is (the runs stay comparable).
# Usage: tests/vm/fetch-kernel.sh NAME
#
# Each other suite gets apt lists of its own under .output/vm/apt/SUITE (its
# own sources.list, lists, cache and an empty dpkg status), read from the
# mirror this machine's apt already uses: the machine's sources and package
# state are never touched ("host": this machine's own lists, as they are). Debian's archive keyring on bookworm holds bullseye's
# and trixie's keys, so apt checks these suites' signatures as its own.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
name=${1:?usage: fetch-kernel.sh NAME}
line=$(awk -v n="$name" '$1 == n { print; exit }' "$ROOT/tests/vm/kernels")
[ -n "$line" ] || { echo "vm: no kernel '$name' in tests/vm/kernels" >&2; exit 2; }
set -- $line
suite=$2 meta=$3
dir=$ROOT/.output/vm/kernels/$name
[ -s "$dir/vmlinuz" ] && exit 0

if [ "$suite" = host ]; then
	# This machine's own lists (make deps updated them): Debian 12's newest.
	set --
else
	# The mirror: the URI that serves this machine's own Debian suite.
	mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
		awk '$2 !~ /security|updates|backports/ { print $1; exit }')
	[ -n "$mirror" ] || mirror=http://deb.debian.org/debian/
	apt=$ROOT/.output/vm/apt/$suite
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts"
	echo "deb $mirror $suite main" >"$apt/sources.list"
	: >"$apt/status"
	set -- -o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts="$apt/parts" \
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o Dir::State::Status="$apt/status"
	apt-get -q "$@" update >"$apt/update.log" 2>&1 ||
		{ echo "vm: apt-get update of $suite from $mirror failed; see $apt/update.log" >&2; exit 2; }
fi
# linux-image-amd64 -> linux-image-X -> the package with the image in it:
# X-unsigned (up to 6.12), linux-binary-unsigned-X (7.x), else X itself.
img=$(apt-cache "$@" depends "$meta" 2>/dev/null | sed -n 's/.*Depends: \(linux-image-[0-9].*\)$/\1/p' | head -n 1)
[ -n "$img" ] || { echo "vm: $suite has no $meta with a versioned kernel package" >&2; exit 2; }
x=${img#linux-image-}
rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
cd "$dir.tmp"
for p in "$img-unsigned" "linux-binary-unsigned-$x" "$img"; do
	apt-cache "$@" show "$p" >/dev/null 2>&1 || continue
	apt-get -q "$@" -o APT::Sandbox::User=root download "$p" >/dev/null 2>&1 || continue
	f=$(dpkg-deb -c ./*.deb | awk '{ print $NF }' | grep -E '^\./(boot/vmlinuz-|usr/lib/modules/[^/]*/vmlinuz)' | head -n 1)
	if [ -n "$f" ]; then
		dpkg-deb --fsys-tarfile ./*.deb | tar -xO "$f" >vmlinuz
		echo "$p" >package
		break
	fi
	rm -f ./*.deb
done
[ -s vmlinuz ] || { echo "vm: no kernel image found for $img in $suite" >&2; exit 2; }
# The config: beside the image (up to 6.12) or in linux-base-X (7.x).
c=$(dpkg-deb -c ./*.deb | awk '{ print $NF }' | grep -E '/(config-|config$)' | head -n 1 || true)
if [ -z "$c" ] && apt-get -q "$@" -o APT::Sandbox::User=root download "linux-base-$x" >/dev/null 2>&1; then
	c=$(dpkg-deb -c linux-base-*.deb | awk '{ print $NF }' | grep -E '/config$' | head -n 1 || true)
	[ -n "$c" ] && dpkg-deb --fsys-tarfile linux-base-*.deb | tar -xO "$c" >config
elif [ -n "$c" ]; then
	dpkg-deb --fsys-tarfile ./"$p"_*.deb | tar -xO "$c" >config
fi
rm -f ./*.deb
cd .. && rm -rf "$dir" && mv "$dir.tmp" "$dir"
echo "vm: kernel $name: $(cat "$dir/package") from $suite"
