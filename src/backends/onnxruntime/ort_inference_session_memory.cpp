#include "backends/onnxruntime/ort_inference_session_memory.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "backends/onnxruntime/ort_memory_rules.h"

namespace rooflens::ort {
namespace {

constexpr uint64_t kLargeBlock = uint64_t{64} << 10;  // smaller blocks are in the node structures' calibration
constexpr uint64_t kReadBuffer = uint64_t{4} << 20;   // the buffer the model file is read through
constexpr int kScratchCopies = 3;                     // an optimizer's scratch copies per constant it makes
const std::string kCastFoldedPrefix = "FusedBack_";   // how ORT names an fp16 constant it converted to fp32

class Blocks {
 public:
  uint64_t allocate(uint64_t bytes, HeapRole role, bool keeps_objects) {
    HeapEvent e;
    e.id = ++next_;
    e.bytes = bytes;
    e.role = role;
    e.keeps_objects = keeps_objects;
    events_.push_back(e);
    return e.id;
  }
  // `whole`: the runtime dropped the tensor (its small objects go too), not only its buffer.
  void free(uint64_t id, uint64_t bytes, HeapRole role, bool whole = true) {
    HeapEvent e;
    e.allocate = false;
    e.id = id;
    e.bytes = bytes;
    e.role = role;
    e.frees_objects = whole;
    events_.push_back(e);
  }
  std::vector<HeapEvent> take() { return std::move(events_); }

