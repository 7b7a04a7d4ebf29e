#pragma once
// Standard base64 (RFC 4648, with padding), as Node's Buffer writes it: how runners send tensor bytes in JSON.
#include <string>
#include <string_view>

namespace rooflens {

std::string base64_encode(std::string_view bytes);
// Skips characters outside the alphabet and stops at the first '='.
std::string base64_decode(std::string_view text);

}  // namespace rooflens
