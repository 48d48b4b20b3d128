// The `clang/` view of a version: libclang's occurrences of every indexed translation unit,
// merged (a header seen by several TUs is stored once per distinct occurrence) and keyed two
// ways: by file (which symbol is at a position) and by USR (where a symbol is defined,
// declared and referenced). Repository paths, 0-based lines, byte columns.
#pragma once

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/Status.h"
#include "support/Text.h"
#include "views/ClangFacts.h"
#include "views/Lmdb.h"

namespace nib {

// The view's storage format; part of the configuration digest, so that an index with a view of
// another format is rebuilt by the next `nib index`.
constexpr uint8_t kClangViewFormat = 22;  // 12: files read per main file; a main file's own skipped ranges; 13: headers an includer configures parsed alone; 14: headers without an include guard parsed alone where that parse has errors; 15: the #includes units entered; 16: code units see differently; 17: entities' places outside the repository; 18: the templates class specializations specialize; 19: sections a minority of units keep, names of macro words; 20: C and C++ twins of a function kept apart, the minority language's sites in a header; 21: the files outside the repository each main file read; 22: headers naming what only their includers' system headers declare tried alone, a base class named through an alias listed at the alias, attributes' words, a struct's declaration by a typedef's elaborated name, no made-up unit's AST-only names in headers real units read

struct ClangSite {
  std::string path;
  ByteRange range;  // the name, on one line
  ClangRole role = ClangRole::Reference;
  bool call = false;
  // Seen only by a unit nib made up for a file no compile command reached (a header nothing
  // includes): not part of what the build compiles.
  bool interpolated = false;
  // The first declaration the first translation unit saw: what clang calls the canonical one
  // (a namespace's first block), which clangd answers for names declared many times.
  bool canonical = false;
  // What a macro's body names, at the macro's expansion point, and a declaration's twin in the
  // macro's text (see ClangOccurrence): definitions skip the first, references the second.
  bool expanded = false;
  bool macroBody = false;
  // A declaration clangd's index does not list among references (a template parameter of a
  // partial specialization or of a later redeclaration): it answers definitions only.
  bool unlisted = false;
};

struct ClangSymbol {
  std::string usr, name;
  uint8_t kind = 0;             // SymbolKind
  std::vector<ClangSite> sites;  // in (path, offset) order
  // Virtual methods: the ones this one overrides, and the ones overriding it; classes: their
  // direct bases and the classes deriving from them directly (symbol ids, sorted).
  std::vector<uint32_t> overrides, overriddenBy, bases, derived;
  // Variables, fields, parameters and functions: the declaration of their type (see TuFacts).
  std::vector<uint32_t> types;
  // Class specializations: the class template each specializes (see TuFacts::specializations).
  std::vector<uint32_t> specialized;
  // Whether every site, references included, lies in one file: set when read from the view,
  // where `sites` may leave references out (ClangView::symbolForDefinition).
  std::optional<bool> oneFile;
  // The symbol's id in the view it was read from (none for one made up elsewhere): what its
  // place outside the repository is looked up by (ClangView::outsideSite).
  std::optional<uint32_t> id;

