#pragma once
// The backends rooflens can run, by name (`-B name:options`). Adding a backend is its folder plus one line in
// registry.cpp.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace rooflens {

using BackendFactory = std::function<std::unique_ptr<Backend>(const BackendSpec&)>;
// Throws UsageError naming the known backends for an unknown name.
std::unique_ptr<Backend> make_backend(const BackendSpec& spec);
std::vector<std::string> backend_names();

}  // namespace rooflens
