#pragma once
// Short, stable classes for failure messages, so the final table and failures.csv can group a zoo's failures
// ("ort:no-kernel" for every "Could not find an implementation for X(v) node ..." whatever X is).
#include <string>

namespace rooflens::suite {

// ONNX Runtime's message -> "ort:<class>" from a table of known message patterns; "ort" when none matches.
std::string classify_ort_message(const std::string& message);

}  // namespace rooflens::suite