  // Every list of symbol ids above, in the order the view stores them: what writing, reading and
  // merging symbols go through, so that a list added is never left out of one of them.
  std::array<std::vector<uint32_t>*, 6> edges() { return {&overrides, &overriddenBy, &bases, &derived, &types, &specialized}; }
  std::array<const std::vector<uint32_t>*, 6> edges() const {
    return {&overrides, &overriddenBy, &bases, &derived, &types, &specialized};
  }
};

// Where go-to-definition goes for a symbol declared outside the repository (ClangOutsideTarget):
// an absolute path, the name's range, and the stat signature the file had when the build ran
// (fileStatSignature) — the place holds while the file is unchanged.
struct ClangOutsideSite {
  std::string path;
  ByteRange range;
  bool definition = false;
  std::string signature;
};

// One occurrence in a file: which symbol is named at [start, end).
struct ClangFileOccurrence {
  uint32_t start = 0, end = 0;
  uint32_t symbol = 0;
  ClangRole role = ClangRole::Reference;
  bool expanded = false;  // named by a macro's body expanded here, not written here
  bool guessed = false;   // a dependent member name resolved by lookup (see ClangOccurrence)
  bool unlisted = false;  // a name only the AST resolves (see ClangOccurrence)
  // Reported by a unit that #includes this file, which is another unit's main file (a test
  // file included whole by an amalgamation): that unit may see another entity here (a macro
  // defined otherwise). The file's own unit is what clangd parses when it opens the file.
  bool foreign = false;
};

// Where a TypeScript or JavaScript file stands among the programs TypeScript's server builds
// (the precise view only): the tsconfig.json projects holding it as a root file (numbers from 1,
// the nearest tsconfig.json first; none for a file no tsconfig.json includes) and the
// repository files it imports. A program is its roots and what they import, transitively.
struct FileProgram {
  std::vector<uint32_t> projects;
  std::vector<std::string> imports;
};

// Every file's FileProgram, and each project's folder (by project number - 1; "" for the
// repository's own tsconfig.json).
struct ProgramTable {
  std::map<std::string, FileProgram> files;
  std::vector<std::string> folders;
  std::vector<bool> composite;  // parallel to folders: the project's tsconfig.json is composite
};

// The merged contents to write: symbols by id, and per repository path its occurrences.
struct ClangViewContents {
  std::vector<ClangSymbol> symbols;
  std::vector<std::pair<std::string, std::vector<ClangFileOccurrence>>> files;  // sorted by path
  // Files only units nib made up saw (no compile command reaches them), sorted.
  std::vector<std::string> interpolatedFiles;
  // Files that are one unit's main file and that another unit #includes (a test file an
  // amalgamation includes whole), sorted.
  std::vector<std::string> sharedMainFiles;
  // Every file a unit read (repository paths; files outside the repository, system headers, by
  // absolute path), sorted, and per unit's main file (sorted) the numbers (into readFiles,
  // ascending) of the other files its units read: which headers' macros a file's own parse knows.
  std::vector<std::string> readFiles;
  std::vector<std::pair<std::string, std::vector<uint32_t>>> reads;
  // Per file (sorted), the #includes a unit's preprocessor entered there, in offset order: the
  // offset of the directive and the file it entered (any unit's: an #include resolves alike in
  // every configuration but for a file that differs by include path).
  std::vector<std::pair<std::string, std::vector<std::pair<uint32_t, std::string>>>> inclusions;
  // Files every unit entered inside a scope (ClangInclusion::enclosed), sorted: what they declare
  // is another entity when the file is parsed alone, at the top level, as clangd parses it open.
  std::vector<std::string> enclosedFiles;
  // Files every unit entered inside an `extern "C"` block (ClangInclusion::externC), sorted: their
  // functions are other entities (C++ linkage) when the file is parsed alone as C++.
  std::vector<std::string> externCFiles;
  // Namespaces (symbol ids, ascending) some unit opened first outside the repository (TuFacts).
  std::vector<uint32_t> openedOutside;
  // Symbols declared outside the repository (ids, ascending) and where their definition answers.
  std::vector<std::pair<uint32_t, ClangOutsideSite>> outsideSites;
  // Per path (sorted), the byte ranges the preprocessor left out: of a unit's main file, in its
  // own unit(s) (what clangd parses when the file is opened); of any other file, in every unit
  // that read it. Sorted and disjoint.
  std::vector<std::pair<std::string, std::vector<std::pair<uint32_t, uint32_t>>>> skipped;
  // Per path (sorted), the byte ranges the compilation database's units see differently, where
  // clangd's index, which keeps the view of one unit per header (the first its shuffled queue
  // indexed), may list a site or not: sections some units' preprocessor left out and others did
  // not (xz's fastpos.h under FULL_DISTANCES_BITS, which one unit defines), and the whole of a
  // file without an include guard that units read with different sites (an X-macro table: wabt's
  // opcode.def, expanded under each includer's definition of WABT_OPCODE), as [0, UINT32_MAX).
  // Sorted and disjoint. In a main file, only the places where a unit #including it whole sees
  // other sites than its own unit (UnitViews::finish).
  std::vector<std::pair<std::string, std::vector<std::pair<uint32_t, uint32_t>>>> varying;
  // Members named in an `offsetof` designator (TuFacts::designators), as name ranges, sorted and
  // disjoint per path: clangd 14 answers nothing asked there, so an answer asked there is the
  // agreement category `designator`.
  std::vector<std::pair<std::string, std::vector<std::pair<uint32_t, uint32_t>>>> designators;
  // Of those, the sections fewer than half of the units reading the file keep (UnitViews::
  // minority): references there are left out of an answer for another file, as clangd's index
  // most likely lacks them. Sorted by path.
  std::vector<std::pair<std::string, std::vector<std::pair<uint32_t, uint32_t>>>> minority;
  // Symbols only units of one language name (C, C++) and the headers where that language's units
  // are fewer than half of those reading it (sorted by symbol): a function a header defines is
  // two entities when C and C++ units read it — C++ names it with its signature, `c:@F@f#I#` —
  // and clangd's index keeps the header's sites of the twin whose language's unit indexed it,
  // most likely the majority's. References there are left out of an answer for another file;
  // at the header's own places the majority's twin answers.
  std::vector<std::pair<uint32_t, std::vector<std::string>>> minorityLanguage;
  // Files under the repository nib does not index that units read — headers a build generated,
  // which git ignores (`config.h`) — whose sites the view lists, with the stat signature each
  // had (fileStatSignature), sorted by path: a site there is only as good as the file is unchanged.
  std::vector<std::pair<std::string, std::string>> unindexed;
  std::string root;  // the repository, absolute, with a trailing '/': where `unindexed` lie
  ProgramTable programs;  // the precise view's TypeScript programs (empty elsewhere)
  // Symbols left out of the lookup by name (`names`), ascending: those only made-up units named,
  // at no site.
  std::vector<uint32_t> unnamed;
  // Files some of whose occurrences are `foreign` (main files another unit #includes), sorted:
  // where an answer must tell its own parse's sites from its includers'.
  std::vector<std::string> foreignFiles;
  // Main files whose own unit reported an error (a missing include, a made-up unit's guessed
  // command that lacks a path), sorted: answers there rest on the compiler's error recovery.
  std::vector<std::string> parsedWithErrors;
  // Main files of the compilation database's units (not of units nib made up), sorted: every
  // site their own parse saw in a file is a real unit's, never interpolated.
  std::vector<std::string> compiledMainFiles;
};
Status writeClangView(const std::filesystem::path& dir, const ClangViewContents& contents);
// A file's size and modification time as a short string ("-" when it cannot be read): what
// marks a file nib holds no blob id of as unchanged.
std::string fileStatSignature(const std::filesystem::path& path);

class ClangView {
 public:
  static Expected<std::unique_ptr<ClangView>> open(const std::filesystem::path& dir);
  // The occurrences of a file (empty when libclang saw nothing of it), in offset order.
  Expected<std::vector<ClangFileOccurrence>> occurrences(const std::string& path);
  bool hasFile(const std::string& path);
  Expected<ClangSymbol> symbol(uint32_t id);
  // The same without its references but the one at (`path`, `offset`): what a definition
  // needs. A name used everywhere has thousands of reference sites, each a path to copy; decoding
  // them was half of a definition request's time on a TypeScript library.
  Expected<ClangSymbol> symbolForDefinition(uint32_t id, std::string_view path, uint32_t offset);
  // Files no compile command reaches, indexed with a borrowed command (ClangViewContents).
  Expected<std::vector<std::string>> interpolatedFiles();
  // Main files of one unit that another unit #includes (ClangViewContents).
  Expected<std::vector<std::string>> sharedMainFiles();
  // Whether `path` is one of the view's unindexed files (ClangViewContents) and differs on disk
  // from what the units read (its stat signature changed, or it is gone).
  bool unindexedChanged(const std::string& path) const;
  // The repository the view was built for (absolute, with a trailing '/').
  const std::string& root() const { return root_; }
  // The unindexed files that differ on disk so, sorted.
  std::vector<std::string> changedUnindexedFiles() const;
  // The symbols of exactly this name (case included), by id.
  Expected<std::vector<uint32_t>> symbolsNamed(const std::string& name);
  // Whether `path` may hold `foreign` occurrences (ClangViewContents::foreignFiles; true for a
  // view that predates the record).
  bool mayHoldForeign(const std::string& path);
  // Whether `path`'s own parse reported an error (ClangViewContents::parsedWithErrors).
  bool parsedWithErrors(const std::string& path);
  // Whether `path` is the main file of a compilation database's unit
  // (ClangViewContents::compiledMainFiles); false for a view that predates the record.
  bool compiledMainFile(const std::string& path);
  // Whether `offset` lies in code the preprocessor left out (ClangViewContents::skipped).
  bool skippedAt(const std::string& path, uint32_t offset);
  // Whether `offset` lies in code the units see differently (ClangViewContents::varying; false
  // for a view that predates the record).
  bool variesAt(const std::string& path, uint32_t offset);
  // The same ranges of `path`, sorted (empty for none).
  std::vector<std::pair<uint32_t, uint32_t>> varyingIn(const std::string& path);
  // Whether `offset` lies at a member an offsetof designator names (ClangViewContents::
  // designators; false for a view that predates the record).
  bool designatorAt(const std::string& path, uint32_t offset);
  // The sections of `path` only a minority of the units reading it keep (ClangViewContents::minority).
  std::vector<std::pair<uint32_t, uint32_t>> minorityIn(const std::string& path);
  // The headers where `symbol` is the minority language's twin (ClangViewContents::
  // minorityLanguage); empty for none.
  std::vector<std::string> minorityLanguageOf(uint32_t symbol);
  // The other files the units whose main file `path` is read (repository paths, and the files
  // outside the repository by absolute path, sorted; valid while the view lives); nullopt when it
  // is no unit's main file, or the view predates this record.
  Expected<std::optional<std::vector<std::string_view>>> filesReadBy(const std::string& path);
  // The #includes units entered in `path` (ClangViewContents::inclusions): the offset of each
  // directive and the file it entered, in offset order (valid while the view lives); empty for
  // none, and for a view that predates the record.
  Expected<std::vector<std::pair<uint32_t, std::string_view>>> inclusionsIn(const std::string& path);
  // Whether every unit entered `path` inside a scope (ClangViewContents::enclosedFiles).
  bool enclosedFile(const std::string& path);
  // Whether every unit entered `path` inside an `extern "C"` block (ClangViewContents::externCFiles).
  bool externCFile(const std::string& path);
  // Whether a unit opened the namespace `id` first outside the repository (`std`).
  bool openedOutside(uint32_t id);
  // Where the symbol `id`, declared outside the repository, is defined (ClangOutsideSite);
  // nullopt for none, and for a view that predates the record.
  std::optional<ClangOutsideSite> outsideSite(uint32_t id);
  // The TypeScript programs; nullopt when the view records none (a clang view, or a precise
  // view written before programs were).
  Expected<std::optional<ProgramTable>> programs();

