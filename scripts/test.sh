#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The test command (README, .ci/run): installs what is missing (the main job's set-up too),
# builds kubex and testenv, checks formatting, layering, SPDX lines and the version, runs unit
# and fault tests (plain, under ASan+UBSan, and on shared libraries), starts a real control
# plane and runs the integration tests against it (both builds) while the models of every
# Kubernetes version and the fuzz targets build beside them, builds and runs a program each
# way a user takes kubex in (scripts/check-packages.sh: installed tree, pkg-config,
# add_subdirectory, FetchContent, .debs, Conan, shared libraries) against the same real
# control plane, then tests those models and fuzzes the model decoder for a minute and the
# kubeconfig reader and the protobuf reader for half a minute each. Every test log is checked
# for the credentials the tests used.
# Exits non-zero on any failure; testenv is stopped whatever happens.
#
#   scripts/test.sh            everything
#   scripts/test.sh --no-asan  skip the sanitizer build (quicker local runs)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

asan=1
for a in "$@"; do
  case "$a" in
    --no-asan) asan=0 ;;
    *) echo "usage: $0 [--no-asan]" >&2; exit 2 ;;
  esac
done

# A full run writes about 10 GB (four builds, testenv, the peers, the caches). Refuse at once on
# a disk that cannot hold it: a full disk otherwise surfaces minutes later as a compiler that
# failed without a word. KUBEX_TEST_MIN_FREE_GB overrides the threshold.
min_free_gb=${KUBEX_TEST_MIN_FREE_GB:-15}
for dir in "$root" "${XDG_CACHE_HOME:-$HOME/.cache}"; do
  [ -d "$dir" ] || continue
  free_gb=$(($(df -Pk "$dir" | awk 'NR == 2 {print $4}') / 1024 / 1024))
  if [ "$free_gb" -lt "$min_free_gb" ]; then
    echo "error: $dir has $free_gb GB free; the test run needs at least $min_free_gb GB" \
      "(KUBEX_TEST_MIN_FREE_GB overrides this check)" >&2
    exit 1
  fi
done

# ccache keys on absolute paths unless told the tree's root: with these, a fresh clone in
# another folder (as CI makes) still hits the cache of earlier builds.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true

# Each step's wall time and the CPU time of the processes it ran (this shell's finished
# children), printed at the end: on a loaded or a cold machine the CPU column still says what a
# step costs, and the sum over 2 cores bounds the wall time an idle machine would take.
tck=$(getconf CLK_TCK)
children_cpu() { local f; read -r -a f </proc/$$/stat; echo $(((f[15] + f[16]) / tck)); }
step_name="" step_wall=0 step_cpu=0 timings=""
end_step() {
  [ -n "$step_name" ] || return 0
  timings+=$(printf '%5d s wall %6d s CPU  %s' $((SECONDS - step_wall)) \
    $(($(children_cpu) - step_cpu)) "$step_name")$'\n'
  step_name=""
}
print_timings() {
  end_step
  [ -n "$timings" ] || return 0
  echo; echo "==> time per step (CPU: of the processes the step ran, summed over cores)"
  printf '%s' "$timings"
  printf '%5d s wall %6d s CPU  total\n' $((SECONDS - started)) "$(children_cpu)"
}
step() {
  end_step
  step_name="$*"
  step_name=${step_name:0:80} step_wall=$SECONDS step_cpu=$(children_cpu)
  echo; echo "==> $* ($(date +%T))"
}
jobs=$(nproc)
started=$SECONDS

# Tokens the tests mint (kubex::testing::record_secret) are listed here for the log checks.
KUBEX_TEST_SECRETS_FILE=$(mktemp)
export KUBEX_TEST_SECRETS_FILE
side_builds=""  # the process group of the builds that run beside the integration tests
stop_side_builds() {
  if [ -n "$side_builds" ]; then
    kill -TERM -- "-$side_builds" 2>/dev/null || true
  fi
}
trap 'stop_side_builds; rm -f "$KUBEX_TEST_SECRETS_FILE"; print_timings' EXIT

step "dependencies"
scripts/install-deps.sh

step "format and static checks"
scripts/format.sh --check
scripts/check-spdx.sh
scripts/check-version.sh

step "model generator: tests, committed models match the committed specs and compile with clang"
python3 -m unittest discover -s tools/codegen/tests
tools/codegen/generate --check
scripts/check-models-clang.sh

# The same build settings as scripts/build-testenv.sh (no cgo, -trimpath), so vet and the tests
# reuse the packages that build compiled instead of compiling Kubernetes a second time.
step "testenv: go vet and unit tests"
(cd tools/testenv && export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly -trimpath" &&
  go vet ./... && go test -count=1 ./...)

step "testenv binary"
scripts/build-testenv.sh >/dev/null

# The main job's set-up (system packages and the peers: Go, cargo, pip, npm), so a change that
# breaks scripts/run.sh on a fresh machine fails here. Quick once the peers' caches are warm.
# After testenv's build: the client-go peer then finds apimachinery and client-go compiled in
# Go's build cache (same settings), and only the kube-rs build takes minutes on a fresh machine.
step "benchmark set-up (scripts/run.sh --setup-only)"
scripts/run.sh --setup-only

