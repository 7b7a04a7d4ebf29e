#!/usr/bin/env bash
# Installs what rooflens needs from Debian packages and npm: for `make run`, or everything for the tests.
# Idempotent: packages already present are skipped, so `make test` can call it every time cheaply.
set -euo pipefail

# Usage: install-deps.sh [run|test]. `run` (make run): what building and running rooflens needs. `test` (the default:
# make test, make bench): that and everything only the tests, the corpus and the benchmarks need.
SET="${1:-test}"
case "$SET" in run|test) ;; *) echo "install-deps: unknown set '$SET' (run or test)" >&2; exit 2 ;; esac

RUN_PKGS=(
  build-essential cmake pkg-config
  libonnx-dev                         # ONNX protobuf types, official shape inference
  libprotobuf-dev protobuf-compiler
  nlohmann-json3-dev libcli11-dev libfmt-dev
  libhwloc-dev
  libpugixml-dev                      # OpenVINO executable graph XML (rooflens import openvino)
  libsqlite3-dev                      # the embedded results database (rooflens history); nsys' SQLite exports
  zlib1g-dev                          # gzipped PyTorch profiler traces (rooflens import kineto)
  libpq-dev                           # the shared results database (PostgreSQL client)
  libssl-dev                          # OpenSSL's libcrypto: SHA-256 of models and machines
)
TEST_PKGS=(
  libopencv-dnn-dev                   # the OpenCV DNN backend (-B opencv): `make run` builds without it when absent
  clang libclang-rt-14-dev            # libFuzzer + sanitizers: the build `make test` runs
  ninja-build                         # that build's generator (Makefile: why)
  libgtest-dev libgmock-dev
  libonnx-testdata                    # ~1,000 small models with reference outputs
  sqlite3 postgresql                  # tests read the database; tests start a throwaway PostgreSQL cluster
  slurmctld slurmd slurm-client munge # the fleet tests start a throwaway single-node Slurm (rooflens bench --slurm)
  likwid                              # likwid-bench: `make bench` checks rooflens hw against it
  chromium                            # browser tests, `make bench` (report load time), `make screenshots`
  qemu-user                           # qemu-x86_64 -cpu Haswell: ONNX Runtime's int8 kernels of CPUs without VNNI (the score's int8 workloads, the int8 lint)
  # Test data only (`make corpus`): real PyTorch exports of torchvision models, counted independently with
  # python3-onnx. OpenBLAS makes the exporter's traced forward passes ~6x faster than Debian's reference BLAS.
  python3-torch python3-torchvision python3-onnx libopenblas0-pthread
)
PKGS=("${RUN_PKGS[@]}")
[ "$SET" = test ] && PKGS+=("${TEST_PKGS[@]}")
# Node.js runs the ONNX Runtime runner (runners/ort). Machines whose image already has node/npm keep theirs;
# a fresh Debian machine gets Debian's.
command -v node >/dev/null 2>&1 || PKGS+=(nodejs)
command -v npm >/dev/null 2>&1 || PKGS+=(npm)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "install-deps: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  # --force-unsafe-io: dpkg skips its fsync of every unpacked file (Debian's own container images do the same). `make
  # run`'s ~500 packages (npm alone brings ~380 small ones) installed in 170 s instead of 288 s on a fresh bookworm;
  # an install cut short by a crash is simply run again.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    -o Dpkg::Options::=--force-unsafe-io "${missing[@]}" >&2
fi

# npm packages, exactly as locked, for the Node.js parts:
#   runners/ort  onnxruntime-node for the runner. --ignore-scripts: its postinstall downloads CUDA parts from a host
#                our machines cannot reach; the linux-x64 CPU library is bundled in the package.
#   web          echarts (inlined into the HTML report at build time), playwright-core (drives Debian's chromium
#                in the browser tests; --ignore-scripts: no browser download) and Chrome DevTools' trace engine.
#   tests/schemas  (test set only) the validators the fleet manifests are checked with: kubernetes-models (the
#                Kubernetes OpenAPI schema) and GitHub's @actions/workflow-parser.
# Re-run when the lock file is newer than the installed tree (npm ci writes node_modules/.package-lock.json).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# `make run` omits web's devDependencies (the browser tests' playwright-core and trace engine) and leaves a mark, so
# the next `make test` installs them.
NPM_DIRS=("$ROOT/runners/ort" "$ROOT/web")
[ "$SET" = test ] && NPM_DIRS+=("$ROOT/tests/schemas")
# The directories install side by side (npm's cache takes concurrent readers): each `npm ci` is mostly waiting on
# files, and one after another they were ~13 of `make test`'s first 25 seconds on a fresh clone.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=() names=()
for dir in "${NPM_DIRS[@]}"; do
  if [ -f "$dir/package-lock.json" ]; then
    if [ ! -f "$dir/node_modules/.package-lock.json" ] ||
       [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ] ||
       { [ "$SET" = test ] && [ -f "$dir/node_modules/.rooflens-omitted-dev" ]; }; then
      omit=()
      if [ "$SET" = run ]; then omit=(--omit=dev); fi
      name=${dir#"$ROOT"/}
      echo "install-deps: npm ci ${omit[*]} in $name" >&2
      (cd "$dir" && npm ci "${omit[@]}" --ignore-scripts --no-audit --no-fund &&
         if [ "$SET" = run ]; then touch "$dir/node_modules/.rooflens-omitted-dev"; fi) > "$logs/${#pids[@]}" 2>&1 &
      pids+=($!) names+=("$name")
    fi
  fi
done
failed=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    cat "$logs/$i" >&2
  else
    cat "$logs/$i" >&2
    echo "install-deps: npm ci failed in ${names[$i]} (its output above); run \`make deps\` again once the cause is fixed" >&2
    failed=1
  fi
done
exit "$failed"
