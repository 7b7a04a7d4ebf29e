// Builds what the browser tests open, once per test run (ctest runs this as the `browser` fixture's setup):
//   resnet50.{onnx,json,html}          a REAL profile (zoo model, real ONNX Runtime, quick timings, batch 1 and 2)
//   resnet50.analysis.{json,html}      `rooflens analyze --format json` of it: a static report
//   resnet50.trace.json                `rooflens export --to trace` of the profile
//   resnet50.whatif.{json,html}        `rooflens whatif --device a100 --quantize fp16` of it (projection dots)
//   ceilings.{json,html}               crowded ceilings (fp64 AVX-512 172 vs fp32 AVX2 200 GFLOP/s) for the labels
//   synthetic.{json,html}              5,000 layers (make_synthetic_report.mjs), datasheet ceilings
//   hostile_run.{onnx,json,html}       node/tensor/producer names carrying HTML, on ops ORT runs
//   hostile_ops.{onnx,json,html}       HTML in op names too (custom domain): ORT refuses it, a failure record
//   hostile_static.{json,html}         `rooflens analyze` of hostile_ops: unknown-op rows
//   generate.{onnx,json,html}          a REAL `rooflens generate` of a small zoo llama with a KV cache: prompts 32 and
//                                      64, 8 decode steps, datasheet ceilings
//   two_runtimes.{onnx,json,html}      squeezenet on ONNX Runtime and OpenCV in one report (when built with OpenCV)
//   trt_import.{json,html}             `rooflens import` of the project's trtexec MobileNet QAT set (datasheet A100)
//   capacity.{json,html}               a REAL `rooflens capacity --find-peak` of squeezenet at 64 px (one instance,
//                                      short runs, datasheet ceilings)
//   serving.{json,html}                a REAL `rooflens capacity --sweep max-batch=1,2,4` of the generate llama served
//                                      to users (concurrency, datasheet ceilings: its decode steps on the roofline)
//   vllm_import.{json,html}            `rooflens import vllm` of a real vLLM benchmark_serving result (a GPU server's)
// Environment: ROOFLENS_BINARY (the rooflens to test), ROOFLENS_BROWSER_WORK (output directory).
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {HOSTILE, onnxModel} from './onnx_writer.mjs';
import {syntheticReport} from './make_synthetic_report.mjs';

export const work = process.env.ROOFLENS_BROWSER_WORK;
export const rooflens = process.env.ROOFLENS_BINARY;
export const file = (name) => path.join(work, name);
const fixturesDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../fixtures/import');
const QUICK = ['--threads', '2', '--warmup-ms', '0', '--duration', '0', '--iterations', '3', '--profile-iterations', '3', '-q'];

function run(args, {allowFail = false} = {}) {
  const t0 = Date.now();
  const r = spawnSync(rooflens, args, {encoding: 'utf8', maxBuffer: 64 << 20});
  const line = 'rooflens ' + args.join(' ') + ' -> exit ' + r.status + ' in ' + ((Date.now() - t0) / 1000).toFixed(1) + ' s';
  console.log(line);
  if (r.status !== 0 && !(allowFail && r.status === 1)) throw new Error(line + '\n' + r.stderr + r.stdout);
  return r;
}

function hostileModels() {
  const [script, img] = HOSTILE;
  // Runnable: ORT keeps Relu and Sigmoid apart, so the layers carry these names. (ORT writes node names into its
  // profile unescaped; the runner repairs that, so the '"' of the second name survives too.)
  fs.writeFileSync(file('hostile_run.onnx'), onnxModel({
    producer: script, graphName: img, input: 'x', output: 'y', dims: [1, 64],
    nodes: [{name: script, op: 'Relu', input: 'x', output: img}, {name: img, op: 'Sigmoid', input: img, output: 'y'}],
  }));
  // Op names with HTML need a custom domain (the default one has no such op): ORT refuses the model.
  fs.writeFileSync(file('hostile_ops.onnx'), onnxModel({
    producer: script, input: 'x', output: 'y', dims: [1, 64], opsets: {'': 17, 'evil.example': 1},
    nodes: [{name: script, op: img, domain: 'evil.example', input: 'x', output: 't'},
      {name: img, op: script, domain: 'evil.example', input: 't', output: 'y'}],
  }));
}

// Ceilings close together, as a real AVX-512 machine measures them (fp64 AVX-512 172 vs fp32 AVX2 200 GFLOP/s
// collided before labels were placed): a small synthetic report whose datasheet holds them.
function crowdedCeilings() {
  const r = syntheticReport(200);
  r.hardware.compute = [
    {name: 'fp32_fma_avx512', isa: 'avx512f', dtype: 'fp32', threads: 2, gflops: 374},
    {name: 'fp32_fma_avx2', isa: 'avx2', dtype: 'fp32', threads: 2, gflops: 200},
    {name: 'fp64_fma_avx512', isa: 'avx512f', dtype: 'fp64', threads: 2, gflops: 172},
    {name: 'fp64_fma_avx2', isa: 'avx2', dtype: 'fp64', threads: 2, gflops: 100},
  ];
  r.hardware.memory = [
    {level: 'L1', kernel: 'read', threads: 2, gbps: 635, working_set_bytes: 0},
    {level: 'L2', kernel: 'read', threads: 2, gbps: 279, working_set_bytes: 0},
    {level: 'L3', kernel: 'read', threads: 2, gbps: 120, working_set_bytes: 0},
    {level: 'DRAM', kernel: 'read', threads: 2, gbps: 33, working_set_bytes: 0},
  ];
  return r;
}

