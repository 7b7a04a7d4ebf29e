// ONNX models as bytes, for the runner's own measuring inference sessions (memory.mjs): the protobuf wire format
// written by hand — the handful of ONNX message types these small graphs need.
function varint(n) {
  const out = [];
  let v = BigInt.asUintN(64, BigInt(n));
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}
const tag = (field, wire) => varint(field * 8 + wire);
const int = (field, n) => Buffer.concat([tag(field, 0), varint(n)]);
const bytes = (field, b) => {
  const buf = typeof b === 'string' ? Buffer.from(b) : b;
  return Buffer.concat([tag(field, 2), varint(buf.length), buf]);
};
const f32 = (field, x) => { const b = Buffer.alloc(4); b.writeFloatLE(x); return Buffer.concat([tag(field, 5), b]); };

const DT = { float: 1, int64: 7 };

// TensorProto{dims, data_type, name, raw_data}
export function tensor(name, type, dims, values) {
  const n = dims.reduce((a, b) => a * b, 1);
  let raw;
  if (type === 'int64') {
    raw = Buffer.alloc(8 * n);
    for (let i = 0; i < n; ++i) raw.writeBigInt64LE(BigInt(values ? values[i % values.length] : 0), 8 * i);
  } else {
    raw = Buffer.alloc(4 * n);
    // Deterministic, small, non-zero values: some kernels take zeros apart.
    for (let i = 0; i < n; ++i) raw.writeFloatLE(values ? values[i % values.length] : ((i % 7) - 3) / 16, 4 * i);
  }
  return Buffer.concat([...dims.map((d) => int(1, d)), int(2, DT[type]), bytes(8, name), bytes(9, raw)]);
}

// AttributeProto{name, f | i | s | t | ints, type}: an integer is INT, a string STRING, an array INTS, {f} FLOAT,
// {t} TENSOR.
function attribute(name, value) {
  const head = bytes(1, name);
  if (typeof value === 'string') return Buffer.concat([head, bytes(4, value), int(20, 3)]);
  if (Array.isArray(value)) return Buffer.concat([head, ...value.map((v) => int(8, v)), int(20, 7)]);
  if (value.t) return Buffer.concat([head, bytes(5, value.t), int(20, 4)]);
  if (value.f !== undefined) return Buffer.concat([head, f32(2, value.f), int(20, 1)]);
  return Buffer.concat([head, int(3, value), int(20, 2)]);
}

// NodeProto{input, output, name, op_type, attribute} (the default domain)
export function node(op, inputs, outputs, attrs = {}, name = outputs[0]) {
  return Buffer.concat([...inputs.map((i) => bytes(1, i)), ...outputs.map((o) => bytes(2, o)), bytes(3, name),
                        bytes(4, op), ...Object.entries(attrs).map(([k, v]) => bytes(5, attribute(k, v)))]);
}

// ValueInfoProto{name, type: TypeProto{tensor_type: {elem_type, shape}}}
export function valueInfo(name, type, dims) {
  const shape = Buffer.concat(dims.map((d) => bytes(1, int(1, d))));
  return Buffer.concat([bytes(1, name), bytes(2, bytes(1, Buffer.concat([int(1, DT[type]), bytes(2, shape)])))]);
}

// ModelProto{ir_version 8, graph: GraphProto{node, name, initializer, input, output}, opset_import{"", 17}}
export function model({ nodes, initializers = [], inputs, outputs, name = 'rooflens' }) {
  const graph = Buffer.concat([...nodes.map((n) => bytes(1, n)), bytes(2, name), ...initializers.map((t) => bytes(5, t)),
                               ...inputs.map((v) => bytes(11, v)), ...outputs.map((v) => bytes(12, v))]);
  return Buffer.concat([int(1, 8), bytes(7, graph), bytes(8, Buffer.concat([bytes(1, ''), int(2, 17)]))]);
}
