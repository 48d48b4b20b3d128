// The precise view of a version (issue: compiler-grade answers for TypeScript/JavaScript and
// Python). Each project — a folder with a tsconfig.json (TypeScript and JavaScript), the
// repository (Python) — is indexed by its SCIP indexer (scip-typescript, scip-python: Node
// programs, one process per project, with a time limit, its whole process group killed past
// it), the SCIP it writes read by the `nib-scip` worker as unit facts, and the projects merged
// into versions/<id>/precise in the clang view's format. A project's facts are cached in
// .nib/precise-cache by the contents of every indexed file of its languages under its folder
// and its configuration files, so an update re-runs only the projects whose inputs changed.
// A project whose indexer fails, hangs or writes no readable SCIP is recorded with the reason;
// its files keep their tree-sitter facts.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "views/Manifest.h"

namespace nib {

// The format of the precise view (the clang view's, kClangViewFormat) and of what it is built
// from; part of the configuration digest and of each project's cache key, so a change to how
// projects are merged (2: symbols of referenced projects linked, the inferred project's sites
// those of files no tsconfig.json includes; 3: a tsconfig.json extending what cannot be read
// indexed from its own options; 4: the inferred project read with the options of the server's
// inferred projects, not the root tsconfig.json's; 5: a folder's jsconfig.json is a project)
// rebuilds the view.
constexpr uint8_t kPreciseViewRevision = 5;

struct PreciseProject {
  std::string language;  // "typescript" (TypeScript and JavaScript) or "python"
  std::string dir;       // repository-relative folder, "" for the root
  // An inferred TypeScript project (the files no tsconfig.json's project read): its files.
  // Empty for a folder's project.
  std::vector<std::string> files{};
  // A tsconfig.json whose `extends` names nothing that can be read: indexed from its own options
  // and files, as TypeScript's server reads it (indexer/TsConfigExtends).
  bool ownConfigOnly = false;
  bool composite = false;  // its compilerOptions say composite, its own or those it extends
  // The folder's configuration is a jsconfig.json (no tsconfig.json beside it): TypeScript's
  // server reads it as a tsconfig.json with allowJs and the other defaults of a jsconfig.json.
  bool jsconfig = false;

  const char* configFile() const { return jsconfig ? "jsconfig.json" : "tsconfig.json"; }

  bool inferred() const { return !files.empty(); }
  // A tsconfig.json's project (the repository's own when `dir` is "").
  bool configuredTypeScript() const { return language == "typescript" && !inferred(); }
};

// The projects of the repository's files: a folder holding a tsconfig.json, or else a
// jsconfig.json (outside node_modules), is a TypeScript project; the repository is one Python
// project when it has Python files. The TypeScript and JavaScript files no such project read form one more, inferred project
// (buildPreciseView, allowJs), as TypeScript's server opens them in an inferred project of their
// own; its tsconfig.json is written under the cache folder, never into the worktree.
std::vector<PreciseProject> findPreciseProjects(const std::map<std::string, std::string>& blobIds);

struct PreciseBuildInput {
  std::filesystem::path root;      // the repository
  std::filesystem::path dir;       // versions/<id>/precise
  std::filesystem::path cacheDir;  // .nib/precise-cache
  std::filesystem::path importer;  // the nib-scip executable
  // The indexers, by language ("typescript", "python"); a language without one gets no project.
  std::map<std::string, std::filesystem::path> indexers;
  std::map<std::string, std::string> blobIds;  // repository path -> blob id (the indexed files)
  // Every file with a blob id, indexed or not (tsconfig.json, pyproject.toml): what finds the
  // projects and keys their cached facts.
  std::map<std::string, std::string> inputs;
  std::chrono::seconds timeout{600};           // per project
  unsigned threads = 1;                        // projects indexed at once
  std::function<bool()> cancelled;
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct PreciseBuildReport {
  ViewRecord view;  // "precise": Complete, Failed (every project failed, with the reasons) or Absent
  size_t projects = 0, indexed = 0, cached = 0, failed = 0;
  size_t symbols = 0, occurrences = 0, files = 0;
  double seconds = 0;
  std::vector<std::pair<std::string, std::string>> failures;  // (language:folder, why), first 20
};

PreciseBuildReport buildPreciseView(const PreciseBuildInput& input);

}  // namespace nib
