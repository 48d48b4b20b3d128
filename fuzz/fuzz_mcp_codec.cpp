// The MCP codec (protocol/McpCodec): any line decodes to a message or an error.
#include "FuzzInput.h"
#include "protocol/McpCodec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nib::mcp::Incoming m = nib::mcp::decode(nib::fuzz::bytes(data, size));
  (void)m;
  return 0;
}
