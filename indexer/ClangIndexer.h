// The only code that calls libclang, linked into the `nib-clang` worker alone (a process that
// links libclang pays ~65 ms at start-up, and a translation unit that crashes or hangs libclang
// must take only its worker down). Reads compilation databases and indexes one translation unit.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/Status.h"
#include "views/ClangFacts.h"

namespace nib {

namespace clangindex {
struct SessionFiles;
class BlankedHeaders;
}

// Every entry of the compilation database in `directory` (compile_commands.json).
Expected<std::vector<CompileCommand>> readCompileCommands(const std::filesystem::path& directory);

// A worker's indexing session: translation units indexed one after another in it share
// libclang's record of the function bodies it has parsed, so with `skipParsedBodies` a header's
// bodies are parsed by the first unit that reads them only — clangd's background index skips
// them the same way, and C++ headers are most of a unit's parse (libclang 14 skips bodies in C++
// only, and only in a header included once or inside an #if region; for C units the session
// hands libclang the headers with those bodies blanked, ClangBodyBlanking.h). Each unit's facts say which
// files' bodies it parsed (`TuFacts::bodiesParsed`); the builder makes sure every file is one
// unit's. Such a session also reports a repository header's macro definitions, prototypes'
// parameters and macro expansions once, in the first unit that reads them
// (`TuFacts::sitesLeftOut`, `expansionsLeftOut`), as clangd's background index indexes a header
// once: a unit of a macro-heavy C code base read thousands of them again each time.
class ClangSession {
 public:
  explicit ClangSession(bool skipParsedBodies);
  ~ClangSession();
  ClangSession(const ClangSession&) = delete;
  ClangSession& operator=(const ClangSession&) = delete;

  // Indexes one translation unit: see indexTranslationUnit.
  Expected<TuFacts> index(const CompileCommand& command, const std::filesystem::path& root);

 private:
  void recordParsedBodies(TuFacts& facts, void* tu);
  void learnBodies(const TuFacts& facts, void* tu);
  std::optional<TuFacts> mainFileWithPreamble(const CompileCommand& command, const std::filesystem::path& root,
                                              std::vector<const char*> argv);
  void open();
  void close();
  void restart();

  void* index_ = nullptr;   // CXIndex
  void* action_ = nullptr;  // CXIndexAction
  bool skipParsedBodies_ = false;
  std::set<std::string> readBefore_;  // files earlier units read as headers
  std::unique_ptr<clangindex::SessionFiles> files_;  // shared by the session's units
  std::unique_ptr<clangindex::BlankedHeaders> blanked_;  // C headers whose bodies a unit parsed
};

// Indexes one translation unit: declarations, definitions and references keyed by USR (implicit
// template instantiations mapped to their templates, macros from the preprocessing record), call
// and base-class edges. Only occurrences in files under `root` are kept.
Expected<TuFacts> indexTranslationUnit(const CompileCommand& command, const std::filesystem::path& root);

}  // namespace nib