export function buildFixtures() {
  if (!work || !rooflens) throw new Error('set ROOFLENS_BINARY and ROOFLENS_BROWSER_WORK');
  fs.rmSync(work, {recursive: true, force: true});
  fs.mkdirSync(work, {recursive: true});
  run(['zoo', 'make', 'resnet50', '-o', file('resnet50.onnx')]);
  run(['profile', file('resnet50.onnx'), ...QUICK, '-b', '1,2', '-o', file('resnet50.json'), '--html', file('resnet50.html')]);
  run(['export', file('resnet50.json'), '--to', 'trace', '-o', file('resnet50.trace.json')]);
  run(['whatif', file('resnet50.json'), '--device', 'a100', '--quantize', 'fp16', '-o', file('resnet50.whatif.json'),
    '--html', file('resnet50.whatif.html')]);
  run(['analyze', file('resnet50.onnx'), '--format', 'json', '-o', file('resnet50.analysis.json')]);
  run(['report', file('resnet50.analysis.json'), '-o', file('resnet50.analysis.html')]);
  fs.writeFileSync(file('synthetic.json'), JSON.stringify(syntheticReport(5000)));
  run(['report', file('synthetic.json'), '-o', file('synthetic.html')]);
  fs.writeFileSync(file('ceilings.json'), JSON.stringify(crowdedCeilings()));
  run(['report', file('ceilings.json'), '-o', file('ceilings.html')]);
  hostileModels();
  run(['profile', file('hostile_run.onnx'), ...QUICK, '--no-roofs', '-o', file('hostile_run.json')]);
  run(['report', file('hostile_run.json'), '-o', file('hostile_run.html')]);
  run(['profile', file('hostile_ops.onnx'), ...QUICK, '--no-roofs', '-o', file('hostile_ops.json')], {allowFail: true});
  run(['report', file('hostile_ops.json'), '-o', file('hostile_ops.html')]);
  run(['analyze', file('hostile_ops.onnx'), '--format', 'json', '-o', file('hostile_static.json')]);
  run(['report', file('hostile_static.json'), '-o', file('hostile_static.html')]);
  run(['zoo', 'make', 'llama', '--kv-cache', '--layers', '2', '--hidden', '128', '--heads', '4', '--kv-heads', '2',
    '--ffn', '256', '--vocab', '500', '-o', file('generate.onnx')]);
  fs.writeFileSync(file('roofs.json'), JSON.stringify({source: 'datasheet',
    compute: [{name: 'fp32_fma', isa: 'avx512', dtype: 'fp32', threads: 2, gflops: 300}],
    memory: [{level: 'DRAM', kernel: 'read', threads: 2, gbps: 30}]}));
  run(['generate', file('generate.onnx'), '--prompt', '32,64', '--gen', '8', '--threads', '2', '--requests', '2',
    '--profile-iterations', '2', '-q', '--roofs', file('roofs.json'), '-o', file('generate.json'), '--html', file('generate.html')]);
  run(['capacity', file('generate.onnx'), '--scenario', 'concurrency', '--sweep', 'max-batch=1,2,4', '--requests', '8',
    '--input-tokens', '8', '--output-tokens', '6', '--threads', '1', '--slo', 'ttft=10s,tpot=2s', '-q', '--no-db',
    '--roofs', file('roofs.json'), '-o', file('serving.json'), '--html', file('serving.html')], {allowFail: true});
  run(['import', 'vllm', path.join(fixturesDir, 'vllm', 'benchmark_serving_2025-05_summary_llama3.1-8b_rate5.5.json'),
    '-q', '--no-db', '-o', file('vllm_import.json'), '--html', file('vllm_import.html')]);
  twoRuntimes();
  run(['capacity', file('two_runtimes.onnx'), '--find-peak', '--slo', '100ms', '--percentile', '90', '--duration', '1',
    '--precision', '25%', '--threads', '1', '-q', '--no-db', '--roofs', file('roofs.json'), '-o', file('capacity.json'),
    '--html', file('capacity.html')]);
  const trt = path.join(fixturesDir, 'trtexec', 'mobilenet_qat');
  run(['import', 'auto', ...['graph', 'profile', 'timing', 'profile.metadata', 'build.metadata']
    .map((f) => path.join(trt, 'mobilenet_qat.engine.' + f + '.json')), '-q', '-o', file('trt_import.json'),
  '--html', file('trt_import.html')]);
}

// A build without ROOFLENS_BACKEND_OPENCV refuses -B opencv as a usage error (exit 2): no fixture then.
function twoRuntimes() {
  run(['zoo', 'make', 'squeezenet1_0', '--image', '64', '-o', file('two_runtimes.onnx')]);
  const r = spawnSync(rooflens, ['profile', file('two_runtimes.onnx'), ...QUICK, '--no-roofs', '-B', 'onnxruntime',
    '-B', 'opencv', '-o', file('two_runtimes.json'), '--html', file('two_runtimes.html')], {encoding: 'utf8'});
  console.log('rooflens profile two_runtimes.onnx -B onnxruntime -B opencv -> exit ' + r.status);
  if (r.status !== 0 && !(r.status === 2 && r.stderr.includes('unknown backend'))) throw new Error(r.stderr + r.stdout);
}

if (import.meta.url === 'file://' + process.argv[1]) buildFixtures();
