#pragma once
// `compare` on capacity reports (`rooflens capacity`): each configuration's scenario runs become items of their own —
// "<label> · server qps=40" (every answered query's latency), "<label> · offline" (ms per sample) and
// "<label> · headline <name>" (the headline as ms: 1000 / peak QPS, ms per sample, or the percentile estimate) —
// significance-tested like any latency (core/capacity.h capacity_items). A configuration that could not be served
// is a failed item; per-layer runs under load (--profile-layers) are runs like a profile report's.
#include <string>

#include "compare/sources.h"

namespace rooflens {

void add_capacity_items(CompareSource& src, const Report& report, const std::string& model);

// A single-stream profile (BASE) against per-layer runs under load (NEW): a NEW run keyed like a BASE run plus the
// dim "instance" is compared with that BASE run, once per instance, so each instance's layers meet the same
// single-stream layers. Adds a note when it does.
void pair_instances_with_base(CompareSource& base, const CompareSource& head, std::vector<std::string>& notes);

}  // namespace rooflens
