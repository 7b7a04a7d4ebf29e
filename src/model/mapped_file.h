#pragma once
// A read-only memory mapping of a model file. Weight payloads are referenced by offset into it and never
// touched while analysing, so the kernel never even pages them in.
#include <cstddef>
#include <cstdint>
#include <string>

namespace rooflens {

class MappedFile {
 public:
  explicit MappedFile(const std::string& path);  // throws UserError naming the path
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace rooflens
