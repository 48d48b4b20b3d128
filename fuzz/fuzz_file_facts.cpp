// A file's persisted facts (views/FileFacts): any bytes decode to facts or an error; decoded
// facts re-encode and decode to the same.
#include <cstdlib>

#include "FuzzInput.h"
#include "views/FileFacts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in = nib::fuzz::bytes(data, size);
  (void)nib::deserializeFacts(in, /*definitionsOnly=*/true);
  auto facts = nib::deserializeFacts(in);
  if (facts) {
    std::string again = nib::serializeFacts(*facts);
    auto back = nib::deserializeFacts(again);
    if (!back || nib::serializeFacts(*back) != again) std::abort();
  }
  return 0;
}
