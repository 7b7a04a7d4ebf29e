// The JSON model list of `rooflens bench` (format in docs/bench.md). Keys of ONNX Runtime's perf scripts'
// model lists (model_name, model_path, test_data_path, working_directory) are accepted too.
#include <nlohmann/json.hpp>

#include "bench/model_source.h"
#include "core/errors.h"

namespace rooflens::bench {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;  // options keep the order the list gives them
namespace {

const std::map<std::string, std::string>& aliases() {
  static const std::map<std::string, std::string> a{
      {"model_name", "name"}, {"model_path", "path"}, {"test_data_path", "test_data"}};
  return a;
}

const std::vector<std::string>& known_keys() {
  static const std::vector<std::string> k{"name", "path", "test_data", "working_directory", "shapes", "dims", "values",
                                          "options", "rtol", "atol", "percent_mismatch", "skip", "test_hook"};
  return k;
}

std::string option_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  throw std::invalid_argument("must be a string, number or boolean");
}

struct EntryReader {
  const fs::path& file;
  fs::path base;
  size_t index;
  bool test_hooks;
  std::vector<std::string>& notes;

  [[noreturn]] void fail(const std::string& what) const {
    throw UserError(file.string() + ": entry " + std::to_string(index + 1) + ": " + what);
  }

  json normalized(const json& raw) const {
    if (!raw.is_object()) fail("must be an object like {\"path\": \"model.onnx\"}");
    json e = json::object();
    for (const auto& [k, v] : raw.items()) {
      auto a = aliases().find(k);
      std::string key = a == aliases().end() ? k : a->second;
      if (std::find(known_keys().begin(), known_keys().end(), key) == known_keys().end()) {
        std::string list;
        for (const auto& n : known_keys()) list += (list.empty() ? "" : ", ") + n;
        fail("unknown field '" + k + "' (known: " + list + ")");
      }
      e[key] = v;
    }
    return e;
  }

  fs::path resolve(const std::string& p) const {
    fs::path q(p);
    return q.is_absolute() ? q : base / q;
  }

  BenchModel read(const json& raw) {
    json e = normalized(raw);
    BenchModel m;
    try {
      if (e.contains("working_directory")) base = resolve(e["working_directory"].get<std::string>());
      if (!e.contains("path")) fail("needs \"path\" (the .onnx file)");
      m.path = resolve(e["path"].get<std::string>());
      m.name = e.contains("name") ? e["name"].get<std::string>()
                                  : (m.path.filename() == "model.onnx" ? m.path.parent_path().filename() : m.path.stem())
                                        .string();
      if (m.name.empty()) fail("has an empty name");
      read_test_data(e, m);
      if (e.contains("shapes"))
        for (const auto& [k, v] : e["shapes"].items()) m.shapes[k] = v.get<std::vector<int64_t>>();
      if (e.contains("dims"))
        for (const auto& [k, v] : e["dims"].items()) m.dims[k] = v.get<int64_t>();
      if (e.contains("values"))
        for (const auto& [k, v] : e["values"].items())
          m.values[k] = v.is_array() ? v.get<std::vector<double>>() : std::vector<double>{v.get<double>()};
      if (e.contains("options"))
        for (const auto& [k, v] : e["options"].items()) m.options.emplace_back(k, option_text(v));
      if (e.contains("rtol")) m.rtol = e["rtol"].get<double>();
      if (e.contains("atol")) m.atol = e["atol"].get<double>();
      if (e.contains("percent_mismatch")) m.percent_mismatch = e["percent_mismatch"].get<double>();
      if (e.contains("skip")) {
        m.skip = e["skip"].get<std::string>();
        m.skip_type = "listed";
        if (m.skip.empty()) fail("\"skip\" needs a reason");
      }
      if (e.contains("test_hook")) read_test_hook(e["test_hook"].get<std::string>(), m);
    } catch (const json::exception& x) {
      fail(std::string("a field has the wrong type (") + x.what() + ")");
    } catch (const std::invalid_argument& x) {
      fail(std::string("an option ") + x.what());
    }
    return m;
  }

  // "test_data": a folder holding test_data_set_N/, or one test_data_set_N/ (or any folder of input_<i>.pb).
  // Without it, test_data_set_N/ next to the model are used.
  void read_test_data(const json& e, BenchModel& m) const {
    if (!e.contains("test_data")) {
      m.data_sets = data_set_dirs(m.path.parent_path().empty() ? fs::path(".") : m.path.parent_path());
      return;
    }
    fs::path d = resolve(e["test_data"].get<std::string>());
    std::error_code ec;
    if (!fs::is_directory(d, ec)) fail("test_data " + d.string() + " is not a folder");
    m.data_sets = data_set_dirs(d);
    if (m.data_sets.empty()) m.data_sets.push_back(d);
  }

  void read_test_hook(const std::string& hook, BenchModel& m) const {
    if (hook != "segv" && hook != "sigkill" && hook != "hang") fail("test_hook must be segv, sigkill or hang");
    if (test_hooks) m.test_hook = hook;
    else notes.push_back(file.string() + ": ignored test_hook of '" + m.name + "' (a test-only field; it needs "
                         "ROOFLENS_TEST_HOOKS=1)");
  }
};

}  // namespace

std::vector<BenchModel> parse_model_list(const std::string& text, const fs::path& file, bool test_hooks,
                                         std::vector<std::string>& notes) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) throw UserError(file.string() + ": not valid JSON (a model list is {\"models\": [...]})");
  const json* list = &doc;
  if (doc.is_object()) {
    if (!doc.contains("models") || !doc["models"].is_array())
      throw UserError(file.string() + ": a model list needs a \"models\" array");
    list = &doc["models"];
  }
  if (!list->is_array()) throw UserError(file.string() + ": a model list is {\"models\": [...]} or a JSON array");
  fs::path base = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::vector<BenchModel> out;
  for (size_t i = 0; i < list->size(); ++i) {
    EntryReader r{file, base, i, test_hooks, notes};
    out.push_back(r.read((*list)[i]));
  }
  return out;
}

}  // namespace rooflens::bench
