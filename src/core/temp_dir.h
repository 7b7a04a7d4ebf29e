#pragma once
// A private temporary directory (mkdtemp under $TMPDIR, mode 0700), removed with everything in it when the
// object goes away. For optimized graphs and profiles that runs produce and rooflens reads once.
#include <filesystem>
#include <string>

namespace rooflens {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix);  // throws UserError when no directory can be made
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace rooflens
