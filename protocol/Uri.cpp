#include "protocol/Uri.h"

#include <cctype>
#include <cstdio>

namespace nib {
namespace {
int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

Expected<std::string> uriToPath(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size() || uri.substr(0, kScheme.size()) != kScheme)
    return Status(ErrorCode::InvalidArgument, "unsupported URI (only file:// URIs name files): " + std::string(uri));
  std::string_view rest = uri.substr(kScheme.size());
  // An authority ("file://host/path") other than localhost names another machine.
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return Status(ErrorCode::InvalidArgument, "URI has no path: " + std::string(uri));
  std::string_view host = rest.substr(0, slash);
  if (!host.empty() && host != "localhost")
    return Status(ErrorCode::InvalidArgument, "URI names another host: " + std::string(uri));
  rest = rest.substr(slash);
  std::string out;
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '%') {
      int hi = i + 2 < rest.size() ? hexValue(rest[i + 1]) : -1;
      int lo = i + 2 < rest.size() ? hexValue(rest[i + 2]) : -1;
      if (hi < 0 || lo < 0)
        return Status(ErrorCode::InvalidArgument, "malformed percent-escape in URI: " + std::string(uri));
      char decoded = static_cast<char>(hi * 16 + lo);
      if (decoded == '\0') return Status(ErrorCode::InvalidArgument, "URI contains a NUL byte");
      out.push_back(decoded);
      i += 2;
    } else if (c == '?' || c == '#') {
      break;  // query and fragment do not name the file
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string pathToUri(std::string_view path) {
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace nib
