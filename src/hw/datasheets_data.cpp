// data/datasheets.json linked in with .incbin: CMake passes its path and rebuilds this object when it changes.
#include "hw/datasheets_data.h"

#include "core/incbin.h"

#ifndef ROOFLENS_DATASHEETS_JSON
#error "ROOFLENS_DATASHEETS_JSON (data/datasheets.json) must be defined by the build"
#endif

ROOFLENS_INCBIN(rooflens_datasheets, ROOFLENS_DATASHEETS_JSON);

namespace rooflens::hw {

std::string_view datasheets_json() {
  return ROOFLENS_INCBIN_VIEW(rooflens_datasheets);
}

}  // namespace rooflens::hw
