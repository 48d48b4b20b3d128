// libnib-worktree.so: what the light `nib` executable needs to answer for a worktree that
// differs from its index — tree-sitter's extractor (every grammar) and libgit2 (ignore rules,
// tree ids) — loaded on demand through support/Module.h (cli/WorktreeModule.h is the loading
// side). Exports only the entry points below; the static libraries it carries stay hidden
// (--exclude-libs), so its copies of nib's code never clash with the executable's.
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "cli/WorktreeModule.h"
#include "indexer/Extractor.h"
#include "indexer/WorktreeGit.h"
#include "support/Log.h"
#include "support/Module.h"

#define NIB_MODULE_EXPORT extern "C" __attribute__((visibility("default")))

// The loader calls this once after dlopen: the module's own copy of the log level follows the
// executable's. Returns the ABI this module was built with, which the loader compares with its
// own.
NIB_MODULE_EXPORT const char* nib_module_init(int logLevel) {
  static const std::string abi = nib::moduleAbi();
  nib::setLogLevel(static_cast<nib::LogLevel>(logLevel));
  return abi.c_str();
}

NIB_MODULE_EXPORT nib::Expected<nib::WorktreeTools> nib_worktree_tools(const std::filesystem::path& root) {
  nib::WorktreeTools tools;
  // An extractor is not reentrant, and the engine extracts many changed files on all cores: one
  // extractor per thread.
  tools.extractor = [](nib::Language language, std::string_view text) {
    thread_local nib::Extractor extractor;
    return extractor.extract(language, text);
  };
  tools.ignored = nib::gitIgnoreRules(root);
  return tools;
}

NIB_MODULE_EXPORT nib::Expected<std::string> nib_worktree_tree(const std::filesystem::path& root) {
  return nib::worktreeTreeId(root);
}

// The entry points have exactly the types the loader casts them to.
static_assert(std::is_same_v<decltype(nib_worktree_tools), nib::cli::WorktreeToolsFn>);
static_assert(std::is_same_v<decltype(nib_worktree_tree), nib::cli::WorktreeTreeFn>);
