#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Measures what the generated models cost to compile, and prints a markdown report:
#   1. a clean build of the Kubernetes 1.35 models library (kubex_models_v1_35) with -j2 and
#      ccache disabled, in a configured `bench` build directory (Release, -O3);
#   2. the slowest translation units of that build (from .ninja_log) and the peak memory of the
#      three slowest, each recompiled alone;
#   3. a user translation unit that includes <kubex/k8s/v1_35/core/v1.hpp> and uses Pod,
#      without and with <kubex/core/json.hpp> (g++ -std=c++20 -O2 -c, median of 5).
#
#   benchmarks/build-cost-models.sh [--build-dir DIR] [--jobs N] [--nice N]
#
# --nice N runs everything in a session of its own whose scheduler autogroup, and the
# processes, have nice N (see run-models.sh --nice; N < 0 needs root), for a machine that
# other sessions keep busy.
#
# DIR defaults to build/bench of the tree this script is in (configured with
# `cmake --preset bench` if needed); the headers for the user TU come from the sources DIR was
# configured from. Needs an otherwise idle machine to mean anything: the
# report records the load average.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/build/bench"
jobs=2
nice_n=0
all_args=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) dir=${2:?}; shift 2 ;;
    --jobs) jobs=${2:?}; shift 2 ;;
    --nice) nice_n=${2:?}; shift 2 ;;
    *) echo "usage: $0 [--build-dir DIR] [--jobs N] [--nice N]" >&2; exit 2 ;;
  esac
done
if [ "$nice_n" != 0 ] && [ -z "${KUBEX_BUILD_COST_SESSION:-}" ]; then
  export KUBEX_BUILD_COST_SESSION=1
  # shellcheck disable=SC2016
  exec setsid -w bash -c 'echo "$0" >/proc/self/autogroup 2>/dev/null || true; exec nice -n "$0" "$@"' \
    "$nice_n" "$0" "${all_args[@]}"
fi
export CCACHE_DISABLE=1
if [ ! -f "$dir/build.ninja" ]; then
  (cd "$root" && cmake --preset bench >/dev/null)
fi
dir=$(cd "$dir" && pwd)
# The sources the build directory was configured from (e.g. a tree exported by
# run-models.sh --commit), for the user-TU headers too.
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$dir/CMakeCache.txt")
target=kubex_models_v1_35
objdir="$dir/models/v1_35/CMakeFiles/$target.dir"

# Everything the models depend on is built first, so the timed build compiles only the models.
cmake --build "$dir" --target kubex_core -j "$jobs" >/dev/null
cmake --build "$dir" --target "$target" -j "$jobs" >/dev/null  # generated headers, if any
find "$objdir" -name '*.o' -delete
rm -f "$dir/models/v1_35/lib$target.a"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kubex-build-cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start_ms=$(($(date +%s%N) / 1000000))
/usr/bin/time -f '%e %U %S' -o "$tmp/time" cmake --build "$dir" --target "$target" -j "$jobs" >/dev/null
read -r wall user sys <"$tmp/time"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
tus=$(find "$objdir" -name '*.o' | wc -l)

# .ninja_log v5: start_ms end_ms mtime output hash; later lines win for the same output.
awk -v dir="models/v1_35/CMakeFiles/$target.dir/" '
  $4 ~ "^" dir { t[$4] = $2 - $1 }
  END { for (o in t) printf "%d %s\n", t[o], o }' "$dir/.ninja_log" | sort -rn >"$tmp/tus"
sum_ms=$(awk '{ s += $1 } END { print s }' "$tmp/tus")

# Peak RSS of the slowest TUs, each compiled alone with its command from compile_commands.json.
python3 - "$dir/compile_commands.json" "$tmp/tus" >"$tmp/rss" <<'EOF'
import json, os, shlex, subprocess, sys, tempfile
by_out = {}
for c in json.load(open(sys.argv[1])):
    args = shlex.split(c["command"])
    if "-o" in args:
        by_out[os.path.normpath(os.path.join(c["directory"], args[args.index("-o") + 1]))] = c
top = [l.split()[1] for l in open(sys.argv[2]).read().splitlines()[:3]]
for out in top:
    c = next((v for k, v in by_out.items() if k.endswith(out)), None)
    if c is None:
        continue
    args = shlex.split(c["command"])
    if os.path.basename(args[0]) == "ccache":
        args = args[1:]
    with tempfile.NamedTemporaryFile(suffix=".o") as o, tempfile.NamedTemporaryFile() as t:
        i = args.index("-o")
        args[i + 1] = o.name
        args = [a for a in args if a not in ("-MD",)]
        if "-MF" in args:
            j = args.index("-MF")
            del args[j:j + 2]
        if "-MT" in args:
            j = args.index("-MT")
            del args[j:j + 2]
        subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", t.name] + args, cwd=c["directory"],
                       check=True)
        e, m = open(t.name).read().split()
    print(f"{os.path.basename(out)} {e} {int(m) // 1024}")
EOF

