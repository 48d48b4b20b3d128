// SCIP indexes as SCIP indexers write them (scip/ScipImport): any bytes read to unit facts or
// to an error, never a crash; facts that come out encode and decode to themselves. The
// documents' files are real files in a scratch folder (written once), so that positions are
// converted against text, non-ASCII included.
#include <filesystem>
#include <fstream>

#include "FuzzInput.h"
#include "scip/ScipImport.h"
#include "views/ClangFacts.h"

namespace {
const std::string& root() {
  static const std::string dir = [] {
    std::filesystem::path d = "/tmp/nib-fuzz-scip";
    std::filesystem::create_directories(d / "src");
    std::ofstream(d / "src/a.ts") << "export class Sub extends Base {\n  m(\xC3\xA9: number) { return \xC3\xA9; }\n}\n";
    std::ofstream(d / "b.py") << "from pkg.core import run\nfrom .util import *\nhelper()\n";
    // CommonJS and namespace aliases (ScipImport's alias rules read the text around names).
    std::ofstream(d / "src/c.js") << "const m = require(\"./a\");\nimport * as ns from \"./a\";\nm.load(ns);\n"
                                     "exports.load = m;\n";
    return d.string() + "/";
  }();
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto facts = nib::importScip(nib::fuzz::bytes(data, size), root());
  if (!facts) return 0;
  std::string encoded = nib::encodeTuFacts(*facts);
  auto again = nib::decodeTuFacts(encoded);
  if (!again || nib::encodeTuFacts(*again) != encoded) __builtin_trap();
  return 0;
}
