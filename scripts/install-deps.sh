#!/usr/bin/env bash
# Installs everything rooflens needs from Debian packages (and, once runners exist, npm).
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
)

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

# npm packages (ONNX Runtime runner) are installed here once runners/ort exists.
if [ -f runners/ort/package-lock.json ]; then
  (cd runners/ort && { [ -d node_modules ] || npm ci --ignore-scripts --no-audit --no-fund; })
fi
