// The LSP codec (protocol/LspCodec): any body decodes to a message or an error, never a crash.
#include "FuzzInput.h"
#include "protocol/LspMessages.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nib::lsp::Incoming m = nib::lsp::decodeMessage(nib::fuzz::bytes(data, size));
  (void)m;
  return 0;
}
