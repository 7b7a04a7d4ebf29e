#include "backends/common/runner_wire.h"

#include <cstdlib>
#include <filesystem>

#include "core/base64.h"

namespace rooflens {

using json = nlohmann::json;

json feed_to_json(const FeedSpec& f) {
  json j{{"dims", f.dims}, {"shapes", f.shapes}, {"int_input_max", f.int_input_max}, {"seed", f.seed}};
  json files = json::object();
  for (const auto& [k, v] : f.files) files[k] = std::filesystem::absolute(v).string();
  j["files"] = std::move(files);
  if (f.test_data_dir) j["test_data_dir"] = std::filesystem::absolute(*f.test_data_dir).string();
  return j;
}

FeedSpec feed_from_json(const json& j) {
  FeedSpec f;
  j.at("dims").get_to(f.dims);
  j.at("shapes").get_to(f.shapes);
  j.at("int_input_max").get_to(f.int_input_max);
  j.at("seed").get_to(f.seed);
  for (const auto& [k, v] : j.at("files").items()) f.files[k] = v.get<std::string>();
  if (j.contains("test_data_dir")) f.test_data_dir = j.at("test_data_dir").get<std::string>();
  return f;
}

json tensor_to_json(const TensorValue& t) {
  return {{"name", t.name}, {"data_type", t.data_type}, {"dims", t.dims}, {"data_b64", base64_encode(t.bytes)}};
}

TensorValue tensor_from_json(const json& j) {
  TensorValue t;
  j.at("name").get_to(t.name);
  j.at("data_type").get_to(t.data_type);
  j.at("dims").get_to(t.dims);
  t.bytes = base64_decode(j.at("data_b64").get<std::string>());
  return t;
}

RunnerConfig sibling_runner(const std::string& program, const std::string& name) {
  namespace fs = std::filesystem;
  fs::path dir;
  if (const char* env = std::getenv("ROOFLENS_RUNNER_BIN_DIR"); env && *env) {
    dir = env;
  } else if (const char* bin = std::getenv("ROOFLENS_BINARY"); bin && *bin) {
    dir = fs::path(bin).parent_path();
  } else {
    std::error_code ec;
    dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  }
  RunnerConfig c;
  c.command = {(dir / program).string()};
  c.name = name;
  c.missing_hint = "it is built beside rooflens; set ROOFLENS_RUNNER_BIN_DIR to its folder";
  return c;
}

}  // namespace rooflens
