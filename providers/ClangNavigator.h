// C and C++ answers from libclang's facts (the clang view): the symbol at a position is the USR
// clang recorded there, and its definitions, declarations and references are every site of that
// USR across the translation units — exact, as the compiler sees them. Each answer is
// Reason::Declined (isDeclined) where the view has no say: a file changed since the build
// (`changed`: its facts describe text that is gone), no name clang saw at the position, nothing
// declared in the repository. Then tree-sitter's facts answer (StaticProvider asks this first).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "providers/Navigation.h"
#include "support/Status.h"
#include "views/ClangView.h"
#include "views/FileFacts.h"

namespace nib {

class ClangNavigator {
 public:
  // `source` names the facts in every answer (NavigationResult::source): "clang" for the clang
  // view, "scip" for the precise view, which has the same format (indexer/UnitMerge.h).
  ClangNavigator(std::unique_ptr<ClangView> view, std::function<bool(const std::string& path)> changed,
                 std::string source = "clang");
  ~ClangNavigator();

  ClangView& view() { return *view_; }
  // Files in front of the user (open in the editor): a file no compile command builds lists its
  // references there too, as clangd's index of open files does. None by default (the CLI).
  void setShown(std::function<bool(const std::string& path)> shown) { shown_ = std::move(shown); }
  // A covered file's text as the index holds it, for what the compiler's facts leave out (a
  // macro's `#undef`s: addUndefinitions). None by default: those answers then go without.
  void setText(std::function<Expected<std::string>(const std::string& path)> text) { text_ = std::move(text); }
  // Whether libclang's facts cover the file (a compile command reached it, and it is unchanged).
  bool covers(const std::string& path);
  // C/C++ files no compile command reaches, which the view indexed with a borrowed command;
  // and files that are one unit's main file and that another unit #includes.
  std::vector<std::string> interpolatedFiles();
  std::vector<std::string> sharedMainFiles();

  // Definition (`declarations`: prefer declarations) or references at a position.
  Expected<NavigationResult> answer(const std::string& path, uint32_t offset, bool references, bool includeDeclaration,
                                    bool declarations);

  // What the word answers need of the file asked about: its tree-sitter facts, its language,
  // and its text (read only when needed).
  struct AskedFile {
    const FileFacts& facts;
    Language language;
    std::function<Expected<std::string>()> text;
  };
  // Where the compiler saw no name, in a file the view covers: a word in code the preprocessor
  // left out in every unit that read the file, in a macro's arguments it dropped, or in a
  // directive (`#if defined(X)`, `#ifndef GUARD`, a macro's parameters and replacement text).
  // clangd 14 answers there with the macro of that name in effect (found by the raw word);
  // definitions then by the word's fallbacks
  // (wordAnswer); else nothing — never tree-sitter's guess from the word's other uses, which on
  // the held-out C set equalled clangd's references at none of 99 such positions. Declined
  // elsewhere (a name libclang recorded, compiled code, a file the view does not cover).
  Expected<NavigationResult> preprocessorReferences(const std::string& path, const AskedFile& f, uint32_t offset,
                                                    bool includeDeclaration);
  Expected<NavigationResult> preprocessorDefinition(const std::string& path, const AskedFile& f, uint32_t offset,
                                                    bool declarations);

  // Whether libclang recorded no name at a position of compiled code in a file the view covers
  // (outside what the preprocessor left out): a declaration the compiler rejected, a declarator
  // its indexer does not report (a parameter of a function pointer type). clangd's AST, the same
  // compiler's, has no name there either. Asked after the preprocessor words, which answer a
  // macro's dropped arguments.
  bool resolvedNothingAt(const std::string& path, uint32_t offset);
  // Of `offsets` in `path`, those where resolvedNothingAt holds, in the order given.
  std::vector<uint32_t> resolvedNothingAmong(const std::string& path, const std::vector<uint32_t>& offsets);
  // Whether the clang view's own parse of `path` reported an error (never for a precise view).
  bool parsedWithErrors(const std::string& path);

  // The type hierarchy from the base-class edges: the class named at a position (empty: no
  // class there, or no clang facts for the file), and a node's direct bases or derived classes.
  // A node whose symbol is no longer `name` is InvalidArgument (stale).
  Expected<std::vector<TypeNode>> typesAt(const std::string& path, uint32_t offset);
  Expected<std::vector<TypeNode>> supertypes(uint32_t symbol, const std::string& name);
  Expected<std::vector<TypeNode>> subtypes(uint32_t symbol, const std::string& name);

