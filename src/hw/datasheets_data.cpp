// data/datasheets.json linked in with .incbin: CMake passes its path and rebuilds this object when it changes.
#include "hw/datasheets_data.h"

#ifndef ROOFLENS_DATASHEETS_JSON
#error "ROOFLENS_DATASHEETS_JSON (data/datasheets.json) must be defined by the build"
#endif

__asm__(
    ".pushsection .rodata.rooflens_datasheets, \"a\", @progbits\n"
    ".globl rooflens_datasheets_begin\n"
    ".hidden rooflens_datasheets_begin\n"
    "rooflens_datasheets_begin:\n"
    ".incbin \"" ROOFLENS_DATASHEETS_JSON "\"\n"
    ".globl rooflens_datasheets_end\n"
    ".hidden rooflens_datasheets_end\n"
    "rooflens_datasheets_end:\n"
    ".byte 0\n"
    ".popsection\n");

extern "C" const char rooflens_datasheets_begin[];
extern "C" const char rooflens_datasheets_end[];

namespace rooflens::hw {

std::string_view datasheets_json() {
  return {rooflens_datasheets_begin, static_cast<size_t>(rooflens_datasheets_end - rooflens_datasheets_begin)};
}

}  // namespace rooflens::hw
