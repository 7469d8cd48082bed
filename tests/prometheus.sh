#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Prometheus rules and alerts of dist/prometheus: promtool checks them,
# its unit tests make each alert fire and stay quiet (cgsched-rules.test.yml),
# and every series they read is one docs/metrics.md lists.
# Ends with "prometheus: N passed, N failed".
cd "$(dirname "$0")/.."
pass=0 bad=0
ok() { pass=$((pass + 1)); }
no() { echo "prometheus: $*"; bad=$((bad + 1)); }
if ! command -v promtool >/dev/null; then
	echo "prometheus: no promtool here (make deps installs Debian's prometheus): the rules are not checked"
	echo "prometheus: 0 passed, 0 failed"
	exit 0
fi
d=dist/prometheus
promtool check rules "$d/cgsched-rules.yml" >/tmp/cgs-prom.$$ 2>&1 && ok || no "promtool check rules: $(cat /tmp/cgs-prom.$$)"
(cd "$d" && promtool test rules cgsched-rules.test.yml) >/tmp/cgs-prom.$$ 2>&1 && ok || no "promtool test rules: $(cat /tmp/cgs-prom.$$)"
rm -f /tmp/cgs-prom.$$
for m in $(grep -v '^ *#' "$d/cgsched-rules.yml" | grep -o 'cgsched_[a-z_]*' | sed 's/_\(bucket\|sum\|count\)$//' | sort -u); do
	grep -q "\`$m[{\`]" docs/metrics.md && ok || no "the rules read $m, which docs/metrics.md does not list"
done
echo "prometheus: $pass passed, $bad failed"
[ "$bad" = 0 ]
