#!/usr/bin/python3
"""Writes the fp16 variant of an fp32 ONNX model the way fp16 export tools do (test data for rooflens' corpus).

What "convert to float16, keep I/O types" converters do to a model, done here with python3-onnx and numpy:
  * every float32 initializer and Constant-node tensor becomes float16 (values clipped to float16's range);
  * every Cast to float32 casts to float16 instead, ConstantOfShape fills with float16;
  * value_info of float32 tensors says float16;
  * the graph's float32 inputs and outputs keep their type: a Cast to float16 follows each input and a Cast back
    to float32 precedes each output, so callers feed and read float32 as before.
Inputs the ONNX spec keeps float32 whatever the data type (Resize's scales, Upsample's scales) stay float32.
Runtimes without float16 kernels for some ops (ONNX Runtime's CPU provider for most of them) then insert their own
casts around those kernels: exactly the graphs rooflens must map.

Usage: to_fp16.py IN.onnx OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16
FP16_MAX = float(np.finfo(np.float16).max)
# (op, input slot) pairs whose tensor must stay float32 in every opset.
KEEP_FLOAT32 = {("Resize", 2), ("Upsample", 1)}


def to_f16(t):
    a = numpy_helper.to_array(t).astype(np.float32)
    a = np.clip(a, -FP16_MAX, FP16_MAX).astype(np.float16)
    out = numpy_helper.from_array(a, t.name)
    return out


def keep_float32_names(graph):
    names = set()
    for n in graph.node:
        for i, name in enumerate(n.input):
            if (n.op_type, i) in KEEP_FLOAT32 and name:
                names.add(name)
    return names


def convert_graph(graph, keep):
    for i, t in enumerate(graph.initializer):
        if t.data_type == F32 and t.name not in keep:
            graph.initializer[i].CopyFrom(to_f16(t))
    for n in graph.node:
        for a in n.attribute:
            if n.op_type == "Constant" and a.name == "value" and a.t.data_type == F32 and n.output[0] not in keep:
                a.t.CopyFrom(to_f16(a.t))
            elif n.op_type == "ConstantOfShape" and a.name == "value" and a.t.data_type == F32:
                a.t.CopyFrom(to_f16(a.t))
            elif n.op_type == "Cast" and a.name == "to" and a.i == F32:
                a.i = F16
            elif a.type == onnx.AttributeProto.GRAPH:
                convert_graph(a.g, keep | keep_float32_names(a.g))
    for vi in graph.value_info:
        if vi.type.tensor_type.elem_type == F32 and vi.name not in keep:
            vi.type.tensor_type.elem_type = F16


def keep_io_float32(graph):
    """Casts after float32 inputs and before float32 outputs, so the model's interface stays float32."""
    head, tail = [], []
    for inp in graph.input:
        if inp.type.tensor_type.elem_type != F32:
            continue
        inner = inp.name + "_fp16"
        for n in graph.node:
            for i, name in enumerate(n.input):
                if name == inp.name:
                    n.input[i] = inner
        head.append(helper.make_node("Cast", [inp.name], [inner], to=F16, name=inp.name + "_to_fp16"))
    for out in graph.output:
        if out.type.tensor_type.elem_type != F32:
            continue
        inner = out.name + "_fp16"
        for n in graph.node:
            for i, name in enumerate(n.output):
                if name == out.name:
                    n.output[i] = inner
            for i, name in enumerate(n.input):
                if name == out.name:
                    n.input[i] = inner
        tail.append(helper.make_node("Cast", [inner], [out.name], to=F32, name=out.name + "_to_fp32"))
    nodes = head + list(graph.node) + tail
    del graph.node[:]
    graph.node.extend(nodes)


def convert(src, dst):
    model = onnx.load(src)
    convert_graph(model.graph, keep_float32_names(model.graph))
    keep_io_float32(model.graph)  # after: its casts back to float32 must stay so
    del model.graph.value_info[:]  # re-inferred below with the new types
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    onnx.save(model, dst)


if __name__ == "__main__":
    convert(sys.argv[1], sys.argv[2])
