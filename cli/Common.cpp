#include <cstdarg>
#include <cstdio>

#include "cli/Commands.h"

namespace nib::cli {

int fail(const std::string& message, const std::string& hint) {
  std::fprintf(stderr, "nib: error: %s\n", message.c_str());
  if (!hint.empty()) std::fprintf(stderr, "nib: hint: %s\n", hint.c_str());
  return 1;
}

// printf into a string (any length).
void appendf(std::string* out, const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  int n = std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof buf) {
    out->append(buf, static_cast<size_t>(n));
    return;
  }
  std::string big(static_cast<size_t>(n) + 1, '\0');
  va_start(args, format);
  std::vsnprintf(big.data(), big.size(), format, args);
  va_end(args);
  out->append(big.data(), static_cast<size_t>(n));
}

}  // namespace nib::cli
