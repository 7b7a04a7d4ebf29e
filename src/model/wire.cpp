#include "model/wire.h"

namespace rooflens {

uint64_t WireReader::read_varint() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p_ >= end_) throw WireError("truncated varint", offset(p_));
    uint8_t b = *p_++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  throw WireError("varint longer than 10 bytes", offset(p_));
}

WireField WireReader::next() {
  WireField f;
  f.begin = p_;
  uint64_t tag = read_varint();
  f.number = static_cast<uint32_t>(tag >> 3);
  uint8_t type = tag & 7;
  if (f.number == 0 || (tag >> 3) > 0x1fffffff) throw WireError("invalid field number", offset(f.begin));
  switch (type) {
    case 0:
      f.type = WireType::Varint;
      f.varint = read_varint();
      break;
    case 1:
    case 5: {
      size_t n = type == 1 ? 8 : 4;
      if (static_cast<size_t>(end_ - p_) < n) throw WireError("truncated fixed-width field", offset(p_));
      f.type = type == 1 ? WireType::Fixed64 : WireType::Fixed32;
      f.payload = p_;
      f.length = n;
      p_ += n;
      break;
    }
    case 2: {
      uint64_t len = read_varint();
      if (len > static_cast<uint64_t>(end_ - p_))
        throw WireError("field " + std::to_string(f.number) + " claims " + std::to_string(len) +
                            " bytes but the file ends first (truncated?)",
                        offset(p_));
      f.type = WireType::Len;
      f.payload = p_;
      f.length = static_cast<size_t>(len);
      p_ += len;
      break;
    }
    default:
      // Groups are deprecated and never used by ONNX; treating them as errors keeps the walker simple.
      throw WireError("unsupported wire type " + std::to_string(type), offset(f.begin));
  }
  f.end = p_;
  return f;
}

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_len_field(std::string& out, uint32_t number, const std::string& payload) {
  put_varint(out, (static_cast<uint64_t>(number) << 3) | 2);
  put_varint(out, payload.size());
  out += payload;
}

}  // namespace rooflens
