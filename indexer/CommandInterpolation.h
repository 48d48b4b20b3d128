// The compile command for a C/C++ file the compilation database does not list, borrowed from
// the entry clangd would borrow it from, so that a made-up unit parses the file as clangd does
// when the file is opened.
#pragma once

#include <string>
#include <vector>

#include "views/ClangFacts.h"

namespace nib {

// clang's InterpolatingCompilationDatabase's choice of a proxy file (what clangd uses): points
// for a candidate whose name (without extension) starts with the file's and more when it is the
// same, for each of the file's last two folder names found among the candidate's last four, for
// sharing the path above those two folders; candidates of the file's language first (when its
// extension says: not a `.h`); ties by the longer common path prefix, then by the earlier path
// in sorted order; without any point, the path sharing the longest prefix.
class DonorIndex {
 public:
  // `units`: the database's commands, in its order (the first of a file's is the one borrowed).
  explicit DonorIndex(const std::vector<CompileCommand>& units);
  // The command whose file clangd would borrow one from for `file` (absolute); nullptr when the
  // database is empty.
  const CompileCommand* donorFor(const std::string& file) const;

 private:
  struct Candidate {
    std::string lower;       // the path, lowercased
    std::string stem;        // the file name without its extension, lowercased
    std::vector<std::string> folders;  // its last four folder names longer than one byte, lowercased
    int language = 0;        // 1 C, 2 C++, 0 other
    const CompileCommand* command = nullptr;
  };
  std::vector<Candidate> candidates_;  // by path, sorted
};

// `donor`'s command made to compile `file` (under `root`) instead, in the language `file`'s
// extension and the donor's suggest.
CompileCommand interpolatedCommand(const CompileCommand& donor, const std::string& root, const std::string& file);

}  // namespace nib