# A user TU: Pod only, then Pod with the JSON codec.
inc=(-I "$src/core/include" -I "$src/models/v1_35/include" -I "$dir/models/include")
cat >"$tmp/pod_only.cpp" <<'EOF'
#include <kubex/k8s/v1_35/core/v1.hpp>

int pod_has_spec(const kubex::k8s::v1_35::core::v1::Pod& pod) {
  return pod.spec && !pod.spec->containers.empty() ? 1 : 0;
}
kubex::k8s::v1_35::core::v1::Pod make_pod() {
  kubex::k8s::v1_35::core::v1::Pod pod;
  pod.metadata.name = "web-0";
  pod.spec.ensure().containers.emplace_back().name = "web";
  return pod;
}
EOF
cat >"$tmp/pod_json.cpp" <<'EOF'
#include <kubex/core/json.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <string>
#include <string_view>

int pod_has_spec(const kubex::k8s::v1_35::core::v1::Pod& pod) {
  return pod.spec && !pod.spec->containers.empty() ? 1 : 0;
}
kubex::k8s::v1_35::core::v1::Pod make_pod() {
  kubex::k8s::v1_35::core::v1::Pod pod;
  pod.metadata.name = "web-0";
  pod.spec.ensure().containers.emplace_back().name = "web";
  return pod;
}
std::string to_json(const kubex::k8s::v1_35::core::v1::Pod& pod) {
  return kubex::json::encode(pod);
}
kubex::k8s::v1_35::core::v1::Pod from_json(std::string_view text) {
  return kubex::json::decode<kubex::k8s::v1_35::core::v1::Pod>(text);
}
EOF
cat >"$tmp/std_only.cpp" <<'EOF'
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

int size_of(const std::map<std::string, std::vector<std::optional<std::string>>>& m) {
  return static_cast<int>(m.size());
}
EOF
tu_row() {  # name file -> "| name | median wall | median user | max RSS | lines |"
  local f=$1 i
  : >"$tmp/tu_times"
  for i in 1 2 3 4 5; do
    /usr/bin/time -f '%e %U %M' -o "$tmp/t" g++ -std=c++20 -O2 "${inc[@]}" -c "$f" -o "$tmp/out.o"
    cat "$tmp/t" >>"$tmp/tu_times"
  done
  local lines
  lines=$(g++ -std=c++20 -O2 "${inc[@]}" -E "$f" | grep -cv '^#' || true)
  sort -n "$tmp/tu_times" | awk -v lines="$lines" 'NR == 3 { wall = $1; user = $2 } { if ($3 > m) m = $3 }
    END { printf "%s s | %s s | %d MiB | %d", wall, user, m / 1024, lines }'
}

cat <<EOF
## Clean build of kubex_models_v1_35

- **Sources**: \`$src\`
- **Build directory**: \`$dir\` (CMAKE_BUILD_TYPE=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$dir/CMakeCache.txt"), flags \`$(sed -n 's/^CMAKE_CXX_FLAGS_RELEASE:STRING=//p' "$dir/CMakeCache.txt")\`)
- **Command**: \`benchmarks/build-cost-models.sh ${all_args[*]}\`, which times \`CCACHE_DISABLE=1 cmake --build $dir --target $target -j $jobs\` after deleting the target's objects and archive (kubex_core built before)$([ "$nice_n" = 0 ] || echo ", in a session with autogroup nice $nice_n")
- **Load average** (1/5/15 min) before: $load_before, after: $load_after

| translation units | wall | user CPU | sys CPU | sum of TU times (.ninja_log) |
|---:|---:|---:|---:|---:|
| $tus | ${wall} s | ${user} s | ${sys} s | $(awk -v s="$sum_ms" 'BEGIN { printf "%.1f s", s / 1000 }') |

Slowest translation units (wall time of each compile in the -j $jobs build, from .ninja_log):

| TU | time | share of the sum |
|---|---:|---:|
$(head -10 "$tmp/tus" | awk -v s="$sum_ms" '{ n = $2; sub(".*/", "", n); printf "| %s | %.1f s | %.1f %% |\n", n, $1 / 1000, 100 * $1 / s }')

Peak memory of the three slowest, each compiled alone (same command, \`/usr/bin/time\`):

| TU | wall | peak RSS |
|---|---:|---:|
$(awk '{ printf "| %s | %s s | %s MiB |\n", $1, $2, $3 }' "$tmp/rss")

## One user translation unit

\`g++ -std=c++20 -O2 -c\` with the include paths of core/ and models/v1_35 ($(g++ --version | head -1)); median of 5 runs; lines = preprocessed lines without line markers.

| TU | wall | user CPU | peak RSS | preprocessed lines |
|---|---:|---:|---:|---:|
| standard headers only (\`<map> <optional> <string> <vector> <chrono>\`), for reference | $(tu_row "$tmp/std_only.cpp") |
| \`<kubex/k8s/v1_35/core/v1.hpp>\`, builds and reads a Pod | $(tu_row "$tmp/pod_only.cpp") |
| the same plus \`<kubex/core/json.hpp>\`, json::encode and json::decode of a Pod | $(tu_row "$tmp/pod_json.cpp") |
EOF
