#include "core/atomic_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/errors.h"

namespace rooflens {
namespace fs = std::filesystem;

void write_file_atomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!(f << text) || !f.flush()) throw UserError(path + ": cannot write (" + tmp + ")");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw UserError(path + ": cannot write: " + ec.message());
  }
}

}  // namespace rooflens
