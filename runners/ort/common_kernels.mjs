// A small model that runs the kernels most models share, for the runtime's baseline (runtime_cost.mjs). Why not one
// trivial node: a kernel's code is resident only once something ran it, so a model whose kernels the baseline never ran
// adds the runtime library's pages to its own inference session (text_encoder: 1.5 MiB of file pages over its inference
// session's creation and first run, measured from /proc/self/status RssFile), a cost of the runtime that no prediction
// of the model's tensors holds. Run once in the baseline, the convolutions (NCHWc, depthwise, transposed, folded batch
// norm), pooling, resizing, a classifier head, a transformer block (layer norm, attention, GELU — the runtime fuses
// them as it fuses real models) and a text model's embedding and mask put those pages on both sides of the comparison:
// in the baseline and in the runner's measured increase. Tiny (23 KB of weights, 49 nodes), so what its inference
// session leaves behind in the C allocator stays small.
import { model, node, tensor, valueInfo } from './onnx_write.mjs';

// Bump when the model changes: cached baselines measured with another are not reused (runtime_cost_cache.mjs).
export const COMMON_KERNELS_VERSION = 1;
const C = 16, H = 8, T = 4, V = 32;
export function commonKernelsModel() {
  const init = [];
  const w = (name, dims, type = 'float', values) => { init.push(tensor(name, type, dims, values)); return name; };
  const n = [];
  const op = (type, inputs, output, attrs) => { n.push(node(type, inputs, [output], attrs)); return output; };
  // Convolutions as vision models have them: 3x3 with a folded batch norm, depthwise, pointwise, a residual sum,
  // pooling, upsampling, a transposed convolution, and a classifier head.
  let t = op('Conv', ['x', w('w3', [C, C, 3, 3]), w('b3', [C])], 'c3', { pads: [1, 1, 1, 1] });
  t = op('BatchNormalization', [t, w('bn_s', [C], 'float', [1]), w('bn_b', [C]), w('bn_m', [C]), w('bn_v', [C], 'float', [1])], 'bn');
  t = op('Relu', [t], 'relu');
  t = op('Conv', [t, w('wd', [C, 1, 3, 3])], 'dw', { group: C, pads: [1, 1, 1, 1] });
  t = op('Clip', [t, w('lo', [], 'float', [0]), w('hi', [], 'float', [6])], 'clip');
  t = op('Conv', [t, w('wp', [C, C, 1, 1])], 'pw');
  const hs = op('HardSwish', [t], 'hswish');
  const gate = op('HardSigmoid', [hs], 'hsig');
  t = op('Mul', [hs, gate], 'se');
  t = op('Mul', [t, op('Sigmoid', [t], 'sig')], 'silu');
  const res = op('Add', [t, 'x'], 'res');
  const pooled = op('MaxPool', [res], 'pool', { kernel_shape: [2, 2], strides: [2, 2] });
  const up = op('Resize', [pooled, '', w('scales', [4], 'float', [1, 1, 2, 2])], 'up', { mode: 'linear' });
  const tr = op('ConvTranspose', [pooled, w('wt', [C, C, 2, 2])], 'tconv', { strides: [2, 2] });
  t = op('Concat', [up, tr], 'cat', { axis: 1 });
  t = op('Conv', [t, w('wc', [C, 2 * C, 1, 1])], 'merge');
  t = op('GlobalAveragePool', [t], 'gap');
  t = op('Flatten', [t], 'flat');
  op('Gemm', [t, w('wg', [8, C]), w('bg', [8])], 'classes', { transB: 1 });
  // A transformer block as text and vision transformers have it: layer norm, attention, GELU.
  t = op('Reshape', [res, w('tokens', [3], 'int64', [1, C, H * H])], 'seq');
  t = op('Transpose', [t], 'tok', { perm: [0, 2, 1] });
  const ln = op('LayerNormalization', [t, w('ln_s', [C], 'float', [1]), w('ln_b', [C])], 'ln', { axis: -1 });
  const proj = (name) => op('Add', [op('MatMul', [ln, w(`w${name}`, [C, C])], `${name}_mm`), w(`b${name}`, [C])], name);
  const q = proj('q'), k = proj('k'), v = proj('v');
  t = op('MatMul', [q, op('Transpose', [k], 'kt', { perm: [0, 2, 1] })], 'qk');
  t = op('Softmax', [op('Div', [t, w('scale', [], 'float', [4])], 'scaled')], 'attn', { axis: -1 });
  const ctx = op('MatMul', [t, v], 'ctx');
  t = op('Erf', [op('Div', [ctx, w('sqrt2', [], 'float', [Math.SQRT2])], 'gd')], 'erf');
  t = op('Mul', [op('Mul', [ctx, op('Add', [t, w('one', [], 'float', [1])], 'ep1')], 'gm'), w('half', [], 'float', [0.5])], 'gelu');
  op('ReduceMean', [t], 'hidden', { axes: [1] });
  // Token ids as a text model takes them: an embedding, a padding mask, shapes computed at run time.
  const emb = op('Gather', [w('table', [V, C]), 'ids'], 'emb');
  const pad = op('Equal', ['ids', w('zero', [], 'int64', [0])], 'pad');
  const mask = op('Expand', [op('Unsqueeze', [pad, w('ax2', [1], 'int64', [2])], 'pad3'), w('eshape', [3], 'int64', [1, T, C])], 'mask');
  t = op('Where', [mask, op('ConstantOfShape', [op('Shape', [emb], 'eshp')], 'zeros', { value: { t: tensor('v', 'float', [1], [0]) } }), emb], 'masked');
  t = op('Slice', [t, w('s0', [1], 'int64', [0]), w('s1', [1], 'int64', [T - 1]), w('s2', [1], 'int64', [1])], 'sliced');
  op('Cast', [t], 'text', { to: 7 });
  return model({
    nodes: n, initializers: init,
    inputs: [valueInfo('x', 'float', [1, C, H, H]), valueInfo('ids', 'int64', [1, T])],
    outputs: [valueInfo('classes', 'float', [1, 8]), valueInfo('hidden', 'float', [1, 1, C]), valueInfo('text', 'int64', [1, T - 1, C])],
  });
}

// Inputs for one run of it, made once.
export function commonKernelsFeeds(ort) {
  const x = new Float32Array(C * H * H).map((_, i) => ((i % 5) - 2) / 4);
  return { x: new ort.Tensor('float32', x, [1, C, H, H]),
           ids: new ort.Tensor('int64', BigInt64Array.from({ length: T }, (_, i) => BigInt(i % 2 ? 0 : i + 1)), [1, T]) };
}
