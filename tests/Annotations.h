// Annotated-source fixtures (DESIGN.md §7). One text holds several files, each introduced by a
// line "//- path". Markers are removed from the code and remembered by position:
//   ^          a request point; it belongs to the innermost enclosing range's name, or to ""
//   $name^     a request point of group `name`
//   [[ ... ]]  an expected range (group "" or the enclosing name)
//   $name[[ ]] an expected range of group `name`
//   \[[ \]]    the brackets themselves (C++'s `[[nodiscard]]`)
// Lines before the first "//- " that start with "# " are directives ("# key: value").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace nib::test {

struct MarkedPoint {
  std::string path;
  uint32_t offset = 0;
  std::string group;
};

struct MarkedRange {
  std::string path;
  uint32_t begin = 0;
  uint32_t end = 0;
  std::string group;
  bool operator<(const MarkedRange& o) const {
    return std::tie(path, begin, end) < std::tie(o.path, o.begin, o.end);
  }
  bool operator==(const MarkedRange& o) const { return path == o.path && begin == o.begin && end == o.end; }
};

struct Annotations {
  std::map<std::string, std::string> files;       // path -> code without markers
  std::map<std::string, std::string> directives;  // "# key: value"
  std::vector<MarkedPoint> points;
  std::vector<MarkedRange> ranges;

  std::vector<MarkedRange> rangesOf(const std::string& group) const;
  // "path:line:col" (1-based) for messages.
  std::string describe(const std::string& path, uint32_t offset) const;
};

// Throws std::runtime_error on malformed annotations (unbalanced brackets, no file header).
Annotations parseAnnotations(const std::string& text);

}  // namespace nib::test
