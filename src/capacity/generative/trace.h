#pragma once
// A request trace to replay (--trace FILE.jsonl): one JSON object per line, {"timestamp": ms, "input_tokens": N,
// "output_tokens": M}, as AIPerf's and the Mooncake traces give arrivals (times in milliseconds, from any origin:
// the first request arrives at the run's start). Blank lines are skipped; lines are replayed in timestamp order.
#include <cstdint>
#include <string>
#include <vector>

#include "capacity/generative/lengths.h"

namespace rooflens::capacity::generative {

struct Trace {
  std::vector<int64_t> arrival_ns;   // after the first request, ascending
  std::vector<RequestShape> shapes;  // the same order
};

// UserError "FILE:LINE: what is wrong, and what a line must hold" for a line that is not such an object, a
// negative or non-finite time, a token count below 1; UserError for an empty trace.
Trace parse_trace(const std::string& text, const std::string& file);
Trace read_trace(const std::string& file);

}  // namespace rooflens::capacity::generative
