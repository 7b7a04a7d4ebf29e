#pragma once
// Short, stable classes for ONNX Runtime's failure messages, so `rooflens bench` can group a zoo's failures
// ("ort:no-kernel" for every "Could not find an implementation for X(v) node ..." whatever X is). The backend puts
// the class on its BackendError (error_class); nothing outside this folder reads ORT's messages.
#include <string>

namespace rooflens::ort {

// ONNX Runtime's message -> "ort:<class>" from a table of known message patterns; "ort" when none matches.
std::string classify_ort_message(const std::string& message);

}  // namespace rooflens::ort
