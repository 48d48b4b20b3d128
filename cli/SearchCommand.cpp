// `nib search`: the lexical and trigram routes from the command line. The output is rendered
// into a CommandOutput so that a running daemon (`nib daemon`) and this process print the same
// bytes for the same request.
#include <cstdarg>
#include <cstdio>

#include "cli/Commands.h"
#include "cli/DaemonCli.h"
#include "cli/Worker.h"
#include "protocol/LspTypes.h"
#include "server/Engine.h"
#include "server/SearchAnswer.h"
#include "support/Binary.h"

namespace nib::cli {
namespace {

// The request, or the error a user should see.
Expected<SearchRequest> requestOf(const SearchArgs& args) {
  return searchRequestOf(args.query, args.route, args.regex, args.ignoreCase, args.k, args.paths, args.languages,
                         args.kinds);
}

}  // namespace

CommandOutput renderSearch(Engine& engine, const SearchArgs& args) {
  auto request = requestOf(args);
  if (!request) return errorOutput(request.status().message());
  auto result = engine.search(*request);
  if (!result) return errorOutput(result.status().message());
  CommandOutput o;
  o.exitCode = result->hits.empty() ? 1 : 0;  // like grep
  if (args.json) {
    lsp::SearchAnswer a = toSearchAnswer(engine, *result, Encoding::Utf16, /*withUris=*/false);
    o.out = lsp::toJson(a) + "\n";
    return o;
  }
  o.out = searchResultText(*result);
  for (const std::string& n : result->notes) o.err += "nib: note: " + n + "\n";
  if (result->truncated) appendf(&o.err, "nib: note: more results exist; raise -k (now %zu)\n", request->k);
  if (result->hits.empty()) o.err += "nib: no matches\n";
  return o;
}

std::string encodeSearchArgs(const SearchArgs& args) {
  ByteWriter w;
  w.u8(kSearchRequest);
  w.str(args.query);
  w.str(args.route);
  w.u8(args.regex);
  w.u8(args.ignoreCase);
  w.varint(args.k);
  w.u8(args.json);
  for (const auto* list : {&args.paths, &args.languages, &args.kinds}) {
    w.varint(list->size());
    for (const std::string& s : *list) w.str(s);
  }
  return w.take();
}

Expected<SearchArgs> decodeSearchArgs(std::string_view bytes) {
  ByteReader r(bytes);
  if (r.u8() != kSearchRequest) return Status(ErrorCode::InvalidArgument, "a search request of another format");
  SearchArgs args;
  args.query = std::string(r.str());
  args.route = std::string(r.str());
  args.regex = r.u8() != 0;
  args.ignoreCase = r.u8() != 0;
  args.k = r.varint();
  args.json = r.u8() != 0;
  for (auto* list : {&args.paths, &args.languages, &args.kinds}) {
    uint64_t n = r.varint();
    if (n > bytes.size()) return Status(ErrorCode::InvalidArgument, "a malformed search request");
    for (uint64_t i = 0; i < n && r.ok(); ++i) list->emplace_back(r.str());
  }
  if (!r.ok() || !r.atEnd()) return Status(ErrorCode::InvalidArgument, "a malformed search request");
  return args;
}

namespace {

// The first semantic or hybrid search of a repository builds the dense view it asks for
// (ViewRecord::kOnRequest): `nib index --dense --wait-dense`, whose progress the user sees.
// False when the index has its dense view (or left it out for another reason).
Expected<bool> buildDenseOnRequest(const SearchArgs& args) {
  if (args.route != "semantic" && args.route != "hybrid") return false;
  auto engine = Engine::open(args.root);
  if (!engine) return false;  // the search itself reports it
  const ViewRecord* dense = (*engine)->manifest().view("dense");
  if (!dense || dense->status != ViewStatus::Absent || !dense->has(ViewRecord::kOnRequest)) return false;
  std::fprintf(stderr, "nib: this repository's first %s search: building its dense view now (once; later builds keep it)\n",
               args.route.c_str());
  auto rc = runWorker({"index", "--dense", "--wait-dense", "-q", (*engine)->root().string()});
  if (!rc) return rc.status();
  if (*rc != 0) return Status(ErrorCode::Unavailable, "building the dense view failed (see above)");
  return true;
}

}  // namespace

int runSearch(const SearchArgs& args) {
  auto built = buildDenseOnRequest(args);
  if (!built) return fail(built.status().message());
  // A daemon for this repository answers from its open index and watched worktree; without
  // one (or when it fails), this process does the same work itself. (After a build, this
  // process answers: the daemon may not have seen the new version yet.)
  if (args.useDaemon && !*built) {
    if (auto answered = askDaemon(args.root, encodeSearchArgs(args))) return printOutput(*answered);
  }
  if (auto request = requestOf(args); !request) return fail(request.status().message());
  auto engine = Engine::open(args.root);
  if (!engine) return fail(engine.status().message());  // the message says what to do
  int rc = printOutput(renderSearch(**engine, args));
  startDaemonForLaterCommands(**engine, args.useDaemon);
  return rc;
}

}  // namespace nib::cli
