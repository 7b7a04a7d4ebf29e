#include "core/sha256.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <openssl/evp.h>

#include <cstdio>
#include <stdexcept>

#include "core/errors.h"

namespace rooflens {

// An EVP digest context: OpenSSL picks the SHA-NI, AVX2 or plain implementation for this CPU.
struct Sha256::Context {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : ctx_(std::make_unique<Context>()) {
  if (!ctx_->md || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL could not start a SHA-256 digest");
}

Sha256::~Sha256() = default;

void Sha256::update(const void* data, size_t size) {
  if (size && EVP_DigestUpdate(ctx_->md, data, size) != 1) throw std::runtime_error("OpenSSL's SHA-256 update failed");
}

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_->md, digest, &len) != 1) throw std::runtime_error("OpenSSL's SHA-256 final failed");
  return fmt::format("{:02x}", fmt::join(digest, digest + len, ""));
}

std::string sha256_hex(std::string_view data) {
  Sha256 s;
  s.update(data);
  return s.hex();
}

std::string sha256_file(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw UserError(path + ": cannot open it to compute its content hash");
  Sha256 s;
  std::unique_ptr<char[]> buf(new char[1 << 20]);
  size_t n;
  while ((n = std::fread(buf.get(), 1, 1 << 20, f.get())) > 0) s.update(buf.get(), n);
  if (std::ferror(f.get())) throw UserError(path + ": read error while computing its content hash");
  return s.hex();
}

}  // namespace rooflens
