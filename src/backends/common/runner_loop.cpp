#include "backends/common/runner_loop.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace rooflens {
namespace {

using json = nlohmann::json;

// The protocol's own stdout: a duplicate of fd 1, which then points at stderr.
FILE* take_stdout() {
  std::fflush(stdout);
  int fd = ::dup(STDOUT_FILENO);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  return fd >= 0 ? ::fdopen(fd, "w") : nullptr;
}

void answer(FILE* out, json response) {
  std::string line = response.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
}

json error_response(const json& id, const std::string& code, const std::string& message) {
  return {{"id", id}, {"ok", false}, {"error", {{"code", code}, {"message", message}}}};
}

}  // namespace

void runner_log(const std::string& log_name, const std::string& text) {
  std::cerr << log_name << "[" << ::getpid() << "]: " << text << std::endl;
}

int serve_runner(const std::string& log_name, const std::map<std::string, MessageHandler>& handlers) {
  FILE* out = take_stdout();
  if (!out) {
    runner_log(log_name, "cannot duplicate stdout");
    return 70;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    json message = json::parse(line, nullptr, false);
    json id = message.is_object() && message.contains("id") ? message["id"] : json();
    if (!message.is_object() || !message.contains("op") || !message["op"].is_string()) {
      answer(out, error_response(id, "bad_message", "a message is a JSON object with a string 'op'"));
      continue;
    }
    const std::string op = message["op"].get<std::string>();
    if (op == "quit") {
      answer(out, {{"id", id}, {"ok", true}});
      return 0;
    }
    auto h = handlers.find(op);
    if (h == handlers.end()) {
      answer(out, error_response(id, "bad_message", "unknown op '" + op + "'"));
      continue;
    }
    try {
      json body = h->second(message);
      if (!body.is_object()) body = json::object();
      body["id"] = id;
      body["ok"] = true;
      answer(out, std::move(body));
    } catch (const MessageError& e) {
      answer(out, error_response(id, e.code, e.what()));
    } catch (const json::exception& e) {
      answer(out, error_response(id, "bad_message", std::string("malformed '") + op + "' message: " + e.what()));
    } catch (const std::exception& e) {
      runner_log(log_name, std::string("fatal: ") + e.what());
      return 70;
    }
  }
  return 0;
}

}  // namespace rooflens
