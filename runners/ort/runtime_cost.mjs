// Run by memory.mjs in a process of its own: what this runtime costs a process whatever the model, measured once per
// configuration and cached (runtime_cost_cache.mjs) — the calibration constants of a memory prediction
// (docs/memory.md), never measured in the process whose memory is predicted. Reads the inference session options as
// JSON on stdin and prints {"baseline_bytes": B, "baseline_run_bytes": R, "node_bytes": N, "chain_nodes": C} on stdout:
//   baseline_bytes  what a first inference session of the runtime added to this fresh process's resident set: a small
//                   model of the kernels most models share (common_kernels.mjs says why not one trivial node), created
//                   and run once — the runtime's code pages, thread pool and allocators;
//   baseline_run_bytes  of those, what its first run added: pages a process holds only once those kernels ran (their
//                   code, which differs by CPU class as the runtime picks its kernels by ISA, the threads' stacks, the
//                   small model's tensors). A model that runs none of those kernels never makes them resident, and an
//                   inference session measured before its first run has not yet: the figure bounds that gap on this
//                   machine;
//   node_bytes      what one node of an inference session adds beyond that: a chain of trivial nodes, divided by its
//                   length.
// A process of its own, because an inference session released in the predicted process would leave heap pages behind
// that the model's inference session then reuses, moving the very figure it is compared with.
import fs from 'node:fs';
import { ort } from './ort.mjs';
import { CHAIN_NODES, chainModel } from './onnx_chain.mjs';
import { commonKernelsFeeds, commonKernelsModel } from './common_kernels.mjs';
import { procStatus } from './proc_memory.mjs';

const options = JSON.parse(fs.readFileSync(0, 'utf8') || '{}');
// What JavaScript builds is made before a count starts, and only what that count needs: the chain's 6144 nodes leave
// MBs of freed but resident heap behind that an inference session then reuses, which moved the baseline by up to 4 MB
// from one process to the next when the chain was built first.
const baselineModel = commonKernelsModel();
const baselineFeeds = commonKernelsFeeds(ort);

// The garbage of building them collected now, so the collector does not free or grow its heap inside a count.
globalThis.gc?.();
const start = procStatus().rss;
const first = await ort.InferenceSession.create(baselineModel, options);
const created = procStatus().rss;
await first.run(baselineFeeds);
const ran = procStatus().rss;
const baseline = Math.max(0, ran - start);
const baselineRun = Math.max(0, ran - created);
// The chain is built while the baseline's inference session still holds its heap, so the inference session's freed
// pages are not where the chain's garbage went (the chain's figure moved by 20% when it was built after the release).
const chain = chainModel(CHAIN_NODES);
const one = { x: new ort.Tensor('float32', new Float32Array(1), [1]) };
await first.release();
const before = procStatus().rss;
const inferenceSession = await ort.InferenceSession.create(chain, options);
await inferenceSession.run(one);
const added = Math.max(0, procStatus().rss - before);
await inferenceSession.release();
process.stdout.write(JSON.stringify({ baseline_bytes: baseline, baseline_run_bytes: baselineRun, node_bytes: Math.round(added / CHAIN_NODES),
                                      chain_nodes: CHAIN_NODES }) + '\n');
