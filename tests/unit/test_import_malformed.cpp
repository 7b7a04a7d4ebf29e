// The malformed-input corpus (tests/fixtures/import/malformed/<format>/, made by make_malformed.py): truncated
// files, wrong types, negative or huge numbers, missing fields, absurd nesting. Every file must end in one line
// that names it — never a crash, never a silent import.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/errors.h"
#include "importers/registry/registry.h"
#include "support/import_fixtures.h"

namespace rooflens {
namespace {

namespace fs = std::filesystem;

void expect_all_refused(const std::string& dir, const std::string& format) {
  int files = 0;
  for (const auto& e : fs::directory_iterator(test::fixture_path("malformed/" + dir))) {
    ++files;
    importers::InputFile f = test::fixture("malformed/" + dir + "/" + e.path().filename().string());
    std::string message;
    try {
      importers::find_importer(format).read({f}, {});
    } catch (const UserError& err) {
      message = err.what();
    }
    EXPECT_FALSE(message.empty()) << f.path << " was imported";
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind(f.path, 0), 0u) << "does not start with the file: " << message;
    EXPECT_LT(message.size(), 400u) << message;
  }
  EXPECT_GE(files, 5) << dir;
}

TEST(ImportMalformed, Trtexec) { expect_all_refused("trtexec", "trtexec"); }
TEST(ImportMalformed, OnnxRuntime) { expect_all_refused("onnxruntime", "onnxruntime"); }
TEST(ImportMalformed, MegEngine) { expect_all_refused("megengine", "megengine"); }
TEST(ImportMalformed, NeuralEngine) { expect_all_refused("neural_engine", "neural-engine"); }
TEST(ImportMalformed, OpenVino) { expect_all_refused("openvino", "openvino"); }
TEST(ImportMalformed, Kineto) { expect_all_refused("kineto", "kineto"); }
TEST(ImportMalformed, Nsys) { expect_all_refused("nsys", "nsys"); }
TEST(ImportMalformed, Ncu) { expect_all_refused("ncu", "ncu"); }

}  // namespace
}  // namespace rooflens
