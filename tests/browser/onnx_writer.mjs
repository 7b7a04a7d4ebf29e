// A tiny ONNX (protobuf) writer for hostile test models: just the fields a graph of single-input ops needs.
// Field numbers from onnx.proto: ModelProto{ir_version 1, producer_name 2, graph 7, opset_import 8},
// GraphProto{node 1, name 2, input 11, output 12}, NodeProto{input 1, output 2, name 3, op_type 4, domain 7},
// ValueInfoProto{name 1, type 2}, TypeProto{tensor_type 1}, TypeProto.Tensor{elem_type 1, shape 2},
// TensorShapeProto{dim 1}, Dimension{dim_value 1}, OperatorSetIdProto{domain 1, version 2}.
function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return Buffer.from(out);
}
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, n) => Buffer.concat([key(field, 0), varint(n)]);
const bytes = (field, buf) => Buffer.concat([key(field, 2), varint(buf.length), buf]);
const str = (field, s) => bytes(field, Buffer.from(s, 'utf8'));
const msg = (field, ...parts) => bytes(field, Buffer.concat(parts));

const FLOAT = 1;
function valueInfo(field, name, dims) {
  const shape = dims.map((d) => msg(1, int(1, d)));
  return msg(field, str(1, name), msg(2, msg(1, int(1, FLOAT), msg(2, ...shape))));
}

// nodes: [{name, op, domain, input, output}], one input and one output each; io: {input, output, dims}.
export function onnxModel({producer = 'rooflens-tests', graphName = 'g', nodes, input, output, dims, opsets}) {
  const nodeMsgs = nodes.map((n) => msg(1, str(1, n.input), str(2, n.output), str(3, n.name), str(4, n.op),
    ...(n.domain ? [str(7, n.domain)] : [])));
  const graph = msg(7, ...nodeMsgs, str(2, graphName), valueInfo(11, input, dims), valueInfo(12, output, dims));
  const opsetMsgs = Object.entries(opsets || {'': 17}).map(([domain, version]) => msg(8, ...(domain ? [str(1, domain)] : []), int(2, version)));
  return Buffer.concat([int(1, 8), str(2, producer), graph, ...opsetMsgs]);
}

export const HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(2)>'];
