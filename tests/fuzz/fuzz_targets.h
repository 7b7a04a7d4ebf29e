#pragma once
// The parsers of outside data that `make fuzz` feeds, one function per target (tests/fuzz/fuzz_<name>.cpp), all in one
// libFuzzer program (fuzz_main.cpp) that runs the target ROOFLENS_FUZZ_TARGET names: one sanitized link of rooflens'
// code instead of one per target (each took ~11 s of CPU; fourteen of them were a minute of `make test`).
#include <cstddef>
#include <cstdint>

namespace rooflens::importers {
class Importer;
}

namespace rooflens::fuzz {

int analyze(const uint8_t* data, size_t size);
int report_readers(const uint8_t* data, size_t size);
int values(const uint8_t* data, size_t size);
int history(const uint8_t* data, size_t size);
int score(const uint8_t* data, size_t size);
int fleet(const uint8_t* data, size_t size);
// One importer's files (target `import:FORMAT`, FORMAT as `rooflens import --format` spells it).
int import(const importers::Importer& importer, const uint8_t* data, size_t size);

}  // namespace rooflens::fuzz
