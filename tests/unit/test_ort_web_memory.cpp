// ONNX Runtime Web's 4 GiB WebAssembly memory: a model whose inference session cannot fit is refused before loading,
// with the arithmetic (backends/onnxruntime/ort_web_memory.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <unistd.h>

#include "backends/onnxruntime/ort_web_memory.h"
#include "model/weight_bytes.h"
#include "support/onnx_builder.h"

using namespace rooflens;

namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

TEST(OrtWebMemory, TheFileAndItsParsedWeightsMustFitTogether) {
  // 2.1 GiB of weights in a 2.1 GiB file: each fits alone, both at once do not.
  WeightBytes w{2 * kGiB + kGiB / 10, 2 * kGiB + kGiB / 10 - 4096, 0};
  const std::string why = ort::wasm_memory_refusal(w);
  EXPECT_NE(why.find("at least 4.20 GiB of WebAssembly memory"), std::string::npos) << why;
  EXPECT_NE(why.find("at most 4 GiB"), std::string::npos) << why;
  EXPECT_NE(why.find("-B onnxruntime"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
  // A 1.9 GiB model fits.
  EXPECT_EQ(ort::wasm_memory_refusal({kGiB * 19 / 10, kGiB * 19 / 10, 0}), "");
  // External data counts once (parsed from its side file), and is named.
  const std::string ext = ort::wasm_memory_refusal({1 << 20, 0, 4 * kGiB + 1});
  EXPECT_NE(ext.find("from its external data"), std::string::npos) << ext;
}

TEST(OrtWebMemory, FileWeightBytesReadsTheFileAndItsSideFilesWithoutTheirPayloads) {
  const auto dir = std::filesystem::temp_directory_path() / ("rooflens_weight_bytes_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string model = (dir / "big.onnx").string();
  rooflens::testing::sparse_external_weight_model(model, static_cast<int64_t>(5 * kGiB / 4));  // 5 GiB of weights
  const WeightBytes w = file_weight_bytes(model);
  EXPECT_EQ(w.external, 5 * kGiB);
  EXPECT_LT(w.file, 4096u);
  EXPECT_EQ(w.embedded, 0u);
  EXPECT_NE(ort::wasm_memory_refusal(w), "");
  std::filesystem::remove_all(dir);
}

}  // namespace
