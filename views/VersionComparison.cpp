#include "views/VersionComparison.h"

#include "support/Hash.h"

#include <map>
#include <set>

#include "views/CommitView.h"
#include "views/FactStore.h"
#include "views/Lmdb.h"

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

}  // namespace

Expected<VersionComparisonResult> compareVersions(const fs::path& versionA, const fs::path& factsA,
                                                  const fs::path& versionB, const fs::path& factsB,
                                                  size_t maxDifferences) {
  VersionComparisonResult out;
  auto differ = [&](std::string where, std::string_view key, std::string what) {
    out.identical = false;
    if (out.differences.size() < maxDifferences) out.differences.push_back({std::move(where), printable(key), std::move(what)});
  };
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
      auto ia = ta.begin(), ib = tb.begin();
      while (ia != ta.end() || ib != tb.end()) {
        ++out.entries;
        if (ib == tb.end() || (ia != ta.end() && ia->first < ib->first)) {
          differ(where, ia->first, "only in the index");
          ++ia;
        } else if (ia == ta.end() || ib->first < ia->first) {
          differ(where, ib->first, "only in the rebuild");
          ++ib;
        } else {
          if (ia->second != ib->second) differ(where, ia->first, "values differ");
          ++ia;
          ++ib;
        }
      }
    }
  }
  // Facts: every file of the index against the rebuild's store, compared as decoded and
  // encoded again (the content, not incidental bytes of an older encoder).
  auto view = CommitView::open(versionA / "structural");
  if (!view) return view.status();
  auto storeA = FactStore::open(factsA, true);
  if (!storeA) return storeA.status();
  auto storeB = FactStore::open(factsB, true);
  if (!storeB) return storeB.status();
  auto readerA = (*storeA)->reader();
  if (!readerA) return readerA.status();
  auto readerB = (*storeB)->reader();
  if (!readerB) return readerB.status();
  (*view)->forEachFile([&](const FileRecord& r) {
    ++out.files;
    ++out.entries;
    auto fa = readerA->get(r.factKey());
    auto fb = readerB->get(r.factKey());
    if (!fa || !fb) differ("facts", r.path, !fa ? "missing from the index's fact store" : "missing from the rebuild");
    else if (serializeFacts(*fa) != serializeFacts(*fb)) differ("facts", r.path, "values differ");
    return true;
  });
  return out;
}

}  // namespace nib
