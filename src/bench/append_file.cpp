#include "bench/append_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/errors.h"

namespace rooflens::bench {

AppendFile::AppendFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw UserError(path + ": cannot open for writing (" + std::strerror(errno) + ")");
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) ::close(fd_);
}

AppendFile::AppendFile(AppendFile&& o) noexcept : path_(std::move(o.path_)), fd_(std::exchange(o.fd_, -1)) {}

AppendFile& AppendFile::operator=(AppendFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

void AppendFile::append(const std::string& text) {
  if (fd_ < 0) throw UserError(path_ + ": not open");
  size_t done = 0;
  while (done < text.size()) {  // one write in practice; the loop only guards against a short write
    ssize_t k = ::write(fd_, text.data() + done, text.size() - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) throw UserError(path_ + ": cannot write (" + std::strerror(errno) + ")");
    done += static_cast<size_t>(k);
  }
}

}  // namespace rooflens::bench
