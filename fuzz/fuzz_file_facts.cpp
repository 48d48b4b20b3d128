// A file's persisted facts (views/FileFacts): any bytes decode to facts or an error; decoded
// facts re-encode and decode to the same. The stored contents beside them (views/StoredContent):
// any bytes unpack to bytes or an error, and any bytes packed unpack to themselves.
#include <cstdlib>

#include "FuzzInput.h"
#include "views/FileFacts.h"
#include "views/StoredContent.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in = nib::fuzz::bytes(data, size);
  (void)nib::deserializeFacts(in, /*definitionsOnly=*/true);
  auto facts = nib::deserializeFacts(in);
  if (facts) {
    std::string again = nib::serializeFacts(*facts);
    auto back = nib::deserializeFacts(again);
    if (!back || nib::serializeFacts(*back) != again) std::abort();
  }
  std::string buffer;
  (void)nib::unpackContentInto(in, buffer);
  auto back = nib::unpackContent(nib::packContent(in));
  if (!back || *back != in) std::abort();
  return 0;
}
