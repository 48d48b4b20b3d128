#include "indexer/ClangBodyBlanking.h"

#include <clang-c/Index.h>

#include <algorithm>
#include <cctype>

namespace nib::clangindex {
namespace {

bool isBlank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v'; }

// The name of the directive whose `#` is at `at`: the identifier after it and any blanks.
std::string_view directiveName(std::string_view text, size_t at, size_t end) {
  size_t i = at + 1;
  while (i < end && isBlank(text[i])) ++i;
  size_t start = i;
  while (i < end && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
  return text.substr(start, i - start);
}

// Which bytes of (from, to) — a body between its braces — to blank: 1 for a byte of code, a
// comment or a literal, 0 for a line break, a directive's byte or a byte inside `keep`. nullopt
// when the body must stay whole (see blankBodies).
std::optional<std::vector<char>> bodyMask(std::string_view text, size_t from, size_t to, const std::vector<ByteRange>& keep) {
  std::vector<char> mask(to - from, 1);
  enum class State { Code, BlockComment, LineComment, Literal, Directive };
  State state = State::Code;
  State inDirective = State::Code;  // within a directive: Code, or a comment it holds
  char quote = 0;
  bool lineStart = true;  // only blanks and comments so far on this line
  auto keepRange = std::lower_bound(keep.begin(), keep.end(), ByteRange{static_cast<uint32_t>(from), 0});
  if (keepRange != keep.begin() && std::prev(keepRange)->second > from) --keepRange;
  for (size_t i = from; i < to; ++i) {
    const char ch = text[i];
    const char next = i + 1 < to ? text[i + 1] : '\0';
    // Code the preprocessor left out is kept as it is (its words count): the scan resumes after
    // it within the directive that ended it.
    while (keepRange != keep.end() && keepRange->second <= i) ++keepRange;
    if (keepRange != keep.end() && keepRange->first <= i) {
      size_t end = std::min<size_t>(keepRange->second, to);
      for (; i < end; ++i) mask[i - from] = 0;
      ++keepRange;
      state = State::Directive;
      inDirective = State::Code;
      if (i >= to) break;
      --i;
      continue;
    }
    if (ch == '\n') {
      mask[i - from] = 0;
      bool continued = i > from && (text[i - 1] == '\\' || (text[i - 1] == '\r' && i > from + 1 && text[i - 2] == '\\'));
      if (state == State::Literal) return std::nullopt;  // left open
      if (state == State::LineComment && !continued) state = State::Code;
      if (state == State::Directive && inDirective != State::BlockComment && !continued) state = State::Code;
      if (state == State::Directive && inDirective == State::LineComment && !continued) inDirective = State::Code;
      if (state != State::Directive || !continued) lineStart = true;
      continue;
    }
    switch (state) {
      case State::Directive:
        mask[i - from] = 0;
        if (inDirective == State::BlockComment) {
          if (ch == '*' && next == '/') inDirective = State::Code, mask[i + 1 - from] = 0, ++i;
        } else if (inDirective == State::Code) {
          if (ch == '/' && next == '*') inDirective = State::BlockComment, mask[i + 1 - from] = 0, ++i;
          else if (ch == '/' && next == '/') inDirective = State::LineComment;
        }
        break;
      case State::BlockComment:
        if (ch == '*' && next == '/') state = State::Code, ++i;
        break;
      case State::LineComment: break;
      case State::Literal:
        if (ch == '\\') ++i;
        else if (ch == quote) state = State::Code;
        break;
      case State::Code:
        if (ch == '/' && next == '*') {
          state = State::BlockComment;
          ++i;
        } else if (ch == '/' && next == '/') {
          state = State::LineComment;
        } else if (ch == '"' || ch == '\'') {
          state = State::Literal;
          quote = ch;
          lineStart = false;
        } else if ((ch == '#' || (ch == '%' && next == ':')) && lineStart) {
          if (ch == '%') return std::nullopt;  // a digraph: not followed
          std::string_view name = directiveName(text, i, to);
          if (name == "include" || name == "include_next" || name == "import") return std::nullopt;
          state = State::Directive;
          inDirective = State::Code;
          mask[i - from] = 0;
        } else if (!isBlank(ch)) {
          lineStart = false;
        }
        break;
    }
  }
  if (state == State::BlockComment || state == State::Literal || (state == State::Directive && inDirective == State::BlockComment))
    return std::nullopt;
  return mask;
}

// The bodies of the function definitions at the top level of `tu` spelt in `files`, by file.
std::map<CXFile, std::vector<ByteRange>> topLevelBodies(CXTranslationUnit tu, const std::map<CXFile, std::string>& files) {
  struct Walk {
    const std::map<CXFile, std::string>* files;
    std::map<CXFile, std::vector<ByteRange>> bodies;
  } walk{&files, {}};
  clang_visitChildren(
      clang_getTranslationUnitCursor(tu),
      [](CXCursor cursor, CXCursor, CXClientData data) {
        auto* w = static_cast<Walk*>(data);
        if (clang_getCursorKind(cursor) != CXCursor_FunctionDecl || !clang_isCursorDefinition(cursor)) return CXChildVisit_Continue;
        CXFile file;
        clang_getFileLocation(clang_getCursorLocation(cursor), &file, nullptr, nullptr, nullptr);
        if (!file || !w->files->count(file)) return CXChildVisit_Continue;
        CXCursor body = clang_getNullCursor();
        clang_visitChildren(
            cursor,
            [](CXCursor child, CXCursor, CXClientData out) {
              if (clang_getCursorKind(child) == CXCursor_CompoundStmt) *static_cast<CXCursor*>(out) = child;
              return CXChildVisit_Continue;
            },
            &body);
        if (clang_Cursor_isNull(body)) return CXChildVisit_Continue;
        CXSourceRange extent = clang_getCursorExtent(body);
        CXFile startFile, endFile;
        unsigned start, end;
        clang_getFileLocation(clang_getRangeStart(extent), &startFile, nullptr, nullptr, &start);
        clang_getFileLocation(clang_getRangeEnd(extent), &endFile, nullptr, nullptr, &end);
        if (startFile == file && endFile == file && end > start) w->bodies[file].emplace_back(start, end);
        return CXChildVisit_Continue;
      },
      &walk);
  return std::move(walk.bodies);
}

}  // namespace

std::optional<std::string> blankBodies(std::string_view text, const std::vector<ByteRange>& bodies,
                                       const std::vector<ByteRange>& keep) {
  std::vector<ByteRange> sortedKeep = keep;
  std::sort(sortedKeep.begin(), sortedKeep.end());
  std::string out(text);
  bool any = false;
  for (const auto& [begin, end] : bodies) {
    if (end <= begin + 1 || end > text.size() || text[begin] != '{' || text[end - 1] != '}') continue;
    std::optional<std::vector<char>> mask = bodyMask(text, begin + 1, end - 1, sortedKeep);
    if (!mask) continue;
    for (size_t i = 0; i < mask->size(); ++i)
      if ((*mask)[i]) out[begin + 1 + i] = ' ';
    any = true;
  }
  if (!any) return std::nullopt;
  return out;
}

std::vector<CXUnsavedFile> BlankedHeaders::unsaved(const std::string& mainPath) const {
  std::vector<CXUnsavedFile> out;
  out.reserve(texts_.size());
  for (const auto& [path, text] : texts_)
    if (path != mainPath) out.push_back(CXUnsavedFile{path.c_str(), text.data(), static_cast<unsigned long>(text.size())});
  return out;
}

void BlankedHeaders::learn(CXTranslationUnit tu, const std::vector<std::string>& headers,
                           const std::map<std::string, std::vector<ByteRange>>& skipped) {
  std::map<CXFile, std::string> files;
  // Only a header with an include guard (or #pragma once), as libclang skips C++ bodies: one
  // without is a fragment each includer may give another meaning (an X-macro table, LZO's
  // compressor bodies under each unit's own macros).
  for (const std::string& path : headers)
    if (!texts_.count(path) && !refused_.count(path))
      if (CXFile file = clang_getFile(tu, path.c_str()); file && clang_isFileMultipleIncludeGuarded(tu, file))
        files.emplace(file, path);
  if (files.empty()) return;
  static const std::vector<ByteRange> kNone;
  for (const auto& [file, bodies] : topLevelBodies(tu, files)) {
    const std::string& path = files.at(file);
    size_t size = 0;
    const char* data = clang_getFileContents(tu, file, &size);
    if (!data) continue;
    auto left = skipped.find(path);
    if (std::optional<std::string> text = blankBodies(std::string_view(data, size), bodies, left == skipped.end() ? kNone : left->second))
      texts_.emplace(path, std::move(*text));
  }
}

bool BlankedHeaders::refuseWhereErrors(CXTranslationUnit tu, const std::vector<CXFile>& errorFiles) {
  std::vector<std::string> refuse;
  for (const auto& [path, text] : texts_) {
    CXFile file = clang_getFile(tu, path.c_str());
    if (file && std::find(errorFiles.begin(), errorFiles.end(), file) != errorFiles.end()) refuse.push_back(path);
  }
  for (const std::string& path : refuse) {
    refused_.insert(path);
    texts_.erase(path);
  }
  return !refuse.empty();
}

void BlankedHeaders::clear() {
  texts_.clear();
  refused_.clear();
}

}  // namespace nib::clangindex
