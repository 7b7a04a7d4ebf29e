#!/usr/bin/env python3
"""Exports a torchvision model to ONNX with Debian's python3-torch (test data only; rooflens never needs torch).

    python3 tests/data_gen/export_torchvision.py resnet50 OUT.onnx [--image 224]

Random weights (no download), dynamic batch, opset 13: what a user's own PyTorch export looks like, with the
exporter's node and tensor names ('/layer1/layer1.0/conv1/Conv', 'onnx::Conv_123')."""
import argparse

import torch
import torchvision


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--image", type=int, default=224)
    a = ap.parse_args()
    torch.manual_seed(0)
    net = getattr(torchvision.models, a.model)(weights=None).eval()
    x = torch.randn(1, 3, a.image, a.image)
    torch.onnx.export(net, x, a.out, opset_version=13, input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})


if __name__ == "__main__":
    main()
