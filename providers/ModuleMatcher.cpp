#include "providers/ModuleMatcher.h"

#include <vector>

namespace nib {
namespace {

std::string_view stem(std::string_view path) {
  size_t slash = path.rfind('/');
  size_t dot = path.rfind('.');
  if (dot != std::string_view::npos && (slash == std::string_view::npos || dot > slash)) return path.substr(0, dot);
  return path;
}

std::string_view dirOf(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

bool endsWithPath(std::string_view path, std::string_view suffix) {
  if (suffix.empty()) return false;
  if (path == suffix) return true;
  return path.size() > suffix.size() && path.substr(path.size() - suffix.size()) == suffix &&
         path[path.size() - suffix.size() - 1] == '/';
}

// Joins and normalizes "a/b" + "../c" -> "a/c"; returns "" when it climbs above the root.
std::string joinRelative(std::string_view dir, std::string_view rel, bool* ok) {
  std::vector<std::string> parts;
  auto push = [&](std::string_view s) {
    size_t start = 0;
    while (start <= s.size()) {
      size_t end = s.find('/', start);
      if (end == std::string_view::npos) end = s.size();
      std::string_view p = s.substr(start, end - start);
      if (p == "..") {
        if (parts.empty()) *ok = false;
        else parts.pop_back();
      } else if (!p.empty() && p != ".") {
        parts.emplace_back(p);
      }
      start = end + 1;
    }
  };
  *ok = true;
  push(dir);
  push(rel);
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

std::string replaceAll(std::string_view s, std::string_view from, char to) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.substr(i, from.size()) == from) {
      out += to;
      i += from.size();
    } else {
      out += s[i++];
    }
  }
  return out;
}

bool pythonMatches(std::string_view importer, std::string_view module, std::string_view candidate) {
  std::string_view st = stem(candidate);
  size_t dots = 0;
  while (dots < module.size() && module[dots] == '.') ++dots;
  std::string rest = replaceAll(module.substr(dots), ".", '/');
  if (dots > 0) {
    std::string base(dirOf(importer));
    for (size_t i = 1; i < dots; ++i) base = std::string(dirOf(base));
    bool ok;
    std::string target = joinRelative(base, rest, &ok);
    if (!ok) return false;
    return st == target || st == target + "/__init__";
  }
  return endsWithPath(st, rest) || endsWithPath(st, rest + "/__init__");
}

bool jsMatches(std::string_view importer, std::string_view module, std::string_view candidate) {
  std::string_view st = stem(candidate);
  if (!module.empty() && module[0] == '.') {
    bool ok;
    std::string target = joinRelative(dirOf(importer), module, &ok);
    if (!ok) return false;
    std::string_view ts = stem(target);
    // "./util.js" may name util.ts in TypeScript projects: compare stems, not extensions.
    return st == target || st == ts || st == target + "/index";
  }
  return endsWithPath(st, module) || endsWithPath(st, std::string(module) + "/index");
}

// The folder a Rust file's own submodules live in: its folder for crate roots and mod.rs
// files, else a folder named after the file (src/net.rs -> src/net).
std::string rustModuleDir(std::string_view file) {
  std::string_view name = file.substr(file.rfind('/') == std::string_view::npos ? 0 : file.rfind('/') + 1);
  if (name == "lib.rs" || name == "main.rs" || name == "mod.rs") return std::string(dirOf(file));
  return std::string(stem(file));
}

bool isRustCrateRoot(std::string_view candidate) {
  return endsWithPath(candidate, "lib.rs") || endsWithPath(candidate, "main.rs");
}

bool rustMatches(std::string_view importer, std::string_view module, std::string_view candidate) {
  std::string_view m = module;
  std::string base = rustModuleDir(importer);
  bool relative = false;
  // Strip the path's anchors: crate::, self::, super:: (each super climbs one module), also
  // when they stand alone at the end (`use super::Item` has module "super").
  for (;;) {
    auto take = [&](std::string_view word) {
      if (m == word) {
        m = {};
        return true;
      }
      if (m.substr(0, word.size()) == word && m.substr(word.size(), 2) == "::") {
        m.remove_prefix(word.size() + 2);
        return true;
      }
      return false;
    };
    if (take("crate")) continue;
    if (take("self")) {
      relative = true;
      continue;
    }
    if (take("super")) {
      relative = true;
      base = std::string(dirOf(base));
      continue;
    }
    break;
  }
  std::string path = replaceAll(m, "::", '/');
  std::string_view st = stem(candidate);
  if (relative) {
    bool ok;
    std::string target = joinRelative(base, path, &ok);
    if (!ok) return false;
    if (path.empty()) {
      // The module itself: base.rs, base/mod.rs, or the crate root when base is its folder.
      return st == target || st == target + "/mod" || (dirOf(candidate) == target && isRustCrateRoot(candidate));
    }
    return st == target || st == target + "/mod";
  }
  if (path.empty()) return isRustCrateRoot(candidate);
  return endsWithPath(st, path) || endsWithPath(st, path + "/mod");
}

}  // namespace

std::string importedModule(Language lang, const Import& imp, bool viaReceiver) {
  if (!viaReceiver || imp.name.empty()) return imp.module;
  switch (lang) {
    case Language::Python: {
      std::string m = imp.module;
      if (!m.empty() && m.back() != '.') m += '.';
      return m + imp.name;
    }
    case Language::Java: return imp.module + "." + imp.name;
    case Language::Rust: return imp.module + "::" + imp.name;
    default: return imp.module;
  }
}

bool moduleMatches(Language lang, std::string_view importer, std::string_view module, std::string_view candidate) {
  switch (lang) {
    case Language::Python: return pythonMatches(importer, module, candidate);
    case Language::JavaScript: case Language::TypeScript: case Language::Tsx:
      return jsMatches(importer, module, candidate);
    case Language::Go: {
      std::string_view dir = dirOf(candidate);
      if (dir.empty()) return false;
      return module == dir || (module.size() > dir.size() && module.ends_with(dir) && module[module.size() - dir.size() - 1] == '/');
    }
    case Language::Java: {
      // "com.y.Util" names a class (file com/y/Util.java); "com.y" a package (folder).
      std::string path = replaceAll(module, ".", '/');
      return endsWithPath(stem(candidate), path) || endsWithPath(dirOf(candidate), path);
    }
    case Language::Rust: return rustMatches(importer, module, candidate);
    case Language::C: case Language::Cpp: {
      bool ok;
      std::string rel = joinRelative(dirOf(importer), module, &ok);
      return (ok && candidate == rel) || endsWithPath(candidate, module);
    }
    default: return false;
  }
}

}  // namespace nib
