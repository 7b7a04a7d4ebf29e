#include "memory/liveness.h"

#include <algorithm>
#include <limits>

#include "core/saturating.h"

namespace rooflens {
namespace {

constexpr int64_t kForever = std::numeric_limits<int64_t>::max() / 4;

// Buffers and their remaining uses, as ONNX Runtime's allocation planner counts them: a buffer shared by several
// tensors is used as often as all of them together, and is free when that count reaches zero.
class Buffers {
 public:
  Buffers(const std::vector<LiveTensor>& tensors, const std::vector<LiveStep>& steps)
      : tensors_(tensors), owner_(tensors.size()), uses_(tensors.size(), 0), allocated_(tensors.size(), false) {
    for (size_t t = 0; t < tensors.size(); ++t) {
      owner_[t] = static_cast<int>(t);
      if (tensors[t].graph_output || tensors[t].graph_input) uses_[t] = kForever;
    }
    for (const auto& s : steps)
      for (int r : s.reads)
        if (valid(r)) ++uses_[static_cast<size_t>(r)];
  }

  bool valid(int t) const { return t >= 0 && static_cast<size_t>(t) < tensors_.size(); }
  bool activation(int t) const { return valid(t) && !tensors_[static_cast<size_t>(t)].constant; }
  int owner(int t) const { return owner_[static_cast<size_t>(t)]; }
  uint64_t live() const { return live_; }

  void allocate(int t) {
    const size_t b = static_cast<size_t>(owner(t));
    if (allocated_[b]) return;
    allocated_[b] = true;
    live_ = sat_add(live_, tensors_[b].bytes);
    if (!tensors_[b].graph_input) events_.push_back({static_cast<int>(b), tensors_[b].bytes, true});
  }
  std::vector<BufferEvent> take_events() { return std::move(events_); }
  // `out` takes `in`'s buffer: its uses join the buffer's.
  void share(int out, int in) {
    const size_t b = static_cast<size_t>(owner(in));
    uses_[b] = std::min(kForever, uses_[b] + uses_[static_cast<size_t>(out)]);
    owner_[static_cast<size_t>(out)] = static_cast<int>(b);
  }
  // An in-place candidate: this read is the buffer's last use, the caller does not own it, the sizes are equal.
  bool reusable(int in, int out) const {
    if (!activation(in) || !activation(out)) return false;
    const size_t b = static_cast<size_t>(owner(in));
    const LiveTensor& o = tensors_[static_cast<size_t>(out)];
    return allocated_[b] && uses_[b] == 1 && !tensors_[b].graph_input && !tensors_[b].graph_output && !o.graph_output &&
           tensors_[b].bytes == o.bytes;
  }
  void release_use(int t) {
    const size_t b = static_cast<size_t>(owner(t));
    if (uses_[b] >= kForever || uses_[b] == 0) return;
    if (--uses_[b] == 0) free(b);
  }
  // An output nobody reads is freed once its step is done.
  void release_if_unused(int t) {
    const size_t b = static_cast<size_t>(owner(t));
    if (uses_[b] == 0) free(b);
  }

 private:
  void free(size_t b) {
    if (!allocated_[b]) return;
    allocated_[b] = false;
    live_ -= std::min(live_, tensors_[b].bytes);
    if (!tensors_[b].graph_input) events_.push_back({static_cast<int>(b), tensors_[b].bytes, false});
  }

  const std::vector<LiveTensor>& tensors_;
  std::vector<int> owner_;        // the tensor whose buffer each tensor uses
  std::vector<int64_t> uses_;     // per buffer owner: reads still to come
  std::vector<bool> allocated_;
  uint64_t live_ = 0;
  std::vector<BufferEvent> events_;
};

}  // namespace

Liveness liveness(const std::vector<LiveTensor>& tensors, const std::vector<LiveStep>& steps, bool take_maybe) {
  Liveness out;
  Buffers buffers(tensors, steps);
  std::vector<bool> written(tensors.size(), false);
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (!tensors[t].graph_input || tensors[t].constant) continue;
    buffers.allocate(static_cast<int>(t));
    out.naive = sat_add(out.naive, tensors[t].bytes);
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const LiveStep& s = steps[i];
    for (size_t w = 0; w < s.writes.size(); ++w) {
      const int t = s.writes[w];
      if (!buffers.activation(t)) continue;
      if (!written[static_cast<size_t>(t)]) out.naive = sat_add(out.naive, tensors[static_cast<size_t>(t)].bytes);
      written[static_cast<size_t>(t)] = true;
      const int in0 = s.reads.empty() ? -1 : s.reads[0];
      const int in1 = s.reads.size() > 1 ? s.reads[1] : -1;
      const int maybe = take_maybe && s.maybe_inplace >= 0 && static_cast<size_t>(s.maybe_inplace) < s.reads.size()
                            ? s.reads[static_cast<size_t>(s.maybe_inplace)]
                            : -1;
      if (w == 0 && s.reuse == BufferReuse::alias && buffers.activation(in0)) {
        buffers.share(t, in0);
        ++out.shared_outputs;
      } else if (w == 0 && s.reuse == BufferReuse::inplace && (buffers.reusable(in0, t) || buffers.reusable(in1, t))) {
        buffers.share(t, buffers.reusable(in0, t) ? in0 : in1);
        ++out.shared_outputs;
      } else if (w == 0 && buffers.reusable(maybe, t)) {
        buffers.share(t, maybe);
        ++out.shared_outputs;
      } else {
        buffers.allocate(t);
      }
    }
    const uint64_t now = sat_add(buffers.live(), s.extra_bytes);
    out.live.push_back(now);
    if (now > out.peak || out.peak_step < 0) {
      out.peak = std::max(out.peak, now);
      out.peak_step = static_cast<int64_t>(i);
    }
    for (int r : s.reads)
      if (buffers.activation(r)) buffers.release_use(r);
    for (int w : s.writes)
      if (buffers.activation(w)) buffers.release_if_unused(w);
  }
  out.events = buffers.take_events();
  return out;
}

}  // namespace rooflens