  // textDocument/implementation: at a virtual method, every method overriding it down the
  // hierarchy; at a class, every class deriving from it; each at its definition (else its
  // canonical declaration). Implementations in files changed since the build are left out and
  // the answer says so.
  Expected<NavigationResult> implementations(const std::string& path, uint32_t offset);
  // textDocument/typeDefinition: at a variable, field, parameter or function, the declaration
  // of its type (its definition where the repository has one); at a type, the type itself.
  Expected<NavigationResult> typeDefinitions(const std::string& path, uint32_t offset);

  // The occurrence libclang recorded at (or just before) `offset`: the name under the cursor.
  static const ClangFileOccurrence* occurrenceAt(const std::vector<ClangFileOccurrence>& occurrences, uint32_t offset);
  // Whether an occurrence in `path` is a name the file's own parse sees — what clangd answers
  // from when the file is opened: not one a unit #including the file whole saw (`foreign`), not
  // a macro the file's own parse cannot know (visibleFrom).
  bool ownName(const std::string& path, const ClangFileOccurrence& o);
  // Whether `symbol`'s site at (`path`, `offset`) is a declaration spelled in a macro's
  // replacement list (a `macroBody` site): a word there, no name.
  static bool spelledInMacroText(const ClangSymbol& symbol, const std::string& path, uint32_t offset);

