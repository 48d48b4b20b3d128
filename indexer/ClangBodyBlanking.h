// Function bodies of C headers, parsed once per worker session. libclang 14 skips the bodies an
// earlier unit of an indexing session parsed only for C++ (its indexing turns
// SkipParsedBodiesInSession off for C), so a C code base whose headers define many inline
// functions parsed them all again in every unit: jemalloc's units read 563 bodies in 52 headers,
// half of each unit's parse, and its clang view took twice as long to build as clangd's
// background index, which skips the bodies of headers it indexed already. The session does for
// C what libclang does for C++: once a unit parsed a header's bodies, later units of the session
// read the header with those bodies blanked (the same bytes, the statements between the braces
// made spaces), so they parse and report what lies outside them, as a unit that skipped them
// would (TuFacts::bodiesParsed names the headers whose bodies a unit parsed).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// libclang's handles, declared as clang-c/Index.h declares them (so that a test can use this
// header without libclang's include path).
struct CXTranslationUnitImpl;
struct CXUnsavedFile;
typedef struct CXTranslationUnitImpl* CXTranslationUnit;
typedef void* CXFile;

namespace nib::clangindex {

using ByteRange = std::pair<uint32_t, uint32_t>;  // [begin, end)

// `text` with each of `bodies` (from a function body's `{` to just past its `}`) blanked: every
// byte between the braces becomes a space, except line breaks, preprocessor directives (with
// their continuation lines and the comments they hold) and the bytes inside `keep` (code the
// preprocessor left out, whose words a unit reports). Offsets and lines stay where they were. A
// body holding an #include, one the scan cannot follow (a comment or literal left open) or one
// whose braces are not at its ends is left whole. nullopt when no body was blanked.
std::optional<std::string> blankBodies(std::string_view text, const std::vector<ByteRange>& bodies,
                                       const std::vector<ByteRange>& keep);

// The headers of a worker session whose bodies an earlier unit parsed, as later units read them.
class BlankedHeaders {
 public:
  // The blanked texts, for libclang to read in place of the files' (valid until the next learn,
  // refuse or clear); never the unit's main file `mainPath`.
  std::vector<CXUnsavedFile> unsaved(const std::string& mainPath) const;
  // Learns the bodies of the function definitions at the top level of `tu` (a C unit) spelt in
  // `headers` (paths as libclang names the files: headers whose bodies this unit parsed) that
  // have an include guard, with
  // the ranges the preprocessor left out there (`skipped`, by path). The text blanked is the one
  // libclang parsed.
  void learn(CXTranslationUnit tu, const std::vector<std::string>& headers,
             const std::map<std::string, std::vector<ByteRange>>& skipped);
  // The blanked headers of `tu` where its errors (`errorFiles`) lie are read whole from now on;
  // whether there were any.
  bool refuseWhereErrors(CXTranslationUnit tu, const std::vector<CXFile>& errorFiles);
  void clear();

 private:
  std::map<std::string, std::string> texts_;
  std::set<std::string> refused_;
};

}  // namespace nib::clangindex
