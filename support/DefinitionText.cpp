#include "support/DefinitionText.h"

#include <algorithm>
#include <vector>

namespace nib {
namespace {

bool isCommentLine(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos) return false;
  std::string_view t = line.substr(i);
  return t.rfind("//", 0) == 0 || t.rfind("#", 0) == 0 || t.rfind("/*", 0) == 0 || t.rfind("*", 0) == 0 ||
         t.rfind("--", 0) == 0;
}

std::string trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace

std::string leadingComment(const LineTable& lines, uint32_t defLine) {
  std::vector<std::string> out;
  for (int64_t l = static_cast<int64_t>(defLine) - 1; l >= 0 && out.size() < 40; --l) {
    std::string_view text = lines.lineText(static_cast<uint32_t>(l));
    if (!isCommentLine(text)) break;
    std::string t = trimmed(text);
    for (std::string_view marker : {"///", "//!", "//", "/**", "/*", "*/", "*", "#", "--"})
      if (t.rfind(marker, 0) == 0) {
        t = trimmed(std::string_view(t).substr(marker.size()));
        break;
      }
    if (t.size() >= 2 && t.compare(t.size() - 2, 2, "*/") == 0) t = trimmed(std::string_view(t).substr(0, t.size() - 2));
    out.push_back(t);
  }
  std::string doc;
  for (auto it = out.rbegin(); it != out.rend(); ++it) {
    if (!doc.empty()) doc += "\n";
    doc += *it;
  }
  return trimmed(doc);
}

std::string pythonDocstring(std::string_view text, uint32_t bodyFrom) {
  size_t colon = text.find(':', bodyFrom);
  if (colon == std::string_view::npos) return {};
  size_t q = text.find_first_not_of(" \t\r\n", colon + 1);
  if (q == std::string_view::npos) return {};
  for (std::string_view quote : {"\"\"\"", "\'\'\'", "\"", "\'"}) {
    if (text.compare(q, quote.size(), quote) != 0) continue;
    size_t end = text.find(quote, q + quote.size());
    if (end == std::string_view::npos) return {};
    return trimmed(text.substr(q + quote.size(), end - q - quote.size()));
  }
  return {};
}

std::string definitionSignature(const LineTable& lines, uint32_t fullStartLine, uint32_t nameLine) {
  std::string signature;
  uint32_t last = std::min(nameLine, fullStartLine + 3);
  for (uint32_t l = fullStartLine; l <= last && l < lines.lineCount(); ++l) {
    std::string t = trimmed(lines.lineText(l));
    if (t.empty()) continue;
    if (!signature.empty()) signature += " ";
    signature += t;
  }
  if (signature.size() > 300) signature = signature.substr(0, 300) + "...";
  return signature;
}

}  // namespace nib
