#pragma once
// The backends rooflens can run, by name (`-B name:options`). Adding a backend is its folder plus one line in
// registry.cpp (and its CMake option when it needs a library not everyone has).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"

namespace rooflens {

struct BackendEntry {
  std::string name;
  std::unique_ptr<Backend> (*make)(const BackendSpec&);
};

const std::vector<BackendEntry>& backend_entries();
std::vector<std::string> backend_names();
// Backends rooflens has but this build left out (their library was absent when it was configured): name -> what to do.
std::vector<std::pair<std::string, std::string>> backends_left_out();
// Throws UsageError naming the known backends for an unknown name.
std::unique_ptr<Backend> make_backend(const BackendSpec& spec);

}  // namespace rooflens
