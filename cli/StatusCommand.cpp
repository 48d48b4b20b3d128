// `nib status`: what the index holds and whether it still reflects HEAD and the worktree. It
// must start in milliseconds: no heavy libraries, one short read of LMDB, a stat of the worktree.
#include <cstdio>
#include <filesystem>
#include <map>

#include "cli/Commands.h"
#include "cli/DaemonCli.h"
#include "cli/WorktreeModule.h"
#include "protocol/LspTypes.h"
#include "protocol/PositionEncoder.h"
#include "server/Engine.h"
#include "server/StructuralAnswer.h"
#include "support/Binary.h"
#include "support/FileIo.h"
#include "support/GitLite.h"
#include "views/IndexLayout.h"

namespace nib::cli {
namespace fs = std::filesystem;
namespace {

std::string shortOid(const std::string& oid) { return oid.empty() ? "(none)" : oid.substr(0, 12); }

// The lines every status starts with: where, which version, built from what.
void appendManifestHeader(std::string* out, const std::string& root, const Manifest& m) {
  appendf(out, "repository  %s\n", root.c_str());
  appendf(out, "version     %s (created %s)\n", m.versionId.c_str(), m.created.c_str());
  appendf(out, "built from  commit %s%s\n", shortOid(m.sourceCommit).c_str(), m.dirty ? " + uncommitted changes" : "");
}

// An index another nib wrote cannot answer, but its manifest (a stable text format) still says
// what it is: shown with the remedy, so that `nib status` explains instead of only refusing.
int printForeignIndex(const fs::path& repoPath, const Status& refusal) {
  auto root = gitlite::discover(repoPath);
  auto manifest = root ? IndexLayout::forRepository(root->worktree).currentManifest() : Expected<Manifest>(root.status());
  if (!manifest) return fail(refusal.message());
  std::string out;
  appendManifestHeader(&out, root->worktree.string(), *manifest);
  for (const ViewRecord& v : manifest->views) appendf(&out, "view        %-10s %s\n", v.name.c_str(), viewStatusName(v.status));
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  return fail(refusal.message());
}

}  // namespace

CommandOutput renderStatus(Engine& e, const StatusArgs& args) {
  CommandOutput o;
  // New folder entries only git's ignore rules can judge: the worktree module scans.
  e.setWorktreeProbe(moduleWorktreeTree);
  const Manifest& m = e.manifest();
  if (args.verify) {
    Status s = verifyArtifacts(IndexLayout::forRepository(e.root()).versionDir(m.versionId), m);
    if (!s.isOk()) return errorOutput(s.message(), "run `nib rollback` or `nib index`");
  }
  auto fresh = e.freshness(true);
  if (!fresh) return errorOutput(fresh.status().message());
  if (args.json) {
    lsp::StatusAnswer a = toStatusAnswer(e, *fresh);
    if (args.verify) a.freshness["verified"] = "true";
    o.out = lsp::toJson(a) + "\n";
    return o;
  }
  appendManifestHeader(&o.out, e.root().string(), m);
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
  // What `nib serve` measured while idle: how often each kind of answer equals a live server's.
  auto agreement = e.calibration()->entries();
  if (agreement.empty()) appendf(&o.out, "agreement   not measured yet (nib serve measures it while idle)\n");
  for (const auto& [key, count] : agreement) appendf(&o.out, "agreement   %s\n", describeAgreement(key, count).c_str());
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
    if (auto answered = askDaemon(args.path, encodeStatusArgs(args))) return printOutput(*answered);
  auto engine = Engine::open(args.path);
  if (!engine && engine.status().is(Reason::OtherFormat)) return printForeignIndex(args.path, engine.status());
  if (!engine) {
    std::string hint = engine.status().code() == ErrorCode::NotFound ? "run `nib index` to build one" : "";
    return fail(engine.status().message(), hint);
  }
  int rc = printOutput(renderStatus(**engine, args));
  startDaemonForLaterCommands(**engine, args.useDaemon);
  return rc;
}

}  // namespace nib::cli
