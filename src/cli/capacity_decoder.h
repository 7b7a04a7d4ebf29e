#pragma once
// `rooflens capacity` on a decoder with a KV cache: the generative scenarios (capacity/serve_decoder.h), from the
// capacity command's flags.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/capacity_flags.h"
#include "core/report_generation.h"

namespace rooflens::cli {

// The decoder I/O when MODEL is a decoder with a KV cache; nullopt (and `why`) when it is not.
std::optional<DecoderIo> served_decoder_io(const std::string& model, std::string& why);

// Serves the decoder; prints the summary (or the JSON), writes -o. Exit 0 VALID, 1 INVALID or a fault, 2 usage.
int run_decoder_capacity(const CapacityCommand& a, const CLI::App& cmd, const DecoderIo& io);

// A flag only the generative scenarios read, given for `model` that is not a decoder: UsageError naming it and why.
void reject_decoder_flags(const CapacityCommand& a, const CLI::App& cmd, const std::string& why);

}  // namespace rooflens::cli
