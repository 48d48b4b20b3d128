// Per-file facts: everything the extractors learn from one blob. Content-addressed by
// (blob OID, language, extractor profile digest) in the FactStore, so an unchanged blob is never
// extracted twice. Positions are 0-based lines and UTF-8 byte columns, plus byte offsets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/Language.h"
#include "support/Status.h"
#include "support/Text.h"

namespace nib {

enum class SymbolKind : uint8_t {
  Unknown = 0,
  Module,
  Namespace,
  Class,
  Struct,
  Interface,
  Enum,
  EnumMember,
  Function,
  Method,
  Constructor,
  Field,
  Property,
  Variable,
  Constant,
  Parameter,
  TypeAlias,
  Macro,
  Import,
  Union,
  Trait,
  TypeParameter,
};
const char* symbolKindName(SymbolKind kind);
SymbolKind symbolKindFromName(std::string_view name);
bool isCallableKind(SymbolKind kind);  // functions, methods, constructors, macros
bool isTypeKind(SymbolKind kind);      // classes, structs, interfaces, enums, traits, aliases

// Where a definition's name is bound, which decides who can see it.
enum class BindingScope : uint8_t {
  Global = 0,  // file top level: visible to other files (by import or by name)
  Member = 1,  // inside a class, struct, interface, impl or enum body
  Local = 2,   // inside a function or block: visible only in that scope
  None = 3,    // bound nowhere a reference can see (prototype parameters)
};

struct Definition {
  std::string name;
  std::string container;  // enclosing type or namespace, "::"/"."-joined; "" at top level
  SymbolKind kind = SymbolKind::Unknown;
  BindingScope scope = BindingScope::Global;
  bool isDeclaration = false;  // a prototype or forward declaration, not the definition
  ByteRange range;             // the whole definition
  ByteRange nameRange;         // the defining identifier
  int32_t parent = -1;         // enclosing definition (a method's class), or -1
};

enum class OccurrenceRole : uint8_t { Definition = 0, Declaration = 1, Reference = 2 };

// How the extractor resolved an occurrence inside its own file. Anything not `Local` is
// finished at query time against the commit view.
enum class Resolution : uint8_t {
  Local = 0,     // `target` is a definition in this file
  Import = 1,    // bound by `imports[target]`; follow the import
  Member = 2,    // `x.name`: a member of some type; `target` is the class when known, else -1
  Free = 3,      // no binding in this file: a global of another file (or of this one's header)
};

struct Occurrence {
  ByteRange range;
  uint32_t nameId = 0;  // into FileFacts::names
  OccurrenceRole role = OccurrenceRole::Reference;
  Resolution resolution = Resolution::Free;
  int32_t target = -1;
  bool isCall = false;
  bool qualified = false;    // `Scope::name`: may name a namespaced global as well as a member
  bool viaReceiver = false;  // `module.name` through an import: look `name` up in that module
  std::string qualifier;     // for qualified names, the scope as written ("geo" in `geo::area`)
};

struct Import {
  std::string module;  // as written: "os.path", "./util", "fmt", "a/b.h", "java.util.List"
  std::string name;    // the imported name ("" for a whole-module import)
  std::string alias;   // the local name it is bound to ("" when none)
  ByteRange range;
  bool isInclude = false;  // C/C++ #include: no name is bound, the file is pulled in
};

struct CallSite {
  int32_t caller = -1;     // enclosing callable definition, or -1 at top level
  uint32_t occurrence = 0; // the callee name occurrence
};

enum class Granularity : uint8_t { File = 0, Scope = 1, Callable = 2 };

struct SourceUnit {
  Granularity granularity = Granularity::File;
  SymbolKind kind = SymbolKind::Unknown;
  ByteRange range;
  int32_t definition = -1;
};

struct FileFacts {
  Language language = Language::Unknown;
  bool ascii = true;        // columns are the same in every encoding
  bool validUtf8 = true;
  bool parseErrors = false; // tree-sitter recovered from syntax errors
  uint32_t lineCount = 0;
  uint32_t byteSize = 0;
  std::vector<Definition> definitions;
  // The distinct identifier spellings of the file, each stored once; occurrences refer to them.
  std::vector<std::string> names;
  std::vector<Occurrence> occurrences;  // sorted by start byte
  std::vector<Import> imports;
  std::vector<CallSite> calls;
  std::vector<SourceUnit> units;

  const std::string& nameOf(const Occurrence& o) const { return names[o.nameId]; }
};

std::string serializeFacts(const FileFacts& facts);
// The encoding's version: part of the extractor profile, so that facts stored in another
// encoding are never looked up, only extracted again.
uint8_t factsFormatVersion();
// `definitionsOnly` stops after the header and the definitions (they come first): what a query
// needs of the many candidate files it only looks at, without decoding their occurrences.
Expected<FileFacts> deserializeFacts(std::string_view bytes, bool definitionsOnly = false);

}  // namespace nib
