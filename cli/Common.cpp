#include <cstdio>

#include "cli/Commands.h"

namespace nib::cli {

int fail(const std::string& message, const std::string& hint) {
  std::fprintf(stderr, "nib: error: %s\n", message.c_str());
  if (!hint.empty()) std::fprintf(stderr, "nib: hint: %s\n", hint.c_str());
  return 1;
}

}  // namespace nib::cli
