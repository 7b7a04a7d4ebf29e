#pragma once
// A throwaway single-node Slurm for the fleet tests, from Debian's packages: munged with a key generated here,
// slurmctld and slurmd for this host on free ports, process tracking by /proc (no cgroups), no accounting database
// (sacct has nothing to read, so rooflens falls back to scontrol, which remembers ended tasks for MinJobAge). Every
// file in a temp dir; the daemons are stopped and the dir deleted when the test binary ends. Slurm's tools find it
// through SLURM_CONF, which instance() sets for this process and the processes it starts.
//
// Starting needs root (slurmd runs each job as its submitting user) and the packages slurmctld, slurmd, slurm-client
// and munge; when either is missing instance() throws with the reason, and the tests skip with it.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "support/cli_runner.h"

namespace rooflens::testing {

class SlurmCluster {
 public:
  static SlurmCluster& instance() {
    static std::unique_ptr<SlurmCluster> c(new SlurmCluster());
    return *c;
  }
  const std::string& conf() const { return conf_; }
  const std::string& dir() const { return dir_; }

  // A Slurm tool's output (stdout and stderr), SLURM_CONF set.
  std::string tool(const std::string& args) const {
    const std::string out = dir_ + "/tool.out";
    std::system(("SLURM_CONF=" + conf_ + " " + args + " >" + out + " 2>&1").c_str());
    return slurp(out);
  }

  ~SlurmCluster() { shut_down(); }

 private:
  SlurmCluster() {
    if (::geteuid() != 0) throw std::runtime_error("Slurm's slurmd must run as root here (it starts jobs as their user)");
    for (const char* b : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/sbin/munged", "/usr/sbin/mungekey"})
      if (!std::filesystem::exists(b))
        throw std::runtime_error(std::string(b) + " is missing (apt-get install slurmctld slurmd slurm-client munge)");
    char tmpl[] = "/tmp/rooflens-slurm-XXXXXX";  // short: munge's socket path must fit a sockaddr_un
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    try {
      for (const char* d : {"/state", "/spool", "/munge"}) std::filesystem::create_directories(dir_ + d);
      start_munge();
      conf_ = dir_ + "/slurm.conf";
      write_conf();
      ::setenv("SLURM_CONF", conf_.c_str(), 1);
      run("/usr/sbin/slurmctld -i -f " + conf_, "slurmctld");
      run("/usr/sbin/slurmd -N localhost -f " + conf_, "slurmd");
      wait_idle();
    } catch (...) {
      shut_down();  // no daemon outlives a cluster that did not start
      throw;
    }
  }

  void shut_down() {
    if (dir_.empty()) return;
    if (!conf_.empty()) tool("scancel --full --user=root");
    for (const char* pid : {"/slurmd.pid", "/slurmctld.pid", "/munge/munged.pid"}) stop(dir_ + pid);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }

  void start_munge() {
    const std::string m = dir_ + "/munge";
    run("/usr/sbin/mungekey --create --force --keyfile=" + m + "/munge.key && chmod 600 " + m + "/munge.key", "mungekey");
    run("/usr/sbin/munged --force --socket=" + m + "/munge.socket --key-file=" + m + "/munge.key --pid-file=" + m +
            "/munged.pid --log-file=" + m + "/munged.log --seed-file=" + m + "/seed",
        "munged");
  }

  // The node as `slurmd -C` sees this machine (CPUs, sockets, cores, memory), so slurmd never drains itself for a
  // configuration larger than the hardware.
  std::string node_line() {
    const std::string out = dir_ + "/node.txt";
    if (std::system(("/usr/sbin/slurmd -C >" + out + " 2>&1").c_str()) != 0)
      throw std::runtime_error("slurmd -C failed: " + slurp(out));
    std::ifstream in(out);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("NodeName=", 0) == 0) {
        const std::string host = line.substr(9, line.find(' ') - 9);
        std::string rest = line.substr(line.find(' '));
        // RealMemory as reported can exceed what slurmd measures a moment later: configure half of it.
        auto rm = rest.find("RealMemory=");
        if (rm != std::string::npos) {
          auto end = rest.find(' ', rm);
          long mb = std::stol(rest.substr(rm + 11, end == std::string::npos ? std::string::npos : end - rm - 11));
          rest = rest.substr(0, rm) + "RealMemory=" + std::to_string(mb / 2) + (end == std::string::npos ? "" : rest.substr(end));
        }
        // NodeAddr: reach slurmd on the loopback whatever the host name resolves to in a container.
        return "NodeName=localhost NodeHostname=" + host + " NodeAddr=127.0.0.1" + rest;
      }
    throw std::runtime_error("slurmd -C printed no NodeName line: " + slurp(out));
  }

  void write_conf() {
    std::ofstream c(conf_);
    c << "ClusterName=rooflens-test\nSlurmctldHost=localhost(127.0.0.1)\nSlurmUser=root\n"
      << "SlurmctldPort=" << free_port() << "\nSlurmdPort=" << free_port() << "\n"
      << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << dir_ << "/munge/munge.socket\n"
      << "StateSaveLocation=" << dir_ << "/state\nSlurmdSpoolDir=" << dir_ << "/spool\n"
      << "SlurmctldPidFile=" << dir_ << "/slurmctld.pid\nSlurmdPidFile=" << dir_ << "/slurmd.pid\n"
      << "SlurmctldLogFile=" << dir_ << "/slurmctld.log\nSlurmdLogFile=" << dir_ << "/slurmd.log\n"
      << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
      << "AccountingStorageType=accounting_storage/none\nMinJobAge=3600\nReturnToService=2\nMpiDefault=none\n"
      << "SchedulerType=sched/backfill\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
      << node_line() << " State=UNKNOWN\n"
      << "PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n";
  }

  void wait_idle() {
    for (int i = 0; i < 300; ++i) {
      if (tool("sinfo -h -o %T").find("idle") != std::string::npos) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    throw std::runtime_error("the Slurm node never became idle: " + tool("sinfo -h") + " — " +
                             slurp(dir_ + "/slurmctld.log").substr(0, 2000));
  }

  static int free_port() {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("no free TCP port for Slurm");
    ::close(s);
    return ntohs(a.sin_port);
  }

  void run(const std::string& cmd, const char* what) const {
    const std::string log = dir_ + "/start.log";
    if (std::system((cmd + " >>" + log + " 2>&1").c_str()) != 0)
      throw std::runtime_error(std::string(what) + " failed: " + slurp(log).substr(0, 2000));
  }

  // SIGTERM, then wait (up to 10 s) for the daemon to be gone: it writes its state on the way out, and the temp dir
  // is removed after.
  static void stop(const std::string& pid_file) {
    const pid_t pid = static_cast<pid_t>(std::atol(slurp(pid_file).c_str()));
    if (pid <= 0 || ::kill(pid, SIGTERM) != 0) return;
    for (int i = 0; i < 100 && ::kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  std::string dir_, conf_;
};

}  // namespace rooflens::testing
