#include "memory/arena.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "core/saturating.h"

namespace rooflens {
namespace {

struct Chunk {
  uint64_t address = 0, size = 0;
  int region = -1;
  int prev = -1, next = -1;  // neighbours in the same region
  bool in_use = false;
};

class Arena {
 public:
  explicit Arena(const ArenaRules& r) : rules_(r), next_region_(round(r.initial_region)) {}

  void allocate(int buffer, uint64_t bytes) {
    if (bytes == 0) return;  // a runtime hands out no memory for an empty tensor
    const uint64_t rounded = round(bytes);
    int c = best_fit(rounded);
    if (c < 0) {
      extend(rounded);
      c = best_fit(rounded);
    }
    if (c < 0) return;
    free_.erase({chunks_[c].size, chunks_[c].address});
    if (chunks_[c].size >= sat_mul(rounded, 2) || chunks_[c].size - rounded >= rules_.max_dead_bytes) split(c, rounded);
    chunks_[c].in_use = true;
    in_use_ += chunks_[c].size;
    out_.in_use_peak_bytes = std::max(out_.in_use_peak_bytes, in_use_);
    write(chunks_[c].region, chunks_[c].address, bytes);
    owner_[buffer] = c;
  }

  void release(int buffer) {
    auto it = owner_.find(buffer);
    if (it == owner_.end()) return;
    int c = it->second;
    owner_.erase(it);
    chunks_[c].in_use = false;
    in_use_ -= std::min(in_use_, chunks_[c].size);
    if (int n = chunks_[c].next; n >= 0 && !chunks_[n].in_use) merge(c, n);
    if (int p = chunks_[c].prev; p >= 0 && !chunks_[p].in_use) {
      merge(p, c);
      c = p;
    }
    free_.insert({chunks_[c].size, chunks_[c].address});
    by_address_[chunks_[c].address] = c;
  }

  ArenaPrediction result() const {
    ArenaPrediction out = out_;
    const uint64_t page = std::max<uint64_t>(1, rules_.page);
    for (const auto& pages : written_)
      out.region_written_bytes.push_back(sat_mul(static_cast<uint64_t>(std::count(pages.begin(), pages.end(), true)), page));
    return out;
  }

 private:
  uint64_t round(uint64_t bytes) const {
    const uint64_t g = std::max<uint64_t>(1, rules_.granule);
    return sat_mul((bytes + g - 1) / g, g);
  }

  int best_fit(uint64_t rounded) const {
    auto it = free_.lower_bound({rounded, 0});
    return it == free_.end() ? -1 : by_address_.at(it->second);
  }

  // A region as the rules size it: doubling, the next region is the current size doubled until the allocation fits,
  // and when it already fitted, the one after is twice as large; otherwise exactly the allocation.
  void extend(uint64_t rounded) {
    uint64_t bytes = rounded;
    if (rules_.doubling) {
      bool increased = false;
      while (rounded > next_region_) {
        next_region_ = sat_mul(next_region_, 2);
        increased = true;
      }
      bytes = next_region_;
      if (!increased) next_region_ = sat_mul(next_region_, 2);
    }
    const int region = static_cast<int>(out_.regions.size());
    out_.regions.push_back(bytes);
    out_.held_bytes = sat_add(out_.held_bytes, bytes);
    // Regions are apart in the address space (each its own mapping): a gap of a page keeps their pages apart.
    const uint64_t page = std::max<uint64_t>(1, rules_.page);
    bases_.push_back(top_);
    written_.emplace_back((bytes + page - 1) / page, false);
    Chunk c;
    c.address = top_;
    c.size = bytes;
    c.region = region;
    top_ = sat_add(top_, sat_add(bytes, page));
    top_ = (top_ + page - 1) / page * page;
    chunks_.push_back(c);
    const int id = static_cast<int>(chunks_.size()) - 1;
    free_.insert({c.size, c.address});
    by_address_[c.address] = id;
  }

  void split(int c, uint64_t rounded) {
    Chunk rest;
    rest.address = chunks_[c].address + rounded;
    rest.size = chunks_[c].size - rounded;
    rest.region = chunks_[c].region;
    rest.prev = c;
    rest.next = chunks_[c].next;
    chunks_.push_back(rest);
    const int r = static_cast<int>(chunks_.size()) - 1;
    if (rest.next >= 0) chunks_[rest.next].prev = r;
    chunks_[c].next = r;
    chunks_[c].size = rounded;
    free_.insert({rest.size, rest.address});
    by_address_[rest.address] = r;
  }

  // b follows a in its region; both free (a may be the chunk being released): b joins a.
  void merge(int a, int b) {
    free_.erase({chunks_[b].size, chunks_[b].address});
    free_.erase({chunks_[a].size, chunks_[a].address});
    by_address_.erase(chunks_[b].address);
    chunks_[a].size += chunks_[b].size;
    chunks_[a].next = chunks_[b].next;
    if (chunks_[b].next >= 0) chunks_[chunks_[b].next].prev = a;
    chunks_[b] = Chunk{};
  }

  // The pages [address, address + bytes) of the region become resident.
  void write(int region, uint64_t address, uint64_t bytes) {
    const uint64_t page = std::max<uint64_t>(1, rules_.page);
    auto& pages = written_[static_cast<size_t>(region)];
    const uint64_t from = (address - bases_[static_cast<size_t>(region)]) / page;
    const uint64_t to = std::min<uint64_t>(pages.size(), (address - bases_[static_cast<size_t>(region)] + bytes + page - 1) / page);
    for (uint64_t p = from; p < to; ++p)
      if (!pages[p]) {
        pages[p] = true;
        out_.written_bytes = sat_add(out_.written_bytes, page);
      }
  }

  ArenaRules rules_;
  uint64_t next_region_;
  uint64_t top_ = 0;
  uint64_t in_use_ = 0;
  std::vector<Chunk> chunks_;
  std::set<std::pair<uint64_t, uint64_t>> free_;  // (size, address) of every free chunk
  std::map<uint64_t, int> by_address_;            // chunk start -> chunk (free chunks and split remainders)
  std::map<int, int> owner_;                      // buffer -> chunk it holds
  std::vector<uint64_t> bases_;
  std::vector<std::vector<bool>> written_;         // per region, per page
  ArenaPrediction out_;
};

}  // namespace

ArenaPrediction simulate_arena(const ArenaRules& rules, const std::vector<BufferEvent>& events) {
  Arena arena(rules);
  for (const auto& e : events) {
    if (e.allocate) arena.allocate(e.buffer, e.bytes);
    else arena.release(e.buffer);
  }
  return arena.result();
}

}  // namespace rooflens
