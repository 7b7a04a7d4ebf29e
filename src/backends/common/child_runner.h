#pragma once
// ChildRunner: a runtime in a child process (any command: `node runners/ort/run.mjs`,
// `rooflens-opencv-runner`) and the JSON-lines conversation with it — one message per line on its stdin, one reply per line on
// its stdout, stderr for logs. The child is where a runtime may crash or hang without taking rooflens along.
//
// One message in flight at a time (ask() blocks until the reply, a timeout or the child's death).
// Failures are values, not exceptions: ask() returns a RunnerReply whose status says what happened, with the
// tail of the child's stderr for the ones that need explaining. Typed APIs on top (e.g. ort_runner.h) turn
// non-ok replies into exceptions.
//
// The protocol is documented in docs/runner-protocol.md. Not thread-safe: use one ChildRunner per thread (pid()
// may be read from anywhere, e.g. by a test that kills the child).
#include <sys/types.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rooflens {

// How long enter_realtime() waits for a runner's workers to pin themselves. A worker does so ~10 ms after the
// runtime starts it, before the load's reply, on a quiet machine; on a busy 2-core guest two runners in a row still
// had every thread on one CPU half a second after their load.
inline constexpr std::chrono::milliseconds kRealtimePlacementWait{5000};

struct RunnerConfig {
  std::vector<std::string> command;    // program (searched in PATH unless it contains '/') and its arguments
  std::string name = "runner";         // in messages: "the ONNX Runtime runner did not answer ..."
  std::string missing_hint;            // said when the program does not exist ("install Node.js, ...")
  // spawn + `hello` handshake. Node with ONNX Runtime answers in ~0.5 s on a quiet machine, but a runner under
  // emulation (qemu, 2.6 s alone) on a busy 2-core guest once took more than 30 s: this bounds a runner that hangs,
  // not a slow machine.
  std::chrono::milliseconds start_timeout{120000};
  std::size_t stderr_tail_lines = 20;  // lines kept for failure reports
  // The runner gets its own process group, so a terminal's Ctrl-C reaches rooflens only; rooflens then
  // decides what to do with the runner (the destructor always ends it).
  bool own_process_group = true;
  // Timed runs on a busy machine (--realtime): the child starts with its threads on `cpus` only (empty: wherever
  // rooflens may run; a runtime's own worker threads may pin themselves elsewhere), and enter_realtime() moves it
  // to SCHED_FIFO priority `realtime_priority` (1-99; 0 = normal scheduling), so no ordinary process can take its
  // CPUs. When the system refuses real-time scheduling (no root, no CAP_SYS_NICE) the child runs normally and
  // realtime_refusal() says why.
  int realtime_priority = 0;
  std::vector<int> cpus;
  // How many different CPU lists the child's threads are on once its workers have pinned themselves (0: none to
  // wait for): enter_realtime() waits for them first (a worker pins itself when it first runs, which may be after
  // the load's reply; made SCHED_FIFO before that, it would compute on the main thread's CPU until that blocks).
  std::size_t realtime_cpu_lists = 0;
  // "NAME=value" entries added to the child's environment (rooflens' own is passed on), e.g. the C allocator's
  // MALLOC_MMAP_THRESHOLD_ for a runner whose freed blocks must go back to the OS (a memory measurement).
  std::vector<std::string> env;

  bool operator==(const RunnerConfig&) const = default;
};

enum class ReplyStatus {
  ok,           // {"ok": true, ...}
  error,        // {"ok": false, "error": {code, message}}: the runner refused the message and keeps serving
  timeout,      // no answer in time: the runner was killed (SIGKILL) and reaped
  died,         // the runner exited or was killed while the message was in flight
  not_running,  // no runner process (never started, or dead since an earlier failure): call restart()
};

const char* to_string(ReplyStatus s);

struct RunnerReply {
  ReplyStatus status = ReplyStatus::not_running;
  nlohmann::json body;       // the reply object for ok and error; null otherwise
  std::string code;          // error.code for error ("ort", "bad_message", "input", "not_ready", "io");
                             // "timeout", "died", "not_running" otherwise
  std::string message;       // one line: the runner's error message, or what happened to the process
  std::string stderr_tail;   // last lines of the runner's stderr (set for error, timeout, died)
  int exit_code = -1;        // died: the exit code, or -1 when killed by a signal
  int term_signal = 0;       // died/timeout: the signal that ended the runner, 0 when it exited

