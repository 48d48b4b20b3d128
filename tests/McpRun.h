// `nib mcp` fed a file of newline-delimited messages, as the tests that need exact bytes on the
// wire (malformed lines, over-long ones) drive it without the SDK client.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "TestRepo.h"

namespace nib::test {

// Runs `nib mcp < FILE` (FILE relative to the repository) in the repository; REQUIREs exit 0
// and returns the replies, one JSON value per line (stderr discarded).
inline std::vector<nlohmann::json> mcpReplies(const TestRepo& repo, const std::string& file) {
  std::string out;
  int rc = runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " mcp < " +
                          shellQuote(file) + " 2>/dev/null",
                      &out);
  if (rc != 0) throw std::runtime_error("nib mcp exited with " + std::to_string(rc));
  std::vector<nlohmann::json> replies;
  size_t start = 0;
  for (size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1)
    replies.push_back(nlohmann::json::parse(out.substr(start, nl - start)));
  return replies;
}

}  // namespace nib::test
