// The Engine's rename: a WorkspaceEdit only when the index knows every occurrence exactly and
// sees every file as it is now. Anything less is refused whole, with the reason, because a
// rename that misses one use (or edits one it should not) breaks the code it was asked to keep
// working — an editor's own text search is the better tool then, and the user should know.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string_view>

#include "server/Engine.h"

namespace nib {
namespace {

Status refuse(const std::string& why) { return Status(ErrorCode::Unsupported, Reason::Unsafe, "cannot rename: " + why); }

bool isKeyword(Language lang, std::string_view w) {
  static const std::set<std::string_view> c = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while"};
  static const std::set<std::string_view> cpp = {
      "alignas", "alignof", "bool", "catch", "class", "constexpr", "const_cast", "decltype", "delete", "dynamic_cast",
      "explicit", "export", "false", "friend", "mutable", "namespace", "new", "noexcept", "nullptr", "operator",
      "private", "protected", "public", "reinterpret_cast", "static_assert", "static_cast", "template", "this",
      "throw", "true", "try", "typeid", "typename", "using", "virtual"};
  static const std::set<std::string_view> python = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
      "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"};
  static const std::set<std::string_view> js = {
      "await", "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
      "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "implements", "import",
      "in", "instanceof", "interface", "let", "new", "null", "package", "private", "protected", "public",
      "return", "static", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while",
      "with", "yield"};
  static const std::set<std::string_view> go = {
      "break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for", "func",
      "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select", "struct",
      "switch", "type", "var"};
  static const std::set<std::string_view> rust = {
      "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
      "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
      "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while"};
  static const std::set<std::string_view> java = {
      "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const", "continue",
      "default", "do", "double", "else", "enum", "extends", "final", "finally", "float", "for", "goto", "if",
      "implements", "import", "instanceof", "int", "interface", "long", "native", "new", "package", "private",
      "protected", "public", "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
      "throw", "throws", "transient", "try", "void", "volatile", "while", "true", "false", "null"};
  switch (lang) {
    case Language::C: return c.count(w) > 0;
    case Language::Cpp: return c.count(w) > 0 || cpp.count(w) > 0;
    case Language::Python: return python.count(w) > 0;
    case Language::JavaScript:
    case Language::TypeScript:
    case Language::Tsx: return js.count(w) > 0;
    case Language::Go: return go.count(w) > 0;
    case Language::Rust: return rust.count(w) > 0;
    case Language::Java: return java.count(w) > 0;
    default: return false;
  }
}

// An ASCII identifier of the language that is none of its keywords ('$' too in JavaScript and
// TypeScript). Names beyond ASCII, which some languages allow, are refused rather than guessed.
Status checkNewName(Language lang, const std::string& name) {
  bool dollar = lang == Language::JavaScript || lang == Language::TypeScript || lang == Language::Tsx;
  auto start = [&](char ch) { return std::isalpha(static_cast<unsigned char>(ch)) || ch == '_' || (dollar && ch == '$'); };
  bool valid = !name.empty() && start(name[0]) &&
               std::all_of(name.begin(), name.end(), [&](char ch) { return start(ch) || std::isdigit(static_cast<unsigned char>(ch)); });
  if (!valid) return Status(ErrorCode::InvalidArgument, "'" + name + "' is not an identifier nib can rename to");
  if (isKeyword(lang, name)) return Status(ErrorCode::InvalidArgument, "'" + name + "' is a keyword of " + languageName(lang));
  return Status::ok();
}

}  // namespace

Expected<RenamePlan> Engine::planRename(const std::string& path, uint32_t offset, const std::string& newName) {
  auto asked = navigationRequest(NavigationKind::References, path, offset, 0, /*includeDeclaration=*/true,
                                 ProviderPolicy::Static);
  if (!asked) return asked.status();
  if (!newName.empty()) NIB_RETURN_IF_ERROR(checkNewName(asked->language, newName));
  auto fresh = freshness(false);
  if (!fresh) return fresh.status();
  if (fresh->partial || asked->partial)
    return refuse("the index may miss changes to some files (" +
                  (fresh->partialReason.empty() ? std::string("overlays incomplete") : fresh->partialReason) + ")");
  auto result = indexAnswer(*asked);
  if (!result) return result.status();
  if (result->locations.empty()) return Status(ErrorCode::NotFound, Reason::NoSymbol, "nothing to rename at the position");
  const std::string& name = result->locations.front().name;
  const bool cFamily = asked->language == Language::C || asked->language == Language::Cpp;
  if (cFamily && result->source != "clang")
    return refuse("C and C++ occurrences are exact only from the clang index (a compilation database); '" + name +
                  "' is answered from tree-sitter facts");
  // Only a compiler's facts are exact (the clang and precise views): tree-sitter's resolution
  // through scopes is right most of the time, which is not enough to edit every file.
  if (result->confidence != Confidence::Exact)
    return refuse("'" + name + "' is resolved by " + confidenceName(result->confidence) +
                  " only; its occurrences would be a guess");
  bool declared = std::any_of(result->locations.begin(), result->locations.end(), [](const SymbolLocation& l) {
    return l.role == OccurrenceRole::Definition || l.role == OccurrenceRole::Declaration;
  });
  if (!declared) return refuse("'" + name + "' is not defined in this repository");
  RenamePlan plan;
  plan.oldName = name;
  // Every range must hold the name in the text as it is now: an index and a file that
  // disagree anywhere mean the edit would land on something else.
  std::map<std::string, std::string> texts;
  for (const SymbolLocation& l : result->locations) {
    auto [it, added] = texts.try_emplace(l.path);
    if (added) {
      auto text = currentText(l.path);
      if (!text) return refuse(l.path + " cannot be read: " + text.status().message());
      it->second = std::move(*text);
    }
    const std::string& text = it->second;
    if (l.name != name || l.range.endByte > text.size() || l.range.startByte > l.range.endByte ||
        std::string_view(text).substr(l.range.startByte, l.range.endByte - l.range.startByte) != name)
      return refuse("the index and " + l.path + " disagree at line " + std::to_string(l.range.start.line + 1));
    if (l.path == path && l.range.startByte <= offset && offset <= l.range.endByte) plan.at = l;
    plan.occurrences.push_back(l);
  }
  if (plan.at.path.empty()) return Status(ErrorCode::NotFound, Reason::NoSymbol, "no occurrence of '" + name + "' at the position");
  return plan;
}

}  // namespace nib