  bool ok() const { return status == ReplyStatus::ok; }
};

class ChildRunner {
 public:
  explicit ChildRunner(RunnerConfig config);
  ~ChildRunner();
  ChildRunner(const ChildRunner&) = delete;
  ChildRunner& operator=(const ChildRunner&) = delete;

  // Spawns the child and waits for its answer to `hello`. Throws UserError (one line, ending with the child's
  // last stderr line; the full tail is in last_stderr_tail()) when the program cannot be started or the child
  // does not come up (e.g. onnxruntime-node not installed).
  void start();
  // Ends the current runner (if any) and starts a new one. A loaded model is gone: send `load` again.
  void restart();
  // Asks the runner to quit, waits briefly, then SIGKILLs it; always reaps. No-op when not running.
  void stop();

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  const RunnerConfig& config() const { return config_; }
  // The runner's answer to `hello` (versions of ONNX Runtime and Node); null before start().
  const nlohmann::json& hello() const { return hello_; }
  // Moves every thread the child has now (and so every thread it starts later) to SCHED_FIFO at
  // config().realtime_priority; false when not configured or not done. It first waits (up to kRealtimePlacementWait)
  // for the threads to be on config().realtime_cpu_lists different CPU lists. Call it once the runtime has started
  // its worker threads (after loading a model), not at spawn: SCHED_FIFO never shares a CPU among equals, so a
  // worker born real-time on the main thread's CPU does not run until that thread blocks, and cannot move itself
  // to the CPU it should pin itself to. Measured with ORT at 2 threads: the worker stayed on the main thread's
  // CPU in most runners, and a 2-thread run took as long as a 1-thread one (resnet18 at 112 px: 9.5 vs 4.8 ms).
  // When the workers have not moved by then (a busy machine that has not run them yet), the child stays at normal
  // priority rather than be made real-time on one CPU, and realtime_refusal() says so.
  bool enter_realtime();
  // Why real-time scheduling was asked for and not entered (the child runs at normal priority), or "".
  const std::string& realtime_refusal() const { return realtime_refusal_; }

  // Sends `message` (an object; "id" is set here) and waits up to `timeout` for its reply.
  RunnerReply ask(nlohmann::json message, std::chrono::milliseconds timeout);

  // The last `stderr_tail_lines` lines the runner wrote to stderr (and any stray non-protocol stdout lines).
  std::string last_stderr_tail() const;

  // ---- many messages in flight (child_runner_async.cpp): one issuer drives many runners with poll() ----
  // Writes `message` ("id" set here, returned) without waiting for its reply. Messages are a few dozen bytes: the
  // write waits for room in the pipe only when the runner has stopped reading. false: the runner is gone.
  bool send_async(nlohmann::json message, long long& id);
  // The descriptor to poll for answers (POLLIN); -1 when not running.
  int reply_fd() const { return out_fd_; }
  // Reads whatever answers have arrived, without blocking, appending them (status ok or error, body with "id").
  // false once the runner ended: `death` then says how (the same words ask() uses), with its last stderr line.
  bool read_replies(std::vector<RunnerReply>& out, std::string& death);
  // Ends the runner at once (SIGKILL) and reaps it: a runner that stopped answering.
  void kill_now();

 private:
  void spawn();
  void close_fds();
  void drain_stderr_nonblocking();
  void absorb_stderr(const char* data, std::size_t n);
  void absorb_noise(const std::string& line);
  // Reaps the child; if it has not exited within `grace`, SIGKILLs it first. Fills exit_code/term_signal.
  void reap(std::chrono::milliseconds grace, RunnerReply* into);
  RunnerReply failure(ReplyStatus status, std::string message);

  RunnerConfig config_;
  std::string realtime_refusal_;
  pid_t pid_ = -1;
  int in_fd_ = -1;   // our end of the runner's stdin (a socket, so writes never raise SIGPIPE)
  int out_fd_ = -1;  // runner's stdout
  int err_fd_ = -1;  // runner's stderr
  std::string out_buf_;
  std::string err_partial_;
  std::deque<std::string> err_lines_;
  long long next_id_ = 1;
  nlohmann::json hello_;
};

}  // namespace rooflens
