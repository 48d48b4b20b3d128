#include "Annotations.h"

#include <cctype>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace nib::test {

std::vector<MarkedRange> Annotations::rangesOf(const std::string& group) const {
  std::vector<MarkedRange> out;
  for (const MarkedRange& r : ranges)
    if (r.group == group) out.push_back(r);
  return out;
}

std::string Annotations::describe(const std::string& path, uint32_t offset) const {
  auto it = files.find(path);
  uint32_t line = 1, col = 1;
  if (it != files.end())
    for (uint32_t i = 0; i < offset && i < it->second.size(); ++i) {
      if (it->second[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  return path + ":" + std::to_string(line) + ":" + std::to_string(col);
}

namespace {
void parseFile(const std::string& path, const std::string& text, Annotations& out) {
  std::string code;
  struct Open {
    uint32_t begin;
    std::string group;
  };
  std::vector<Open> open;
  auto readName = [&](size_t& i) {
    size_t start = i;
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
    return text.substr(start, i - start);
  };
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '$') {
      size_t j = i + 1;
      std::string name = readName(j);
      if (!name.empty() && text.compare(j, 2, "[[") == 0) {
        open.push_back({static_cast<uint32_t>(code.size()), name});
        i = j + 2;
        continue;
      }
      if (!name.empty() && j < text.size() && text[j] == '^') {
        out.points.push_back({path, static_cast<uint32_t>(code.size()), name});
        i = j + 1;
        continue;
      }
    }
    // `\[[` and `\]]` are the brackets themselves (C++'s attributes, `[[nodiscard]]`).
    if (text[i] == '\\' && (text.compare(i + 1, 2, "[[") == 0 || text.compare(i + 1, 2, "]]") == 0)) {
      code.append(text, i + 1, 2);
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "[[") == 0) {
      open.push_back({static_cast<uint32_t>(code.size()), open.empty() ? "" : open.back().group});
      i += 2;
      continue;
    }
    if (text.compare(i, 2, "]]") == 0) {
      if (open.empty()) throw std::runtime_error("unbalanced ]] in " + path);
      out.ranges.push_back({path, open.back().begin, static_cast<uint32_t>(code.size()), open.back().group});
      open.pop_back();
      i += 2;
      continue;
    }
    if (text[i] == '^') {
      out.points.push_back({path, static_cast<uint32_t>(code.size()), open.empty() ? "" : open.back().group});
      ++i;
      continue;
    }
    code.push_back(text[i++]);
  }
  if (!open.empty()) throw std::runtime_error("unclosed [[ in " + path);
  out.files[path] = code;
}
}  // namespace

Annotations parseAnnotations(const std::string& text) {
  Annotations out;
  std::istringstream in(text);
  std::string line, path, body;
  bool started = false;
  while (std::getline(in, line)) {
    if (line.rfind("//- ", 0) == 0) {
      if (started) parseFile(path, body, out);
      path = line.substr(4);
      while (!path.empty() && std::isspace(static_cast<unsigned char>(path.back()))) path.pop_back();
      body.clear();
      started = true;
      continue;
    }
    if (!started) {
      if (line.rfind("# ", 0) == 0) {
        size_t colon = line.find(':');
        if (colon != std::string::npos) {
          std::string key = line.substr(2, colon - 2), value = line.substr(colon + 1);
          while (!value.empty() && value.front() == ' ') value.erase(0, 1);
          out.directives[key] = value;
        }
      }
      continue;
    }
    body += line;
    body += '\n';
  }
  if (!started) throw std::runtime_error("fixture has no '//- path' file header");
  parseFile(path, body, out);
  return out;
}

}  // namespace nib::test
