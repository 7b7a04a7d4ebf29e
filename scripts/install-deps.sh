#!/usr/bin/env bash
# Installs everything rooflens needs from Debian packages and npm.
# Idempotent: packages already present are skipped, so `make test` can call it every time cheaply.
set -euo pipefail

PKGS=(
  build-essential cmake pkg-config
  clang libclang-rt-14-dev            # libFuzzer + sanitizers
  libonnx-dev libonnx-testdata        # ONNX protobuf types, official shape inference, ~1,000 test models
  libprotobuf-dev protobuf-compiler
  nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libhwloc-dev
  libpugixml-dev                      # OpenVINO executable graph XML (rooflens import openvino)
  libsqlite3-dev sqlite3              # the embedded results database (rooflens history); sqlite3: tests read it
  libpq-dev postgresql                # the shared results database; tests start a throwaway PostgreSQL cluster
  libopencv-dnn-dev                   # the OpenCV DNN backend (-B opencv; ROOFLENS_BACKEND_OPENCV)
  likwid                              # likwid-bench: `make bench` checks rooflens hw against it
  chromium                            # browser tests, `make bench` (report load time), `make screenshots`
  # Test data only (`make corpus`): real PyTorch exports of torchvision models, counted independently with
  # python3-onnx. OpenBLAS makes the exporter's traced forward passes ~6x faster than Debian's reference BLAS.
  python3-torch python3-torchvision python3-onnx libopenblas0-pthread
)
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
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# npm packages, exactly as locked, for the two Node.js parts:
#   runners/ort  onnxruntime-node for the runner. --ignore-scripts: its postinstall downloads CUDA parts from a host
#                our machines cannot reach; the linux-x64 CPU library is bundled in the package.
#   web          echarts (inlined into the HTML report at build time), playwright-core (drives Debian's chromium
#                in the browser tests; --ignore-scripts: no browser download) and Chrome DevTools' trace engine.
# Re-run when the lock file is newer than the installed tree (npm ci writes node_modules/.package-lock.json).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for dir in "$ROOT/runners/ort" "$ROOT/web"; do
  if [ -f "$dir/package-lock.json" ]; then
    if [ ! -f "$dir/node_modules/.package-lock.json" ] ||
       [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
      echo "install-deps: npm ci in ${dir#"$ROOT"/}" >&2
      (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund >&2)
    fi
  fi
done
