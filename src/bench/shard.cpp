#include "bench/shard.h"

#include <charconv>

#include "core/errors.h"
#include "core/sha256.h"

namespace rooflens::bench {
namespace {

bool parse_positive(const std::string& s, int64_t& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty() && out >= 1;
}

}  // namespace

std::string Shard::text() const { return std::to_string(index) + "/" + std::to_string(count); }

Shard parse_shard(const std::string& text) {
  Shard s;
  auto slash = text.find('/');
  if (slash == std::string::npos || !parse_positive(text.substr(0, slash), s.index) ||
      !parse_positive(text.substr(slash + 1), s.count) || s.index > s.count || s.count > 1000000)
    throw UsageError("--shard expects I/N with 1 <= I <= N (e.g. 1/4 for the first of four parts), got '" + text + "'");
  return s;
}

int64_t shard_of(const std::string& name, int64_t count) {
  std::string h = sha256_hex(name).substr(0, 16);
  uint64_t v = 0;
  std::from_chars(h.data(), h.data() + h.size(), v, 16);
  return static_cast<int64_t>(v % static_cast<uint64_t>(count)) + 1;
}

std::vector<BenchModel> take_shard(const std::vector<BenchModel>& models, const Shard& shard) {
  if (shard.all()) return models;
  std::vector<BenchModel> out;
  for (const auto& m : models)
    if (shard_of(m.name, shard.count) == shard.index) out.push_back(m);
  return out;
}

}  // namespace rooflens::bench
