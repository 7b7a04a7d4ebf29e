#include "backends/common/child_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "backends/common/cpu_budget.h"
#include "core/errors.h"

extern char** environ;

namespace rooflens {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

constexpr std::size_t kMaxLineChars = 2000;  // stderr lines kept for the tail are cut here

// A child inherits the CPU mask of the thread that spawns it, before it runs a single instruction (so every
// thread it starts has it too): the spawning thread takes the child's mask for the moment of the spawn.
class SpawnOnCpus {
 public:
  explicit SpawnOnCpus(const std::vector<int>& cpus) {
    if (cpus.empty() || ::sched_getaffinity(0, sizeof old_, &old_) != 0) return;
    cpu_set_t want;
    CPU_ZERO(&want);
    for (int c : cpus)
      if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &want);
    active_ = ::sched_setaffinity(0, sizeof want, &want) == 0;
  }
  ~SpawnOnCpus() {
    if (active_) ::sched_setaffinity(0, sizeof old_, &old_);
  }
  SpawnOnCpus(const SpawnOnCpus&) = delete;
  SpawnOnCpus& operator=(const SpawnOnCpus&) = delete;

 private:
  cpu_set_t old_{};
  bool active_ = false;
};

std::string errno_text(int e) { return std::strerror(e); }

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Drops terminal colour sequences (ORT colours its warnings) and other control characters but tabs.
std::string clean_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !(s[i] >= '@' && s[i] <= '~')) ++i;
      continue;
    }
    if (c == '\r') continue;
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') continue;
    out += c;
  }
  if (out.size() > kMaxLineChars) {
    out.resize(kMaxLineChars);
    out += "…";
  }
  return out;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return left > 1'000'000 ? 1'000'000 : static_cast<int>(left) + 1;
}

}  // namespace

const char* to_string(ReplyStatus s) {
  switch (s) {
    case ReplyStatus::ok: return "ok";
    case ReplyStatus::error: return "error";
    case ReplyStatus::timeout: return "timeout";
    case ReplyStatus::died: return "died";
    case ReplyStatus::not_running: return "not_running";
  }
  return "?";
}

ChildRunner::ChildRunner(RunnerConfig config) : config_(std::move(config)) {}

ChildRunner::~ChildRunner() {
  try {
    stop();
  } catch (...) {
    // Destructors must not throw; stop() only throws on allocation failure.
  }
}

void ChildRunner::start() {
  if (running()) return;
  if (config_.command.empty()) throw UserError("cannot start the " + config_.name + ": no command");
  spawn();
  RunnerReply hello = ask({{"op", "hello"}}, config_.start_timeout);
  if (!hello.ok()) {
    std::string last;
    if (!err_lines_.empty()) last = err_lines_.back();
    stop();
    std::string command;
    for (const auto& part : config_.command) command += (command.empty() ? "" : " ") + part;
    throw UserError("cannot start the " + config_.name + " (" + command + "): " + hello.message +
                    (last.empty() ? "" : " — " + last));
  }
  hello_ = std::move(hello.body);
}

void ChildRunner::restart() {
  stop();
  start();
}

void ChildRunner::spawn() {
  int in_pair[2] = {-1, -1}, out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  auto close_all = [&] {
    for (int* fd : {&in_pair[0], &in_pair[1], &out_pipe[0], &out_pipe[1], &err_pipe[0], &err_pipe[1]}) close_fd(*fd);
  };
  // stdin is a socket: send(MSG_NOSIGNAL) to a dead runner fails with EPIPE instead of killing rooflens
  // with SIGPIPE, without touching the process-wide signal disposition.
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_pair) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    int e = errno;
    close_all();
    throw UserError("cannot start the " + config_.name + ": " + errno_text(e));
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pair[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (config_.own_process_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);
  }
  posix_spawnattr_setflags(&attr, flags);
  sigset_t empty, defaults;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attr, &empty);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  std::vector<char*> argv;
  for (const auto& part : config_.command) argv.push_back(const_cast<char*>(part.c_str()));
  argv.push_back(nullptr);
  // The child's environment: rooflens' own, with the config's entries in place of any of the same name.
  std::vector<char*> envp;
  auto overridden = [&](const char* e) {
    for (const auto& mine : config_.env) {
      const size_t eq = mine.find('=');
      if (eq != std::string::npos && std::strncmp(e, mine.c_str(), eq + 1) == 0) return true;
    }
    return false;
  };
  for (char** e = environ; e && *e; ++e)
    if (!overridden(*e)) envp.push_back(*e);
  for (const auto& e : config_.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string& program = config_.command.front();
  pid_t pid = -1;
  bool search = program.find('/') == std::string::npos;
  auto spawn_now = [&] {
    SpawnOnCpus placed(config_.cpus);
    return search ? ::posix_spawnp(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data())
                  : ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
  };
  int rc = spawn_now();
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    close_all();
    if (rc == ENOENT) {
      throw UserError("cannot start the " + config_.name + ": '" + program + "' not found" +
                      (config_.missing_hint.empty() ? "" : " (" + config_.missing_hint + ")"));
    }
    throw UserError("cannot start the " + config_.name + " ('" + program + "'): " + errno_text(rc));
  }
  close_fd(in_pair[1]);
  close_fd(out_pipe[1]);
  close_fd(err_pipe[1]);
  pid_ = pid;
  in_fd_ = in_pair[0];
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
  set_nonblocking(in_fd_);
  set_nonblocking(out_fd_);
  set_nonblocking(err_fd_);
  out_buf_.clear();
  err_partial_.clear();
  err_lines_.clear();
  hello_ = nullptr;
}

