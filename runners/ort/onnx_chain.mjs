// A chain of one-input nodes over a one-float tensor, as ONNX bytes (opset 17): the smallest graph with n nodes, for
// measuring what each node of a session costs the runtime (memory.mjs). The protobuf wire format written by hand:
// five message types and three field kinds are all it takes.
function varint(n) {
  const bytes = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    bytes.push(b);
  } while (n);
  return Buffer.from(bytes);
}
const tag = (field, wire) => varint(field * 8 + wire);
const int = (field, n) => Buffer.concat([tag(field, 0), varint(n)]);
const bytes = (field, b) => {
  const buf = typeof b === 'string' ? Buffer.from(b) : b;
  return Buffer.concat([tag(field, 2), varint(buf.length), buf]);
};
// ValueInfoProto{name, type: TypeProto{tensor_type: {elem_type FLOAT, shape: [1]}}}
const floatOfOne = (name) =>
  Buffer.concat([bytes(1, name), bytes(2, bytes(1, Buffer.concat([int(1, 1), bytes(2, bytes(1, int(1, 1)))])))]);

export function chainModel(n, op = 'Relu') {
  const nodes = [];
  for (let i = 0; i < n; ++i) {
    const input = i === 0 ? 'x' : `t${i}`, output = i === n - 1 ? 'y' : `t${i + 1}`;
    // NodeProto{input, output, name, op_type}
    nodes.push(bytes(1, Buffer.concat([bytes(1, input), bytes(2, output), bytes(3, `n${i}`), bytes(4, op)])));
  }
  // GraphProto{node..., name, input, output}
  const graph = Buffer.concat([...nodes, bytes(2, 'chain'), bytes(11, floatOfOne('x')), bytes(12, floatOfOne('y'))]);
  // ModelProto{ir_version 8, graph, opset_import{domain "", version 17}}
  return Buffer.concat([int(1, 8), bytes(7, graph), bytes(8, Buffer.concat([bytes(1, ''), int(2, 17)]))]);
}
