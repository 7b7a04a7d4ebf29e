#pragma once
// The shape flags shared by every command that loads a model (--shape, --dim, --value, --batch).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "model/shapes.h"

namespace rooflens::cli {

struct ShapeFlags {
  std::vector<std::string> shapes, dims, values;
  int64_t batch = 0;  // 0 = not given

  void add_to(CLI::App& app, bool with_batch = true);  // profile has its own -b (ranges)
  ShapeOverrides overrides() const;  // throws UsageError on malformed values
};

}  // namespace rooflens::cli
