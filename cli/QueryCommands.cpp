// `nib status`, `nib def`, `nib refs`, `nib symbols`: read-only commands over the current index.
// They must start in milliseconds: no extraction, no heavy libraries, one short read of LMDB.
#include <cstdio>
#include <filesystem>
#include <map>

#include "cli/Commands.h"
#include "cli/DaemonCli.h"
#include "cli/Worker.h"
#include "protocol/LspTypes.h"
#include "protocol/PositionEncoder.h"
#include "server/Engine.h"
#include "server/StructuralAnswer.h"
#include "support/Binary.h"
#include "support/FileIo.h"
#include "views/IndexLayout.h"

namespace nib::cli {
namespace fs = std::filesystem;
namespace {

struct ParsedTarget {
  std::string file;
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based
};

Expected<ParsedTarget> parseTarget(const std::string& text) {
  // FILE may itself contain ':'; LINE and COL are the last two fields.
  size_t c2 = text.rfind(':');
  size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : text.rfind(':', c2 - 1);
  if (c1 == std::string::npos || c1 == 0)
    return Status(ErrorCode::InvalidArgument, "expected FILE:LINE:COL, got '" + text + "'");
  auto number = [](const std::string& s, uint32_t* out) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *out = static_cast<uint32_t>(std::stoul(s));
    return *out > 0;
  };
  ParsedTarget t;
  t.file = text.substr(0, c1);
  if (!number(text.substr(c1 + 1, c2 - c1 - 1), &t.line) || !number(text.substr(c2 + 1), &t.column))
    return Status(ErrorCode::InvalidArgument, "LINE and COL in '" + text + "' must be positive numbers (1-based)");
  return t;
}

std::string shortOid(const std::string& oid) { return oid.empty() ? "(none)" : oid.substr(0, 12); }

struct Located {
  std::unique_ptr<Engine> engine;
  std::string path;
  uint32_t offset = 0;
};

Expected<Located> locate(const LocateArgs& args) {
  auto target = parseTarget(args.target);
  if (!target) return target.status();
  fs::path file = target->file;
  std::error_code ec;
  if (!fs::exists(file, ec)) return Status(ErrorCode::NotFound, "no such file: " + target->file);
  if (fs::is_directory(file, ec)) return Status(ErrorCode::InvalidArgument, target->file + " is a directory");
  fs::path start = args.root.empty() ? fs::absolute(file).parent_path() : fs::path(args.root);
  auto engine = Engine::open(start);
  if (!engine) return engine.status();
  auto path = (*engine)->repoPath(file);
  if (!path) return path.status();
  auto offset = (*engine)->offsetOf(*path, Position{fromDisplayLine(target->line), target->column - 1});
  if (!offset) return offset.status();
  return Located{std::move(*engine), *path, *offset};
}

int printNavigation(const LocateArgs& args, Located& at, const Expected<NavigationResult>& result, bool references) {
  if (!result) return fail(result.status().message());
  Engine& engine = *at.engine;
  FileState state = engine.fileState(at.path);
  auto fresh = engine.freshness(false);
  if (args.json) {
    lsp::NavigationAnswer a;
    a.symbol = result->symbol;
    a.confidence = confidenceName(result->confidence);
    a.facts = result->source;
    a.note = result->note;
    a.locations = toWireLocations(engine, result->locations, Encoding::Utf16);
    if (fresh) a.freshness = freshnessFields(*fresh, false);
    a.freshness["fileChanged"] = state.changedOnDisk ? "true" : "false";
    if (state.changedOnDisk) a.freshness["partial"] = "true";
    std::printf("%s\n", lsp::toJson(a).c_str());
  } else {
    std::string text = navigationText(engine, *result, references);
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (!result->note.empty()) std::fprintf(stderr, "nib: note: %s\n", result->note.c_str());
  }
  if (state.changedOnDisk)
    std::fprintf(stderr, "nib: warning: %s changed since it was indexed; positions may be off (run `nib index`)\n",
                 at.path.c_str());
  else if (fresh && !fresh->headMatches)
    std::fprintf(stderr, "nib: warning: HEAD moved since the index was built (%s -> %s); run `nib index`\n",
                 shortOid(fresh->indexCommit).c_str(), shortOid(fresh->headCommit).c_str());
  if (result->locations.empty() && !args.json) return 1;
  return 0;
}

}  // namespace

int runDefinition(const LocateArgs& args) {
  auto at = locate(args);
  if (!at) return fail(at.status().message(), at.status().code() == ErrorCode::NotFound && at.status().message().find("no index") != std::string::npos ? "run `nib index` in the repository first" : "");
  auto result = at->engine->definition(at->path, at->offset);
  return printNavigation(args, *at, result, false);
}

int runReferences(const LocateArgs& args) {
  auto at = locate(args);
  if (!at) return fail(at.status().message());
  auto result = at->engine->references(at->path, at->offset, args.includeDeclaration);
  return printNavigation(args, *at, result, true);
}

int runSymbols(const SymbolsArgs& args) {
  if (args.query.empty()) return fail("the query is empty");
  auto engine = Engine::open(args.root);
  if (!engine) return fail(engine.status().message());
  auto matches = (*engine)->symbols(args.query, args.limit);
  if (args.json) {
    std::vector<SymbolLocation> locs;
    for (auto& m : matches) locs.push_back(m.location);
    std::printf("%s\n", lsp::toJson(toWireLocations(**engine, locs, Encoding::Utf16)).c_str());
    return 0;
  }
  for (const SymbolMatch& m : matches) {
    const SymbolLocation& l = m.location;
    std::printf("%-12s %s%s  %s:%u:%u\n", symbolKindName(l.kind), l.container.empty() ? "" : (l.container + ".").c_str(),
                l.name.c_str(), l.path.c_str(), toDisplayLine(l.range.start.line), l.range.start.column + 1);
  }
  if (matches.empty()) {
    std::fprintf(stderr, "nib: no symbol matches '%s'\n", args.query.c_str());
    return 1;
  }
  return 0;
}

