#pragma once
// A bounds-checked reader of the protobuf wire format. Used to walk ModelProto without parsing (or even
// touching) tensor payloads. Every read is checked; malformed input throws WireError.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace rooflens {

struct WireError : std::runtime_error {
  WireError(const std::string& what, size_t offset)
      : std::runtime_error(what + " at byte " + std::to_string(offset)), offset(offset) {}
  size_t offset;
};

enum class WireType : uint8_t { Varint = 0, Fixed64 = 1, Len = 2, StartGroup = 3, EndGroup = 4, Fixed32 = 5 };

struct WireField {
  uint32_t number = 0;
  WireType type = WireType::Varint;
  uint64_t varint = 0;            // Varint value
  const uint8_t* payload = nullptr;  // Len: start of the payload; Fixed: the bytes
  size_t length = 0;              // Len: payload size
  const uint8_t* begin = nullptr;    // whole field, tag included
  const uint8_t* end = nullptr;
};

class WireReader {
 public:
  // `base` is the start of the file, used only to report absolute offsets in errors.
  WireReader(const uint8_t* begin, const uint8_t* end, const uint8_t* base)
      : p_(begin), end_(end), base_(base) {}
  bool done() const { return p_ >= end_; }
  WireField next();  // throws WireError
  size_t offset(const uint8_t* p) const { return static_cast<size_t>(p - base_); }

 private:
  uint64_t read_varint();
  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* base_;
};

// Appends a varint / a tag / a length-delimited field to `out`.
void put_varint(std::string& out, uint64_t v);
void put_len_field(std::string& out, uint32_t number, const std::string& payload);

}  // namespace rooflens
