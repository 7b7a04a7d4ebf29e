#pragma once
// SHA-256 (FIPS 180-4), for identities that must not depend on a path or a name: a model's content, a
// machine's fingerprint, a set of measured roofs. Written from the standard; checked against coreutils'
// sha256sum and the standard's test vectors (tests/unit/test_history_model.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rooflens {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::string hex();  // finishes: the 64 lowercase hex digits of the digest (call once)

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0;  // bytes hashed so far
};

std::string sha256_hex(std::string_view data);
// The digest of a file's bytes, read in chunks; throws UserError naming the file when it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace rooflens
