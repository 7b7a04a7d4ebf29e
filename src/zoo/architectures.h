#pragma once
// One builder per published architecture (one .cpp each). Options arrive validated by the registry
// (image size / sequence length within the model's limits, defaults filled in).
#include "zoo/builder.h"
#include "zoo/decoder.h"

namespace rooflens::zoo {

BuiltModel build_resnet18(const ZooOptions& o);     // resnet.cpp
BuiltModel build_resnet50(const ZooOptions& o);     // resnet.cpp
BuiltModel build_mobilenet_v2(const ZooOptions& o); // mobilenet_v2.cpp
BuiltModel build_vgg16(const ZooOptions& o);        // vgg16.cpp
BuiltModel build_squeezenet1_0(const ZooOptions& o);// squeezenet.cpp
BuiltModel build_vit_b_16(const ZooOptions& o);     // vit.cpp
BuiltModel build_bert_base(const ZooOptions& o);    // bert.cpp
BuiltModel build_gpt2(const ZooOptions& o);         // gpt2.cpp
BuiltModel build_llama(const ZooOptions& o);        // llama.cpp
DecoderSize gpt2_size(const DecoderConfig& c);      // gpt2.cpp: the published size with overrides, checked
DecoderSize llama_size(const DecoderConfig& c);     // llama.cpp

}  // namespace rooflens::zoo
