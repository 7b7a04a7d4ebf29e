#pragma once
// The files trtexec writes (TensorRT 8.x-10.x) and the metadata TREx derives from its logs, parsed into plain
// structs. Times are milliseconds as the files write them.
//
//   --exportLayerInfo  {"Layers":[{Name, LayerType, Inputs/Outputs:[{Name, Location?, Dimensions, Format/Datatype}],
//                       ParameterType?, Origin?, TacticName?, TacticValue, Weights?{Type,Count}, Bias?, Metadata?,
//                       Kernel?, OutMaps?, Groups?, ...}], "Bindings":[names]}  (Bindings absent before 8.4; a
//                       layer list of plain strings when the engine was built without detailed verbosity)
//   --exportProfile    [{"count":N}, {name, timeMs, averageMs, medianMs?, percentage}, ...]
//   --exportTimes      [{startEnqMs, endEnqMs, startH2dMs, endH2dMs, startComputeMs, endComputeMs, startD2hMs,
//                        endD2hMs, h2dMs, computeMs, d2hMs, latencyMs}, ...]
//   TREx metadata      {"performance_summary":{Latency:[7 or 5 stats], Throughput, ...}, "inference_options",
//                       "device_information":{"Selected Device",...}} | {"model_options","build_options"} |
//                      [{"Name": "<device>", "ComputeCapability": [8,0], ...}]
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "importers/importer.h"

namespace rooflens::importers::trt {

enum class FileKind { none, layer_info, profile, times, profile_metadata, build_metadata, device_metadata };
// Which trtexec/TREx file `f` is, by its content (no parse); none when it is not one.
FileKind sniff(const InputFile& f);

struct Tensor {
  std::string name;
  std::vector<int64_t> dims;
  std::string format;       // "Four wide channel vectorized row major Int8 format"
  std::string dtype;        // ONNX name read from the format ("int8"), "" when unknown
  std::string location;     // "Device" | "Host" | "" (older TensorRT)
};

struct LayerInfo {
  std::string name, layer_type, parameter_type, origin, tactic, metadata;
  std::vector<Tensor> inputs, outputs;
  std::optional<uint64_t> weights_count, bias_count;
  std::string weights_type, bias_type;
  std::optional<int64_t> out_maps, groups;
  std::vector<int64_t> kernel;
};

struct LayerInfoFile {
  std::vector<LayerInfo> layers;  // in the engine's order
  std::vector<std::string> bindings;
  int other_profiles = 0;         // layers of shape profiles other than the first (left out, as TREx does)
};

struct ProfileRow {
  std::string name;
  double time_ms = 0, average_ms = 0;
  std::optional<double> median_ms;
};

struct ProfileFile {
  int64_t count = 0;              // profiled iterations
  std::vector<ProfileRow> rows;   // execution order
};

struct TimesFile {
  std::vector<double> latency_ms, h2d_ms, compute_ms, d2h_ms, enqueue_ms;
  double span_ms = 0;             // first start to last end
};

struct Metadata {                 // what the TREx metadata files say (all optional)
  std::optional<std::vector<double>> latency;  // [min, max, mean, median, p90, p95, p99] or [min, max, mean, median, p99]
  std::optional<double> throughput;            // inferences per second
  std::string device, model_path, precision;
  int64_t batch = 0;
  std::map<std::string, std::string> options;  // build and inference options as written
};

LayerInfoFile parse_layer_info(const InputFile& f);
ProfileFile parse_profile(const InputFile& f);
TimesFile parse_times(const InputFile& f);
void parse_metadata(const InputFile& f, FileKind kind, Metadata& into);

// The user's ONNX node names TensorRT >= 8.6 records per layer ("[ONNX Layer: a]\x1e[ONNX Layer: b]").
std::vector<std::string> onnx_layers_of(const std::string& metadata);

}  // namespace rooflens::importers::trt
