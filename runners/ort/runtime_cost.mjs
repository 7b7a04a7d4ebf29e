// Run by memory.mjs in a process of its own: what this runtime costs a process whatever the model, measured once per
// configuration and cached (runtime_cost_cache.mjs) — the calibration constants of a memory prediction
// (docs/memory.md), never measured in the process whose memory is predicted. Reads the session options as JSON on
// stdin and prints {"baseline_bytes": B, "node_bytes": N, "chain_nodes": C} on stdout:
//   baseline_bytes  what a first session of the runtime added to this fresh process's resident set: a small model of
//                   the kernels most models share (common_kernels.mjs says why not one trivial node), created and run
//                   once — the runtime's code pages, thread pool and allocators;
//   node_bytes      what one node of a session adds beyond that: a chain of trivial nodes, divided by its length.
// A process of its own, because a session released in the predicted process would leave heap pages behind that the
// model's session then reuses, moving the very figure it is compared with.
import fs from 'node:fs';
import { ort } from './ort.mjs';
import { CHAIN_NODES, chainModel } from './onnx_chain.mjs';
import { commonKernelsFeeds, commonKernelsModel } from './common_kernels.mjs';
import { procStatus } from './proc_memory.mjs';

const options = JSON.parse(fs.readFileSync(0, 'utf8') || '{}');
// Everything JavaScript builds is made before a count starts: building models leaves a few MB of garbage.
const baselineModel = commonKernelsModel();
const baselineFeeds = commonKernelsFeeds(ort);
const chain = chainModel(CHAIN_NODES);
const one = { x: new ort.Tensor('float32', new Float32Array(1), [1]) };

const start = procStatus().rss;
const first = await ort.InferenceSession.create(baselineModel, options);
await first.run(baselineFeeds);
const baseline = Math.max(0, procStatus().rss - start);
await first.release();

const before = procStatus().rss;
const session = await ort.InferenceSession.create(chain, options);
await session.run(one);
const added = Math.max(0, procStatus().rss - before);
await session.release();
process.stdout.write(JSON.stringify({ baseline_bytes: baseline, node_bytes: Math.round(added / CHAIN_NODES),
                                      chain_nodes: CHAIN_NODES }) + '\n');
