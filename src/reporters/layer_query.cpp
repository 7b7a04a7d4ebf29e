#include "reporters/layer_query.h"

#include <algorithm>
#include <numeric>
#include <regex>
#include <set>

#include "core/errors.h"

namespace rooflens {
namespace {

std::string join_keys(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keys[i];
  return out;
}

template <class Map>
std::vector<std::string> map_keys(const Map& m) {
  std::vector<std::string> keys;
  for (const auto& kv : m) keys.push_back(kv.first);
  return keys;
}

std::regex compile(const std::string& pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw UsageError("--name: invalid regular expression '" + pattern + "': " + e.what());
  }
}

double ratio_or_zero(double num, double den) { return den > 0 ? num / den : 0; }

LayerRow layer_row(const Layer& l, int64_t index, double run_time) {
  LayerRow r;
  r.name = l.name;
  r.op = l.op;
  r.onnx_nodes = l.onnx_nodes;
  r.index = index;
  r.time_ms = l.time_ms;
  r.share = ratio_or_zero(l.time_ms, run_time);
  r.flops = static_cast<double>(l.flops);
  r.macs = static_cast<double>(l.macs);
  r.bytes = static_cast<double>(l.bytes);
  r.gflops = l.gflops;
  r.gbps = l.gbps;
  r.intensity = l.intensity;
  r.efficiency = l.efficiency;
  r.bound = l.bound;
  r.roof = l.roof;
  r.provider = l.provider;
  r.alias = l.alias;
  r.cost_known = l.cost_known;
  r.input_shapes = l.input_shapes;
  r.output_shapes = l.output_shapes;
  return r;
}

// Steps 1 and 2: op type and name filter, then the time filter.
std::vector<std::pair<int64_t, const Layer*>> matching_layers(const ProfileRun& run, const LayerQuery& q) {
  std::set<std::string> types(q.types.begin(), q.types.end());
  std::optional<std::regex> re;
  if (!q.name_regex.empty()) re = compile(q.name_regex);
  auto name_matches = [&](const Layer& l) {
    if (!re) return true;
    if (std::regex_search(l.name, *re)) return true;
    return std::any_of(l.onnx_nodes.begin(), l.onnx_nodes.end(),
                       [&](const std::string& n) { return std::regex_search(n, *re); });
  };
  std::vector<std::pair<int64_t, const Layer*>> kept;
  for (size_t i = 0; i < run.layers.size(); ++i) {
    const Layer& l = run.layers[i];
    if (!types.empty() && !types.count(l.op)) continue;
    if (!name_matches(l)) continue;
    kept.emplace_back(static_cast<int64_t>(i), &l);
  }
  std::erase_if(kept, [&](const auto& entry) {
    double t = entry.second->time_ms;
    return (q.min_time_ms && t < *q.min_time_ms) || (q.max_time_ms && t > *q.max_time_ms);
  });
  return kept;
}

// FLOP/s, GB/s and intensity of a group follow from its aggregated time, FLOPs and bytes.
void derive_rates(LayerRow& r) {
  r.gflops = ratio_or_zero(r.flops, r.time_ms * 1e6);
  r.gbps = ratio_or_zero(r.bytes, r.time_ms * 1e6);
  r.intensity = ratio_or_zero(r.flops, r.bytes);
}

// Efficiency is achieved / attainable, i.e. the ideal time over the actual time; a sum of layers is therefore
// Σ(time·eff) / Σ time. The other aggregates apply to the layers' efficiencies directly.
double group_efficiency(const std::vector<const Layer*>& members, const std::string& aggregate) {
  std::vector<double> eff;
  double ideal = 0, total = 0;
  for (const Layer* l : members) {
    eff.push_back(l->efficiency);
    ideal += l->time_ms * l->efficiency;
    total += l->time_ms;
  }
  if (aggregate == "sum") return ratio_or_zero(ideal, total);
  return layer_aggregates().at(aggregate)(eff);
}

LayerRow group_row(const std::string& key, const std::vector<std::pair<int64_t, const Layer*>>& members,
                   const std::string& aggregate, double run_time) {
  const Aggregate& agg = layer_aggregates().at(aggregate);
  std::vector<double> time, flops, macs, bytes;
  std::vector<const Layer*> layers;
  std::set<std::string> bounds;
  LayerRow r;
  r.name = r.op = key;
  r.index = members.front().first;
  r.layers = static_cast<int64_t>(members.size());
  r.alias = true;
  for (const auto& [index, l] : members) {
    layers.push_back(l);
    time.push_back(l->time_ms);
    flops.push_back(static_cast<double>(l->flops));
    macs.push_back(static_cast<double>(l->macs));
    bytes.push_back(static_cast<double>(l->bytes));
    if (!l->bound.empty()) bounds.insert(l->bound);
    r.onnx_nodes.insert(r.onnx_nodes.end(), l->onnx_nodes.begin(), l->onnx_nodes.end());
    r.alias = r.alias && l->alias;
    r.cost_known = r.cost_known && l->cost_known;
    if (r.provider.empty()) r.provider = l->provider;
    else if (r.provider != l->provider) r.provider = "mixed";
  }
  r.time_ms = agg(time);
  r.share = ratio_or_zero(r.time_ms, run_time);
  r.flops = agg(flops);
  r.macs = agg(macs);
  r.bytes = agg(bytes);
  derive_rates(r);
  r.efficiency = group_efficiency(layers, aggregate);
  r.bound = bounds.size() == 1 ? *bounds.begin() : bounds.empty() ? "" : "mixed";
  return r;
}

// Step 3: one row per group, groups in order of their first layer.
std::vector<LayerRow> aggregate_rows(const std::vector<std::pair<int64_t, const Layer*>>& kept, const LayerQuery& q,
                                     double run_time) {
  auto key_it = layer_group_keys().find(q.aggregate_by);
  if (key_it == layer_group_keys().end())
    throw UsageError("--aggregate-by: unknown key '" + q.aggregate_by + "' (" +
                     join_keys(map_keys(layer_group_keys())) + ")");
  if (!layer_aggregates().count(q.aggregate))
    throw UsageError("--aggregate: unknown function '" + q.aggregate + "' (" +
                     join_keys(map_keys(layer_aggregates())) + ")");
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::pair<int64_t, const Layer*>>> groups;
  for (const auto& entry : kept) {
    std::string key = key_it->second(*entry.second);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(entry);
  }
  std::vector<LayerRow> rows;
  for (const auto& key : order) rows.push_back(group_row(key, groups[key], q.aggregate, run_time));
  return rows;
}

}  // namespace

