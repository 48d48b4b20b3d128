// What libclang reports about one translation unit (written by the `nib-clang` worker, read by
// the index builder): every declaration, definition and reference it saw, keyed by USR, with
// ranges exactly as clang reports them, plus call and base-class edges and the files the TU read.
// Binary, versioned, bounds-checked: a worker that dies half-way yields a record that fails to
// decode, never a misread one.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "support/Status.h"

namespace nib {

enum class ClangRole : uint8_t { Definition = 0, Declaration = 1, Reference = 2 };

// The USR prefix of a using-declaration's own symbol (`using ns::name;`), which clang gives no
// USR of its own per declaration: nib names it by file and offset.
inline constexpr std::string_view kUsingDeclarationUsr = "nib:using@";
// The USR prefix of a parameter of a function declaration that is no definition, which clang's
// indexer does not report: nib names it by file and offset.
inline constexpr std::string_view kParameterUsr = "nib:param@";
// The USR prefix of a macro the compiler predefines (`__GNUC__`, `__STDC_VERSION__`; not the
// command line's -D macros), which clang names `c:@macro@NAME` as it names those: clangd's
// index keeps no references of them, so its references answer the asked file's alone.
inline constexpr std::string_view kPredefinedMacroUsr = "nib:predefined-macro@";
// The USR prefix nib gives a label (`cleanup:`), which has none: the label's repository path and
// offset follow, so that every unit reading one file names a label alike.
inline constexpr std::string_view kLabelUsrPrefix = "nib:label@";
// The USR prefix of a member name in a template that depends on a template parameter and that
// neither clang nor nib's guess resolves (`ValueType(v, a).Move()` where ValueType is one): the
// name follows. clangd 14 answers go-to-definition there from its index by the bare word (its
// textual fallback, for dependent names only), and lists no references.
inline constexpr std::string_view kDependentNameUsrPrefix = "nib:dependent@";
// The USR prefix of what TypeScript's server answers at a call's callee where that is not the
// name's own declarations (scip/TypeScriptCalls): a symbol whose USR spells its definitions'
// places (calledDefinitionsUsr), sited only at the callees (expanded), so that a definition in a
// file of another project, or none, needs no site there.
inline constexpr std::string_view kCalledDefinitionsUsr = "nib:called@";
struct CalledLocation {
  std::string path;  // repository-relative
  uint32_t line = 0, column = 0, offset = 0, length = 0;  // column and offset in bytes
};
std::string calledDefinitionsUsr(const std::vector<CalledLocation>& locations);
// The places a called-definitions USR spells; nullopt for another USR or a malformed one.
std::optional<std::vector<CalledLocation>> calledDefinitionsOf(std::string_view usr);

struct ClangOccurrence {
  uint32_t file = 0;    // into TuFacts::files
  uint32_t line = 0;    // 0-based
  uint32_t column = 0;  // 0-based, UTF-8 bytes
  uint32_t offset = 0;  // byte offset of the name
  uint32_t length = 0;  // the name's length in bytes
  uint32_t usr = 0;     // into TuFacts::usrs
  ClangRole role = ClangRole::Reference;
  bool call = false;       // a reference that is a call
  int32_t container = -1;  // the enclosing function's USR (calls), or -1
  uint8_t kind = 0;        // nib SymbolKind of the entity
  // Not written here: named by a macro's body, the occurrence lies at the macro's expansion
  // point (where clang's file location puts it, and where clangd reports such references), or
  // named implicitly (a constructor at a qualified name's start or at the variable it builds).
  // A declaration there usually also has a `macroBody` twin where the macro's text spells its
  // name: clangd goes to that one for definitions and lists the expansion among references. A
  // name the macro pastes together (TEST's class) has none: the expansion serves for both.
  bool expanded = false;
  bool macroBody = false;
  // A member name the compiler could not resolve (`ctx.advance_to(it)` where `ctx`'s type
  // depends on a template parameter), resolved as clangd's go-to-definition does: by looking the
  // name up in the primary template of the base's type. Answers go-to-definition there; never
  // one of the member's references (clangd's index has none) nor an exact call edge.
  bool guessed = false;
  // A name the AST resolves exactly but clang's indexer does not report (what the type of a
  // non-type template parameter names: `FMT_ENABLE_IF(detail::is_exotic_char<Char>::value)`).
  // clangd's go-to-definition answers it from the AST while its index has no reference there:
  // a reference answers at its place and is no site of the entity's; a declaration (a template
  // parameter clangd's index leaves out) answers definitions only. Also what a unit reading a
  // repository header as a system header sees of the header's own macros (see macroVisitor).
  bool unlisted = false;
  // A name a macro's argument spells whose last expansion is pasted (indexer/MacroArguments.h):
  // clangd's selection finds no node there, so it is no name under a cursor; it stays a site of
  // its entity as written (its index lists the declaration there).
  bool unselected = false;
};

// A stretch of a file the preprocessor left out (an inactive #if branch), as libclang's
// clang_getAllSkippedRanges reports it: byte offsets, from the directive that starts it.
struct ClangSkipped {
  uint32_t file = 0;  // into TuFacts::files
  uint32_t start = 0, end = 0;
};

// An #include the unit's preprocessor entered: the file holding the directive, where in it (a
// byte inside the directive), and the file it entered (each into TuFacts::files). A file a guard
// or `#pragma once` kept out is not entered again.
struct ClangInclusion {
  uint32_t includer = 0, offset = 0, included = 0;
  // The directive lies inside a namespace block or a class, struct, union or enum definition:
  // what the file declares belongs to that scope (glog's log_severity.h, included inside
  // `namespace google {`), which it does not when the file is parsed alone.
  bool enclosed = false;
  // The directive lies inside an includer's `extern "C" {` block and the file opens no such
  // block of its own (jsonnet's libjsonnet_fmt.h, included so by C++ files): its functions have C
  // linkage in the build, and C++ linkage — another USR — when the file is parsed alone as C++.
  bool externC = false;
};

// Where clangd's go-to-definition goes for an entity a repository file names whose declaration
// lies outside the repository (a C library function, a member of a standard-library template, a
// system header's macro): the definition the unit sees, else the entity's first declaration
// (clangd's canonical one; a namespace's first block). clangd answers there; so can nib, while
// the file is as the unit read it.
struct ClangOutsideTarget {
  uint32_t usr = 0;  // into TuFacts::usrs
  std::string path;  // absolute, symbolic links resolved
  uint32_t line = 0, column = 0, offset = 0, length = 0;  // 0-based line, byte column and offset; the name's bytes
  bool definition = false;
  // Named by a word of a repository macro's replacement list alone (`fprintf(stderr, ...)` in a
  // logging macro no code expands), where the preprocessor keeps no cursor: the unit has no
  // occurrence of it, and the view makes a symbol of this `kind` (a SymbolKind) that the lookup
  // by name offers, as clangd's index of the system headers does (see ClangMacroWords.cpp).
  bool macroWord = false;
  uint8_t kind = 0;
};

struct TuFacts {
  std::string mainFile;            // absolute
  std::vector<std::string> files;  // absolute paths of every file the TU read (main file first)
  std::vector<std::string> usrs;
  std::vector<std::string> names;  // parallel to usrs: the entity's spelling
  std::vector<ClangOccurrence> occurrences;
  std::vector<std::pair<uint32_t, uint32_t>> bases;  // (class USR, base USR)
  std::vector<std::pair<uint32_t, uint32_t>> overrides;  // (method USR, the method it overrides)
  // (variable, field, parameter or function USR, the declaration of its type: pointers,
  // references and arrays looked through, a function's return type) — textDocument/typeDefinition
  std::vector<std::pair<uint32_t, uint32_t>> types;
  // (class specialization USR, the class template it specializes): an explicit or partial
  // specialization's own name names the template, where clangd's go-to-definition goes.
  std::vector<std::pair<uint32_t, uint32_t>> specializations;
  std::vector<std::string> errors;                   // clang's error diagnostics, first few
  std::vector<ClangSkipped> skipped;
  // Files (into `files`) whose function bodies this unit parsed. A worker's session skips a
  // header's bodies once an earlier unit parsed them (see ClangSession): their references are in
  // that unit's facts, and the builder re-indexes a unit alone where no unit owns a file.
  std::vector<uint32_t> bodiesParsed;
  std::vector<ClangInclusion> inclusions;
  // Namespaces (into usrs) whose first declaration in the unit lies outside the repository
  // (`namespace std`, which a system header opens before the repository's blocks do).
  std::vector<uint32_t> openedOutside;
  // Each entity named in the repository's files and declared outside it, once (see above).
  std::vector<ClangOutsideTarget> outsideTargets;
  // Sites in the repository's headers (file into `files`, the name's byte offset) an earlier
  // unit of the same worker session reported, left out here: macro definitions and prototypes'
  // parameters, entities named by their file and place (`c:tommath.h@1234@macro@MP_OKAY`, a
  // kParameterUsr), so every unit that reads one reports the same site. A header's hundreds of
  // #defines and prototypes were most of a unit's facts on macro-heavy C code bases (LibTomMath's
  // tommath_class.h); a macro this unit expands is reported anyway. The builder makes sure a
  // unit of the build reports each (ClangSession).
  std::vector<std::pair<uint32_t, uint32_t>> sitesLeftOut;
  // Headers (file into `files`) whose macro expansions this unit left out, each with the
  // digest of them (siteDigest's sum): an earlier unit of the session reported the very same
  // set there — a macro is named by its definition's place, so the same set is the same
  // expansions of the same definitions. The builder makes sure a unit of the build reports it.
  std::vector<std::pair<uint32_t, uint64_t>> expansionsLeftOut;
  // Members named in an `offsetof` designator (`offsetof(struct S, data.len)`), as (file into
  // `files`, offset, name length): clang's indexer reports them as references, and clangd 14's
  // go-to-definition and references find no declaration there (its selection has no node for
  // the designator), so an answer asked there is an agreement category of its own.
  std::vector<std::array<uint32_t, 3>> designators;
};

// A site's part of its file's digest (summed over a unit's sites there, so that their order
// does not matter): `usrHash` is std::hash of its USR, `offset` and `role` its place.
uint64_t siteDigest(uint64_t usrHash, uint32_t offset, ClangRole role);
// Per file of `facts` (by index), the digest of the unit's macro expansions there.
std::vector<uint64_t> expansionDigests(const TuFacts& facts);

// Whether a declaration is a site a worker's session reports once (TuFacts::sitesLeftOut): a
// macro's definition, a prototype's parameter.
bool reportedOnce(const TuFacts& facts, const ClangOccurrence& declaration);

std::string encodeTuFacts(const TuFacts& facts);
Expected<TuFacts> decodeTuFacts(std::string_view bytes);

// Whether a USR names a function-local entity, which clangd's index leaves out: a parameter or
// local variable, whose USR names the file and the offset of its scope ("c:b.c@201@F@b@loc"),
// or a static local of an inline function, whose USR has no location (every unit shares it)
// but ends with the function's signature and the variable's name ("...@F@f#I#@prefix").
bool isFunctionLocalUsr(std::string_view usr);
// Whether a USR names something an anonymous namespace declares (`c:@N@YAML@aN@ex2_4`,
// `c:file.cc@aN@S@X`): each program's own, which clangd's index leaves out.
bool inAnonymousNamespace(std::string_view usr);

// One entry of a compilation database, as libclang reads it.
struct CompileCommand {
  std::string directory;
  std::string file;  // absolute
  std::vector<std::string> arguments;  // argv, compiler first
};
// The language a command compiles its file as, as the compiler decides it: `-x` (c, c-header;
// c++, c++-header), else a C++ -std or a C++ driver (`g++` reads a .c file as C++), else the
// file's extension (`.c` and `.h` are C, `.C` and `.cc` C++). Other: Objective-C and the rest.
enum class UnitLanguage : uint8_t { C, Cpp, Other };
UnitLanguage unitLanguage(const CompileCommand& command);
// What `nib-clang index` writes per unit of its batch, one record after another as each unit
// ends: the facts, or why there are none, and the seconds it took. A worker that dies half-way
// leaves whole records for the units it finished.
struct UnitOutcome {
  bool ok = false;
  std::string payload;  // encoded TuFacts, or the error message
  double seconds = 0;
};
std::string encodeUnitOutcome(const UnitOutcome& outcome);
// The size of the whole record at the start of `bytes`, 0 while it is not whole.
size_t wholeUnitOutcomeSize(std::string_view bytes);
// The whole records at the start of `bytes` (a truncated last one is left out).
std::vector<UnitOutcome> decodeUnitOutcomes(std::string_view bytes);

std::string encodeCompileCommands(const std::vector<CompileCommand>& commands);
// One request to `nib-clang index`: the encoded commands after their length (4 bytes, little
// endian), so that the worker knows where a request ends while the next is still to come.
std::string frameCompileCommands(const std::vector<CompileCommand>& commands);
Expected<std::vector<CompileCommand>> decodeCompileCommands(std::string_view bytes);

}  // namespace nib
