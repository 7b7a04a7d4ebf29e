#pragma once
// What `rooflens bench` runs: models found in SOURCEs. A SOURCE is
//   - a directory in the ONNX test layout, searched recursively: a directory holding model.onnx and/or
//     test_data_set_N/ folders is one test case (named by its path below the SOURCE); other .onnx files found
//     on the way are models of their own (named by their path without .onnx);
//   - a single .onnx file (named by its stem; test_data_set_N/ next to it are used when it is model.onnx);
//   - a JSON model list (.json): per-model path, test data, input shapes/dims, inference session options, tolerances.
// Names are unique; --filter keeps the models whose name matches a regular expression.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rooflens::bench {

struct BenchModel {
  std::string name;                              // unique display name
  std::filesystem::path path;                    // the .onnx file
  std::vector<std::filesystem::path> data_sets;  // test_data_set_N/ folders in index order
  std::map<std::string, std::vector<int64_t>> shapes;  // input shapes for generated inputs (model list)
  std::map<std::string, int64_t> dims;                 // symbolic dim sizes (model list)
  std::map<std::string, std::vector<double>> values;   // contents of small inputs, as --value gives them (model list)
  std::vector<std::pair<std::string, std::string>> options;  // inference session options over -B's (model list)
  std::optional<double> rtol, atol, percent_mismatch;        // per-model tolerances (model list)
  std::string skip;                              // non-empty: recorded as skipped with this reason, never run
  std::string skip_type;                         // its class: "no-model" (test data without a model), "listed"
  // TEST-ONLY fault injection (model list field "test_hook": "segv" | "sigkill" | "hang"), kept only when the
  // environment has ROOFLENS_TEST_HOOKS=1: the runner crashes or hangs while serving this model.
  std::string test_hook;
};

struct DiscoveryOptions {
  std::string filter;          // ECMAScript regex searched in model names; "" keeps all
  bool test_hooks = false;     // honour "test_hook" fields (ROOFLENS_TEST_HOOKS=1)
};

struct Discovery {
  std::vector<BenchModel> models;  // sorted by name within each source, sources in the order given
  std::vector<std::string> notes;  // things the user should know (ignored fields, ...)
};

// Throws UserError (one line naming the path) for a missing SOURCE or a malformed model list, UsageError for a
// bad --filter regex.
Discovery discover_models(const std::vector<std::string>& sources, const DiscoveryOptions& options);

// test_data_set_N/ folders of `dir`, by N.
std::vector<std::filesystem::path> data_set_dirs(const std::filesystem::path& dir);

// Parses a model list (see docs/bench.md); `file` is used in messages and relative paths start at its folder.
std::vector<BenchModel> parse_model_list(const std::string& text, const std::filesystem::path& file, bool test_hooks,
                                         std::vector<std::string>& notes);

bool test_hooks_enabled_by_env();  // ROOFLENS_TEST_HOOKS=1

}  // namespace rooflens::bench
