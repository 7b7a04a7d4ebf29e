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

namespace rooflens::capacity {
namespace {

namespace fs = std::filesystem;

std::string calibration_file(const DecoderServingConfig& c) {
  const std::string dir = hw::cache_dir_from_env();
  if (dir.empty()) return "";
  std::error_code ec;
  const fs::path model = fs::absolute(c.model, ec);
  const auto size = fs::file_size(model, ec);
  const auto mtime = fs::last_write_time(model, ec).time_since_epoch().count();
  std::ostringstream key;
  key << model.string() << '|' << size << '|' << mtime << '|' << c.threads << '|' << ROOFLENS_VERSION << '|'
      << hw::cache_key(hw::describe_machine(hw::detect_features()), ROOFLENS_VERSION);
  std::ostringstream name;
  name << "serving-calibration-" << std::hex << std::hash<std::string>{}(key.str()) << ".json";
  return (fs::path(dir) / name.str()).string();
}

double call_ms(const DecoderStepTimes& t) { return static_cast<double>(t.end_ns - t.start_ns) / 1e6; }

// The calls, timed on a decoder served for this alone.
generative::StepCost measure_calls(ServedDecoder& d, int64_t max_batch) {
  std::vector<generative::TimedCall> prefill, decode;
  int64_t id = 0;
  DecoderStep step;
  auto run = [&](DecoderStep s) {
    s.index = step.index + 1;
    step = s;
    return d.step(s);
  };
  for (int64_t tokens : {16, 64, 256})
    for (int rep = 0; rep < 3; ++rep) {
      DecoderStep s;
      s.rows = {{id, 0, tokens, true, true, false}};
      if (id > 0) s.finished = {id - 1};
      prefill.push_back({tokens, 0, 0, call_ms(run(s))});
      ++id;
    }
  std::vector<int64_t> batches{1};
  for (int64_t b : {2, 4, 8})
    if (b < max_batch) batches.push_back(b);
  if (max_batch > 1) batches.push_back(max_batch);
  std::vector<int64_t> last;
  for (int64_t b : batches)
    for (int64_t context : {32, 192}) {
      std::vector<int64_t> ids;
      for (int64_t r = 0; r < b; ++r) {
        DecoderStep s;
        s.rows = {{id, 0, context, true, true, false}};
        run(s);
        ids.push_back(id++);
      }
      for (int64_t k = 0; k < 4; ++k) {
        DecoderStep s;
        for (int64_t i : ids) s.rows.push_back({i, context + k, 1, false, false, false});
        if (k == 0) {
          s.joined = ids;
          s.left = last;
          s.finished = last;
        }
        const double ms = call_ms(run(s));
        if (k > 0) decode.push_back({0, b, b * (context + k), ms});  // the first step also rebuilt the batch
      }
      last = ids;
    }
  return generative::fit_step_cost(prefill, decode);
}

}  // namespace

DecoderCalibration calibrate_decoder(DecoderGeneration& generation, const DecoderServingConfig& config,
                                     int64_t max_batch, const std::function<void(const std::string&)>& progress) {
  const std::string file = calibration_file(config);
  if (!file.empty()) {
    std::ifstream in(file);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.value("max_batch", int64_t{0}) >= max_batch && j.contains("cost")) {
      DecoderCalibration c;
      const nlohmann::json& k = j["cost"];
      c.cost.per_prefill_call_ms = k.value("prefill_call_ms", 0.0);
      c.cost.per_prefill_token_ms = k.value("prefill_token_ms", 0.0);
      c.cost.per_decode_call_ms = k.value("decode_call_ms", 0.0);
      c.cost.per_decode_row_ms = k.value("decode_row_ms", 0.0);
      c.cost.per_context_token_ms = k.value("context_token_ms", 0.0);
      c.measured_at = j.value("measured_at", std::string());
      c.cached = true;
      return c;
    }
  }
  if (progress) progress("calibrating the step times (a runner of its own; cached afterwards)");
  DecoderServingConfig own = config;
  own.next_token = NextToken::fixed;
  own.keep_tokens = false;
  std::unique_ptr<ServedDecoder> d = generation.serve(own);
  DecoderCalibration c;
  c.cost = measure_calls(*d, std::max<int64_t>(1, max_batch));
  d->finish();
  c.measured_at = now_iso8601_utc();
  if (!file.empty()) {
    const nlohmann::ordered_json j{
        {"measured_at", c.measured_at},
        {"max_batch", max_batch},
        {"cost",
         {{"prefill_call_ms", c.cost.per_prefill_call_ms}, {"prefill_token_ms", c.cost.per_prefill_token_ms},
          {"decode_call_ms", c.cost.per_decode_call_ms}, {"decode_row_ms", c.cost.per_decode_row_ms},
          {"context_token_ms", c.cost.per_context_token_ms}}}};
    try {
      fs::create_directories(fs::path(file).parent_path());
      write_file_atomically(file, j.dump(2));
    } catch (const std::exception&) {  // an unwritable cache costs the next run a calibration, not this one
    }
  }
  return c;
}

}  // namespace rooflens::capacity
