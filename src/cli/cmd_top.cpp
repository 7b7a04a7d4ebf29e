// `rooflens top REPORT.json`: the heaviest layers of a profiled run, after MegEngine's profile_analyze.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "core/errors.h"
#include "reporters/layer_query.h"
#include "reporters/report_text.h"
#include "reporters/top_report.h"

namespace rooflens::cli {
namespace {

struct TopArgs {
  std::string report, format = "table", print_only;
  TopView view;
  int64_t batch = 0;
  double min_time = 0, max_time = 0;
  CLI::Option *batch_opt = nullptr, *min_opt = nullptr, *max_opt = nullptr;
};

// A CLI11 validator from a check that throws UsageError("--flag: what"); CLI11 adds the flag name itself.
CLI::Validator validator(void (*check)(const std::string&), const std::string& desc) {
  return CLI::Validator(
      [check](std::string& value) {
        try {
          check(value);
        } catch (const UsageError& e) {
          std::string msg = e.what();
          auto colon = msg.find(": ");
          return msg.rfind("--", 0) == 0 && colon != std::string::npos ? msg.substr(colon + 2) : msg;
        }
        return std::string();
      },
      desc);
}

template <class Map>
std::vector<std::string> keys(const Map& m) {
  std::vector<std::string> out;
  for (const auto& kv : m) out.push_back(kv.first);
  return out;
}

int run_top_command(TopArgs& a) {
  if (a.batch_opt->count()) a.view.batch = a.batch;
  if (a.min_opt->count()) a.view.query.min_time_ms = a.min_time;
  if (a.max_opt->count()) a.view.query.max_time_ms = a.max_time;
  if (a.view.query.min_time_ms && a.view.query.max_time_ms && *a.view.query.min_time_ms > *a.view.query.max_time_ms)
    throw UsageError("--min-time " + exact(a.min_time) + " is above --max-time " + exact(a.max_time));
  a.view.print_only = a.print_only;
  a.view.source = a.report;
  Report report = load_profile_report(a.report);
  TopResult result = run_top(report, a.view);
  std::cout << top_formats().at(a.format)(result);
  return 0;
}

std::string order_help() {
  std::string cols;
  for (const auto& k : keys_of_sort()) cols += (cols.empty() ? "" : "|") + k;
  return "Sort rows by " + cols + " (descending; +COL ascending; default time)";
}

}  // namespace

void setup_top(CLI::App& root, Action& action) {
  auto a = std::make_shared<TopArgs>();
  LayerQuery& q = a->view.query;
  CLI::App* cmd = root.add_subcommand("top", "The heaviest layers of a profile report (MegEngine profile_analyze "
                                             "style): filter, aggregate by op type, sort, top N");
  cmd->add_option("report", a->report, "Profile report (rooflens profile -o REPORT.json)")->required();
  cmd->add_option("--top", q.top, "Show the first N rows after sorting (default 10; 0 = all)");
  cmd->add_option("--type", q.types, "Keep layers of this op type (repeatable, or comma-separated)")
      ->delimiter(',');
  cmd->add_option("--name", q.name_regex, "Keep layers whose name or one of whose ONNX node names matches REGEX "
                                          "(ECMAScript, searched anywhere in the name)")
      ->check(validator(&check_name_regex, "REGEX"));
  cmd->add_option("--order-by", q.order_by, order_help())
      ->check(validator([](const std::string& s) { parse_order_by(s); }, "COL"));
  auto* by = cmd->add_option("--aggregate-by", q.aggregate_by, "One row per op type")
                 ->check(CLI::IsMember(keys(layer_group_keys())));
  cmd->add_option("--aggregate", q.aggregate, "How --aggregate-by combines time, FLOPs, MACs and bytes: "
                                              "sum|mean|max|min (default sum)")
      ->check(CLI::IsMember(keys(layer_aggregates())))
      ->needs(by);
  a->min_opt = cmd->add_option("--min-time", a->min_time, "Keep layers taking at least MS milliseconds")
                   ->check(CLI::NonNegativeNumber);
  a->max_opt = cmd->add_option("--max-time", a->max_time, "Keep layers taking at most MS milliseconds")
                   ->check(CLI::NonNegativeNumber);
  a->batch_opt = cmd->add_option("--batch", a->batch, "Show the run of this batch size (the first such run; default: the first run)");
  cmd->add_option("--print-only", a->print_only, "Print only the summary or only the layer table")
      ->check(CLI::IsMember(top_print_only_values()));
  cmd->add_option("--format", a->format, "Output format (default table; csv prints one table: the layers, or the "
                                         "summary with --print-only summary)")
      ->check(CLI::IsMember(keys(top_formats())));
  cmd->footer(
      "Order of processing:\n"
      "  1. filter       --type and --name\n"
      "  2. time filter  --min-time / --max-time (each layer's own median time, inclusive)\n"
      "  3. aggregate    --aggregate-by type with --aggregate sum|mean|max|min (time, FLOPs, MACs, bytes;\n"
      "                  GFLOP/s, GB/s and intensity follow from them; efficiency of a sum is time-weighted)\n"
      "  4. sort         --order-by (ties keep execution order)\n"
      "  5. top          --top N\n"
      "Shares are of the whole run's layer time; cum is the running share in the printed order.\n"
      "Examples:\n"
      "  rooflens top report.json\n"
      "  rooflens top report.json --type Conv --order-by +efficiency --top 5\n"
      "  rooflens top report.json --aggregate-by type --aggregate sum --top 0\n"
      "  rooflens top report.json --name 'layer4\\.' --min-time 0.5 --batch 8 --format csv");
  cmd->callback([a, &action] { action = [a] { return run_top_command(*a); }; });
}

}  // namespace rooflens::cli
