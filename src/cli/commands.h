#pragma once
// Subcommand registry: each src/cli/cmd_*.cpp adds its subcommand to the root app and, when selected,
// the action it stores runs. main.cpp only dispatches.
#include <functional>
#include <vector>

#include <CLI/CLI.hpp>

namespace rooflens::cli {

using Action = std::function<int()>;
using CommandSetup = void (*)(CLI::App& root, Action& action);

void setup_analyze(CLI::App& root, Action& action);  // cmd_analyze.cpp
void setup_zoo(CLI::App& root, Action& action);      // cmd_zoo.cpp
void setup_hw(CLI::App& root, Action& action);       // cmd_hw.cpp
void setup_profile(CLI::App& root, Action& action);  // cmd_profile.cpp
void setup_top(CLI::App& root, Action& action);      // cmd_top.cpp
void setup_export(CLI::App& root, Action& action);   // cmd_export.cpp
void setup_report(CLI::App& root, Action& action);   // cmd_report.cpp
void setup_bench(CLI::App& root, Action& action);    // cmd_bench.cpp
void setup_compare(CLI::App& root, Action& action);  // cmd_compare.cpp
void setup_history(CLI::App& root, Action& action);  // cmd_history.cpp
void setup_db(CLI::App& root, Action& action);       // cmd_db.cpp
void setup_lint(CLI::App& root, Action& action);     // cmd_lint.cpp
void setup_whatif(CLI::App& root, Action& action);   // cmd_whatif.cpp
void setup_generate(CLI::App& root, Action& action); // cmd_generate.cpp
void setup_import(CLI::App& root, Action& action);   // cmd_import.cpp
void setup_capacity(CLI::App& root, Action& action); // cmd_capacity.cpp
void setup_doctor(CLI::App& root, Action& action);   // cmd_doctor.cpp
void setup_score(CLI::App& root, Action& action);    // cmd_score.cpp

inline std::vector<CommandSetup> all_commands() {
  return {&setup_analyze, &setup_profile, &setup_generate, &setup_capacity, &setup_score, &setup_bench, &setup_compare,
          &setup_import,  &setup_history, &setup_top,      &setup_lint,     &setup_whatif, &setup_export,
          &setup_report,  &setup_zoo,     &setup_hw,       &setup_db,       &setup_doctor};
}

}  // namespace rooflens::cli
