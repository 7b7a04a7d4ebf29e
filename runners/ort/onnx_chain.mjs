// A chain of one-input nodes over a one-float tensor (opset 17): the smallest graph with n nodes, for measuring what
// each node of an inference session costs the runtime (runtime_cost.mjs).
import { model, node, valueInfo } from './onnx_write.mjs';

// The chain runtime_cost.mjs measures: long enough that what the C allocator happens to reuse or keep around one
// inference session's creation (±0.5 MB from one run to the next) is a small part of it — 2,048 nodes gave 1.9–3.2 KB
// per node over runs, 6,144 gave 2.98–3.09 (arena off, MALLOC_MMAP_THRESHOLD_=131072).
export const CHAIN_NODES = 6144;

export function chainModel(n, op = 'Relu') {
  const nodes = [];
  for (let i = 0; i < n; ++i) {
    const input = i === 0 ? 'x' : `t${i}`, output = i === n - 1 ? 'y' : `t${i + 1}`;
    nodes.push(node(op, [input], [output], {}, `n${i}`));
  }
  return model({ nodes, inputs: [valueInfo('x', 'float', [1])], outputs: [valueInfo('y', 'float', [1])], name: 'chain' });
}
