// Fuzz target (fuzz_targets.h) over what lint and whatif read from users: a report JSON (then every lint rule and a whatif
// projection over it), a perf-ratio table, a --sparse spec; and what `rooflens score` reads: a suite file
// (--suite) and a stored score result (--from, then scored again); and what `capacity` on a decoder reads: a request
// trace (--trace) and the length flags (--input-tokens, --output-tokens). Any input must end in a result or a
// UserError/UsageError — never a crash, a hang or a sanitizer report. Seeds: tests/fuzz/seeds/report_readers/.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "capacity/generative/lengths.h"
#include "capacity/generative/trace.h"
#include "core/errors.h"
#include "core/report.h"
#include "core/score.h"
#include "fuzz_targets.h"
#include "lint/lint.h"
#include "score/arithmetic.h"
#include "score/suite.h"
#include "whatif/perf_table.h"
#include "whatif/whatif.h"

int rooflens::fuzz::report_readers(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    rooflens::PerfTable t = rooflens::parse_perf_table(text, "fuzz.csv");
    (void)rooflens::lookup_perf_ratio(t, "64x64", "4x1", 0.9);
  } catch (const rooflens::UserError&) {
  }
  try {
    (void)rooflens::parse_sparse(text.substr(0, 64));
  } catch (const rooflens::UsageError&) {
  }
  try {
    (void)rooflens::capacity::generative::parse_trace(text, "fuzz.jsonl");
  } catch (const rooflens::UserError&) {
  }
  try {
    const size_t cut = text.find('\n');
    const auto plan = rooflens::capacity::generative::parse_length_plan(
        text.substr(0, std::min<size_t>(cut, 64)), cut == std::string::npos ? "" : text.substr(cut + 1, 64));
    (void)rooflens::capacity::generative::draw_shapes(plan, 8, 1);
  } catch (const rooflens::UsageError&) {
  }
  try {
    (void)rooflens::score::parse_suite(text, "fuzz.json");
  } catch (const rooflens::UserError&) {
  }
  try {
    rooflens::ScoreResult r = rooflens::score_from_json(text);
    rooflens::score::rescore(r, {"fp32 latency", "generative"});
    (void)rooflens::score_to_json(r);
  } catch (const rooflens::UserError&) {
  }
  try {
    rooflens::Report r = rooflens::report_from_json(text);
    (void)rooflens::lint_report(r);
    rooflens::WhatIfOptions o;
    o.batch = 8;
    o.quantize = "int8";
    o.sparse = rooflens::SparseSpec{0.5, "2:4"};
    (void)rooflens::project(r, o);
  } catch (const rooflens::UserError&) {
  } catch (const rooflens::UsageError&) {
  } catch (const std::runtime_error&) {  // report_from_json's documented error type for foreign JSON
  }
  return 0;
}
