#pragma once
// The neutral measurement record: what one run of any source yields — a live backend running a configuration
// here, or an importer reading a profile another tool wrote. assemble_run (assembly/) turns it into a ProfileRun
// (layers mapped to the user's nodes, costs, roofline, coverage); nothing downstream sees a runtime's own format.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph_view.h"
#include "core/layer_kind.h"
#include "core/report_run.h"

namespace rooflens {

// One kernel (a node of the executed graph) as the source timed it.
struct KernelRecord {
  std::string name;                      // the runtime's name for it (an executed-graph node name when there is one)
  std::string op;                        // the runtime's op or layer type ("FusedConv", "Convolution", ...)
  std::string device;                    // where it ran: execution provider or device ("CPUExecutionProvider", "cpu")
  // The source's classification in neutral terms (layer kind, device class) and its tensors' element types as
  // ONNX names ("float", "float16", "uint8"): what lint rules and views read instead of the runtime's names.
  LayerKind kind = LayerKind::compute;
  Device device_class = Device::unknown;
  std::vector<std::string> input_dtypes, output_dtypes;
  std::vector<double> per_iteration_ms;  // its time in each measured profiled iteration (summed over its events)
  double start_ms = 0;                   // offset in the first measured iteration (timeline)
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;  // as the runtime reported them
  // The user's ONNX nodes this kernel computes, when the source says so (an explicit list wins over the tensor
  // walk of the mapper). Empty: the mapper works it out from the executed graph and the name.
  std::vector<std::string> onnx_nodes;
  // The control-flow kernel (If, Loop, Scan) whose subgraph this kernel ran in; empty at the top level. The
  // source times each kernel on its own: an enclosing kernel's time excludes the kernels inside it.
  std::string enclosing;
  // Cost the source measured or derived itself, used when the user's model is not at hand to count it.
  std::optional<uint64_t> flops, macs, bytes;
  std::vector<LevelBytes> level_bytes;   // bytes per memory level, when the source's counters give them (imports of
                                         // GPU profiles): the layer gets a roofline point per level
  // What sources that read another tool's profile know about a kernel (imports; live backends leave them empty):
  std::optional<double> median_ms, mean_ms;  // the source's own summary over its iterations, when it gives no
                                             // per-iteration times (median_ms wins over per_iteration_ms)
  std::string precision;                 // the element type it computed in, as an ONNX name ("int8", "float16")
  std::string implementation;            // the kernel the runtime chose (TensorRT tactic, OpenVINO primitive)
  std::string inserted_for;              // a kernel the runtime added itself: why ("reformat", "quantize", ...)
  bool fallback = false;                 // ran on another device than the inference session's accelerator (CPU
                                         // fallback)
  std::optional<uint64_t> weight_bytes;  // its weights and biases as the runtime stores them
  // Memory (live backends): how its output buffer relates to its inputs', as the runtime declares the kernel, and
  // what the runtime's allocator said after it (the largest over the measured iterations; absent: not reported).
  BufferReuse reuse = BufferReuse::none;
  // An input (position among the node's inputs) whose buffer output 0 may take by a rule the runtime decides on
  // shapes the executed graph does not carry (-1: none): the arena is simulated with and without it.
  int maybe_inplace_input = -1;
  std::vector<int> packed_inputs;        // constant inputs (positions among the node's present inputs) the runtime
                                         // packs into a layout of its own at inference session creation (a copy it
                                         // keeps)
  std::optional<uint64_t> allocator_in_use_bytes, allocator_held_bytes;
};

// One part of every end-to-end iteration, timed by the source ("h2d", "compute", "d2h", "enqueue"), in ms.
struct PhaseSamples {
  std::string name;
  std::vector<double> samples_ms;
};

struct Measurement {
  double load_ms = 0;                         // inference session creation / model import
  std::vector<double> latencies_ms;           // end-to-end, profiling off, measured iterations
  double wall_s = 0;                          // the measured loop, first start to last end
  std::string stop_reason;                    // min_reached | ci_reached | max_iterations | max_duration
  uint64_t peak_rss_bytes = 0;                // the runtime process's peak memory during this configuration
  std::optional<int64_t> page_faults;         // the runtime process's minor page faults over the measured
                                              // iterations (absent: not counted)
  // The runner's memory by phase (live backends that read their own /proc; absent otherwise).
  std::optional<MemoryMeasured> memory;
  // The runtime's calibration constants, measured in a process of their own (never the measured runner's), kept by the
  // backend per runtime, machine and options: what a first inference session of the runtime costs a process whatever
  // the model (its baseline), and what one node of an inference session costs it (a chain of trivial nodes: a lower
  // bound per node). 0: not measured.
  uint64_t runtime_baseline_bytes = 0;
  // Of the baseline, what its first run added: pages a process holds only once those kernels ran (their code, which
  // the runtime picks by ISA, so it differs by CPU class).
  uint64_t runtime_baseline_run_bytes = 0;
  uint64_t runtime_node_bytes = 0;
  std::string runtime_cost_measured_at;       // when they were measured (ISO 8601)
  // The large blocks the runtime allocates from the C library while it creates the inference session, in order, and
  // that C allocator's rules with the runner's setting (empty / absent: not known). A backend states them from the
  // model and the graph it executed (core/memory.h HeapEvent); the memory room replays them.
  std::vector<HeapEvent> inference_session_creation;
  std::optional<CAllocatorRules> c_allocator;
  int64_t output_copies = 0;                  // copies of each graph output the runtime's binding makes for the
                                              // caller (ORT's Node.js binding: 1, into a JavaScript buffer)
  std::string memory_not_predicted;           // why the runtime's memory cannot be predicted (measured only); empty:
                                              // predicted from the fields above
  std::optional<ArenaRules> arena;            // the allocator the run's tensors came from, when it is an arena
                                              // whose rules the backend knows (absent: arena off, or not known)
  int64_t threads = 0;                        // intra-op threads the runtime used (0: not known)
  std::vector<double> profiled_latencies_ms;  // profiled iterations, timed like latencies_ms (for the overhead)
  std::vector<double> profiled_runs_ms;       // the same iterations as the runtime's own profile times them: the
                                              // span its kernel times live in (coverage's denominator)
  std::vector<KernelRecord> kernels;          // in execution order
  std::optional<GraphView> executed_graph;    // the graph the kernels are nodes of, when the runtime shows it
  std::string roofs_engine;                   // the kernels ran in an engine with roofs of its own (EngineRoofs:
                                              // "wasm:node", "wasm:chromium"); "": the machine's native roofs
  std::string profile_error;                  // the profiled run failed although the timed run stood: why, in one
                                              // line (kernels are then empty)
  std::vector<std::string> warnings;          // what the source noticed about this measurement (the run shows them)
  // What the run ran with (core/run_settings.h): live backends fill them; an import leaves them empty.
  std::vector<RunSetting> settings;           // every performance option, effective value and source
  std::optional<ThreadsObserved> threads_observed;  // the thread pool as the runtime's profile showed it
  DispatchSamples dispatch;                   // per profiled iteration: the source's own timing of its dispatch
  double kernel_time_step_ms = 0;             // the step of the source's kernel times (ORT writes whole µs: 0.001):
                                              // a kernel may have run up to this much longer than it says

  // Imports: what another tool's files say beyond the above (live backends leave them empty).
  std::optional<LatencyStats> latency_summary;  // e2e statistics when the source gives them but no samples
  std::optional<double> throughput_per_s;       // items/s as the source measured it, when it gives no wall time
  std::vector<PhaseSamples> phases;           // e2e iterations split into parts (transfers, compute, enqueue)
  std::optional<uint64_t> weights_bytes, activations_bytes;  // the engine's weights; Σ layer input+output tensors
  std::string device_name;                    // the device it ran on, as the source names it ("NVIDIA A100-SXM4-80GB")
  std::map<std::string, std::vector<int64_t>> input_shapes;  // the model's inputs as the source fed them
};

}  // namespace rooflens
