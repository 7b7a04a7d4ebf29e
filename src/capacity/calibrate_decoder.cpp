#include "capacity/calibrate_decoder.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "capacity/generative/step_model.h"
#include "core/atomic_file.h"
#include "core/history.h"
#include "hw/cpu_features.h"
#include "hw/machine.h"
#include "hw/roof_cache.h"
#include "stats/order.h"

namespace rooflens::capacity {
namespace {

namespace fs = std::filesystem;

// What a cached calibration holds; a file of an older format is measured again. 3: measured after the served
// decoder's warm-up (format 2's steps could fall in a fresh process's first, slower requests).
constexpr int kCalibrationFormat = 3;

std::string calibration_file(const DecoderServingConfig& c, const CalibrationSpan& span) {
  const std::string dir = hw::cache_dir_from_env();
  if (dir.empty()) return "";
  std::error_code ec;
  const fs::path model = fs::absolute(c.model, ec);
  const auto size = fs::file_size(model, ec);
  const auto mtime = fs::last_write_time(model, ec).time_since_epoch().count();
  std::ostringstream key;
  key << model.string() << '|' << size << '|' << mtime << '|' << c.threads << '|' << span.shortest_prompt << '|'
      << span.longest_prompt << '|' << span.longest_context << '|' << ROOFLENS_VERSION << '|'
      << hw::cache_key(hw::describe_machine(hw::detect_features()), ROOFLENS_VERSION);
  std::ostringstream name;
  name << "serving-calibration-" << std::hex << std::hash<std::string>{}(key.str()) << ".json";
  return (fs::path(dir) / name.str()).string();
}

double call_ms(const DecoderStepTimes& t) { return static_cast<double>(t.end_ns - t.start_ns) / 1e6; }

std::vector<int64_t> distinct(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Times calls on a decoder served for this alone, each sequence a fresh request id.
class CallTimer {
 public:
  explicit CallTimer(ServedDecoder& d) : d_(d) {}
  int64_t new_id() { return id_++; }
  double run(DecoderStep s) {
    s.index = ++index_;
    return call_ms(d_.step(s));
  }
  // A prompt of `tokens` for a new sequence, alone in its step; the previous prompt-only sequence's state goes.
  double prefill(int64_t id, int64_t tokens, std::vector<int64_t> finished = {}) {
    DecoderStep s;
    s.rows = {{id, 0, tokens, true, true, false}};
    s.finished = std::move(finished);
    return run(s);
  }

 private:
  ServedDecoder& d_;
  int64_t id_ = 0, index_ = 0;
};

std::vector<generative::TimedCall> time_prefills(CallTimer& t, const CalibrationSpan& span) {
  std::vector<generative::TimedCall> out;
  int64_t last = -1;
  for (int64_t tokens : prefill_lengths(span)) {
    std::vector<double> ms;
    for (int rep = 0; rep < kCalibrationRepeats; ++rep) {
      const int64_t id = t.new_id();
      ms.push_back(t.prefill(id, tokens, last >= 0 ? std::vector<int64_t>{last} : std::vector<int64_t>{}));
      last = id;
    }
    out.push_back({tokens, 0, 0, 0, stats::upper_median(ms)});
  }
  return out;
}

// Each (batch, context) is built from fresh prompts, twice: its first decode step rebuilds the padded cache (the
// membership changed), the next four do not. Each kind's median over both passes is one point of the fit, so a
// disturbed call moves no coefficient.
std::vector<generative::TimedCall> time_decodes(CallTimer& t, const CalibrationSpan& span, int64_t max_batch) {
  struct Times { std::vector<double> rebuild, steady; };
  const std::vector<int64_t> batches = decode_batches(max_batch), contexts = decode_contexts(span);
  std::vector<Times> times(batches.size() * contexts.size());
  std::vector<int64_t> last;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t bi = 0; bi < batches.size(); ++bi)
      for (size_t ci = 0; ci < contexts.size(); ++ci) {
        const int64_t b = batches[bi], context = contexts[ci];
        std::vector<int64_t> ids;
        for (int64_t r = 0; r < b; ++r) {
          ids.push_back(t.new_id());
          t.prefill(ids.back(), context);
        }
        Times& into = times[bi * contexts.size() + ci];
        for (int64_t k = 0; k < 5; ++k) {
          DecoderStep s;
          for (int64_t i : ids) s.rows.push_back({i, context + k, 1, false, false, false});
          if (k == 0) {
            s.joined = ids;
            s.left = last;
            s.finished = last;
          }
          (k == 0 ? into.rebuild : into.steady).push_back(t.run(s));
        }
        last = ids;
      }
  std::vector<generative::TimedCall> out;
  for (size_t bi = 0; bi < batches.size(); ++bi)
    for (size_t ci = 0; ci < contexts.size(); ++ci) {
      const int64_t b = batches[bi], c = contexts[ci];
      const Times& m = times[bi * contexts.size() + ci];
      out.push_back({0, b, b * c, b * c, stats::upper_median(m.rebuild)});
      out.push_back({0, b, b * (c + 2), 0, stats::upper_median(m.steady)});  // the steady steps' middle context
    }
  return out;
}

}  // namespace

CalibrationSpan calibration_span(const std::vector<generative::RequestShape>& shapes) {
  CalibrationSpan s;
  if (shapes.empty()) return s;
  s.shortest_prompt = s.longest_prompt = shapes[0].input_tokens;
  int64_t longest_output = 0;
  for (const auto& r : shapes) {
    s.shortest_prompt = std::min(s.shortest_prompt, r.input_tokens);
    s.longest_prompt = std::max(s.longest_prompt, r.input_tokens);
    longest_output = std::max(longest_output, r.output_tokens);
  }
  s.longest_context = s.longest_prompt + std::max<int64_t>(longest_output, 1) - 1;
  return s;
}

std::vector<int64_t> prefill_lengths(const CalibrationSpan& s) {
  std::vector<int64_t> v = distinct({std::max<int64_t>(1, s.shortest_prompt / 2), s.shortest_prompt, s.longest_prompt});
  if (v.size() < 2) v.push_back(2 * v.back());
  return v;
}

std::vector<int64_t> decode_contexts(const CalibrationSpan& s) {
  std::vector<int64_t> v = distinct({s.shortest_prompt, s.longest_context});
  if (v.size() < 2) v.insert(v.begin(), std::max<int64_t>(1, v[0] / 2));
  if (v[0] == v[1]) v[1] = v[0] + 1;  // a context of 1 token: 1 and 2
  return v;
}

std::vector<int64_t> decode_batches(int64_t max_batch) {
  std::vector<int64_t> v{1};
  for (int64_t b : {2, 4, 8})
    if (b < max_batch) v.push_back(b);
  if (max_batch > 1) v.push_back(max_batch);
  return v;
}

namespace {

struct TimedCalls {
  std::vector<generative::TimedCall> prefill, decode;
};

void measure_calls(ServedDecoder& d, const CalibrationSpan& span, int64_t max_batch, TimedCalls& into) {
  CallTimer t(d);
  // Untimed first: a new session's first calls grow its memory arena and fault in its pages, which the served run
  // pays once among hundreds of steps and a calibration of a few calls must not fit.
  for (int rep = 0; rep < 2; ++rep) t.prefill(t.new_id(), span.longest_prompt);
  for (auto& c : time_prefills(t, span)) into.prefill.push_back(c);
  for (auto& c : time_decodes(t, span, max_batch)) into.decode.push_back(c);
}

}  // namespace

DecoderCalibration calibrate_decoder(DecoderGeneration& generation, const DecoderServingConfig& config,
                                     const CalibrationSpan& span, int64_t max_batch,
                                     const std::function<void(const std::string&)>& progress) {
  const std::string file = calibration_file(config, span);
  if (!file.empty()) {
    std::ifstream in(file);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.value("format", 0) == kCalibrationFormat &&
        j.value("max_batch", int64_t{0}) >= max_batch && j.contains("cost")) {
      DecoderCalibration c;
      const nlohmann::json& k = j["cost"];
      c.cost.per_prefill_call_ms = k.value("prefill_call_ms", 0.0);
      c.cost.per_prefill_token_ms = k.value("prefill_token_ms", 0.0);
      c.cost.per_decode_call_ms = k.value("decode_call_ms", 0.0);
      c.cost.per_decode_row_ms = k.value("decode_row_ms", 0.0);
      c.cost.per_context_token_ms = k.value("context_token_ms", 0.0);
      c.cost.per_rebuilt_token_ms = k.value("rebuilt_token_ms", 0.0);
      c.measured_at = j.value("measured_at", std::string());
      c.cached = true;
      return c;
    }
  }
  if (progress) progress("calibrating the step times (two runners of their own; cached afterwards)");
  DecoderServingConfig own = config;
  own.next_token = NextToken::fixed;
  own.keep_tokens = false;
  // In runners of their own, one after the other: the same calls timed in two processes differ by up to a fifth
  // (measured: a 64-token prompt 168-210 ms), as two runs' processes will; the fit is over both.
  TimedCalls calls;
  for (int process = 0; process < kCalibrationProcesses; ++process) {
    std::unique_ptr<ServedDecoder> d = generation.serve(own);
    measure_calls(*d, span, std::max<int64_t>(1, max_batch), calls);
    d->finish();
  }
  DecoderCalibration c;
  c.cost = generative::fit_step_cost(calls.prefill, calls.decode);
  c.measured_at = now_iso8601_utc();
  if (!file.empty()) {
    const nlohmann::ordered_json j{
        {"format", kCalibrationFormat},
        {"measured_at", c.measured_at},
        {"max_batch", max_batch},
        {"cost",
         {{"prefill_call_ms", c.cost.per_prefill_call_ms}, {"prefill_token_ms", c.cost.per_prefill_token_ms},
          {"decode_call_ms", c.cost.per_decode_call_ms}, {"decode_row_ms", c.cost.per_decode_row_ms},
          {"context_token_ms", c.cost.per_context_token_ms}, {"rebuilt_token_ms", c.cost.per_rebuilt_token_ms}}}};
    try {
      fs::create_directories(fs::path(file).parent_path());
      write_file_atomically(file, j.dump(2));
    } catch (const std::exception&) {  // an unwritable cache costs the next run a calibration, not this one
    }
  }
  return c;
}

}  // namespace rooflens::capacity