 private:
  bool inMacroArguments(const std::vector<ClangFileOccurrence>& occurrences, const std::string& text, uint32_t offset,
                        bool pasted);
  bool argumentExpanded(const ClangSymbol& macro, const std::string& text, size_t open, uint32_t offset);
  std::optional<bool> macroExpands(const ClangSymbol& macro, size_t index, int depth);
  static std::string answerFacet(const ClangSymbol& symbol);
  struct PreprocessorWord {
    std::string word;
    uint32_t start = 0, end = 0;
    uint32_t line = 0;     // 0-based
    bool skipped = false;  // in code the preprocessor left out
    bool inArguments = false;  // in a macro's arguments, where libclang recorded no name (else in a live directive)
    bool pasted = false;       // ... an argument whose last expansion is pasted (indexer/MacroArguments.h)
    uint32_t preambleEnd = 0;  // where the file's leading directives and comments end
    std::vector<ClangFileOccurrence> occurrences;  // the file's, as libclang recorded them
    // "in code the preprocessor left out" or "in a preprocessor directive", for notes.
    const char* where() const {
      if (skipped) return "in code the preprocessor left out";
      if (pasted) return "in a macro's argument it pastes into another name";
      return inArguments ? "in a macro's arguments the preprocessor may have dropped" : "in a preprocessor directive";
    }
  };
  // The macro a preprocessor word names there (see the .cpp); nullopt when none or several.
  Expected<std::optional<ClangSymbol>> macroInEffect(const std::string& path, const PreprocessorWord& w);
  // The `#undef`s of `macro` in the asked file, added to its references (see the .cpp).
  Status addUndefinitions(const ClangSymbol& macro, const std::string& path, NavigationResult& out);
  // The definition or references of the macro a preprocessor word names there.
  Expected<NavigationResult> macroAnswer(const std::string& path, const PreprocessorWord& w, bool references,
                                         bool includeDeclaration, bool declarations);
  // Whether the file's own parse can know `macro`, defined in another file (see the .cpp).
  Expected<bool> visibleFrom(const std::string& path, const ClangSymbol& macro);
  // Whether the file's own parse read the header outside the repository defining `macro`.
  Expected<bool> outsideKnown(const std::string& path, const ClangSymbol& macro);
  // The word's fallbacks, as clangd's go-to-definition has them for a word the compiler saw no
  // name at: the same word nearby as a real name, else the symbols of that name (at most five).
  Expected<NavigationResult> wordAnswer(const std::string& path, const AskedFile& f, const PreprocessorWord& w);
  // The symbols of exactly the word's name, as clangd's index offers them (see the .cpp).
  Expected<NavigationResult> indexedByWord(const std::string& path, const std::string& word,
                                           const std::vector<ClangFileOccurrence>& occurrences);
  bool addIndexedPlace(const std::string& path, const ClangSymbol& symbol, NavigationResult& out);
  bool knownSite(const std::string& path, const ClangSite& s, const std::optional<std::vector<std::string_view>>& read) const;
  // The files `path`'s own parse read where that parse is a made-up unit's (a file no compile
  // command builds, a header parsed alone), sorted; nullopt where it is no unit's main file, or
  // a compiled unit's, which saw nothing only made-up units saw.
  std::optional<std::vector<std::string_view>> readByOwnParse(const std::string& path);
  // At a dependent name nothing resolved (kDependentNameUsrPrefix): the symbols of its name.
  Expected<NavigationResult> dependentNameAnswer(const std::string& path, const std::vector<ClangFileOccurrence>& occurrences,
                                                 const ClangSymbol& symbol, bool references);
  std::optional<PreprocessorWord> preprocessorWord(const std::string& path, const AskedFile& f, uint32_t offset);
  NavigationResult nothingNamed(const PreprocessorWord& w);
  NavigationResult manyNamed(const std::string& word);
  // Go-to-definition at a class specialization's own name: the template it specializes.
  std::optional<Expected<NavigationResult>> specializedTemplateAnswer(const ClangFileOccurrence& at, const ClangSymbol& symbol,
                                                                      const std::string& path);
  // At a name a using-declaration brought into scope: the declaration and the entity it names.
  Expected<NavigationResult> usingAnswer(const std::string& path, const std::vector<ClangFileOccurrence>& occurrences,
                                         const ClangFileOccurrence& at,
                                         const ClangSymbol& declaration, bool references, bool includeDeclaration);
  // What the open file's own parse answers (ClangNavigatorOwnParse.cpp): a namespace's first
  // block, true when it answered; whether the symbol is one a file included inside a scope
  // declares; its declaration in `path` (its definition there first), or nullptr.
  bool namespaceDefinition(const ClangSymbol& ns, uint32_t id, const std::string& path, NavigationResult& out);
  bool enclosedDeclaration(const ClangSymbol& symbol, const std::string& path);
  static const ClangSite* ownDeclaration(const ClangSymbol& symbol, const std::string& path);
  // The symbol id of the macro a header's own parse has in effect at a macro's use (see the .cpp).
  uint32_t ownParseMacro(const ClangSymbol& named, const ClangFileOccurrence& at, const std::string& path);
  // An answer's labels before its locations, and the references the asked file's own parse
  // lists there (see the .cpp).
  NavigationResult labelled(const ClangSymbol& symbol, const ClangFileOccurrence& at, const std::string& path);
  Status keepOwnReferences(const std::string& path, NavigationResult& out);
  // The answer for one symbol named at `at` (answer merges several for a dependent call's
  // overloads).
  Expected<NavigationResult> answerFor(const ClangSymbol& symbol, const ClangFileOccurrence& at, const std::string& path,
                                       bool references, bool includeDeclaration, bool declarations);
  // TypeScript's own rules (ClangNavigatorTypeScript.cpp).
  bool typeScriptDefinitionsAt(const ClangSymbol& symbol, const std::string& path, NavigationResult& out);
  std::optional<Expected<NavigationResult>> shorthandAnswer(const std::vector<ClangFileOccurrence>& occurrences,
                                                               const ClangFileOccurrence& at, const ClangSymbol& declared,
                                                               const std::string& path, bool references,
                                                               bool includeDeclaration);
  // A call's callee where TypeScript's server answers otherwise than by the name's declarations
  // (the overload the call resolves to, a call signature or constructor beside the name's
  // declaration): the answer the indexer's launcher recorded (scip/TypeScriptCalls). In the clang
  // view, a word of a declaration clang rejected whole: that declaration's own place
  // (indexer/ClangInvalidDeclarations.cpp).
  std::optional<NavigationResult> calledDefinitions(const std::vector<ClangFileOccurrence>& occurrences,
                                                    const ClangFileOccurrence& at, const ClangSymbol& named,
                                                    const std::string& path);
  // Where the indexer resolved no symbol but the launcher recorded the server's answer (a member
  // read through an index signature: the signatures).
  std::optional<NavigationResult> recordedDefinitionsAt(const std::string& path, uint32_t offset);
  std::optional<Expected<NavigationResult>> contextualShorthand(const std::vector<ClangFileOccurrence>& occurrences,
                                                                const ClangFileOccurrence& at, const ClangSymbol& named,
                                                                const std::string& path, bool references,
                                                                bool includeDeclaration);
  std::optional<NavigationResult> shorthandImport(const std::vector<ClangFileOccurrence>& occurrences,
                                                  const ClangFileOccurrence& at, const std::string& path);
  std::optional<ClangSymbol> mergedNamespace(const std::vector<ClangFileOccurrence>& occurrences,
                                             const ClangFileOccurrence& at, const ClangSymbol& named, const std::string& path);
  std::optional<NavigationResult> libraryValueOutsideProjects(const ClangFileOccurrence& at, const ClangSymbol& named,
                                                              const std::string& path, bool includeDeclaration);
  std::optional<ClangSymbol> importedTwin(const std::vector<ClangFileOccurrence>& occurrences, const ClangFileOccurrence& at,
                                          const ClangSymbol& named, const std::string& path, bool references);
  const ClangSite* canonicalDefinition(const ClangSymbol& symbol, const std::string& path);
  void keepVisibleTypeDefinitions(const ClangSymbol& symbol, const std::string& path,
                                  std::vector<SymbolLocation>& locations);
  static void settleSeveralDefinitions(const std::string& path, NavigationResult& out);
  void addOwnFriendSite(const ClangSymbol& symbol, const ClangFileOccurrence& at, const std::string& path,
                        NavigationResult& out);
  static bool madeUpOnlyAt(const ClangSymbol& symbol, const std::string& path, uint32_t start);
  bool ownParseAt(const ClangFileOccurrence& at, const std::string& path);
  std::optional<std::pair<const ClangFileOccurrence*, ClangSymbol>> builtMacroAt(
      const std::vector<ClangFileOccurrence>& occurrences, const ClangFileOccurrence& at, const std::string& path,
      bool allSites);
  std::optional<TypeNode> typeNode(uint32_t symbol);
  void addConstructor(const std::vector<ClangFileOccurrence>& occurrences, const ClangFileOccurrence& at,
                      const ClangSymbol& cls, NavigationResult& out);
  std::optional<ClangSymbol> inheritedConstructor(const ClangSymbol& cls);
  std::optional<ClangSymbol> aliasTarget(const std::vector<ClangFileOccurrence>& occurrences, const ClangFileOccurrence& at,
                                           const ClangSymbol& named, const std::string& path);
  // The name libclang recorded at `offset` in a file it covers: the file's occurrences, which of
  // them is at the offset, and its symbol; Declined where the view has no say.
  struct NamedAt {
    std::vector<ClangFileOccurrence> occurrences;
    size_t at = 0;
    ClangSymbol symbol;
  };
  Expected<NamedAt> namedAt(const std::string& path, uint32_t offset, bool allSites = true);
  // Where a related symbol is shown: its definition, else its canonical declaration; nullptr
  // when the repository only references it. `stale` counts one in a file changed since the build.
  const ClangSite* shownSite(const ClangSymbol& s, size_t* stale);
  Expected<std::vector<TypeNode>> relatedTypes(uint32_t symbol, const std::string& name, bool bases);

