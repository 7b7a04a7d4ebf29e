#include "db/url.h"

#include <cstdlib>
#include <string_view>

namespace rooflens::db {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Percent-decoding of a URL's userinfo part (libpq decodes it the same way), for scrubbing the decoded form too.
std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The password of "scheme://user:password@host...", raw (as written); "" when none.
std::string url_password(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return "";
  size_t start = scheme + 3;
  size_t end = url.find_first_of("/?", start);
  std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  size_t at = authority.rfind('@');
  if (at == std::string::npos) return "";
  size_t colon = authority.find(':');
  if (colon == std::string::npos || colon > at) return "";
  return authority.substr(colon + 1, at - colon - 1);
}

void replace_all(std::string& s, const std::string& what, const std::string& with) {
  if (what.empty()) return;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size())) s.replace(at, what.size(), with);
}

}  // namespace

std::string redact_url(const std::string& url) {
  std::string out = url;
  std::string pw = url_password(url);
  if (!pw.empty()) {
    size_t scheme = out.find("://");
    size_t at = out.find('@', scheme + 3);
    size_t colon = out.find(':', scheme + 3);
    out.replace(colon + 1, at - colon - 1, "***");
  }
  // libpq also takes password=... as a query parameter.
  for (size_t at = out.find("password="); at != std::string::npos; at = out.find("password=", at + 1)) {
    if (at > 0 && out[at - 1] != '?' && out[at - 1] != '&') continue;
    size_t end = out.find('&', at);
    out.replace(at + 9, (end == std::string::npos ? out.size() : end) - at - 9, "***");
  }
  return out;
}

std::string scrub(std::string message, const std::string& secret) {
  if (!secret.empty()) {
    replace_all(message, secret, "***");
    replace_all(message, percent_decode(secret), "***");
  }
  if (const char* env = std::getenv("PGPASSWORD"); env && *env) replace_all(message, env, "***");
  for (char& c : message)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!message.empty() && message.back() == ' ') message.pop_back();
  return message;
}

DbUrl parse_db_url(const std::string& url) {
  DbUrl u;
  if (url.empty()) throw UsageError("--db: empty database URL (give a file path, sqlite:PATH or postgresql://...)");
  if (starts_with(url, "postgresql://") || starts_with(url, "postgres://")) {
    u.kind = DbKind::postgresql;
    u.target = url;
    u.shown = redact_url(url);
    u.password = url_password(url);
    // a password=... query parameter is scrubbed as well
    if (size_t at = url.find("password="); at != std::string::npos && u.password.empty()) {
      size_t end = url.find('&', at);
      u.password = url.substr(at + 9, end == std::string::npos ? std::string::npos : end - at - 9);
    }
    return u;
  }
  std::string path = url;
  if (starts_with(url, "sqlite://")) path = url.substr(9);
  else if (starts_with(url, "sqlite:")) path = url.substr(7);
  else if (size_t scheme = url.find("://"); scheme != std::string::npos && scheme < 16)
    throw UsageError("--db " + redact_url(url) + ": unknown database kind '" + url.substr(0, scheme) +
                     "' (rooflens stores results in SQLite files and PostgreSQL: give a path, sqlite:PATH or "
                     "postgresql://...)");
  if (path.empty()) throw UsageError("--db " + url + ": no file path after 'sqlite:'");
  u.kind = DbKind::sqlite;
  u.target = path;
  u.shown = path;
  return u;
}

std::string default_db_path(const char* xdg_data_home, const char* home) {
  if (xdg_data_home && *xdg_data_home == '/') return std::string(xdg_data_home) + "/rooflens/results.db";
  if (home && *home) return std::string(home) + "/.local/share/rooflens/results.db";
  return "";
}

std::string resolve_db_url(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("ROOFLENS_DB"); env && *env) return env;
  std::string path = default_db_path(std::getenv("XDG_DATA_HOME"), std::getenv("HOME"));
  if (path.empty())
    throw UsageError("no results database: HOME and XDG_DATA_HOME are unset; give --db URL (or --no-db)");
  return path;
}

}  // namespace rooflens::db
