// Golden snapshots of extracted facts, one per language sample under tests/fixtures/golden.
// A change in extraction shows up as a readable diff of tests/golden/<sample>.facts.
// Regenerate with: UPDATE_GOLDEN=1 ctest -R golden   (then review the diff like code)
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "indexer/Extractor.h"
#include "support/FileIo.h"
#include "support/Language.h"

namespace nib::test {
namespace fs = std::filesystem;
namespace {

const char* roleName(OccurrenceRole r) {
  switch (r) {
    case OccurrenceRole::Definition: return "def";
    case OccurrenceRole::Declaration: return "decl";
    case OccurrenceRole::Reference: return "ref";
  }
  return "?";
}

const char* resolutionName(Resolution r) {
  switch (r) {
    case Resolution::Local: return "local";
    case Resolution::Import: return "import";
    case Resolution::Member: return "member";
    case Resolution::Free: return "free";
  }
  return "?";
}

const char* scopeName(BindingScope s) {
  switch (s) {
    case BindingScope::Global: return "global";
    case BindingScope::Member: return "member";
    case BindingScope::Local: return "local";
    case BindingScope::None: return "none";
  }
  return "?";
}

std::string pos(const Position& p) { return std::to_string(p.line + 1) + ":" + std::to_string(p.column + 1); }

std::string describe(const FileFacts& f) {
  std::ostringstream o;
  o << "language " << languageName(f.language) << " lines " << f.lineCount << (f.parseErrors ? " parse-errors" : "")
    << "\n";
  for (size_t i = 0; i < f.definitions.size(); ++i) {
    const Definition& d = f.definitions[i];
    o << "def #" << i << " " << symbolKindName(d.kind) << " " << d.name << " @" << pos(d.nameRange.start) << " "
      << scopeName(d.scope) << (d.isDeclaration ? " declaration" : "");
    if (!d.container.empty()) o << " in " << d.container;
    if (d.parent >= 0) o << " parent #" << d.parent;
    o << "\n";
  }
  for (const Occurrence& oc : f.occurrences) {
    o << "occ " << pos(oc.range.start) << " " << f.nameOf(oc) << " " << roleName(oc.role) << " "
      << resolutionName(oc.resolution);
    if (oc.target >= 0) o << " #" << oc.target;
    if (oc.isCall) o << " call";
    if (oc.qualified) o << " qualified";
    if (!oc.qualifier.empty()) o << " qualifier=" << oc.qualifier;
    if (oc.viaReceiver) o << " via-receiver";
    o << "\n";
  }
  for (const Import& i : f.imports)
    o << "import module=" << i.module << " name=" << i.name << " alias=" << i.alias << (i.isInclude ? " include" : "")
      << "\n";
  for (const CallSite& c : f.calls) o << "call caller=#" << c.caller << " occ=" << c.occurrence << "\n";
  for (const SourceUnit& u : f.units)
    if (u.granularity != Granularity::File)
      o << "unit " << (u.granularity == Granularity::Callable ? "callable" : "scope") << " " << symbolKindName(u.kind)
        << " " << pos(u.range.start) << "-" << pos(u.range.end) << " def #" << u.definition << "\n";
  return o.str();
}

}  // namespace

TEST_CASE("golden facts for each language sample", "[golden]") {
  bool update = std::getenv("UPDATE_GOLDEN") != nullptr;
  std::vector<fs::path> samples;
  for (const auto& e : fs::directory_iterator(fs::path(NIB_FIXTURE_DIR) / "golden")) samples.push_back(e.path());
  std::sort(samples.begin(), samples.end());
  REQUIRE(samples.size() >= 9);
  Extractor ex;
  for (const fs::path& sample : samples) {
    DYNAMIC_SECTION(sample.filename().string()) {
      auto content = readFile(sample);
      REQUIRE(content.hasValue());
      Language lang = detectLanguage(sample.filename().string(), *content);
      REQUIRE(lang != Language::Unknown);
      auto facts = ex.extract(lang, *content);
      REQUIRE(facts.hasValue());
      std::string got = describe(*facts);
      fs::path golden = fs::path(NIB_GOLDEN_DIR) / (sample.filename().string() + ".facts");
      if (update) {
        std::ofstream(golden, std::ios::binary) << got;
        WARN("updated " << golden.string());
        continue;
      }
      auto expected = readFile(golden);
      INFO("missing golden file " << golden.string() << "; run UPDATE_GOLDEN=1 ctest -R golden");
      REQUIRE(expected.hasValue());
      CHECK(got == *expected);
    }
  }
}

}  // namespace nib::test