const std::map<std::string, RowKey>& layer_sort_keys() {
  static const std::map<std::string, RowKey> keys{
      {"time", [](const LayerRow& r) { return r.time_ms; }},
      {"flops", [](const LayerRow& r) { return r.flops; }},
      {"macs", [](const LayerRow& r) { return r.macs; }},
      {"bytes", [](const LayerRow& r) { return r.bytes; }},
      {"gflops", [](const LayerRow& r) { return r.gflops; }},
      {"gbps", [](const LayerRow& r) { return r.gbps; }},
      {"intensity", [](const LayerRow& r) { return r.intensity; }},
      {"efficiency", [](const LayerRow& r) { return r.efficiency; }},
  };
  return keys;
}

std::vector<std::string> keys_of_sort() {
  return {"time", "flops", "macs", "bytes", "gflops", "gbps", "intensity", "efficiency"};
}

const std::map<std::string, Aggregate>& layer_aggregates() {
  static const std::map<std::string, Aggregate> aggs{
      {"sum", [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }},
      {"mean",
       [](const std::vector<double>& v) {
         return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
       }},
      {"max", [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }},
      {"min", [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()); }},
  };
  return aggs;
}

const std::map<std::string, GroupKey>& layer_group_keys() {
  static const std::map<std::string, GroupKey> keys{
      {"type", [](const Layer& l) { return l.op; }},
  };
  return keys;
}

OrderBy parse_order_by(const std::string& spec) {
  OrderBy o;
  o.ascending = !spec.empty() && spec[0] == '+';
  o.key = spec.substr(o.ascending ? 1 : 0);
  if (!layer_sort_keys().count(o.key))
    throw UsageError("--order-by: unknown column '" + spec + "' (" + join_keys(keys_of_sort()) +
                     "; prefix + for ascending)");
  return o;
}

void check_name_regex(const std::string& pattern) { compile(pattern); }

LayerSelection select_layers(const ProfileRun& run, const LayerQuery& q) {
  OrderBy order = parse_order_by(q.order_by);
  LayerSelection sel;
  sel.layers_in_run = run.layers.size();
  for (const auto& l : run.layers) sel.run_time_ms += l.time_ms;

  auto kept = matching_layers(run, q);
  sel.layers_matched = kept.size();
  for (const auto& entry : kept) {
    sel.matched_time_ms += entry.second->time_ms;
    sel.matched_flops += static_cast<double>(entry.second->flops);
    sel.matched_bytes += static_cast<double>(entry.second->bytes);
  }

  sel.aggregated = !q.aggregate_by.empty();
  if (sel.aggregated) {
    sel.rows = aggregate_rows(kept, q, sel.run_time_ms);
  } else {
    for (const auto& entry : kept) sel.rows.push_back(layer_row(*entry.second, entry.first, sel.run_time_ms));
  }

  const RowKey& key = layer_sort_keys().at(order.key);
  std::stable_sort(sel.rows.begin(), sel.rows.end(), [&](const LayerRow& a, const LayerRow& b) {
    return order.ascending ? key(a) < key(b) : key(a) > key(b);
  });
  double cumulative = 0;
  for (auto& r : sel.rows) r.cumulative = cumulative += r.share;

  sel.rows_before_top = sel.rows.size();
  if (q.top && sel.rows.size() > q.top) sel.rows.resize(q.top);
  return sel;
}

}  // namespace rooflens