  // The files of the TypeScript program a TypeScript or JavaScript file is read in
  // (ClangNavigatorTypeScript.cpp); nullptr for other files or a view that records no programs.
  const std::unordered_set<std::string>* programOf(const std::string& path);
  // For a file no tsconfig.json's project reads: its inferred program (the file and what it
  // imports) and the programs of the projects in the folders above it, apart; nullopt for a file a
  // project reads.
  struct LooseParts {
    const std::unordered_set<std::string>* inferred;
    const std::unordered_set<std::string>* above;
  };
  std::optional<LooseParts> looseParts(const std::string& path);

  std::unique_ptr<ClangView> view_;
  std::function<bool(const std::string&)> changed_;
  std::function<bool(const std::string&)> shown_;
  std::function<Expected<std::string>(const std::string&)> text_;
  std::string source_;
  bool scip_ = false;  // the precise view's facts (an SCIP indexer's), which differ in a few rules
  // The view's programs, read at the first references request that needs them; each configured
  // project's files, and the last file without a project's own, as they were computed.
  std::optional<std::optional<ProgramTable>> programs_;
  std::map<uint32_t, std::unordered_set<std::string>> projectPrograms_, compositePrograms_;
  std::pair<std::string, std::unordered_set<std::string>> looseProgram_;
  // The last loose file's program in its two parts (looseParts).
  std::unordered_set<std::string> looseInferred_, looseAbove_;
  // While answering for a related symbol: the files its sites are listed from instead of the
  // asked file's program, and whether only those (not the asked file, not the open ones).
  const std::unordered_set<std::string>* programOverride_ = nullptr;
  bool programOnly_ = false;
};

}  // namespace nib
