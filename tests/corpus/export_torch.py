#!/usr/bin/python3
"""Exports the PyTorch part of rooflens' test corpus and counts each model independently.

Debian's python3-torch (1.13) / python3-torchvision (0.14) export real architectures with random weights through
the real exporter, so the shape arithmetic (Shape -> Gather -> Div -> Cast -> Concat -> Reshape) is what users'
own exports contain. Every model is exported with a dynamic batch at opset 13 and 17.

Next to each model the script writes what an independent count says (the tests assert rooflens against it):
  * macs: multiply-accumulates of the matmul-class modules, counted by forward hooks on the very module that was
    exported, at the batch (and dims) the test analyses: Conv (out elements x in/groups x kernel), Linear (out
    elements x in_features), MultiheadAttention (in-projection, Q.K^T, attention.V, out-projection) and
    torchvision's ShiftedWindowAttention (same four products per window; the module calls F.linear itself).
  * params: trainable parameters as rooflens defines them, counted from the written file by count_onnx.py.
  * torch_params: sum of numel() over module.parameters(), for the record.

Usage: export_torch.py OUT_DIR [MODEL...] [--list FILE]   (writes OUT_DIR/*.onnx and the counts to OUT_DIR/FILE,
       default torch.json; all models unless some are named)
"""
import json
import math
import os
import sys
import time
import warnings

import torch
import torch.nn as nn
import torchvision
from torchvision.models import swin_transformer

import count_onnx

OPSETS = (13, 17)
BATCH = 2  # counts are made at batch 2: a batch other than rooflens' default 1 proves the dynamic batch resolves


def prod(xs):
    p = 1
    for x in xs:
        p *= int(x)
    return p


class MacCounter:
    """Forward hooks on the matmul-class modules; macs accumulate over every call."""

    def __init__(self, model):
        self.macs = 0
        self.handles = []
        for m in model.modules():
            hook = self.hook_for(m)
            if hook:
                self.handles.append(m.register_forward_hook(hook))

    def hook_for(self, m):
        if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
            return lambda mod, inp, out: self.add(out.numel() * (mod.in_channels // mod.groups) * prod(mod.kernel_size))
        if isinstance(m, nn.Linear):
            return lambda mod, inp, out: self.add(out.numel() * mod.in_features)
        if isinstance(m, nn.MultiheadAttention):
            return self.mha
        if isinstance(m, swin_transformer.ShiftedWindowAttention):
            return self.window_attention
        return None

    def add(self, n):
        self.macs += int(n)

    def mha(self, mod, inp, out):
        # Forward hooks see positional arguments only; torchvision's ViT passes query/key/value as keywords, so the
        # sizes are read from the output (self-attention: the keys are as long as the queries).
        q = out[0]
        k = inp[1] if len(inp) > 1 else q
        if mod.batch_first:
            b, lq, e = q.shape
            s = k.shape[1]
        else:
            lq, b, e = q.shape
            s = k.shape[0]
        # in-projection of q, k, v; Q.K^T and attention.V over all heads (head_dim x heads = e); out-projection
        self.add(b * lq * e * e + 2 * b * s * e * e + 2 * b * lq * s * e + b * lq * e * e)

    def window_attention(self, mod, inp, out):
        b, h, w, c = inp[0].shape
        wh, ww = mod.window_size
        ph, pw = math.ceil(h / wh) * wh, math.ceil(w / ww) * ww  # padded to whole windows
        tokens = b * ph * pw
        n = wh * ww  # tokens per window
        # qkv projection, Q.K^T and attention.V within each window, output projection
        self.add(tokens * c * 3 * c + 2 * tokens * n * c + tokens * c * c)


def text_model():
    """A small text encoder: token embedding, torch.nn.TransformerEncoder with a key-padding attention mask,
    per-token logits. Sequence-first layers (batch_first=False), as most code written against nn.Transformer."""

    class TextEncoder(nn.Module):
        def __init__(self, vocab=1000, d=256, heads=4, layers=4, ff=1024):
            super().__init__()
            self.embed = nn.Embedding(vocab, d)
            layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.1)
            self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.head = nn.Linear(d, vocab)
            # TransformerEncoder deep-copies one layer, so every layer would start equal and the exporter would
            # store one shared copy; give each parameter its own random values, as a trained model has.
            for p in self.parameters():
                nn.init.normal_(p, std=0.02)

        def forward(self, input_ids, attention_mask):
            x = self.embed(input_ids).transpose(0, 1)  # [seq, batch, d]
            x = self.encoder(x, src_key_padding_mask=attention_mask == 0)
            return self.head(x.transpose(0, 1))

    return TextEncoder()


def vision(name, module=torchvision.models, **kw):
    return lambda: getattr(module, name)(weights=None, **kw)


# name, constructor, example inputs (at BATCH), input names, dynamic axes, rooflens flags that fix the other dims
IMG = lambda size: (torch.randn(BATCH, 3, size, size),)
MODELS = [
    ("vit_b_16", vision("vit_b_16"), IMG(224), ["input"], {"input": {0: "batch"}}, []),
    ("swin_t", vision("swin_t"), IMG(224), ["input"], {"input": {0: "batch"}}, []),
    ("convnext_tiny", vision("convnext_tiny"), IMG(224), ["input"], {"input": {0: "batch"}}, []),
    ("efficientnet_b0", vision("efficientnet_b0"), IMG(224), ["input"], {"input": {0: "batch"}}, []),
    ("mobilenet_v3_large", vision("mobilenet_v3_large"), IMG(224), ["input"], {"input": {0: "batch"}}, []),
    ("regnet_y_400mf", vision("regnet_y_400mf"), IMG(224), ["input"], {"input": {0: "batch"}}, []),
    ("resnet50", vision("resnet50"), IMG(224), ["input"], {"input": {0: "batch"}}, []),
    # segmentation at any size: the upsampling's target size is computed from the input's shape at run time
    ("deeplabv3_mobilenet_v3_large", vision("deeplabv3_mobilenet_v3_large", torchvision.models.segmentation,
                                                           weights_backbone=None), IMG(224),
     ["input"], {"input": {0: "batch", 2: "height", 3: "width"}}, ["--dim", "height=224", "--dim", "width=224"]),
    ("text_encoder", text_model,
     (torch.randint(0, 1000, (BATCH, 16)), torch.ones(BATCH, 16, dtype=torch.int64)),
     ["input_ids", "attention_mask"], {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}},
     ["--dim", "seq=16"]),
]


