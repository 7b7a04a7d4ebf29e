#!/usr/bin/env bash
# The table of docs/profile.md, "int8 on CPUs without VNNI": the zoo's QDQ models against their own run at
# --opt-level disabled (`rooflens profile --int8-check always`), on this CPU and on an emulated AVX2 one — the runner
# under qemu-x86_64 -cpu Haswell (no AVX-512, no VNNI), rooflens native with an AVX2 machine's roofs, as
# tests/integration/test_int8_emulated.cpp runs it. Accuracy, not speed: any machine gives the same rows for its CPU
# class. Slow: the emulated unoptimized runs compute in float under TCG (ResNet-50 at 224x224: minutes).
# Usage: perf/int8/deviation.sh [BUILD_DIR]   (needs Debian's qemu-user; prints Markdown rows)
set -euo pipefail
BUILD="${1:-build}"
ROOFLENS="$BUILD/rooflens"
QEMU="$(command -v qemu-x86_64)" || { echo "deviation.sh: qemu-x86_64 not found (apt-get install qemu-user)" >&2; exit 2; }
NODE="$(command -v node)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/bin"
printf '#!/bin/sh\nexec %s -cpu Haswell,-pcid,-x2apic,-tsc-deadline,-hle,-invpcid,-rtm %s "$@"\n' "$QEMU" "$NODE" \
  > "$WORK/bin/node"
chmod +x "$WORK/bin/node"
cat > "$WORK/avx2-roofs.json" <<'JSON'
{"source":"measured","machine":{"model":"QEMU Haswell (emulated)","cores":2,"threads":2,"isa":["sse2","avx","fma","avx2"]},
 "compute":[{"name":"fp32_fma","isa":"avx2","dtype":"fp32","threads":1,"gflops":50}],
 "memory":[{"level":"DRAM","kernel":"read","threads":1,"gbps":10}]}
JSON
ONCE=(--threads 1 --warmup 1 --warmup-ms 0 --duration 0 --iterations 1 --no-layers --int8-check always -q --no-db)

# One row from a report: elements beyond the tolerance, of how many, and the largest error in output steps.
row() {
  "$NODE" -e '
    const [model, size, cpu, file] = process.argv.slice(1);
    const c = JSON.parse(require("fs").readFileSync(file)).runs[0].int8_check;
    if (!c) { console.log(`| ${model} | ${size} | ${cpu} | no check made |`); process.exit(0); }
    let beyond = 0, all = 0, max = 0;
    for (const o of c.validation.outputs) { beyond += o.mismatched; all += o.elements; max = Math.max(max, o.max_abs_error); }
    const n = +(max / c.output_step).toFixed(1);
    const steps = c.output_step > 0 ? `, max ${n} step${n === 1 ? "" : "s"}` : `, max abs error ${+max.toFixed(3)}`;
    console.log(`| ${model} | ${size} | ${cpu} | ${beyond} of ${all}${steps} |`);' "$@"
}

echo "| zoo QDQ model | input | CPU | logits beyond 1.5 steps of the unoptimized run |"
echo "|---|---|---|---|"
for spec in "mobilenet_v2 64" "mobilenet_v2 224" "resnet50 224"; do
  read -r name side <<< "$spec"
  model="$WORK/$name-$side-int8.onnx"
  "$ROOFLENS" zoo make "$name" --image "$side" --batch 1 --quantize qdq -o "$model" > /dev/null
  "$ROOFLENS" profile "$model" "${ONCE[@]}" --no-roofs -o "$WORK/here.json" > /dev/null
  row "$name" "${side}x$side" "this CPU" "$WORK/here.json"
  PATH="$WORK/bin:$PATH" "$ROOFLENS" profile "$model" "${ONCE[@]}" --roofs "$WORK/avx2-roofs.json" \
    -o "$WORK/emulated.json" > /dev/null
  row "$name" "${side}x$side" "emulated AVX2" "$WORK/emulated.json"
done