void ChildRunner::close_fds() {
  close_fd(in_fd_);
  close_fd(out_fd_);
  close_fd(err_fd_);
}

void ChildRunner::absorb_stderr(const char* data, std::size_t n) {
  err_partial_.append(data, n);
  std::size_t start = 0, nl;
  while ((nl = err_partial_.find('\n', start)) != std::string::npos) {
    err_lines_.push_back(clean_line(std::string_view(err_partial_).substr(start, nl - start)));
    start = nl + 1;
  }
  err_partial_.erase(0, start);
  if (err_partial_.size() > 64 * kMaxLineChars) err_partial_.erase(0, err_partial_.size() - kMaxLineChars);
  std::size_t keep = config_.stderr_tail_lines == 0 ? 1 : config_.stderr_tail_lines;
  while (err_lines_.size() > keep) err_lines_.pop_front();
}

void ChildRunner::absorb_noise(const std::string& line) {
  std::string l = "[stdout] " + line + "\n";
  absorb_stderr(l.data(), l.size());
}

void ChildRunner::drain_stderr_nonblocking() {
  char buf[8192];
  while (err_fd_ >= 0) {
    ssize_t n = ::read(err_fd_, buf, sizeof buf);
    if (n > 0) {
      absorb_stderr(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      close_fd(err_fd_);
    } else if (errno == EINTR) {
      continue;
    } else {
      break;  // EAGAIN: nothing more for now
    }
  }
}

std::string ChildRunner::last_stderr_tail() const {
  std::string out;
  for (const auto& l : err_lines_) out += l + "\n";
  if (!err_partial_.empty()) out += clean_line(err_partial_) + "\n";
  return out;
}

void ChildRunner::reap(milliseconds grace, RunnerReply* into) {
  if (pid_ <= 0) return;
  close_fd(in_fd_);  // EOF on stdin asks a healthy runner to finish and exit
  int status = 0;
  pid_t r = 0;
  auto deadline = Clock::now() + grace;
  for (;;) {
    r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (Clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      while ((r = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
      }
      break;
    }
    // Keep reading stderr meanwhile: a runner blocked on a full pipe would never exit, and its last words
    // belong in the tail.
    pollfd p{err_fd_, POLLIN, 0};
    if (err_fd_ >= 0 && ::poll(&p, 1, 5) > 0) drain_stderr_nonblocking();
    else if (err_fd_ < 0) std::this_thread::sleep_for(milliseconds(5));
  }
  drain_stderr_nonblocking();
  if (into && r == pid_) {
    if (WIFEXITED(status)) into->exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) into->term_signal = WTERMSIG(status);
  }
  pid_ = -1;
  close_fds();
}

bool ChildRunner::enter_realtime() {
  if (config_.realtime_priority <= 0 || pid_ <= 0) return false;
  const auto settle = Clock::now() + kRealtimePlacementWait;
  while (config_.realtime_cpu_lists > 1 && distinct_thread_cpu_sets(pid_) < config_.realtime_cpu_lists) {
    if (Clock::now() >= settle) {
      realtime_refusal_ = "the runner's worker threads had not moved to their CPUs " +
                          std::to_string(kRealtimePlacementWait.count() / 1000) +
                          " s after its load (a busy machine had not run them yet); it ran at normal priority, "
                          "pinned, rather than real-time with every thread on one CPU";
      return false;
    }
    std::this_thread::sleep_for(milliseconds(2));
  }
  sched_param param{};
  param.sched_priority = config_.realtime_priority;
  bool moved = false;
  for (const int tid : thread_ids(pid_)) {
    if (::sched_setscheduler(tid, SCHED_FIFO, &param) == 0) moved = true;
    else if (errno == EPERM) break;  // not allowed (no root, no CAP_SYS_NICE); ESRCH: the thread just ended
  }
  if (!moved)
    realtime_refusal_ = "real-time scheduling was not allowed (needs root or CAP_SYS_NICE); the runner ran at normal "
                        "priority, pinned";
  return moved;
}

void ChildRunner::stop() {
  if (!running()) return;
  reap(milliseconds(2000), nullptr);
}

RunnerReply ChildRunner::failure(ReplyStatus status, std::string message) {
  RunnerReply r;
  r.status = status;
  r.code = to_string(status);
  r.message = std::move(message);
  return r;
}

RunnerReply ChildRunner::ask(nlohmann::json message, milliseconds timeout) {
  if (!running()) {
    RunnerReply r = failure(ReplyStatus::not_running, "the " + config_.name + " is not running");
    r.stderr_tail = last_stderr_tail();
    return r;
  }
  drain_stderr_nonblocking();
  const long long id = next_id_++;
  message["id"] = id;
  const std::string op = message.contains("op") && message["op"].is_string() ? message["op"].get<std::string>() : "?";
  std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::size_t written = 0;
  const auto deadline = Clock::now() + timeout;

  auto died = [&](const std::string& why) {
    RunnerReply r = failure(ReplyStatus::died, "");
    // Give a dying runner a moment to flush stderr, then reap it (SIGKILL if it lingers).
    reap(milliseconds(1000), &r);
    std::string how = r.term_signal ? "was killed by " + signal_name(r.term_signal)
                                    : "exited with code " + std::to_string(r.exit_code);
    r.message = "the " + config_.name + " " + how + " during '" + op + "'" + (why.empty() ? "" : " (" + why + ")");
    r.stderr_tail = last_stderr_tail();
    return r;
  };

  for (;;) {
    pollfd fds[3];
    nfds_t n = 0;
    int in_idx = -1, out_idx = -1, err_idx = -1;
    if (written < line.size() && in_fd_ >= 0) {
      in_idx = static_cast<int>(n);
      fds[n++] = {in_fd_, POLLOUT, 0};
    }
    out_idx = static_cast<int>(n);
    fds[n++] = {out_fd_, POLLIN, 0};
    if (err_fd_ >= 0) {
      err_idx = static_cast<int>(n);
      fds[n++] = {err_fd_, POLLIN, 0};
    }
    int wait = remaining_ms(deadline);
    int ready = wait == 0 ? 0 : ::poll(fds, n, wait);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return died("poll failed: " + errno_text(errno));
    }
    if (ready == 0 && Clock::now() >= deadline) {
      RunnerReply r = failure(ReplyStatus::timeout, "");
      ::kill(pid_, SIGKILL);
      reap(milliseconds(0), &r);
      auto ms = timeout.count();
      r.message = "the " + config_.name + " did not answer '" + op + "' within " +
                  (ms % 1000 ? std::to_string(ms) + " ms" : std::to_string(ms / 1000) + " s") + "; killed it";
      r.stderr_tail = last_stderr_tail();
      return r;
    }
    if (err_idx >= 0 && fds[err_idx].revents) drain_stderr_nonblocking();
    if (in_idx >= 0 && fds[in_idx].revents) {
      if (fds[in_idx].revents & (POLLERR | POLLHUP)) return died("it closed its stdin");
      ssize_t k = ::send(in_fd_, line.data() + written, line.size() - written, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (k > 0) {
        written += static_cast<std::size_t>(k);
      } else if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        return died("");
      }
    }
    if (fds[out_idx].revents) {
      char buf[65536];
      ssize_t k;
      while ((k = ::read(out_fd_, buf, sizeof buf)) > 0) out_buf_.append(buf, static_cast<std::size_t>(k));
      bool eof = k == 0;
      if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) eof = true;
      std::size_t nl;
      while ((nl = out_buf_.find('\n')) != std::string::npos) {
        std::string resp_line = out_buf_.substr(0, nl);
        out_buf_.erase(0, nl + 1);
        nlohmann::json resp = nlohmann::json::parse(resp_line, nullptr, /*allow_exceptions=*/false);
        if (!resp.is_object() || !resp.contains("id") || !resp.contains("ok")) {
          if (!resp_line.empty()) absorb_noise(resp_line);  // something other than the protocol wrote to stdout
          continue;
        }
        if (!(resp["id"].is_number_integer() && resp["id"].get<long long>() == id)) {
          // A reply to an earlier message we gave up on (or an id-less reply to a malformed one).
          absorb_noise("unexpected reply: " + resp_line.substr(0, 200));
          continue;
        }
        drain_stderr_nonblocking();
        RunnerReply r;
        if (resp["ok"] == true) {
          r.status = ReplyStatus::ok;
          r.code = "ok";
        } else {
          r.status = ReplyStatus::error;
          const auto& e = resp.contains("error") ? resp["error"] : nlohmann::json();
          r.code = e.is_object() && e.contains("code") && e["code"].is_string() ? e["code"].get<std::string>()
                                                                               : "error";
          r.message = one_line(e.is_object() && e.contains("message") && e["message"].is_string()
                                   ? e["message"].get<std::string>()
                                   : resp.dump());
          r.stderr_tail = last_stderr_tail();
        }
        r.body = std::move(resp);
        return r;
      }
      if (eof) return died("");
    }
  }
}

}  // namespace rooflens