CommandOutput renderStatus(Engine& e, const StatusArgs& args) {
  CommandOutput o;
  auto failed = [&](const std::string& message, const std::string& hint) {
    o.err = "nib: error: " + message + "\n" + (hint.empty() ? "" : "nib: hint: " + hint + "\n");
    o.exitCode = 1;
    return o;
  };
  // New folder entries only git's ignore rules can judge: the indexer worker scans.
  e.setWorktreeProbe([](const fs::path& root) -> Expected<std::string> {
    auto out = runWorker({"worktree-tree", root.string()});
    if (!out) return out.status();
    std::string tree = *out;
    while (!tree.empty() && tree.back() == '\n') tree.pop_back();
    return tree;
  });
  const Manifest& m = e.manifest();
  if (args.verify) {
    Status s = verifyArtifacts(IndexLayout::forRepository(e.root()).versionDir(m.versionId), m);
    if (!s.isOk()) return failed(s.message(), "run `nib rollback` or `nib index`");
  }
  auto fresh = e.freshness(true);
  if (!fresh) return failed(fresh.status().message(), "");
  if (args.json) {
    lsp::StatusAnswer a = toStatusAnswer(e, *fresh);
    if (args.verify) a.freshness["verified"] = "true";
    o.out = lsp::toJson(a) + "\n";
    return o;
  }
  appendf(&o.out, "repository  %s\n", e.root().c_str());
  appendf(&o.out, "version     %s (created %s)\n", m.versionId.c_str(), m.created.c_str());
  appendf(&o.out, "built from  commit %s%s\n", shortOid(m.sourceCommit).c_str(), m.dirty ? " + uncommitted changes" : "");
  appendf(&o.out, "HEAD        %s %s\n", shortOid(fresh->headCommit).c_str(),
          fresh->headMatches ? "(matches)" : "(differs: index is behind)");
  std::string worktree = fresh->worktreeTree.empty() ? "unknown (untracked nested repository)"
                         : fresh->worktreeMatches    ? "matches the index"
                                                     : "differs from the index";
  auto list = [](const std::vector<std::string>& files) {
    std::string out;
    for (size_t i = 0; i < files.size() && i < 5; ++i) out += (i ? ", " : "") + files[i];
    if (files.size() > 5) out += ", ...";
    return out;
  };
  if (!fresh->changedFiles.empty())
    worktree += "; " + std::to_string(fresh->changedFiles.size()) + " changed (" + list(fresh->changedFiles) + ")";
  if (!fresh->deletedFiles.empty())
    worktree += "; " + std::to_string(fresh->deletedFiles.size()) + " deleted (" + list(fresh->deletedFiles) + ")";
  appendf(&o.out, "worktree    %s\n", worktree.c_str());
  appendf(&o.out, "fresh       %s\n", fresh->fresh ? "yes" : "no: run `nib index` to catch up");
  for (const ViewRecord& v : m.views) {
    std::string note = viewNote(e, v);
    appendf(&o.out, "view        %-10s %s%s%s\n", v.name.c_str(), viewStatusName(v.status),
            v.profile.empty() ? "" : ("  " + v.profile).c_str(), note.empty() ? "" : ("  " + note).c_str());
  }
  auto stat = [&](const char* k) { auto it = m.stats.find(k); return it == m.stats.end() ? std::string("?") : it->second; };
  appendf(&o.out, "files       %s\n", stat("files").c_str());
  appendf(&o.out, "symbols     %s definitions, %s occurrences\n", stat("definitions").c_str(), stat("occurrences").c_str());
  if (!m.base.empty())
    appendf(&o.out, "delta       over version %s: %s file(s) differ; its views are shared\n", m.base.c_str(),
            stat("delta.files").c_str());
  if (!m.previous.empty()) appendf(&o.out, "previous    %s (nib rollback)\n", m.previous.c_str());
  if (args.verify) appendf(&o.out, "verified    all artifact digests match\n");
  return o;
}

std::string encodeStatusArgs(const StatusArgs& args) {
  ByteWriter w;
  w.u8(kStatusRequest);
  w.u8(args.json);
  w.u8(args.verify);
  return w.take();
}

Expected<StatusArgs> decodeStatusArgs(std::string_view bytes) {
  ByteReader r(bytes);
  StatusArgs args;
  if (r.u8() != kStatusRequest) return Status(ErrorCode::InvalidArgument, "a status request of another format");
  args.json = r.u8() != 0;
  args.verify = r.u8() != 0;
  if (!r.ok() || !r.atEnd()) return Status(ErrorCode::InvalidArgument, "a malformed status request");
  return args;
}

int runStatus(const StatusArgs& args) {
  // A daemon for this repository answers from its open index and its watched worktree (the
  // comparison is cached until something changes); without one, this process compares.
  if (args.useDaemon)
    if (auto answered = askDaemon(args.path, encodeStatusArgs(args)))
      // A daemon older than this request kind refuses it: then the work is done here.
      if (answered->err.find("of another format") == std::string::npos) return printOutput(*answered);
  auto engine = Engine::open(args.path);
  if (!engine) {
    std::string hint = engine.status().code() == ErrorCode::NotFound ? "run `nib index` to build one" : "";
    return fail(engine.status().message(), hint);
  }
  return printOutput(renderStatus(**engine, args));
}

}  // namespace nib::cli
