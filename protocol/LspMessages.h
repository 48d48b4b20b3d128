// Typed LSP messages: what the server reads and writes, decoded from and encoded to JSON here
// and only here. The server works on these structs; positions in them are wire positions (in
// the negotiated encoding), converted to nib's byte positions by the server with
// PositionEncoder.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/LspTypes.h"

namespace nib::lsp {

// A request id as its JSON text ("7" or "\"abc\""), echoed back verbatim in the response.
using RequestId = std::string;

enum ErrorCode : int {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  ServerNotInitialized = -32002,
  RequestFailed = -32803,
  ServerCancelled = -32802,
  ContentModified = -32801,
  RequestCancelled = -32800,
};

struct TextDocumentPosition {
  std::string uri;
  Position position;
};

struct InitializeParams {
  std::string rootUri;
  std::string rootPath;
  std::vector<std::string> positionEncodings;  // general.positionEncodings, client's preference order
  std::string provider;                        // initializationOptions.provider
  bool workDoneProgress = false;               // window.workDoneProgress
  bool watchedFilesRegistration = false;       // workspace.didChangeWatchedFiles.dynamicRegistration
};

struct ReferenceParams {
  TextDocumentPosition at;
  bool includeDeclaration = true;
};

struct DidOpenParams {
  std::string uri, languageId, text;
  int version = 0;
};

struct ContentChange {
  std::optional<Range> range;  // absent: the whole document
  std::string text;
};

struct DidChangeParams {
  std::string uri;
  int version = 0;
  std::vector<ContentChange> changes;
  // Why the change list cannot be applied (a range with negative or huge numbers, a change that
  // is no object): the whole notification is rejected for this document, which keeps its last
  // good text. Empty when every change is usable.
  std::string invalid;
};

struct DocumentParams {  // didClose, didSave, documentSymbol
  std::string uri;
  std::optional<std::string> text;
};

struct WorkspaceSymbolParams {
  std::string query;
};

struct CallHierarchyItem {
  std::string name;
  int kind = 12;
  std::string detail;
  std::string uri;
  Range range;
  Range selectionRange;
  std::string data;  // opaque to the client; nib stores "<repository path>#<definition index>"
};

struct CallHierarchyParams {
  CallHierarchyItem item;
};

struct CancelParams {
  RequestId id;
};

struct LocateParams {
  TextDocumentPosition at;
  std::string request = "definition";  // "definition" | "references"
  bool includeDeclaration = true;
  std::string provider;  // "" (the server's policy) | "auto" | "static" | "live" | "compare"
};

struct SearchParams {
  std::string query;
  std::string route = "auto";  // "auto" | "lexical" | "trigram"
  bool regex = false;
  bool caseSensitive = true;
  uint32_t k = 20;
  std::vector<std::string> paths, languages, kinds;  // filters
};

// nib/callers, nib/callees, nib/impact: a symbol name or a position; nib/trace: two names.
struct StructuralParams {
  std::string symbol;
  std::optional<TextDocumentPosition> at;
  std::string to;  // nib/trace
  uint32_t depth = 0;  // 0: the method's default
  uint32_t limit = 100;
};

struct RenameParams {
  TextDocumentPosition at;
  std::string newName;
};

// workspace/didChangeWatchedFiles: the files the editor saw created, changed or deleted.
struct WatchedFilesParams {
  std::vector<std::string> uris;
};

// textDocument/selectionRange's request: one document, the positions to expand from.
struct SelectionRangeParams {
  std::string uri;
  std::vector<Position> positions;
  static constexpr size_t kMaxPositions = 1000;  // one answer each: more is refused
};

using Params = std::variant<std::monostate, InitializeParams, TextDocumentPosition, ReferenceParams, DidOpenParams,
                            DidChangeParams, DocumentParams, WorkspaceSymbolParams, CallHierarchyParams, CancelParams,
                            LocateParams, SearchParams, StructuralParams, ContextParamsWire, RenameParams,
                            SelectionRangeParams, WatchedFilesParams>;

struct Incoming {
  enum class Kind { Request, Notification, Response, Invalid };
  Kind kind = Kind::Invalid;
  RequestId id;  // requests (and responses to our own requests)
  std::string method;
  Params params;
  int errorCode = 0;  // non-zero: the message (or its params) could not be decoded
  std::string error;
};

// Decodes one message body. Never throws; malformed input yields Kind::Invalid (or a request
// with errorCode InvalidParams, so that it can still be answered).
Incoming decodeMessage(std::string_view body);

// ---- results ----

struct WireLocation {
  std::string uri;
  Range range;
};

struct DocumentSymbol {
  std::string name, detail;
  int kind = 12;
  Range range, selectionRange;
  std::vector<DocumentSymbol> children;
};

// LSP DocumentHighlightKind: 1 text (a declaration), 2 read (a use), 3 write (a binding).
struct DocumentHighlight {
  Range range;
  int kind = 1;
};

struct SymbolInformation {
  std::string name;
  int kind = 12;
  WireLocation location;
  std::string containerName;
};

struct Hover {
  std::string markdown;
  std::optional<Range> range;
};

struct CallHierarchyCall {  // incoming: `item` is the caller; outgoing: the callee
  CallHierarchyItem item;
  std::vector<Range> fromRanges;
};

struct InitializeResult {
  std::string positionEncoding;  // "utf-16" | "utf-8" | "utf-32"
  std::string serverVersion;
};

struct LocateResult {
  std::vector<WireLocation> locations;
  std::string provider, confidence, note;
  std::string indexCommit, headCommit, indexVersion, worktreeTree;
  bool fresh = false, partial = false;
  std::string facts;               // static answers: "clang" or "tree-sitter"
  std::string policy;              // the policy that chose the provider
  std::string backend;             // the live backend that answered (or was asked)
  std::string liveError;           // why the live backend did not answer (the index answered)
  double liveMilliseconds = -1;    // the live request's time, when one was made
  std::optional<bool> agree;       // compare: whether both providers gave the same (path, line) set
  std::string reason;              // why the policy chose the provider
  std::string category;            // the index answer's category (providers/Agreement)
  std::string agreement;           // its measured agreement, when that decided
};

std::string encodeNullResult(const RequestId& id);
std::string encodeResult(const RequestId& id, const InitializeResult& r);
std::string encodeResult(const RequestId& id, const std::vector<WireLocation>& r);
std::string encodeResult(const RequestId& id, const std::vector<DocumentSymbol>& r);
std::string encodeResult(const RequestId& id, const std::vector<DocumentHighlight>& r);

// A folding range: whole lines (0-based), so no position encoding applies.
struct FoldingRange {
  uint32_t startLine = 0, endLine = 0;
};
std::string encodeResult(const RequestId& id, const std::vector<FoldingRange>& r);

// One position's selection ranges, innermost first, each inside the next (the wire nests them
// as `parent`s).
struct SelectionRange {
  std::vector<Range> chain;
};
std::string encodeResult(const RequestId& id, const std::vector<SelectionRange>& r);

// prepareRename's answer: the name's range and the text an editor offers to change.
struct PrepareRename {
  Range range;
  std::string placeholder;
};
std::string encodeResult(const RequestId& id, const PrepareRename& r);
// A rename's WorkspaceEdit, as `changes`: per document URI, its edits.
struct TextEdit {
  Range range;
  std::string newText;
};
std::string encodeResult(const RequestId& id, const std::map<std::string, std::vector<TextEdit>>& changes);
std::string encodeResult(const RequestId& id, const std::vector<SymbolInformation>& r);
std::string encodeResult(const RequestId& id, const Hover& r);
std::string encodeResult(const RequestId& id, const std::vector<CallHierarchyItem>& r);
std::string encodeResult(const RequestId& id, const std::vector<CallHierarchyCall>& r, bool incoming);
std::string encodeResult(const RequestId& id, const LocateResult& r);
std::string encodeResult(const RequestId& id, const SearchAnswer& r);
std::string encodeResult(const RequestId& id, const StructuralAnswer& r);
std::string encodeResult(const RequestId& id, const ContextAnswerWire& r);
std::string encodeResult(const RequestId& id, const StatusAnswer& r);
std::string encodeError(const RequestId& id, int code, std::string_view message);

// Server-initiated messages.
std::string encodeLogMessage(int type, std::string_view message);  // window/logMessage (1 error .. 4 log)
std::string encodeCreateProgress(const RequestId& id, std::string_view token);  // window/workDoneProgress/create
// client/registerCapability for workspace/didChangeWatchedFiles over every file of the workspace.
std::string encodeRegisterWatchedFiles(const RequestId& id);
// $/progress: kind "begin" (with title), "report" or "end"; percentage < 0 leaves it out.
std::string encodeProgress(std::string_view token, std::string_view kind, std::string_view title,
                           std::string_view message, int percentage);

}  // namespace nib::lsp
