#pragma once
// What identifies a run: which backend (in a report of several), the batch, every fixed dim, the threads. One
// key type for runs, failures and the grid, with one label made here and stored in the JSON, so the terminal,
// the HTML page and `compare` never derive it again.
#include <compare>
#include <cstdint>
#include <map>
#include <string>

namespace rooflens {

struct RunKey {
  std::string backend;                  // label of the report's backend that ran it; "" when the report has one
  int64_t batch = 0;                    // 0: the model's own (before it is known)
  std::map<std::string, int64_t> dims;  // every symbolic dim fixed for this run (batch, seq, ...)
  int64_t threads = 0;                  // intra-op threads (0 = not known)

  // "batch=8 seq=128 threads=2" (dims equal to the batch are not repeated; "default" when nothing is fixed),
  // "opencv · batch=1 threads=2" in a report of several backends.
  std::string label() const;
  const RunKey& key() const { return *this; }
  auto operator<=>(const RunKey&) const = default;
};

}  // namespace rooflens
