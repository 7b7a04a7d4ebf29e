#pragma once
// The child side of the runner protocol (docs/runner-protocol.md) for a runner program written in C++ (e.g.
// rooflens-opencv-runner): it reads one JSON request per line on stdin and answers one JSON line per request on
// stdout, in order, echoing each `id`. Everything else the process or its runtime prints goes to stderr: stdout
// is moved aside before the first request, so a library that prints cannot corrupt the conversation.
#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace rooflens {

// A request the caller got wrong or the runtime refused: answered {"ok": false, "error": {code, message}}, and the
// runner keeps serving. Codes: "bad_request", "input", "no_session", or the runtime's own ("opencv", "ort", ...).
struct RequestError : std::runtime_error {
  RequestError(std::string code, const std::string& message) : std::runtime_error(message), code(std::move(code)) {}
  std::string code;
};

using RequestHandler = std::function<nlohmann::json(const nlohmann::json& request)>;

// Serves `handlers` (by "op"; `hello` must be among them, `quit` is built in) until `quit` or the end of stdin.
// Returns the process exit code: 0, or 70 after an unexpected exception (its text goes to stderr first).
int serve_runner(const std::string& log_name, const std::map<std::string, RequestHandler>& handlers);

// Logs one line to stderr as `<log_name>[pid]: text` (the parent keeps the last lines for failure reports).
void runner_log(const std::string& log_name, const std::string& text);

}  // namespace rooflens
