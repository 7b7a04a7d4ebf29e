#!/usr/bin/python3
"""Independent parameter count of an ONNX file, with Debian's python3-onnx (not rooflens' code).

The definition rooflens documents (docs/cost-model.md, "Parameters"): a parameter is an element of a tensor
stored in the file — an initializer, or the value of a Constant node holding more than one element (a single one
is an operand such as Clip's 6), at any depth of subgraphs — that some node reads directly at a parameter slot; each tensor counts once however many nodes read it. Slots: every
floating-point input by default; BatchNormalization only scale and bias (running mean and variance are
buffers); LSTM W, R, B and peephole P; GRU and RNN W, R, B (whatever their type); the quantized ops their integer
weights (ConvInteger, MatMulInteger 1; QLinearConv 3 and 8; QLinearMatMul 3; DequantizeLinear 0) and nothing of
QuantizeLinear and DynamicQuantizeLinear.

Usage: count_onnx.py MODEL.onnx...   prints one JSON object {file: params}
"""
import json
import sys

import onnx
from onnx import TensorProto

FLOAT_TYPES = {TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.BFLOAT16}
# Quantized ops name their integer weights (and QLinearConv its int32 bias); scales and zero points are not
# parameters; in QDQ models the int8 weight is DequantizeLinear's input.
EXPLICIT_SLOTS = {"BatchNormalization": {1, 2}, "LSTM": {1, 2, 3, 7}, "GRU": {1, 2, 3}, "RNN": {1, 2, 3},
                  "ConvInteger": {1}, "MatMulInteger": {1}, "QLinearConv": {3, 8}, "QLinearMatMul": {3},
                  "DequantizeLinear": {0}, "QuantizeLinear": set(), "DynamicQuantizeLinear": set()}
UNSUPPORTED = set()


def count_params(path):
    model = onnx.load(path, load_external_data=False)
    # The stored tensors already counted, by id(); the dict keeps them alive so no id is reused by another object.
    counted = {}
    total = 0

    def elements(t):
        n = 1
        for d in t.dims:
            n *= d
        return n

    def walk(graph, outer):
        nonlocal total
        scope = dict(outer)  # name -> TensorProto held in the file
        for t in graph.initializer:
            scope[t.name] = t
        for node in graph.node:  # Constant outputs become visible in file order (exports are sorted)
            if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
                for a in node.attribute:
                    if a.name == "value" and a.type == onnx.AttributeProto.TENSOR and elements(a.t) > 1:
                        scope[node.output[0]] = a.t
        for node in graph.node:
            if node.op_type in UNSUPPORTED:
                raise SystemExit(f"count_onnx: {path}: {node.op_type} has explicit parameter slots this count omits")
            slots = EXPLICIT_SLOTS.get(node.op_type)
            for i, name in enumerate(node.input):
                t = scope.get(name)
                if t is None:
                    continue
                if (i in slots) if slots is not None else (t.data_type in FLOAT_TYPES):
                    if id(t) not in counted:
                        counted[id(t)] = t
                        total += elements(t)
            for a in node.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g, scope)
                for g in a.graphs:
                    walk(g, scope)

    walk(model.graph, {})
    return total


if __name__ == "__main__":
    print(json.dumps({f: count_params(f) for f in sys.argv[1:]}, indent=1))
