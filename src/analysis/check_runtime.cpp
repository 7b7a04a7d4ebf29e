#include "analysis/check_runtime.h"

#include <filesystem>
#include <ostream>

#include <nlohmann/json.hpp>

#include "analysis/input_bounds.h"
#include "core/errors.h"
#include "core/temp_dir.h"
#include "core/text_table.h"
#include "model/expose_outputs.h"
#include "model/loader.h"
#include "model/runtime_shape_check.h"
#include "core/units.h"

namespace rooflens {
namespace {

namespace fs = std::filesystem;

// The copy with exposed outputs lives in a temp dir; external data files are linked in at the same relative paths.
fs::path exposed_copy(const Model& m, const fs::path& model, const TempDir& tmp) {
  const fs::path out = tmp.path() / model.filename();
  write_with_outputs(model, observable_tensors(m), out);
  const fs::path dir = fs::absolute(model).parent_path();
  for (const auto& init : m.initializers) {
    if (init.external_file.empty()) continue;
    const fs::path target = fs::absolute(init.external_file);
    const fs::path link = tmp.path() / fs::relative(target, dir);
    if (fs::exists(link)) continue;
    fs::create_directories(link.parent_path());
    fs::create_symlink(target, link);
  }
  return out;
}

void print_items(std::ostream& out, const char* title, const std::vector<ShapeCheckItem>& items) {
  if (items.empty()) return;
  out << "\n" << title << " (" << items.size() << "):\n";
  TextTable t;
  t.columns = {{"node", false, 48}, {"op"}, {"tensor", false, 48}, {"static"}, {"runtime"}};
  for (const auto& i : items) t.rows.push_back({i.node, i.op, i.tensor, i.static_shape, shape_text(i.runtime)});
  out << t.render();
}

nlohmann::ordered_json items_json(const std::vector<ShapeCheckItem>& items) {
  auto a = nlohmann::ordered_json::array();
  for (const auto& i : items)
    a.push_back({{"node", i.node}, {"op", i.op}, {"tensor", i.tensor}, {"static", i.static_shape}, {"runtime", i.runtime}});
  return a;
}

}  // namespace

int check_runtime(const CheckRuntimeOptions& o, const std::function<std::unique_ptr<Backend>()>& make_backend,
                  std::ostream& out) {
  const Model m = load_model(o.model, o.shapes);
  TempDir tmp("rooflens-check");
  const fs::path copy = exposed_copy(m, o.model, tmp);
  const std::unique_ptr<Backend> backend = make_backend();
  const BackendInfo info = backend->info();
  if (o.progress)
    o.progress("running " + o.model + " once on " + info.name + " " + info.version + " with " +
               std::to_string(observable_tensors(m).size()) + " intermediate tensors exposed");
  auto runner = backend->live_runner();
  if (!runner) throw UsageError("--check-runtime: backend " + info.name + " cannot run a model outside a profile");
  ModelLoad load;
  load.model = copy;
  load.dims = m.input_symbols;
  load.timeout = o.timeout;
  runner->load(load);
  const GeneratedInputPlan plan = plan_generated_inputs(m);
  FeedSpec feed;
  feed.dims = plan.dims;
  feed.shapes = plan.shapes;
  feed.int_input_max = plan.int_input_max;
  feed.values = plan.values;
  ShapeCheck c = compare_with_runtime(m, runner->output_shapes(feed, o.timeout));
  runner->unload();
  if (c.inside_bodies > 0) {
    // Tensors inside If/Loop/Scan bodies cannot be graph outputs; an unoptimized inference session's profile reports
    // every node it ran with its output shapes instead.
    if (o.progress)
      o.progress("profiling one unoptimized run for the " + std::to_string(c.inside_bodies) +
                 " tensors inside subgraph bodies");
    ModelLoad plain;
    plain.model = fs::absolute(o.model);
    plain.dims = m.input_symbols;
    plain.timeout = o.timeout;
    plain.options = {{"graphOptimizationLevel", "disabled"}};
    runner->load(plain);
    TimingOptions once;
    once.warmup_iterations = 0;
    once.warmup_ms = 0;
    once.iterations = 1;
    once.duration_s = 0;
    once.profile_iterations = 1;
    const Measurement run = runner->measure(feed, once, tmp.path(), o.timeout);
    runner->unload();
    std::vector<NodeShapes> ran;
    for (const auto& k : run.kernels) ran.push_back({k.name, k.output_shapes});
    compare_body_nodes(m, ran, c);
  }

  if (o.json) {
    nlohmann::ordered_json j{{"model", o.model},
                             {"runtime", info.name + " " + info.version},
                             {"compared", c.compared},
                             {"equal", c.equal},
                             {"mismatches", items_json(c.mismatches)},
                             {"unresolved", items_json(c.unresolved)},
                             {"missing", items_json(c.missing)},
                             {"not_taken", c.not_taken},
                             {"non_tensors", c.non_tensors}};
    out << j.dump(2) << "\n";
  } else {
    out << o.model << " against " << info.name << " " << info.version << ": " << c.compared
        << " tensors compared, " << c.equal << " equal, " << c.mismatches.size() << " differ, " << c.unresolved.size()
        << " unresolved statically\n";
    if (c.not_taken) out << c.not_taken << " tensors in If branches not taken (the runtime did not compute them either)\n";
    if (!c.missing.empty()) out << c.missing.size() << " tensors the runtime did not return\n";
    print_items(out, "static shape differs from the runtime's", c.mismatches);
    print_items(out, "unresolved statically (the runtime's shape shown)", c.unresolved);
    print_items(out, "not returned by the runtime", c.missing);
  }
  return c.mismatches.empty() ? 0 : 1;
}

}  // namespace rooflens
