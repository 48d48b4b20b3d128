// A version's manifest (views/Manifest): any text parses to a manifest or an error; a parsed
// manifest serializes to text that parses to the same.
#include <cstdlib>

#include "FuzzInput.h"
#include "views/CommitView.h"
#include "views/Manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in = nib::fuzz::bytes(data, size);
  auto m = nib::Manifest::parse(in);
  if (m) {
    std::string text = m->serialize();
    auto back = nib::Manifest::parse(text);
    if (!back || back->serialize() != text) std::abort();
  }
  // The commit view's definition records, from the same bytes.
  (void)nib::CommitView::decodeDefinitions(in);
  return 0;
}
