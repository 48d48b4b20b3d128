// The Model Context Protocol (revision 2025-06-18) over stdio: newline-delimited JSON-RPC 2.0
// messages, decoded into typed requests and encoded from typed answers here, so that the MCP
// server (server/McpServer) never touches JSON. The tool catalog (names, descriptions, input
// schemas) lives here too, as it is JSON Schema.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/LspTypes.h"

namespace nib::mcp {

inline constexpr const char* kProtocolVersion = "2025-06-18";

// Every tool's arguments in one flat shape; each tool reads the fields it documents.
struct ToolArgs {
  std::string symbol, path, query, route, intent;
  std::string provider;  // definition, references: auto | static | live | compare ("" = the server's)
  uint32_t line = 0, column = 0;  // 1-based; 0: not given
  uint32_t depth = 0;             // 0: the tool's default
  uint32_t limit = 100;
  uint32_t k = 20;
  uint32_t budgetTokens = 4000;
  bool regex = false, ignoreCase = false, includeDeclaration = true;
  std::vector<std::string> symbols, paths, languages, kinds;
};

struct Incoming {
  enum class Kind { Request, Notification, Response, Invalid };
  Kind kind = Kind::Invalid;
  std::string id;  // JSON text of the id, echoed verbatim
  std::string method;
  std::string protocolVersion;  // initialize: what the client asked for
  std::string tool;             // tools/call
  ToolArgs args;
  int errorCode = 0;            // non-zero: answer with this JSON-RPC error
  std::string error;
};

// Decodes one line. Never throws.
Incoming decode(std::string_view line);

// The tool names, in catalog order.
const std::vector<std::string>& toolNames();

std::string encodeInitializeResult(const std::string& id, const std::string& serverVersion,
                                   const std::string& instructions);
std::string encodeToolsList(const std::string& id);
// A tool's answer: text for the model, and the same answer as structured content (a JSON
// object's text, as lsp::toJson prints it) when there is one.
std::string encodeToolResult(const std::string& id, const std::string& text, const std::string& structuredJson,
                             bool isError);
std::string encodeEmptyResult(const std::string& id);
std::string encodeError(const std::string& id, int code, const std::string& message);

}  // namespace nib::mcp
