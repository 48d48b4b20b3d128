#include "views/CommitView.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/FileIo.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "support/Binary.h"
#include "support/StringMap.h"

namespace nib {
namespace {
std::string encodeFile(const FileRecord& f) {
  ByteWriter w;
  w.varint(f.fileId);
  w.str(f.path);
  w.str(f.blobOid);
  w.u8(static_cast<uint8_t>(f.language));
  w.varint(f.size);
  w.str(f.profileDigest);
  return w.take();
}

std::optional<FileRecord> decodeFile(std::string_view bytes) {
  ByteReader r(bytes);
  FileRecord f;
  f.fileId = r.u32();
  f.path = std::string(r.str());
  f.blobOid = std::string(r.str());
  f.language = static_cast<Language>(r.u8());
  f.size = r.varint();
  f.profileDigest = std::string(r.str());
  if (!r.ok()) return std::nullopt;
  return f;
}

std::vector<DefinitionRef> decodeDefs(std::string_view bytes) {
  ByteReader r(bytes);
  std::vector<DefinitionRef> out;
  while (!r.atEnd() && r.ok()) {
    DefinitionRef d;
    d.fileId = r.u32();
    d.index = r.u32();
    uint8_t b = r.u8();
    d.kind = static_cast<SymbolKind>(b & 0x7F);
    d.isDeclaration = b & 0x80;
    if (r.ok()) out.push_back(d);
  }
  return out;
}

// Definition keys carry a one-byte namespace so top-level and member names never mix.
std::string defKey(std::string_view name, bool member) {
  std::string k(member ? "M" : "G");
  k += name;
  return k;
}
}  // namespace

FactKey FileRecord::factKey() const { return FactKey{blobOid, language, profileDigest}; }

FileSummary summarizeFacts(FileFacts&& facts) {
  FileSummary s;
  s.definitionCount = facts.definitions.size();
  s.occurrenceCount = facts.occurrences.size();
  for (size_t i = 0; i < facts.definitions.size(); ++i) {
    const Definition& d = facts.definitions[i];
    if ((d.scope != BindingScope::Global && d.scope != BindingScope::Member) || d.name.empty()) continue;
    s.defs.push_back(FileSummary::Def{d.name, static_cast<uint32_t>(i), d.kind, d.isDeclaration,
                                      d.scope == BindingScope::Member});
  }
  s.names = std::move(facts.names);
  return s;
}

std::string encodeFileSummary(const FileSummary& summary) {
  ByteWriter w;
  w.varint(summary.definitionCount);
  w.varint(summary.occurrenceCount);
  w.varint(summary.defs.size());
  for (const FileSummary::Def& d : summary.defs) {
    w.str(d.name);
    w.varint(d.index);
    w.u8(static_cast<uint8_t>(d.kind));
    w.u8(static_cast<uint8_t>((d.isDeclaration ? 1 : 0) | (d.member ? 2 : 0)));
  }
  w.varint(summary.names.size());
  for (const std::string& name : summary.names) w.str(name);
  return w.take();
}

bool decodeFileSummary(std::string_view bytes, FileSummary& out) {
  ByteReader r(bytes);
  out.definitionCount = r.varint();
  out.occurrenceCount = r.varint();
  uint64_t defs = r.varint();
  if (!r.ok() || defs > r.remaining()) return false;  // each takes bytes: a larger count is corrupt
  out.defs.resize(defs);
  for (FileSummary::Def& d : out.defs) {
    d.name.assign(r.str());
    d.index = r.u32();
    d.kind = static_cast<SymbolKind>(r.u8());
    uint8_t flags = r.u8();
    d.isDeclaration = flags & 1;
    d.member = flags & 2;
  }
  uint64_t names = r.varint();
  if (!r.ok() || names > r.remaining()) return false;
  out.names.resize(names);
  for (std::string& name : out.names) name.assign(r.str());
  return r.ok() && r.atEnd();
}

namespace {

// A name read into a reused summary is looked up without a copy.
template <typename V>
using NameMap = StringMap<V>;

template <typename V>
V& entryFor(NameMap<V>& map, std::string_view name) {
  auto it = map.find(name);
  if (it == map.end()) it = map.emplace(std::string(name), V()).first;
  return it->second;
}

template <typename V>
std::vector<const std::pair<const std::string, V>*> sortedEntries(const NameMap<V>& map) {
  std::vector<const std::pair<const std::string, V>*> out;
  out.reserve(map.size());
  for (const auto& entry : map) out.push_back(&entry);
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  return out;
}

// The files of one name, delta-encoded as they arrive (ascending ids).
struct FileList {
  ByteWriter list;
  uint32_t last = 0;
};

}  // namespace

Status CommitViewWriter::write(const std::filesystem::path& dir, const std::vector<FileRecord>& files,
                               const FileSummarySource& summaries, const std::vector<SkippedFile>& skipped,
                               const WorktreeSnapshot* worktree) {
  auto writer = LmdbBulkWriter::create(dir);
  if (!writer) return writer.status();
  auto filesDb = writer->openDb("files"), idsDb = writer->openDb("ids"), defsDb = writer->openDb("defs"),
       namesDb = writer->openDb("names"), skippedDb = writer->openDb("skipped");
  for (auto* db : {&filesDb, &idsDb, &defsDb, &namesDb, &skippedDb})
    if (!*db) return db->status();

  // Tables are filled in key order with MDB_APPEND, the fast path of a bulk load. LMDB keys are
  // limited to 511 bytes: absurdly long identifiers (generated code) are left out of the name
  // tables.
  constexpr size_t kMaxKey = 400;
  NameMap<ByteWriter> defsGlobal, defsMember;
  NameMap<FileList> names;
  FileSummary sum;
  for (size_t i = 0; i < files.size(); ++i) {
    const FileRecord& f = files[i];
    NIB_RETURN_IF_ERROR(writer->append(*idsDb, idKey(f.fileId), f.path));
    NIB_RETURN_IF_ERROR(summaries(i, sum));
    for (const FileSummary::Def& def : sum.defs) {
      if (def.name.size() > kMaxKey) continue;
      ByteWriter& w = entryFor(def.member ? defsMember : defsGlobal, def.name);
      w.varint(f.fileId);
      w.varint(def.index);
      w.u8(static_cast<uint8_t>(static_cast<uint8_t>(def.kind) | (def.isDeclaration ? 0x80 : 0)));
    }
    for (const std::string& name : sum.names) {
      if (name.empty() || name.size() > kMaxKey) continue;
      FileList& l = entryFor(names, name);
      l.list.varint(f.fileId - l.last);
      l.last = f.fileId;
    }
  }
  for (const FileRecord& f : files) NIB_RETURN_IF_ERROR(writer->put(*filesDb, f.path, encodeFile(f)));
  // "G<name>" keys sort before "M<name>" keys: globals first, then members.
  for (auto* table : {&defsGlobal, &defsMember}) {
    for (const auto* entry : sortedEntries(*table))
      NIB_RETURN_IF_ERROR(writer->append(*defsDb, defKey(entry->first, table == &defsMember), entry->second.data()));
    table->clear();
  }
  for (const auto* entry : sortedEntries(names))
    NIB_RETURN_IF_ERROR(writer->append(*namesDb, entry->first, entry->second.list.data()));
  names.clear();
  for (const auto& s : skipped)
    if (s.path.size() <= kMaxKey) NIB_RETURN_IF_ERROR(writer->put(*skippedDb, s.path, s.reason));
  if (worktree) NIB_RETURN_IF_ERROR(writeWorktreeSnapshot(writer->txn(), *worktree));
  return writer->finish();
}

Expected<std::unique_ptr<CommitView>> CommitView::open(const std::filesystem::path& dir) {
  auto reader = openLmdbReader(dir);
  if (!reader) return reader.status();
  std::unique_ptr<CommitView> view(new CommitView(std::move(reader->env), std::move(reader->txn)));
  view->dir_ = dir;
  struct Table { const char* name; MDB_dbi* dbi; };
  for (Table t : {Table{"files", &view->files_}, Table{"ids", &view->ids_}, Table{"defs", &view->defs_},
                  Table{"names", &view->names_}, Table{"skipped", &view->skipped_}}) {
    auto dbi = view->txn_.openDb(t.name, false);
    if (!dbi) return Status(ErrorCode::Corrupt, "commit view at " + dir.string() + " lacks table " + t.name);
    *t.dbi = *dbi;
  }
  return view;
}

std::optional<FileRecord> CommitView::fileByPath(const std::string& path) {
  auto v = txn_.get(files_, path);
  if (!v) return std::nullopt;
  return decodeFile(*v);
}

std::optional<FileRecord> CommitView::fileById(uint32_t id) {
  auto p = txn_.get(ids_, idKey(id));
  if (!p) return std::nullopt;
  return fileByPath(std::string(*p));
}

std::vector<DefinitionRef> CommitView::definitions(const std::string& name, bool member) {
  auto v = txn_.get(defs_, defKey(name, member));
  if (!v) return {};
  return decodeDefs(*v);
}

std::vector<uint32_t> CommitView::filesMentioning(const std::string& name) {
  std::vector<uint32_t> out;
  if (name.empty() || name.size() > 400) return out;
  auto v = txn_.get(names_, name);
  if (!v) return out;
  ByteReader r(*v);
  uint32_t id = 0;
  while (!r.atEnd() && r.ok()) {
    id += r.u32();
    if (r.ok()) out.push_back(id);
  }
  return out;
}

void CommitView::forEachDefinitionName(
    const std::function<bool(std::string_view, bool, std::string_view)>& visit) {
  (void)txn_.scan(defs_, "", [&](std::string_view k, std::string_view v) {
    if (k.empty()) return true;
    return visit(k.substr(1), k[0] == 'M', v);
  });
}

std::vector<DefinitionRef> CommitView::decodeDefinitions(std::string_view raw) { return decodeDefs(raw); }

CommitView::Mapping::~Mapping() {
  if (at) ::munmap(at, size);
}

Expected<std::string_view> CommitView::definitionKeys() {
  if (definitionKeys_) return std::string_view(*definitionKeys_);
  if (keysMap_) return mappedKeys_;
  // The first line names the format: a file of another format (or a torn one) is rebuilt.
  static constexpr std::string_view kHeader = "nib-definition-keys 1\n";
  const std::filesystem::path file = dir_ / kDefinitionKeysFile;
  if (int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    struct stat st;
    auto map = std::make_unique<Mapping>();
    if (::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= kHeader.size()) {
      map->size = static_cast<size_t>(st.st_size);
      map->at = ::mmap(nullptr, map->size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (map->at == MAP_FAILED) map->at = nullptr;
    }
    ::close(fd);
    std::string_view text = map->at ? std::string_view(static_cast<const char*>(map->at), map->size) : std::string_view();
    if (text.substr(0, kHeader.size()) == kHeader && text.back() == '\n') {
      mappedKeys_ = text.substr(kHeader.size());
      keysMap_ = std::move(map);
      return mappedKeys_;
    }
  }
  std::string keys;
  bool newline = false;
  (void)txn_.scan(defs_, "", [&](std::string_view k, std::string_view) {
    if (k.find('\n') != std::string_view::npos) newline = true;
    keys.append(k).push_back('\n');
    return !newline;
  });
  if (newline) return Status(ErrorCode::Unsupported, "a definition name holds a newline");
  // Not being able to keep it (a read-only index) only costs the next query the scan.
  (void)writeFileAtomic(file, std::string(kHeader) + keys);
  definitionKeys_ = std::move(keys);
  return std::string_view(*definitionKeys_);
}

void CommitView::forEachFile(const std::function<bool(const FileRecord&)>& visit) {
  (void)txn_.scan(files_, "", [&](std::string_view, std::string_view v) {
    auto rec = decodeFile(v);
    return rec ? visit(*rec) : true;
  });
}

std::vector<SkippedFile> CommitView::skipped() {
  std::vector<SkippedFile> out;
  (void)txn_.scan(skipped_, "", [&](std::string_view k, std::string_view v) {
    out.push_back(SkippedFile{std::string(k), std::string(v)});
    return true;
  });
  return out;
}

std::optional<std::string> CommitView::skipReason(const std::string& path) {
  auto v = txn_.get(skipped_, path);
  if (!v) return std::nullopt;
  return std::string(*v);
}

uint32_t CommitView::fileCount() {
  MDB_stat st;
  if (mdb_stat(txn_.raw(), files_, &st) != 0) return 0;
  return static_cast<uint32_t>(st.ms_entries);
}

}  // namespace nib
