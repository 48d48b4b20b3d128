#include "views/VersionComparison.h"

#include "support/Hash.h"

#include <map>
#include <set>

#include "views/CommitView.h"
#include "views/FactStore.h"
#include "views/Lmdb.h"
#include "views/Manifest.h"
#include "views/VersionDelta.h"
#include "support/Binary.h"

namespace nib {
namespace fs = std::filesystem;
namespace {

std::string printable(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes.substr(0, 120)) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (bytes.size() > 120) out += "...";
  return out;
}

// Every (key, value) of every named table of one environment, in key order.
using Tables = std::map<std::string, std::map<std::string, std::string>>;

Expected<Tables> readTables(const fs::path& dir) {
  LmdbEnv::Options o;
  o.readOnly = true;
  o.maxDbs = 64;
  auto env = LmdbEnv::open(dir, o);
  if (!env) return env.status();
  auto txn = LmdbTxn::begin(**env, false);
  if (!txn) return txn.status();
  // The unnamed database lists the named ones.
  MDB_dbi main;
  if (int rc = mdb_dbi_open(txn->raw(), nullptr, 0, &main); rc != 0)
    return Status(ErrorCode::IoError, "cannot open the table list of " + dir.string() + ": " + mdb_strerror(rc));
  std::vector<std::string> names;
  NIB_RETURN_IF_ERROR(txn->scan(main, "", [&](std::string_view key, std::string_view) {
    names.emplace_back(key);
    return true;
  }));
  Tables tables;
  for (const std::string& name : names) {
    auto dbi = txn->openDb(name.c_str(), false);
    if (!dbi) return dbi.status();
    auto& table = tables[name];
    NIB_RETURN_IF_ERROR(txn->scan(*dbi, "", [&](std::string_view key, std::string_view value) {
      table.emplace(std::string(key), std::string(value));
      return true;
    }));
  }
  return tables;
}


// What a version declares per path, by path (file ids differ between a delta and a rebuild:
// a file the delta added has an overlay id): its file record or why it was skipped, and its
// search document.
struct PathState {
  std::map<std::string, std::string> files;  // path -> "blob language profile" or "skipped: reason"
  std::map<std::string, std::string> docs;   // path -> "blob language"
};

Expected<PathState> pathStateOf(const fs::path& version) {
  PathState out;
  auto view = CommitView::open(version / CommitView::kDirectory);
  if (!view) return view.status();
  (*view)->forEachFile([&](const FileRecord& r) {
    out.files[r.path] = r.blobOid + " " + std::to_string(static_cast<int>(r.language)) + " " + r.profileDigest;
    return true;
  });
  for (const SkippedFile& f : (*view)->skipped()) out.files[f.path] = "skipped: " + f.reason;
  if (fs::exists(version / "trigram" / "data.mdb")) {
    auto tables = readTables(version / "trigram");
    if (!tables) return tables.status();
    for (const auto& [key, value] : (*tables)["docs"]) {
      ByteReader r(value);
      std::string path(r.str()), blob(r.str());
      int language = r.u8();
      if (!r.ok()) return Status(ErrorCode::Corrupt, "damaged search document in " + version.string());
      out.docs[path] = blob + " " + std::to_string(language);
    }
  }
  return out;
}

// The same for a delta version: its base's, with its entries applied. (Read through the delta's
// own links, so it holds when the base's folder is gone.)
Expected<PathState> deltaPathState(const fs::path& version, const Manifest& manifest, const VersionDelta& delta) {
  auto out = pathStateOf(version);  // its structural/ and trigram/ are the base's files (links)
  if (!out) return out.status();
  for (const DeltaEntry& e : delta.entries()) {
    out->files.erase(e.path);
    out->docs.erase(e.path);
    if (e.state == DeltaEntry::State::Indexed)
      out->files[e.path] = e.blobOid + " " + std::to_string(static_cast<int>(e.language)) + " " + manifest.extractorProfile;
    else if (e.state == DeltaEntry::State::Skipped)
      out->files[e.path] = "skipped: " + e.skipReason;
    if (e.searchable) out->docs[e.path] = e.blobOid + " " + std::to_string(static_cast<int>(e.language));
  }
  return out;
}

template <typename Differ>
size_t compareMaps(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b,
                   const std::string& where, Differ differ) {
  size_t n = 0;
  auto ia = a.begin(), ib = b.begin();
  while (ia != a.end() || ib != b.end()) {
    ++n;
    if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
      differ(where, ia->first, "only in the index");
      ++ia;
    } else if (ia == a.end() || ib->first < ia->first) {
      differ(where, ib->first, "only in the rebuild");
      ++ib;
    } else {
      if (ia->second != ib->second) differ(where, ia->first, "values differ");
      ++ia;
      ++ib;
    }
  }
  return n;
}

}  // namespace