 private:
  Expected<ClangSymbol> decodeSymbol(uint32_t id, const std::string_view* onlyAt, uint32_t offset);
  ClangView(std::unique_ptr<LmdbEnv> env, LmdbTxn txn) : env_(std::move(env)), txn_(std::move(txn)) {}
  Expected<std::vector<std::string>> keys(MDB_dbi table);  // a path table's keys, in order
  bool rangesHold(MDB_dbi table, const std::string& path, uint32_t offset);  // a range table's
  std::vector<std::pair<uint32_t, uint32_t>> rangesOf(MDB_dbi table, const std::string& path);
  std::unique_ptr<LmdbEnv> env_;
  LmdbTxn txn_;
  MDB_dbi files_ = 0, symbols_ = 0, interpolated_ = 0, names_ = 0, skipped_ = 0, shared_ = 0;
  std::optional<MDB_dbi> programs_;  // absent from views that record no programs
  std::optional<MDB_dbi> reads_;     // absent from views written before it was
  std::optional<MDB_dbi> errors_;    // the same
  std::optional<MDB_dbi> compiled_;  // the same
  std::optional<MDB_dbi> foreign_;   // the same
  std::optional<MDB_dbi> inclusions_;  // the same
  std::optional<MDB_dbi> minority_;  // the same
  std::optional<MDB_dbi> minorityLanguage_;  // the same
  std::optional<MDB_dbi> varying_;     // the same
  std::optional<MDB_dbi> designators_;  // the same
  std::optional<MDB_dbi> enclosed_;    // the same
  std::optional<MDB_dbi> openedOutside_;  // the same
  std::optional<MDB_dbi> outsideSites_;   // the same
  std::optional<std::vector<std::string>> readFiles_;  // decoded on first use
  // The unindexed table (a few generated headers), read once: every site of an answer asks
  // whether its file is one. Repository path -> stat signature; root_ is where they lie.
  std::map<std::string, std::string> unindexed_;
  std::string root_;
};

}  // namespace nib