 private:
  uint64_t next_ = 0;
  std::vector<HeapEvent> events_;
};

// Constants of the executed graph every reader of which packs it (ORT then frees the constant itself), and, per node
// in order, the constant inputs it packs.
struct Packing {
  std::vector<std::string> packed_inputs;  // in node order, one entry per (node, packed input)
  std::unordered_set<std::string> only_packed;
};

Packing packing(const GraphView& g, const std::unordered_map<std::string, uint64_t>& constants) {
  Packing p;
  std::unordered_map<std::string, int> readers, packers;
  for (const auto& n : g.nodes) {
    std::vector<std::string> present;
    for (const auto& in : n.inputs)
      if (!in.empty()) present.push_back(in);
    std::set<size_t> packs;
    for (int pos : packed_inputs(n.op))
      if (pos >= 0 && static_cast<size_t>(pos) < present.size()) packs.insert(static_cast<size_t>(pos));
    for (size_t i = 0; i < present.size(); ++i) {
      if (!constants.count(present[i])) continue;
      ++readers[present[i]];
      if (packs.count(i)) {
        ++packers[present[i]];
        p.packed_inputs.push_back(present[i]);
      }
    }
  }
  for (const auto& [name, n] : packers)
    if (readers[name] == n) p.only_packed.insert(name);
  return p;
}

// The weights of the model's Conv nodes whose output goes only into a BatchNormalization whose other inputs are
// constants: ORT's ConvBNFusion (a basic-level rewrite) folds the normalization into them.
std::vector<std::string> bn_fused_weights(const GraphView& g) {
  std::unordered_map<std::string, int> readers;
  std::unordered_map<std::string, const GraphView::Node*> reader;
  for (const auto& n : g.nodes)
    for (const auto& in : n.inputs)
      if (!in.empty()) {
        ++readers[in];
        reader[in] = &n;
      }
  std::vector<std::string> out;
  for (const auto& n : g.nodes) {
    if (n.op != "Conv" || n.inputs.size() < 2 || n.outputs.empty() || !g.constant_bytes.count(n.inputs[1])) continue;
    if (readers[n.outputs[0]] != 1) continue;
    const GraphView::Node* bn = reader[n.outputs[0]];
    if (bn->op != "BatchNormalization" || bn->inputs.size() < 5) continue;
    if (std::all_of(bn->inputs.begin() + 1, bn->inputs.begin() + 5,
                    [&](const std::string& i) { return g.constant_bytes.count(i) > 0; }))
      out.push_back(n.inputs[1]);
  }
  return out;
}

}  // namespace

std::vector<HeapEvent> inference_session_creation_blocks(const GraphView& model, const GraphView& executed,
                                               uint64_t model_file_bytes) {
  Blocks b;
  std::map<std::string, uint64_t> tensor_of;  // constant name -> the block holding its tensor (copy or rewritten)
  const uint64_t buffer = std::min(model_file_bytes, kReadBuffer);
  const uint64_t read = buffer >= kLargeBlock ? b.allocate(buffer, HeapRole::read_buffer, false) : 0;
  std::vector<std::pair<const GraphView::Constant*, uint64_t>> strings;
  for (const auto& c : model.constants)
    if (c.bytes + 1 >= kLargeBlock) strings.emplace_back(&c, b.allocate(c.bytes + 1, HeapRole::serialized, false));
  if (read) b.free(read, buffer, HeapRole::read_buffer);
  std::unordered_map<std::string, uint64_t> sizes;
  for (const auto& c : model.constants) sizes[c.name] = c.bytes;
  size_t next_string = 0;
  for (const auto& c : model.constants) {
    if (c.bytes >= kLargeBlock && !tensor_of.count(c.name)) tensor_of[c.name] = b.allocate(c.bytes, HeapRole::copy, true);
    if (next_string < strings.size() && strings[next_string].first == &c) {
      b.free(strings[next_string].second, c.bytes + 1, HeapRole::serialized);
      ++next_string;
    }
  }
  // The basic level's fusions first: a Conv whose output only a BatchNormalization of constants reads gets its weight
  // rewritten (two scratch copies and the new one; the old freed when the level is done), before the later levels
  // rewrite it again (an NCHWc reorder).
  std::vector<std::pair<uint64_t, uint64_t>> fused;  // (block, bytes) of the first level's new weights
  std::vector<std::string> replaced;
  for (const auto& w : bn_fused_weights(model)) {
    const uint64_t bytes = sizes[w];
    if (bytes < kLargeBlock || !tensor_of.count(w)) continue;
    const uint64_t s1 = b.allocate(bytes, HeapRole::temporary, false), s2 = b.allocate(bytes, HeapRole::temporary, false);
    fused.emplace_back(b.allocate(bytes, HeapRole::rewritten, true), bytes);
    b.free(s1, bytes, HeapRole::temporary);
    b.free(s2, bytes, HeapRole::temporary);
    replaced.push_back(w);
  }
  for (const auto& w : replaced) {
    b.free(tensor_of[w], sizes[w], HeapRole::copy);
    tensor_of.erase(w);
  }
  // The optimizer's constants, in the order the executed graph lists them.
  std::unordered_map<std::string, uint64_t> kept;
  for (const auto& c : executed.constants) kept[c.name] = c.bytes;
  for (const auto& c : executed.constants) {
    if (sizes.count(c.name) || c.bytes < kLargeBlock || tensor_of.count(c.name)) continue;
    // An fp16 constant whose Cast to fp32 the optimizer folded into it ("FusedBack_<name>"): one scratch copy of the
    // original beside the new one. Any other (a fusion's weight, an NCHWc reorder): three of its own size.
    std::vector<std::pair<uint64_t, uint64_t>> scratch;  // (block, bytes)
    const auto source = c.name.rfind(kCastFoldedPrefix, 0) == 0 ? sizes.find(c.name.substr(kCastFoldedPrefix.size()))
                                                                 : sizes.end();
    if (source != sizes.end())
      scratch.emplace_back(b.allocate(source->second, HeapRole::temporary, false), source->second);
    else
      for (int k = 0; k < kScratchCopies; ++k) scratch.emplace_back(b.allocate(c.bytes, HeapRole::temporary, false), c.bytes);
    tensor_of[c.name] = b.allocate(c.bytes, HeapRole::rewritten, true);
    for (const auto& [block, bytes] : scratch) b.free(block, bytes, HeapRole::temporary);
  }
  for (const auto& c : model.constants)
    if (!kept.count(c.name) && c.bytes >= kLargeBlock)
      if (auto it = tensor_of.find(c.name); it != tensor_of.end()) {
        b.free(it->second, c.bytes, HeapRole::copy);
        tensor_of.erase(it);
      }
  for (const auto& [block, bytes] : fused) b.free(block, bytes, HeapRole::rewritten);  // replaced in turn
  // Pre-packing, node by node.
  const Packing p = packing(executed, kept);
  std::unordered_map<std::string, int> left;
  for (const auto& name : p.packed_inputs) ++left[name];
  for (const auto& name : p.packed_inputs) {
    const uint64_t bytes = kept[name];
    if (bytes < kLargeBlock) continue;
    b.allocate(bytes, HeapRole::packed, true);
    if (--left[name] == 0 && p.only_packed.count(name))
      if (auto it = tensor_of.find(name); it != tensor_of.end()) {
        // Only the buffer: the graph still names the constant (its tensor's small objects stay).
        b.free(it->second, bytes, sizes.count(name) ? HeapRole::copy : HeapRole::rewritten, /*whole=*/false);
        tensor_of.erase(it);
      }
  }
  return b.take();
}

CAllocatorRules runner_c_allocator(std::optional<uint64_t> malloc_mmap_threshold) {
  CAllocatorRules r;  // glibc 2.36's defaults (Debian bookworm's, the runner's node links it)
  if (malloc_mmap_threshold) {
    // Setting M_MMAP_THRESHOLD turns the dynamic thresholds off (mp_.no_dyn_threshold); the trim threshold keeps its
    // default.
    r.mmap_threshold = *malloc_mmap_threshold;
    r.dynamic_threshold = false;
  }
  // Measured on the runner's own allocations: the small blocks ORT allocates between two tensors (a name, a shape,
  // an OrtValue) sit after a constant's tensor and take the start of a freed tensor's block first, so a tensor of the
  // same size never fits where the last one was (a 9 MiB weight's freed block held a 112-byte object at its end and
  // served only smaller allocations).
  r.reuse_margin = 4096;
  r.object_bytes = 256;
  return r;
}

}  // namespace rooflens::ort
