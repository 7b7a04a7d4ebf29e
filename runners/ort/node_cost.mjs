// Run by memory.mjs in a process of its own: what one node of a session adds to this runtime's resident set, from a
// chain of trivial nodes. It prints {"node_bytes": N} on stdout. Its own process, because the chain's session,
// released, would leave heap pages behind that the model's session then reuses, moving the measurement it is to
// predict. Reads the session options as JSON on stdin.
import fs from 'node:fs';
import { ort } from './ort.mjs';
import { CHAIN_NODES, chainModel } from './onnx_chain.mjs';
import { procStatus } from './proc_memory.mjs';

const options = JSON.parse(fs.readFileSync(0, 'utf8') || '{}');
const one = new ort.Tensor('float32', new Float32Array(1), [1]);
// A one-node session first, so the runtime's code, registries and thread pool are in before the chain's is measured.
const first = await ort.InferenceSession.create(chainModel(1), options);
await first.run({ x: one });
await first.release();
// The chain's bytes are made before the count starts: building them leaves JavaScript garbage of a few MB.
const model = chainModel(CHAIN_NODES);
const before = procStatus().rss;
const chain = await ort.InferenceSession.create(model, options);
await chain.run({ x: one });
const added = Math.max(0, procStatus().rss - before);
await chain.release();
process.stdout.write(JSON.stringify({ node_bytes: Math.round(added / CHAIN_NODES), chain_nodes: CHAIN_NODES }) + '\n');
