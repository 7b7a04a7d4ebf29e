#pragma once
// The events of a Kineto trace the importer uses, read and checked (every field named in an error): GPU activities,
// the host calls that launched them (runtime/driver API), the cpu_ops around those calls, ProfilerStep annotations,
// the ac2g flow arrows and deviceProperties. Everything else in traceEvents (python frames, cuda_sync, metadata) is
// skipped unread.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "importers/support.h"

namespace rooflens::importers::kineto {

enum class GpuKind { kernel, memcpy, memset };

struct GpuEvent {
  GpuKind kind = GpuKind::kernel;
  std::string name;
  double ts_us = 0, dur_us = 0;
  int64_t device = 0;
  std::optional<uint64_t> bytes;          // memcpy / memset
  std::optional<int64_t> correlation;     // args.correlation (absent in some exports: the flow arrow links it)
  std::string position;                   // pid/tid/ts: where a flow arrow may end on it
};

struct HostEvent {                        // a cpu_op or a runtime/driver call, on one host thread
  std::string name, thread;
  double ts_us = 0, dur_us = 0;
  std::optional<int64_t> external_id;     // args["External id"]
  std::optional<int64_t> correlation;     // launches: args.correlation
  std::string position;
};

struct Step {                             // a ProfilerStep#N annotation: one iteration on the host
  std::string name;
  double ts_us = 0, dur_us = 0;
};

struct Trace {
  std::vector<GpuEvent> gpu;
  std::vector<HostEvent> launches, ops;
  std::vector<Step> steps;                             // sorted by start
  std::map<std::string, std::string> flow_id_ending_at;   // ac2g "f": position -> flow id
  std::map<std::string, std::string> flow_start_of_id;    // ac2g "s": flow id -> position
  std::map<int64_t, std::string> device_names;             // deviceProperties: id -> name
  std::string schema;                                      // schemaVersion, when written
};

// The trace in `doc` (an object with traceEvents, or a bare event array as older exports write).
Trace read_trace(const json& doc, const Where& w);

}  // namespace rooflens::importers::kineto