def export_one(name, make, inputs, input_names, dynamic, flags, out_dir):
    torch.manual_seed(0)
    model = make().eval()
    counter = MacCounter(model)
    with torch.no_grad():
        outs = model(*inputs)
    for h in counter.handles:
        h.remove()
    n_out = len(outs) if isinstance(outs, (tuple, list, dict)) else 1
    output_names = [f"output{i}" for i in range(n_out)] if n_out > 1 else ["output"]
    dyn = dict(dynamic)
    for o in output_names:
        dyn[o] = {0: "batch"}
    entries = []
    for opset in OPSETS:
        file = f"{name}.op{opset}.onnx"
        t = time.time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, inputs, os.path.join(out_dir, file), opset_version=opset,
                              input_names=input_names, output_names=output_names, dynamic_axes=dyn)
        print(f"export_torch: {file} in {time.time() - t:.1f} s", file=sys.stderr)
        entries.append({
            "name": f"{name}.op{opset}",
            "file": file,
            "source": f"torchvision {torchvision.__version__} / torch {torch.__version__}, opset {opset}",
            "flags": ["--batch", str(BATCH)] + flags,
            "macs": counter.macs,
            "params": count_onnx.count_params(os.path.join(out_dir, file)),
            "torch_params": sum(p.numel() for p in model.parameters()),
        })
    return entries


def main():
    args = sys.argv[1:]
    out_dir, listing = args.pop(0), "torch.json"
    if "--list" in args:
        i = args.index("--list")
        listing = args[i + 1]
        del args[i:i + 2]
    only = set(args)
    unknown = only - {m[0] for m in MODELS}
    if unknown:
        raise SystemExit(f"export_torch: unknown models {sorted(unknown)}")
    torch.set_num_threads(1)  # two exporters run side by side on a 2-core machine
    entries = []
    for spec in MODELS:
        if only and spec[0] not in only:
            continue
        entries += export_one(*spec, out_dir)
    with open(os.path.join(out_dir, listing), "w") as f:
        json.dump(entries, f, indent=1)


if __name__ == "__main__":
    main()