namespace {

// Facts: every file of the index against the rebuild's store, compared as decoded and encoded
// again (the content, not incidental bytes of an older encoder).
template <typename Differ>
Status compareFacts(const std::vector<std::string>& paths, const std::vector<FactKey>& keys, const fs::path& factsA,
                    const fs::path& factsB, VersionComparisonResult& out, Differ differ) {
  auto storeA = FactStore::open(factsA, true);
  if (!storeA) return storeA.status();
  auto storeB = FactStore::open(factsB, true);
  if (!storeB) return storeB.status();
  auto readerA = (*storeA)->reader();
  if (!readerA) return readerA.status();
  auto readerB = (*storeB)->reader();
  if (!readerB) return readerB.status();
  for (size_t i = 0; i < keys.size(); ++i) {
    ++out.files;
    ++out.entries;
    auto fa = readerA->get(keys[i]);
    auto fb = readerB->get(keys[i]);
    if (!fa || !fb) differ("facts", paths[i], !fa ? "missing from the index's fact store" : "missing from the rebuild");
    else if (serializeFacts(*fa) != serializeFacts(*fb)) differ("facts", paths[i], "values differ");
  }
  return Status::ok();
}

// A delta version shares its base's views, so what it declares is the base's file records,
// skipped files and search documents with its entries applied, and a worktree snapshot of its
// own: those are compared with the rebuild's by path, and every file's facts as for a complete
// version. (The name tables, postings and vectors are the base's, built by the same code from
// the same kind of state; the answers over base and delta are what the freshness suite checks.)
Expected<VersionComparisonResult> compareDelta(const fs::path& versionA, const Manifest& manifestA, const fs::path& factsA,
                                               const fs::path& versionB, const fs::path& factsB, size_t maxDifferences) {
  VersionComparisonResult out;
  out.delta = true;
  auto differ = [&](std::string where, std::string_view key, std::string what) {
    out.identical = false;
    if (out.differences.size() < maxDifferences) out.differences.push_back({std::move(where), printable(key), std::move(what)});
  };
  auto delta = VersionDelta::open(versionA / "delta");
  if (!delta) return delta.status();
  auto a = deltaPathState(versionA, manifestA, **delta);
  if (!a) return a.status();
  auto b = pathStateOf(versionB);
  if (!b) return b.status();
  out.entries += compareMaps(a->files, b->files, "files", differ);
  out.entries += compareMaps(a->docs, b->docs, "search documents", differ);
  auto wa = readTables(versionA / "delta");
  if (!wa) return wa.status();
  auto wb = readTables(versionB / CommitView::kDirectory);
  if (!wb) return wb.status();
  out.entries += compareMaps((*wa)["worktree"], (*wb)["worktree"], "worktree", differ);
  std::vector<std::string> paths;
  std::vector<FactKey> keys;
  for (const auto& [path, record] : a->files) {
    if (record.rfind("skipped: ", 0) == 0) continue;
    size_t s1 = record.find(' '), s2 = record.find(' ', s1 + 1);
    paths.push_back(path);
    keys.push_back(FactKey{record.substr(0, s1), static_cast<Language>(std::stoi(record.substr(s1 + 1, s2 - s1 - 1))),
                           record.substr(s2 + 1)});
  }
  NIB_RETURN_IF_ERROR(compareFacts(paths, keys, factsA, factsB, out, differ));
  return out;
}

}  // namespace

Expected<VersionComparisonResult> compareVersions(const fs::path& versionA, const fs::path& factsA,
                                                  const fs::path& versionB, const fs::path& factsB,
                                                  size_t maxDifferences) {
  VersionComparisonResult out;
  auto differ = [&](std::string where, std::string_view key, std::string what) {
    out.identical = false;
    if (out.differences.size() < maxDifferences) out.differences.push_back({std::move(where), printable(key), std::move(what)});
  };
  auto manifestA = readManifest(versionA);
  if (manifestA && !manifestA->base.empty()) return compareDelta(versionA, *manifestA, factsA, versionB, factsB, maxDifferences);
  // The dense view: the rebuild embeds every unit with the index's own model, so its vectors
  // file must be byte-identical (the vector cache and an update's reuse are what this checks).
  for (const char* file : {"dense/model.bin", "dense/vectors.faiss"}) {
    bool hasA = fs::exists(versionA / file), hasB = fs::exists(versionB / file);
    if (!hasA && !hasB) continue;
    ++out.entries;
    if (hasA != hasB) {
      differ(file, "", hasA ? "only in the index" : "only in the rebuild");
      continue;
    }
    auto a = digestFile(versionA / file);
    if (!a) return a.status();
    auto b = digestFile(versionB / file);
    if (!b) return b.status();
    if (*a != *b) differ(file, "", "values differ");
  }
  for (const char* view : {"structural", "lexical", "trigram", "clang"}) {
    bool hasA = fs::exists(versionA / view / "data.mdb"), hasB = fs::exists(versionB / view / "data.mdb");
    if (!hasA && !hasB) continue;
    if (hasA != hasB) {
      differ(view, "", hasA ? "only in the index" : "only in the rebuild");
      continue;
    }
    auto a = readTables(versionA / view);
    if (!a) return a.status();
    auto b = readTables(versionB / view);
    if (!b) return b.status();
    std::set<std::string> names;
    for (const auto& [n, _] : *a) names.insert(n);
    for (const auto& [n, _] : *b) names.insert(n);
    for (const std::string& name : names) {
      std::string where = std::string(view) + "/" + name;
      static const std::map<std::string, std::string> empty;
      const auto& ta = a->count(name) ? a->at(name) : empty;
      const auto& tb = b->count(name) ? b->at(name) : empty;
      out.entries += compareMaps(ta, tb, where, differ);
    }
  }
  auto view = CommitView::open(versionA / CommitView::kDirectory);
  if (!view) return view.status();
  std::vector<FactKey> keys;
  std::vector<std::string> paths;
  (*view)->forEachFile([&](const FileRecord& r) {
    paths.push_back(r.path);
    keys.push_back(r.factKey());
    return true;
  });
  NIB_RETURN_IF_ERROR(compareFacts(paths, keys, factsA, factsB, out, differ));
  return out;
}

}  // namespace nib
