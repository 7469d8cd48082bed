#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The plain manifest (make k8s-manifest): its namespace, then the chart
# rendered with its defaults into it. render.sh HELM
set -eu
cd "$(dirname "$0")/../.."
cat <<'EOF'
# cgsched export on every node: rendered from dist/helm/cgsched with its
# defaults (make k8s-manifest; do not edit, edit the chart).
#   kubectl apply -f dist/kubernetes/cgsched.yaml
# The image (cgsched:VERSION) is built from the Containerfile and pushed
# where the nodes pull from: set its name in the DaemonSet below.
apiVersion: v1
kind: Namespace
metadata:
  name: cgsched
EOF
"$1" template cgsched dist/helm/cgsched --namespace cgsched
