// zlib's inflate with gzip framing (windowBits 16 + MAX_WBITS); members are read one after another, as gzip -d
// does for concatenated files.
#include "importers/kineto/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>

#include "core/errors.h"

namespace rooflens::importers {
namespace {

// Inflates up to `limit` bytes into `out`. Returns false when the stream is damaged; `*truncated` when it ends
// before the member does; `*over` when there is more than `limit`.
bool inflate_all(std::string_view bytes, size_t limit, std::string& out, bool* truncated, bool* over) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return false;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(std::min<size_t>(bytes.size(), UINT32_MAX));
  char chunk[1 << 16];
  bool ok = true;
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof chunk;
    int rc = inflate(&zs, Z_NO_FLUSH);
    size_t got = sizeof chunk - zs.avail_out;
    if (out.size() + got > limit) {
      out.append(chunk, limit - out.size());
      *over = true;
      break;
    }
    out.append(chunk, got);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0 || static_cast<unsigned char>(*zs.next_in) != 0x1f) break;  // trailing padding ends it
      inflateReset(&zs);
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
      *truncated = true;
      break;
    }
    if (rc != Z_OK) {
      ok = false;
      break;
    }
  }
  inflateEnd(&zs);
  return ok;
}

}  // namespace

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(std::string_view bytes, const std::string& path, size_t limit) {
  std::string out;
  bool truncated = false, over = false;
  if (!inflate_all(bytes, limit, out, &truncated, &over))
    throw UserError(path + ": not a valid gzip file (damaged compressed data)");
  if (truncated) throw UserError(path + ": not a complete gzip file (it ends inside the compressed data)");
  if (over) throw UserError(path + ": more than " + std::to_string(limit >> 20) + " MiB once decompressed");
  return out;
}

std::string gunzip_head(std::string_view bytes, size_t n) {
  if (!is_gzip(bytes)) return "";
  std::string out;
  bool truncated = false, over = false;
  inflate_all(bytes, n, out, &truncated, &over);
  return out;
}

}  // namespace rooflens::importers
