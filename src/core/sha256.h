#pragma once
// SHA-256 (FIPS 180-4), for identities that must not depend on a path or a name: a model's content, a
// machine's fingerprint, a set of measured roofs. OpenSSL's libcrypto computes it (with the CPU's SHA extensions
// where it has them: model files of hundreds of MB are hashed whenever a profile is stored); the standard's test
// vectors and coreutils' sha256sum check it (tests/unit/test_history_model.cpp).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace rooflens {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::string hex();  // finishes: the 64 lowercase hex digits of the digest (call once)

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

std::string sha256_hex(std::string_view data);
// The digest of a file's bytes, read in chunks; throws UserError naming the file when it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace rooflens
