#pragma once
// An importer reads the files another tool wrote about one run of a model (a TensorRT engine's trtexec exports, an
// ONNX Runtime profile, ...) into the neutral measurement record (core/measurement.h). The import command's driver
// (importers/driver/) hands that record, with the importer's mapping rules, to assemble_run like any live backend's.
// One importer per format, each in its folder, listed once in registry/.
//
// Files come from outside: an importer trusts no size, count or index in them (vectors grow with what is actually
// there, never by a count the file states), and fails with one line naming the file and the field (UserError).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/measurement.h"
#include "core/report_hardware.h"
#include "core/report_run.h"
#include "core/report_serving.h"
#include "mapping/rules.h"

namespace rooflens::importers {

struct InputFile {
  std::string path;  // as given; error messages name it
  std::string text;  // the whole content (the import command caps the size)
};

// Format-specific choices (`import --option key=value`): an importer rejects keys it does not know (UsageError).
using ImportOptions = std::map<std::string, std::string>;

struct Imported {
  Measurement measurement;
  BackendInfo backend;                  // name, version (when the files say), runtime, options; label set by import
  const MappingRules* rules = nullptr;  // how this format names kernels, for mapping them to --model's nodes
  std::string model_path;               // the model the files name, if any ("" otherwise)
  int64_t batch = 0;                    // the batch the run used, when the files say (0: not known)
  std::vector<std::string> read;        // one line per file: what was read from it ("profile: 93 layers, ...")
  // The device's ceilings as the files themselves state them (a GPU profiler's peak metrics; source "profile"):
  // the import holds the layers to them unless --roofs or --device names others.
  std::optional<HardwareInfo> hardware;
  // A serving benchmark's result (vllm, aiperf): a generative serving run of an inference server measured elsewhere, not
  // layers; the report holds it as `serving` and `measurement` stays empty.
  std::optional<ServingResult> serving;
};

class Importer {
 public:
  virtual ~Importer() = default;
  virtual std::string name() const = 0;         // the FORMAT on the command line: "trtexec"
  // Other spellings users type for the FORMAT ("ort", "trt"); matched like the name (case and '-'/'_' aside).
  virtual std::vector<std::string> aliases() const { return {}; }
  virtual std::string description() const = 0;  // one line for --help
  // How sure this importer is that `f` is one of its files, by its content: 0 = not its; higher = more specific
  // (the import command gives each file to the most certain importer). Never throws.
  virtual int recognizes(const InputFile& f) const = 0;
  // Reads every file of one run. Throws UserError naming the file and the field that is wrong.
  virtual Imported read(const std::vector<InputFile>& files, const ImportOptions& options) const = 0;
};

}  // namespace rooflens::importers
