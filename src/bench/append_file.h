#pragma once
// A file that only grows by whole lines: each append() is one write(2) on an O_APPEND descriptor, so a process
// killed at any moment leaves every line either complete or absent (a torn tail only if the kernel itself
// splits the write, which it does not for regular files this small).
#include <string>

namespace rooflens::bench {

class AppendFile {
 public:
  AppendFile() = default;
  explicit AppendFile(const std::string& path);  // creates it when missing; throws UserError
  ~AppendFile();
  AppendFile(AppendFile&& o) noexcept;
  AppendFile& operator=(AppendFile&& o) noexcept;
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  void append(const std::string& text);  // throws UserError naming the file
  bool is_open() const { return fd_ >= 0; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace rooflens::bench
