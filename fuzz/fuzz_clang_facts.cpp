// libclang's persisted facts (views/ClangFacts): a unit's facts and a compilation database's
// commands decode to values or errors from any bytes.
#include "FuzzInput.h"
#include "views/ClangFacts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in = nib::fuzz::bytes(data, size);
  (void)nib::decodeTuFacts(in);
  (void)nib::decodeCompileCommands(in);
  return 0;
}
