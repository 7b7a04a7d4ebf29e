#!/bin/sh
# On a machine with an NVIDIA GPU: writes the GPU profiles rooflens imports for the zoo's resnet50 and imports each
# one, so the importers can be checked against a live GPU (the project's CI has none; its tests read real files other
# people's GPUs wrote). What it needs, none of which `make` installs:
#   - python3 with onnxruntime-gpu (the CUDA execution provider) and numpy;
#   - Nsight Systems (`nsys`) and Nsight Compute (`ncu`) on PATH, and the permission to read GPU counters
#     (root, or the driver's NVreg_RestrictProfilingToAdminUsers=0);
#   - a built rooflens (`make`), or ROOFLENS=/path/to/rooflens.
# ORT writes per-kernel `Kernel` events only when it was built with its CUDA tracer (--enable_cuda_profiling); the
# wheels on PyPI are not, so their profile times nodes on the host, and the import says so.
#
# Usage: scripts/gpu-profiles.sh [OUT_DIR]          (default: gpu-profiles/)
#        DRY_RUN=1 scripts/gpu-profiles.sh            prints the commands instead of running them
set -eu

out=${1:-gpu-profiles}
rooflens=${ROOFLENS:-build/rooflens}
runs=${RUNS:-20}

run() {
  echo "+ $*" >&2
  [ -n "${DRY_RUN:-}" ] || "$@"
}

need() {
  command -v "$1" >/dev/null 2>&1 || [ -n "${DRY_RUN:-}" ] || { echo "gpu-profiles: $1 not found: $2" >&2; exit 2; }
}

need "$rooflens" "build rooflens first (make) or set ROOFLENS"
need python3 "install python3 with onnxruntime-gpu"
need nsys "install Nsight Systems"
need ncu "install Nsight Compute"
mkdir -p "$out"

run "$rooflens" zoo make resnet50 -o "$out/resnet50.onnx"

# One CUDA session: warm-up, then RUNS timed runs, profiling on when asked (ORT writes its profile JSON).
cat > "$out/run_ort.py" <<'PY'
import sys, numpy as np, onnxruntime as ort
model, runs, profile_prefix = sys.argv[1], int(sys.argv[2]), (sys.argv[3] if len(sys.argv) > 3 else "")
so = ort.SessionOptions()
if profile_prefix:
    so.enable_profiling = True
    so.profile_file_prefix = profile_prefix
s = ort.InferenceSession(model, so, providers=["CUDAExecutionProvider"])
if "CUDAExecutionProvider" not in s.get_providers():
    sys.exit("the CUDA execution provider did not load: " + ", ".join(s.get_providers()))
feeds = {i.name: np.random.rand(*[d if isinstance(d, int) else 1 for d in i.shape]).astype(np.float32)
         for i in s.get_inputs()}
for _ in range(runs):
    s.run(None, feeds)
if profile_prefix:
    print(s.end_profiling())
PY

# 1. ONNX Runtime's own profile (CUDA provider).
if [ -n "${DRY_RUN:-}" ]; then profile="$out/ort_cuda.json"; else
  profile=$(cd "$out" && python3 run_ort.py resnet50.onnx "$runs" ort_cuda | tail -n 1); profile="$out/$profile"; fi
run "$rooflens" import onnxruntime "$profile" --model "$out/resnet50.onnx" --no-db \
  -o "$out/ort_cuda.report.json" --html "$out/ort_cuda.html"

# 2. Nsight Systems: the whole timeline, exported to SQLite.
run nsys profile --trace=cuda,nvtx --force-overwrite=true --export=sqlite -o "$out/resnet50" \
  python3 "$out/run_ort.py" "$out/resnet50.onnx" "$runs"
run "$rooflens" import nsys "$out/resnet50.sqlite" --no-db -o "$out/nsys.report.json" --html "$out/nsys.html"

# 3. Nsight Compute: the roofline sections of every kernel of 3 runs (the first one includes cuDNN's algorithm
#    search: its kernels are real launches and are imported as such), both CSV pages.
sections="--section SpeedOfLight --section SpeedOfLight_RooflineChart \
  --section SpeedOfLight_HierarchicalSingleRooflineChart --section SpeedOfLight_HierarchicalHalfRooflineChart \
  --section SpeedOfLight_HierarchicalTensorRooflineChart"
# shellcheck disable=SC2086  # the sections are separate words on purpose
run ncu $sections --csv --page details --log-file "$out/ncu_details.csv" python3 "$out/run_ort.py" "$out/resnet50.onnx" 3
# shellcheck disable=SC2086
run ncu $sections --csv --page raw --log-file "$out/ncu_raw.csv" python3 "$out/run_ort.py" "$out/resnet50.onnx" 3
run "$rooflens" import ncu "$out/ncu_details.csv" --no-db -o "$out/ncu.report.json" --html "$out/ncu.html"
run "$rooflens" import ncu "$out/ncu_raw.csv" --no-db -o "$out/ncu_raw.report.json"

echo "gpu-profiles: reports in $out/ (*.report.json, *.html)" >&2