presets=(ci)
[ "$asan" = 1 ] && presets+=(asan)
for p in "${presets[@]}"; do
  step "build ($p)"
  cmake --preset "$p" >/dev/null
  cmake --build --preset "$p" -j "$jobs"
done

for p in "${presets[@]}"; do
  step "unit and fault tests ($p)"
  ctest --preset "$p" -L 'unit|fault' --output-on-failure -j "$jobs"
  scripts/check-no-secrets.sh --secrets-file "$KUBEX_TEST_SECRETS_FILE" \
    "build/$p/Testing/Temporary/LastTest.log"
done

# The shared libraries (BUILD_SHARED_LIBS, hidden symbols): the unit tests linked against
# them, each library's soname, and nothing exported outside namespace kubex. Its objects are
# ci's but for the libraries' -fPIC, so a warm ccache builds it in about a minute.
step "shared libraries (preset shared): build, unit tests, exported symbols"
cmake --preset shared >/dev/null
cmake --build --preset shared -j "$jobs"
ctest --preset shared -L unit --output-on-failure -j "$jobs"

# Every generated Kubernetes version's models (issue 21) but the default one, which ci and asan
# test (unity builds at -O0 without debug information), and the fuzz targets (clang, with their
# models and the client): seconds each with a warm cache, ~7 min each on a cold one. They build
# beside the integration tests, whose time is mostly the server's, at nice 19: they take only
# the CPU the tests leave idle, and a cold run no longer waits for them.
side_log=build/side-builds.log
mkdir -p build
step "models of every Kubernetes version and the fuzz targets: build, beside the integration" \
  "tests (log: $side_log)"
# A session of its own, so that a failure elsewhere can stop the whole build (trap above).
setsid -w nice -n 19 bash -c 'set -euo pipefail
  cmake --preset models >/dev/null
  cmake --build --preset models -j "$1"
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$1"' side-builds "$jobs" >"$side_log" 2>&1 &
side_builds=$!

# Two tests at a time: most of a test's time is the server's, and each works in namespaces of
# its own; the disruptive ones (etcd compaction, apiserver restarts) are RUN_SERIAL. This took
# the ci run from 546 to 347 s and the asan run from 397 to 245 s.
step "integration tests against a real control plane"
integration() {
  set -e
  logs=()
  # One build's integration tests: all but the disruptive ones (apiserver restarts, etcd
  # compaction) two at a time, then those alone. ctest's RUN_SERIAL was seen starting a
  # disruptive test while another still ran, whose connections the restart then cut.
  integration_of() {
    local dir=$1
    shift
    ctest --test-dir "$dir" -L integration -E '_disruptive_test[.]' "$@" --output-on-failure \
      -j "$jobs"
    cp "$dir/Testing/Temporary/LastTest.log" "$dir/Testing/Temporary/LastTest-parallel.log"
    ctest --test-dir "$dir" -L integration -R '_disruptive_test[.]' "$@" --output-on-failure
    logs+=("$dir/Testing/Temporary/LastTest-parallel.log" "$dir/Testing/Temporary/LastTest.log")
  }
  integration_of build/ci
  if [ "$asan" = 1 ]; then
    # testenv's own checks exercise kubectl and the Go binary, not kubex; the tests that start
    # a testenv of their own (label own-testenv) cost a control plane each: once is enough.
    integration_of build/asan -LE 'testenv'
  fi
  # Everything the tests printed, checked for the credentials they ran with.
  scripts/check-no-secrets.sh --kubeconfig "$KUBEX_TESTENV_KUBECONFIG" \
    --secrets-file "$KUBEX_TEST_SECRETS_FILE" "${logs[@]}"
}
export -f integration
export asan jobs
scripts/with-testenv.sh bash -c integration

# Each way a user takes kubex in (find_package, pkg-config, add_subdirectory, FetchContent,
# the .debs, Conan, the shared libraries) builds a program that lists the namespaces of a real
# apiserver, and runs it.
step "packages: every way in, built and run against a real control plane"
scripts/with-testenv.sh scripts/check-packages.sh

step "models of every Kubernetes version: tests (the build began beside the integration tests)"
if ! wait "$side_builds"; then
  tail -n 40 "$side_log"
  echo "error: the models or fuzz build failed (whole log: $side_log)" >&2
  exit 1
fi
side_builds=""
tail -n 2 "$side_log"
ctest --preset models -j "$jobs"

# The fuzzing itself (fuzz.sh's own build finds the targets built).
step "fuzz the model decoder for 60 s (libFuzzer, ASan+UBSan)"
scripts/fuzz.sh --target decode 60
step "fuzz the kubeconfig reader for 30 s (libFuzzer, ASan+UBSan)"
scripts/fuzz.sh --target kubeconfig 30
step "fuzz the protobuf reader, envelope and watch framing for 30 s (libFuzzer, ASan+UBSan)"
scripts/fuzz.sh --target protobuf 30

end_step
echo; echo "==> all tests passed in $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s"
