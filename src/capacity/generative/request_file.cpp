#include "capacity/generative/request_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace rooflens::capacity::generative {
namespace {

const char* request_status_text(RequestStatus s) {
  switch (s) {
    case RequestStatus::ok: return "ok";
    case RequestStatus::failed: return "failed";
    case RequestStatus::rejected: return "rejected";
    case RequestStatus::abandoned: return "abandoned";
  }
  return "?";
}

}  // namespace

JsonlRequestSink::JsonlRequestSink(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw UserError("--queries " + path + ": cannot write it (" + std::strerror(errno) + ")");
}

JsonlRequestSink::~JsonlRequestSink() {
  if (fd_ >= 0) ::close(fd_);
}

void JsonlRequestSink::add(const RequestRecord& r) {
  const auto at = [this](int64_t ns) -> nlohmann::ordered_json {
    if (ns < 0) return nullptr;
    return static_cast<double>(ns - start_ns_) / 1e6;
  };
  nlohmann::ordered_json tokens = nlohmann::ordered_json::array();
  for (int64_t t : r.token_ns) tokens.push_back(at(t));
  const nlohmann::ordered_json j{{"id", r.id},
                                 {"status", request_status_text(r.status)},
                                 {"input_tokens", r.shape.input_tokens},
                                 {"output_tokens", r.shape.output_tokens},
                                 {"scheduled_ms", at(r.scheduled_ns)},
                                 {"admitted_ms", at(r.admitted_ns)},
                                 {"first_token_ms", at(r.first_token_ns)},
                                 {"end_ms", at(r.end_ns)},
                                 {"token_ms", tokens},
                                 {"waited_for_kv", r.waited_for_kv},
                                 {"error", r.error}};
  const std::string line = j.dump() + "\n";
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t k = ::write(fd_, line.data() + done, line.size() - done);
    if (k > 0) done += static_cast<size_t>(k);
    else if (k < 0 && errno == EINTR) continue;
    else throw UserError("--queries " + path_ + ": writing failed (" + std::strerror(errno) + ")");
  }
}

}  // namespace rooflens::capacity::generative
