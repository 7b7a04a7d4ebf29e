#pragma once
// A throwaway PostgreSQL server for the database tests: initdb into a temp dir, pg_ctl start on a Unix socket in
// that dir (no TCP), password authentication (scram-sha-256) so the tests can check that passwords never leak,
// stopped and deleted when the test binary ends. initdb refuses to run as root: as root the server runs as the
// `postgres` user (runuser). Debian's server binaries live in /usr/lib/postgresql/<version>/bin.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "support/cli_runner.h"

namespace rooflens::testing {

class PgCluster {
 public:
  static constexpr const char* kUser = "rooflens_test";
  static constexpr const char* kPassword = "s3cr3t-Pw'\"x";  // quotes and all: URLs percent-encode it

  // The shared cluster of this test binary, started on first use. Throws std::runtime_error when it cannot start.
  static PgCluster& instance() {
    static std::unique_ptr<PgCluster> c(new PgCluster());
    return *c;
  }

  // A fresh, empty database on the cluster; its URL carries the password (percent-encoded).
  std::string new_database(const std::string& prefix) {
    std::string name = prefix + "_" + std::to_string(++serial_);
    psql("CREATE DATABASE " + name);
    return url(name);
  }
  std::string url(const std::string& db, bool with_password = true) const {
    return std::string("postgresql://") + kUser + (with_password ? ":" + encoded_password() : "") + "@/" + db +
           "?host=" + socket_dir_;
  }
  // Runs SQL through psql (the server's own client, not rooflens) and returns its unaligned output.
  std::string psql(const std::string& sql, const std::string& db = "postgres") const {
    std::string out = dir_ + "/psql.out";
    std::string cmd = "PGPASSWORD=" + shell_quote(kPassword) + " " + bin_ + "/psql -X -q -A -t -h " + socket_dir_ +
                      " -U " + kUser + " -d " + db + " -c " + shell_quote(sql) + " >" + out + " 2>&1";
    int rc = std::system(cmd.c_str());
    std::string text = slurp(out);
    if (rc != 0) throw std::runtime_error("psql failed: " + sql + ": " + text);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }
  const std::string& socket_dir() const { return socket_dir_; }

  ~PgCluster() {
    if (started_) std::system((as_owner() + bin_ + "/pg_ctl -D " + data_ + " -m immediate -w stop >/dev/null 2>&1").c_str());
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  PgCluster() {
    bin_ = find_bin();
    char tmpl[] = "/tmp/rooflens-pg-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    ::chmod(dir_.c_str(), 0755);
    data_ = dir_ + "/data";
    socket_dir_ = dir_ + "/sock";
    std::filesystem::create_directories(socket_dir_);
    std::string pwfile = dir_ + "/pw";
    { std::ofstream(pwfile) << kPassword << "\n"; }
    if (::geteuid() == 0) {
      passwd* pw = ::getpwnam("postgres");
      if (!pw) throw std::runtime_error("running as root and there is no 'postgres' user to run the server as");
      for (const auto& p : {dir_, socket_dir_, pwfile}) (void)!::chown(p.c_str(), pw->pw_uid, pw->pw_gid);
    }
    run(as_owner() + bin_ + "/initdb -D " + data_ + " -U " + kUser + " --pwfile=" + pwfile +
        " --auth=scram-sha-256 --no-sync -E UTF8 --locale=C.UTF-8 >" + dir_ + "/initdb.log 2>&1", "initdb");
    run(as_owner() + bin_ + "/pg_ctl -D " + data_ + " -l " + dir_ + "/server.log -w -t 60 -o " +
            shell_quote("-k " + socket_dir_ + " -c listen_addresses='' -F -c max_connections=50") + " start >" + dir_ +
            "/pg_ctl.log 2>&1",
        "pg_ctl start");
    started_ = true;
  }

  static std::string find_bin() {
    for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql")) {
      if (std::filesystem::exists(e.path() / "bin" / "initdb")) return (e.path() / "bin").string();
    }
    throw std::runtime_error("no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (apt-get install postgresql)");
  }

  std::string as_owner() const { return ::geteuid() == 0 ? "runuser -u postgres -- " : ""; }

  void run(const std::string& cmd, const char* what) const {
    if (std::system(cmd.c_str()) != 0)
      throw std::runtime_error(std::string(what) + " failed: " + slurp(dir_ + "/initdb.log") + slurp(dir_ + "/pg_ctl.log") +
                               slurp(dir_ + "/server.log"));
  }

  static std::string encoded_password() {
    std::string out;
    for (unsigned char c : std::string(kPassword)) {
      if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
      else {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%%%02X", c);
        out += buf;
      }
    }
    return out;
  }

  std::string bin_, dir_, data_, socket_dir_;
  bool started_ = false;
  int serial_ = 0;
};

}  // namespace rooflens::testing
