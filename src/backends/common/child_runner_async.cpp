// ChildRunner with many messages in flight: written without waiting, replies read as they come (child_runner.h).
// One issuer thread polls the reply descriptors of many runners (`rooflens capacity`), so no runner's answer waits
// for another's.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "backends/common/child_runner.h"

namespace rooflens {
namespace {

std::string how_it_ended(const RunnerReply& r) {
  if (r.term_signal) {
    const char* abbrev = sigabbrev_np(r.term_signal);
    return std::string("was killed by ") + (abbrev ? std::string("SIG") + abbrev : std::to_string(r.term_signal));
  }
  return "exited with code " + std::to_string(r.exit_code);
}

std::string last_line(const std::string& tail) {
  std::string t = tail;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace

bool ChildRunner::send_async(nlohmann::json message, long long& id) {
  if (!running() || in_fd_ < 0) return false;
  id = next_id_++;
  message["id"] = id;
  const std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t k = ::send(in_fd_, line.data() + written, line.size() - written, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k > 0) {
      written += static_cast<size_t>(k);
      continue;
    }
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {  // the runner is busy and its pipe is full
      pollfd p{in_fd_, POLLOUT, 0};
      if (::poll(&p, 1, 100) < 0 && errno != EINTR) return false;
      drain_stderr_nonblocking();
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    return false;  // EPIPE: it is gone
  }
  return true;
}

bool ChildRunner::read_replies(std::vector<RunnerReply>& out, std::string& death) {
  if (!running()) {
    death = "the " + config_.name + " is not running";
    return false;
  }
  drain_stderr_nonblocking();
  char buf[65536];
  ssize_t k;
  bool eof = false;
  while ((k = ::read(out_fd_, buf, sizeof buf)) > 0) out_buf_.append(buf, static_cast<size_t>(k));
  if (k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) eof = true;
  size_t start = 0, nl;
  while ((nl = out_buf_.find('\n', start)) != std::string::npos) {
    const std::string_view line(out_buf_.data() + start, nl - start);
    start = nl + 1;
    nlohmann::json resp = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!resp.is_object() || !resp.contains("id") || !resp.contains("ok")) {
      if (!line.empty()) absorb_noise(std::string(line));
      continue;
    }
    RunnerReply r;
    r.status = resp["ok"] == true ? ReplyStatus::ok : ReplyStatus::error;
    r.code = r.ok() ? "ok" : "error";
    if (!r.ok() && resp.contains("error") && resp["error"].is_object()) {
      const auto& e = resp["error"];
      r.code = e.value("code", std::string("error"));
      r.message = e.value("message", std::string());
    }
    r.body = std::move(resp);
    out.push_back(std::move(r));
  }
  out_buf_.erase(0, start);
  if (!eof) return true;
  RunnerReply ended;
  reap(std::chrono::milliseconds(1000), &ended);
  const std::string said = last_line(last_stderr_tail());
  death = "the " + config_.name + " " + how_it_ended(ended) + (said.empty() ? "" : " (" + said + ")");
  return false;
}

void ChildRunner::kill_now() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
  reap(std::chrono::milliseconds(0), nullptr);
}

}  // namespace rooflens
