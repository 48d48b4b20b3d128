// The manifest of one built index version: what it was built from, with which extractors, and
// per view its status, profile, capabilities and artifact digests. Stored as a small line-based
// text file (`key: value`) that ends with a digest of everything above it, so a torn or edited
// manifest is detected before anything is served from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "support/Status.h"

namespace nib {

struct Artifact {
  std::string path;    // relative to the version folder
  std::string digest;  // XXH3-128 of the file's bytes
  uint64_t size = 0;
};

// Pending: the view comes in a follow-up version (the dense view, which `nib index` builds in
// the background after publishing the others: indexer/DenseFollowUp).
enum class ViewStatus { Complete, Failed, Absent, Pending };
const char* viewStatusName(ViewStatus status);

struct ViewRecord {
  std::string name;  // "structural", "lexical", ...
  ViewStatus status = ViewStatus::Absent;
  std::string profile;
  std::vector<std::string> capabilities;
  std::vector<Artifact> artifacts;
  std::string error;  // why it failed, when it did

  // A delta version's view that was built for the version itself, its delta's files included
  // (the clang and precise views, which only their own builds refresh), rather than shared
  // with the base by hard links.
  static constexpr const char* kCoversDelta = "covers-delta";
  bool coversDelta() const;
  // A clang view whose made-up units (files no compile command builds) a follow-up version
  // adds: those files answer from tree-sitter until it is published.
  static constexpr const char* kUncompiledPending = "uncompiled-pending";
  // A dense view left out until someone asks for semantic or hybrid search (the repository-
  // trained model measured no ranking gain, and its model and vectors were ~40 % of an index):
  // `nib search -r semantic` builds it then, and later builds keep it.
  static constexpr const char* kOnRequest = "on-request";
  bool has(const char* capability) const;
};

struct Manifest {
  std::string versionId;
  std::string created;       // UTC, ISO 8601
  std::string sourceCommit;  // HEAD's OID when built, "" for an unborn branch
  std::string sourceTree;    // the tree that was indexed (commit tree or worktree tree)
  bool dirty = false;        // built from a worktree that differs from sourceCommit
  std::string nibVersion;
  std::string extractorProfile;
  std::string grammars;
  std::string configDigest;
  std::string previous;  // the version that was current before this one was published
  // A delta version's complete base: the views' files are the base's (hard-linked), and the
  // "delta" view (VersionDelta) lists the files that differ from it. "" for a complete version.
  std::string base;
  std::vector<ViewRecord> views;
  std::map<std::string, std::string> stats;  // counts and timings, for `nib status`

  const ViewRecord* view(const std::string& name) const;
  // Complete means every view that is not Absent is Complete or Failed, and at least the
  // structural view is Complete: a failed optional view never invalidates its siblings.
  bool servable() const;

  std::string serialize() const;
  static Expected<Manifest> parse(std::string_view text);
};

Expected<Manifest> readManifest(const std::filesystem::path& versionDir);
// A version's manifest is first written as `manifest.pending`; only after its artifacts are
// verified does it become `manifest` (by rename), which is what marks a version complete.
Status writePendingManifest(const std::filesystem::path& versionDir, const Manifest& manifest);
Expected<Manifest> readPendingManifest(const std::filesystem::path& versionDir);
Status commitManifest(const std::filesystem::path& versionDir);
// Writes `manifest` directly (tests and tools that build versions by hand).
Status writeManifest(const std::filesystem::path& versionDir, const Manifest& manifest);
// Recomputes each artifact's digest and size; Corrupt on the first mismatch.
Status verifyArtifacts(const std::filesystem::path& versionDir, const Manifest& manifest);
// Size-only check, cheap enough for every query process.
Status checkArtifactSizes(const std::filesystem::path& versionDir, const Manifest& manifest);

}  // namespace nib
