#!/usr/bin/env python3
"""Writes one single-node model per libonnx schema version x input ranks x attribute value into OUT_DIR, for
`make libonnx-sweep` to run through rooflens' static path (the fuzz program's `analyze` target) under the sanitizers.

Why: libonnx's shape-inference functions trust the spec's preconditions (ranks, attribute ranges) without checking
them, and a node that breaks one crashes the process inside libonnx. The fuzzer finds these one by one by luck; this
sweep visits every schema on purpose. The rules it led to are in src/model/libonnx_preconditions.cpp.

Per schema: its minimum input count (every optional input left out), each input's rank drawn from 0..5 (40 draws,
seeded) and, in a second pass, inputs of ranks 0..4, symbolic and zero-sized; default attributes, then each integer
attribute set out of range (negative, too large, too short or too long a list). Uses Debian's python3-onnx.
Usage: python3 make_models.py OUT_DIR
"""
import os
import random
import sys

import onnx
from onnx import TensorProto, defs, helper

AT = defs.OpSchema.AttrType


def attribute_choices(schema):
    choices = [{}]
    for a in schema.attributes.values():
        if a.type == AT.INT:
            choices += [{a.name: v} for v in (-7, 0, 7)]
        elif a.type == AT.INTS:
            choices += [{a.name: v} for v in ([-7], [7], [0, 7], [1] * 8)]
    return choices


def input_ranks(count, rng):
    same = [tuple([r] * count) for r in range(5)]
    drawn = {tuple(rng.randint(0, 5) for _ in range(count)) for _ in range(40)}
    return same + sorted(drawn)


def dims(rank, style):
    if style == "symbolic":
        return [f"d{i}" for i in range(rank)]
    if style == "zero":
        return [0] * rank
    return [2 + i for i in range(rank)]


def model(schema, ranks, style, attrs):
    inputs = [helper.make_tensor_value_info(f"i{k}", TensorProto.FLOAT, dims(r, style)) for k, r in enumerate(ranks)]
    outputs = [f"o{k}" for k in range(max(schema.min_output, 1))]
    node = helper.make_node(schema.name, [i.name for i in inputs], outputs, domain=schema.domain, **attrs)
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info(o, 0, None) for o in outputs])
    opsets = [helper.make_opsetid(schema.domain, schema.since_version)]
    if schema.domain:
        opsets.append(helper.make_opsetid("", 17))
    return helper.make_model(graph, opset_imports=opsets)


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(1)
    written = 0
    for schema in defs.get_all_schemas_with_history():
        if schema.deprecated:
            continue
        count = schema.min_input if schema.min_input > 0 else min(schema.max_input, 2)
        for attrs in attribute_choices(schema):
            for ranks in input_ranks(count, rng):
                for style in ("fixed",) if attrs else ("fixed", "symbolic", "zero"):
                    try:
                        m = model(schema, ranks, style, attrs)
                    except (ValueError, TypeError):
                        continue
                    with open(os.path.join(out, f"{written:06d}.onnx"), "wb") as f:
                        f.write(m.SerializeToString())
                    written += 1
    print(f"{written} models in {out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
