#pragma once
// The child side of the runner protocol (docs/runner-protocol.md) for a runner program written in C++ (e.g.
// rooflens-opencv-runner): it reads one JSON message per line on stdin and answers each with one JSON line, its reply,
// on stdout, in order, echoing each `id`. Everything else the process or its runtime prints goes to stderr: stdout
// is moved aside before the first message, so a library that prints cannot corrupt the conversation.
#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace rooflens {

// A message the caller got wrong or the runtime refused: answered {"ok": false, "error": {code, message}}, and the
// runner keeps serving. Codes: "bad_message", "input", "not_ready", or the runtime's own ("opencv", "ort", ...).
struct MessageError : std::runtime_error {
  MessageError(std::string code, const std::string& message) : std::runtime_error(message), code(std::move(code)) {}
  std::string code;
};

using MessageHandler = std::function<nlohmann::json(const nlohmann::json& message)>;

// Serves `handlers` (by "op"; `hello` must be among them, `quit` is built in) until `quit` or the end of stdin.
// Returns the process exit code: 0, or 70 after an unexpected exception (its text goes to stderr first).
int serve_runner(const std::string& log_name, const std::map<std::string, MessageHandler>& handlers);

// Logs one line to stderr as `<log_name>[pid]: text` (the parent keeps the last lines for failure reports).
void runner_log(const std::string& log_name, const std::string& text);

}  // namespace rooflens
