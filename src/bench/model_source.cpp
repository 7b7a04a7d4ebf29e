#include "bench/model_source.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "core/errors.h"

namespace rooflens::bench {
namespace fs = std::filesystem;
namespace {

constexpr int kMaxDepth = 32;
constexpr const char* kDataSetPrefix = "test_data_set_";

std::string lower_ext(const fs::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

// Path of `p` below `root`, '/'-separated; the last component of `root` when p == root.
std::string name_below(const fs::path& p, const fs::path& root) {
  fs::path rel = p.lexically_relative(root);
  if (rel.empty() || rel == ".") return fs::absolute(root).lexically_normal().filename().string();
  return rel.generic_string();
}

struct Walker {
  const fs::path& root;
  std::vector<BenchModel>& out;

  void walk(const fs::path& dir, int depth) {
    if (depth > kMaxDepth) return;
    std::vector<fs::path> subdirs, onnx;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
      const std::string name = e.path().filename().string();
      if (name.empty() || name[0] == '.') continue;
      if (e.is_directory(ec)) subdirs.push_back(e.path());
      else if (e.is_regular_file(ec) && lower_ext(e.path()) == ".onnx") onnx.push_back(e.path());
    }
    std::sort(subdirs.begin(), subdirs.end());
    std::sort(onnx.begin(), onnx.end());
    std::vector<fs::path> sets = data_set_dirs(dir);
    auto model_onnx = std::find_if(onnx.begin(), onnx.end(), [](const fs::path& p) { return p.filename() == "model.onnx"; });
    if (model_onnx != onnx.end() || !sets.empty()) {
      add_test_case(dir, model_onnx != onnx.end() ? *model_onnx : fs::path(), onnx, sets);
      return;  // a test case's folders are its data, not further models
    }
    for (const auto& f : onnx) out.push_back(loose_model(f));
    for (const auto& d : subdirs) walk(d, depth + 1);
  }

  void add_test_case(const fs::path& dir, fs::path model, const std::vector<fs::path>& onnx,
                     const std::vector<fs::path>& sets) {
    BenchModel m;
    m.name = name_below(dir, root);
    m.data_sets = sets;
    if (model.empty() && onnx.size() == 1) model = onnx[0];
    m.path = model;
    if (model.empty()) m.skip_type = "no-model";
    if (model.empty())
      m.skip = onnx.empty() ? "test_data_set_* folders but no .onnx file in " + dir.string()
                            : "test_data_set_* folders next to several .onnx files and no model.onnx in " + dir.string();
    out.push_back(std::move(m));
  }

  BenchModel loose_model(const fs::path& f) const {
    BenchModel m;
    fs::path stem = f.parent_path() / f.stem();
    m.name = name_below(stem, root);
    m.path = f;
    return m;
  }
};

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw UserError(p.string() + ": cannot read the model list");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<BenchModel> from_source(const std::string& source, const DiscoveryOptions& o,
                                    std::vector<std::string>& notes) {
  fs::path p(source);
  std::error_code ec;
  if (!fs::exists(p, ec))
    throw UserError(source + ": no such file or directory (a SOURCE is a folder of models, a .onnx file or a .json "
                             "model list)");
  std::vector<BenchModel> out;
  if (fs::is_directory(p, ec)) {
    Walker{p, out}.walk(p, 0);
    std::sort(out.begin(), out.end(), [](const BenchModel& a, const BenchModel& b) { return a.name < b.name; });
    return out;
  }
  if (lower_ext(p) == ".json") return parse_model_list(read_text(p), p, o.test_hooks, notes);
  BenchModel m;
  m.path = p;
  m.name = p.filename() == "model.onnx" && p.has_parent_path() ? fs::absolute(p).parent_path().filename().string()
                                                               : p.stem().string();
  if (p.filename() == "model.onnx") m.data_sets = data_set_dirs(p.parent_path().empty() ? "." : p.parent_path());
  out.push_back(std::move(m));
  return out;
}

}  // namespace

bool test_hooks_enabled_by_env() {
  const char* v = std::getenv("ROOFLENS_TEST_HOOKS");
  return v && std::string(v) == "1";
}

std::vector<fs::path> data_set_dirs(const fs::path& dir) {
  std::vector<std::pair<long, fs::path>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(kDataSetPrefix, 0) != 0 || !e.is_directory(ec)) continue;
    std::string digits = name.substr(std::char_traits<char>::length(kDataSetPrefix));
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), digit)) continue;
    found.emplace_back(std::stol(digits), e.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  for (auto& [n, p] : found) out.push_back(std::move(p));
  return out;
}

Discovery discover_models(const std::vector<std::string>& sources, const DiscoveryOptions& o) {
  std::optional<std::regex> filter;
  if (!o.filter.empty()) {
    try {
      filter.emplace(o.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw UsageError("--filter '" + o.filter + "': not a valid regular expression (" + e.what() + ")");
    }
  }
  Discovery d;
  std::map<std::string, std::string> seen;  // name -> source
  for (const auto& source : sources) {
    for (auto& m : from_source(source, o, d.notes)) {
      if (filter && !std::regex_search(m.name, *filter)) continue;
      auto [it, fresh] = seen.emplace(m.name, source);
      if (!fresh)
        throw UserError("model name '" + m.name + "' appears in " + it->second + " and in " + source +
                        "; give each model once (or name list entries apart)");
      d.models.push_back(std::move(m));
    }
  }
  return d;
}

}  // namespace rooflens::bench
