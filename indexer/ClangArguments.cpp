#include "indexer/ClangArguments.h"

#include <string_view>

namespace nib::clangindex {
namespace {

bool writesDependencies(std::string_view a) {
  return a == "-M" || a == "-MM" || a == "-MD" || a == "-MMD" || a == "-MG" || a == "-MP";
}

// The dependency options that take the next argument as their value (a file, a target name).
bool takesValue(std::string_view a) {
  return a == "-MF" || a == "-MT" || a == "-MQ" || a == "-MJ" || a == "--serialize-diagnostics";
}

bool joinedValue(std::string_view a) {
  return a.size() > 3 && (a.starts_with("-MF") || a.starts_with("-MT") || a.starts_with("-MQ") || a.starts_with("-MJ"));
}

// A warning option: -Wall, -Wno-x, -Werror, -Werror=x, -Wframe-larger-than=N. Not -Wp,/-Wl,/-Wa,
// (options handed to the preprocessor, linker or assembler) and not -w.
bool warningOption(std::string_view a) {
  if (!a.starts_with("-W") || a.size() < 3) return false;
  return !(a.size() >= 4 && a[3] == ',' && (a[2] == 'p' || a[2] == 'l' || a[2] == 'a'));
}

// `-Wp,-MD,deps.d,-DX` hands its pieces to the preprocessor, where -MD and -MMD take the file
// that follows (the Linux kernel's build writes its dependency lists so). The pieces that write
// files are left out; nothing is kept when nothing else is left.
std::string withoutDependencyPieces(std::string_view passed) {
  std::vector<std::string_view> pieces;
  for (size_t at = 0; at <= passed.size();) {
    size_t comma = passed.find(',', at);
    if (comma == std::string_view::npos) comma = passed.size();
    pieces.push_back(passed.substr(at, comma - at));
    at = comma + 1;
  }
  std::string kept;
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string_view p = pieces[i];
    if (p == "-MD" || p == "-MMD" || takesValue(p)) {
      ++i;  // and its file
      continue;
    }
    if (writesDependencies(p) || joinedValue(p)) continue;
    kept += kept.empty() ? "" : ",";
    kept += p;
  }
  return kept.empty() ? std::string() : "-Wp," + kept;
}

}  // namespace

std::vector<std::string> compilerArguments(const CompileCommand& command) {
  std::vector<std::string> args;
  for (size_t i = 0; i < command.arguments.size(); ++i) {
    const std::string& a = command.arguments[i];
    if (i == 0) {
      args.push_back(a);  // the compiler, whatever its name
      continue;
    }
    if (takesValue(a)) {
      ++i;  // and its value
      continue;
    }
    if (writesDependencies(a) || joinedValue(a) || warningOption(a)) continue;
    if (a.starts_with("-Wp,")) {
      if (std::string kept = withoutDependencyPieces(std::string_view(a).substr(4)); !kept.empty()) args.push_back(kept);
      continue;
    }
    args.push_back(a);
  }
  args.insert(args.begin() + (args.empty() ? 0 : 1), "-working-directory=" + command.directory);
  return args;
}

}  // namespace nib::clangindex
