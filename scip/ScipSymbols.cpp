#include "scip/ScipSymbols.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "scip.pb.h"

namespace nib::scip_symbols {
namespace fs = std::filesystem;

// file:///a%20b/c -> /a b/c; "" when it is no file URI.
std::string pathOfUri(const std::string& uri) {
  if (uri.rfind("file://", 0) != 0) return "";
  std::string out;
  for (size_t i = 7; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && std::isxdigit(static_cast<unsigned char>(uri[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(uri[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(uri[i]);
    }
  }
  return out;
}

SymbolKind kindOf(int scipKind) {
  using K = scip::SymbolInformation;
  switch (scipKind) {
    case K::Class: return SymbolKind::Class;
    case K::Struct: return SymbolKind::Struct;
    case K::Interface: return SymbolKind::Interface;
    case K::Enum: return SymbolKind::Enum;
    case K::EnumMember: return SymbolKind::EnumMember;
    case K::Function: return SymbolKind::Function;
    case K::Method: case K::AbstractMethod: case K::StaticMethod: case K::Getter: case K::Setter: return SymbolKind::Method;
    case K::Constructor: return SymbolKind::Constructor;
    case K::Field: return SymbolKind::Field;
    case K::Property: return SymbolKind::Property;
    case K::Variable: case K::StaticVariable: return SymbolKind::Variable;
    case K::Constant: return SymbolKind::Constant;
    case K::Parameter: case K::SelfParameter: return SymbolKind::Parameter;
    case K::TypeAlias: case K::Type: return SymbolKind::TypeAlias;
    case K::TypeParameter: return SymbolKind::TypeParameter;
    case K::Module: case K::Package: case K::File: return SymbolKind::Module;
    case K::Namespace: return SymbolKind::Namespace;
    case K::Macro: return SymbolKind::Macro;
    case K::Union: return SymbolKind::Union;
    default: return SymbolKind::Unknown;
  }
}

// The kind a symbol's last descriptor implies (SCIP's suffixes: `/` namespace, `#` type, `.`
// term, `().` method, `(x)` parameter, `[x]` type parameter, `!` macro), for indexers that
// write no SymbolInformation.kind.
SymbolKind kindOfSymbol(std::string_view symbol) {
  if (symbol.rfind("local ", 0) == 0 || symbol.rfind("local:", 0) == 0) return SymbolKind::Variable;
  if (symbol.empty()) return SymbolKind::Unknown;
  switch (symbol.back()) {
    case '/': return SymbolKind::Module;
    case '#': return SymbolKind::Class;
    case ')': return SymbolKind::Parameter;
    case ']': return SymbolKind::TypeParameter;
    case '!': return SymbolKind::Macro;
    case '.': {
      if (symbol.size() >= 2 && symbol.compare(symbol.size() - 2, 2, ").") == 0) {
        // A method when the descriptor before it is a type: `Foo#bar().`.
        size_t open = symbol.rfind('(');
        size_t nameStart = open == std::string_view::npos ? 0 : symbol.find_last_of("#/.", open);
        return nameStart != std::string_view::npos && symbol[nameStart] == '#' ? SymbolKind::Method : SymbolKind::Function;
      }
      return SymbolKind::Variable;
    }
    default: return SymbolKind::Unknown;
  }
}

// The name a symbol's last descriptor spells (backquotes removed), for symbols nib meets only
// through a relationship.
std::string nameOfSymbol(std::string_view symbol) {
  while (!symbol.empty() && (symbol.back() == '.' || symbol.back() == '#' || symbol.back() == '/' || symbol.back() == '!'))
    symbol.remove_suffix(1);
  if (!symbol.empty() && symbol.back() == ')') {
    size_t open = symbol.rfind('(');
    if (open != std::string_view::npos) symbol = symbol.substr(0, open);
  }
  if (!symbol.empty() && symbol.back() == '`') {
    size_t open = symbol.rfind('`', symbol.size() - 2);
    return open == std::string_view::npos ? std::string(symbol) : std::string(symbol.substr(open + 1, symbol.size() - open - 2));
  }
  size_t cut = symbol.find_last_of(" #./(");
  return std::string(cut == std::string_view::npos ? symbol : symbol.substr(cut + 1));
}

// scip-typescript names a file of no npm package (no package.json above it) by its path from the
// project's folder — or, outside it, from the file system's root — so two projects (a tsconfig.json
// and an inferred one) would name one file's symbols apart. Such a symbol's path is made the
// file's path in the repository; other symbols are returned as they are.
constexpr std::string_view kUnpackagedTs = "scip-typescript npm . . ";

static bool simpleName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '-' || c == '$';
  });
}

static std::string descriptorName(std::string_view name) {
  if (simpleName(name)) return std::string(name);
  std::string quoted = "`";
  for (char c : name) quoted += c == '`' ? std::string("``") : std::string(1, c);
  return quoted + "`";
}

// `definedAt`: the file (absolute) of the document that defines the symbol, "" when none of the
// index does. It names the file where the symbol's path is ambiguous: scip-typescript names a
// file of a referenced project (tsconfig.json's `references`) by its path from that project's
// folder, which from this project's folder may name another file of the same name (a test
// project's test/cronParser.ts for src/cronParser.ts).
std::string repositoryNamed(const std::string& symbol, const fs::path& projectRoot, const std::string& root,
                            const std::string& definedAt) {
  if (symbol.compare(0, kUnpackagedTs.size(), kUnpackagedTs) != 0) return symbol;
  static const std::vector<std::string_view> kSources = {".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"};
  std::string path;
  size_t at = kUnpackagedTs.size();
  while (at < symbol.size()) {
    // One namespace descriptor: a simple name or a backquoted one (doubled backquotes), then '/'.
    std::string name;
    size_t end = at;
    if (symbol[at] == '`') {
      for (end = at + 1; end < symbol.size(); ++end) {
        if (symbol[end] != '`') name += symbol[end];
        else if (end + 1 < symbol.size() && symbol[end + 1] == '`') name += '`', ++end;
        else break;
      }
      ++end;
    } else {
      while (end < symbol.size() && simpleName(std::string_view(&symbol[end], 1))) name += symbol[end++];
    }
    if (end >= symbol.size() || symbol[end] != '/') return symbol;
    path += (path.empty() ? "" : "/") + name;
    at = end + 1;
    bool file = std::any_of(kSources.begin(), kSources.end(), [&](std::string_view e) {
      return name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
    });
    if (!file) continue;
    std::error_code ec;
    fs::path absolute = projectRoot / path;
    if (!definedAt.empty() && fs::path(definedAt).filename() == name) absolute = definedAt;
    else if (!fs::exists(absolute, ec)) absolute = fs::path("/") / path;
    std::string canonical = fs::weakly_canonical(absolute, ec).string();
    if (ec || canonical.compare(0, root.size(), root) != 0) return symbol;
    return fileSymbol(std::string_view(canonical).substr(root.size())) + symbol.substr(at);
  }
  return symbol;
}

std::string fileSymbol(std::string_view relative) {
  std::string out(kUnpackagedTs);
  for (size_t from = 0; from <= relative.size();) {
    size_t slash = relative.find('/', from);
    if (slash == std::string_view::npos) slash = relative.size();
    out += descriptorName(relative.substr(from, slash - from)) + "/";
    from = slash + 1;
  }
  return out;
}

// scip-python's module symbols: "<package> `a.b`/__init__:" (backquoted when dotted). The
// module's dotted name, or "" when `symbol` names no module.
constexpr std::string_view kModuleSuffix = "/__init__:";
std::string moduleNameOf(std::string_view symbol) {
  if (symbol.size() <= kModuleSuffix.size() || symbol.substr(symbol.size() - kModuleSuffix.size()) != kModuleSuffix) return "";
  std::string_view name = symbol.substr(0, symbol.size() - kModuleSuffix.size());
  size_t space = name.rfind(' ');
  if (space != std::string_view::npos) name = name.substr(space + 1);
  if (name.size() >= 2 && name.front() == '`' && name.back() == '`') name = name.substr(1, name.size() - 2);
  return std::string(name);
}

// The symbol of module `name` in the package `like` (a module symbol) names.
std::string moduleSymbolLike(std::string_view like, const std::string& name) {
  std::string_view prefix = like.substr(0, like.size() - kModuleSuffix.size());
  size_t space = prefix.rfind(' ');
  prefix = space == std::string_view::npos ? std::string_view() : prefix.substr(0, space + 1);
  bool quoted = name.find('.') != std::string::npos;
  return std::string(prefix) + (quoted ? "`" + name + "`" : name) + std::string(kModuleSuffix);
}

}  // namespace nib::scip_symbols
