#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates the replace block that maps every k8s.io staging module required by
# k8s.io/kubernetes at the fake version v0.0.0 to its published v0.X.Y tag.
# Replace directives in a dependency's go.mod are ignored by Go, so a consumer of
# k8s.io/kubernetes must carry them itself. Usage: hack/update-replaces.sh v1.35.4
set -euo pipefail
ver=${1:?usage: $0 v1.X.Y}
cd "$(dirname "$0")/.."
mod=$(go mod download -json "k8s.io/kubernetes@${ver}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
staging="v0${ver#v1}"
go mod edit -require="k8s.io/kubernetes@${ver}"
grep -E '^\s+k8s.io/[a-z0-9-]+ v0\.0\.0$' "$mod" | awk '{print $1}' | while read -r m; do
  go mod edit -replace="${m}=${m}@${staging}"
done
