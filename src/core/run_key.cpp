#include "core/run_key.h"

namespace rooflens {

std::string RunKey::label() const {
  std::string s;
  auto add = [&s](const std::string& part) { s += (s.empty() ? "" : " ") + part; };
  if (batch > 0) add("batch=" + std::to_string(batch));
  for (const auto& [k, v] : dims)
    if (!(batch > 0 && v == batch && k.find("batch") != std::string::npos)) add(k + "=" + std::to_string(v));
  if (threads > 0) add("threads=" + std::to_string(threads));
  if (s.empty()) s = "default";  // a configuration as requested: the model's own batch, the backend's threads
  return backend.empty() ? s : backend + " · " + s;
}

}  // namespace rooflens
