#include "views/ClangView.h"

#include <sys/stat.h>

#include <map>

#include "support/Binary.h"

namespace nib {
namespace {
constexpr uint8_t kFormat = kClangViewFormat;
constexpr size_t kMaxNameKey = 400;  // LMDB keys are limited to 511 bytes

// Which files each unit's main file read: the files once, in meta, and per main file the
// ascending numbers of its own as deltas.
Status writeReads(LmdbTxn& txn, MDB_dbi meta, const ClangViewContents& contents) {
  auto reads = txn.openDb("reads", true);
  if (!reads) return reads.status();
  ByteWriter files;
  files.varint(contents.readFiles.size());
  for (const std::string& path : contents.readFiles) files.str(path);
  NIB_RETURN_IF_ERROR(txn.put(meta, "read-files", files.data()));
  for (const auto& [path, numbers] : contents.reads) {
    if (path.empty() || path.size() > kMaxNameKey) continue;
    ByteWriter w;
    uint32_t previous = 0;
    for (uint32_t n : numbers) {
      w.varint(n - previous);
      previous = n;
    }
    NIB_RETURN_IF_ERROR(txn.put(*reads, path, w.data()));
  }
  return Status::ok();
}

// Per path, byte ranges as (start, length) varints (ClangViewContents::skipped, varying).
Status writeRanges(LmdbTxn& txn, MDB_dbi table,
                   const std::vector<std::pair<std::string, std::vector<std::pair<uint32_t, uint32_t>>>>& files) {
  for (const auto& [path, ranges] : files) {
    if (path.empty() || path.size() > kMaxNameKey) continue;
    ByteWriter w;
    for (const auto& [start, end] : ranges) {
      w.varint(start);
      w.varint(end - start);
    }
    NIB_RETURN_IF_ERROR(txn.put(table, path, w.data()));
  }
  return Status::ok();
}

// What lies outside the repository: the namespaces a system header opened first, and where the
// symbols declared outside it are (ClangOutsideSite), by symbol id.
Status writeOutside(LmdbTxn& txn, const ClangViewContents& contents) {
  auto outside = txn.openDb("opened-outside", true);
  if (!outside) return outside.status();
  for (uint32_t id : contents.openedOutside) NIB_RETURN_IF_ERROR(txn.put(*outside, idKey(id), ""));
  auto sites = txn.openDb("outside-sites", true);
  if (!sites) return sites.status();
  for (const auto& [id, site] : contents.outsideSites) {
    ByteWriter w;
    w.str(site.path);
    writeRange(w, site.range);
    w.u8(site.definition ? 1 : 0);
    w.str(site.signature);
    NIB_RETURN_IF_ERROR(txn.put(*sites, idKey(id), w.data()));
  }
  return Status::ok();
}

// Per file, the #includes units entered there: (offset delta, path) pairs in offset order; and
// the files every unit entered inside a scope ("s"; an empty value in views that predate extern
// "C" inclusions) or inside an `extern "C"` block ("c").
Status writeInclusions(LmdbTxn& txn, const ClangViewContents& contents) {
  auto inclusions = txn.openDb("inclusions", true);
  if (!inclusions) return inclusions.status();
  auto enclosed = txn.openDb("enclosed", true);
  if (!enclosed) return enclosed.status();
  std::map<std::string, std::string> marks;
  for (const std::string& path : contents.enclosedFiles) marks[path] += "s";
  for (const std::string& path : contents.externCFiles) marks[path] += "c";
  for (const auto& [path, mark] : marks)
    if (!path.empty() && path.size() <= kMaxNameKey) NIB_RETURN_IF_ERROR(txn.put(*enclosed, path, mark));
  for (const auto& [path, entered] : contents.inclusions) {
    if (path.empty() || path.size() > kMaxNameKey) continue;
    ByteWriter w;
    uint32_t previous = 0;
    for (const auto& [offset, file] : entered) {
      w.varint(offset - previous);
      w.str(file);
      previous = offset;
    }
    NIB_RETURN_IF_ERROR(txn.put(*inclusions, path, w.data()));
  }
  return Status::ok();
}

}  // namespace

Status writeClangView(const std::filesystem::path& dir, const ClangViewContents& contents) {
  LmdbEnv::Options options;
  options.noSync = true;  // synced once at the end, before the manifest records the digest
  auto env = LmdbEnv::open(dir, options);
  if (!env) return env.status();
  auto txn = LmdbTxn::begin(**env, true);
  if (!txn) return txn.status();
  auto files = txn->openDb("files", true), symbols = txn->openDb("symbols", true), meta = txn->openDb("meta", true),
       interpolated = txn->openDb("interpolated", true), names = txn->openDb("names", true),
       skipped = txn->openDb("skipped", true), shared = txn->openDb("shared", true),
       unindexed = txn->openDb("unindexed", true);
  if (!files || !symbols || !meta || !interpolated || !names || !skipped || !shared || !unindexed)
    return Status(ErrorCode::IoError, "cannot create the clang view's tables");
  for (const std::string& path : contents.interpolatedFiles) NIB_RETURN_IF_ERROR(txn->put(*interpolated, path, ""));
  for (const auto& [path, signature] : contents.unindexed) NIB_RETURN_IF_ERROR(txn->put(*unindexed, path, signature));
  for (const std::string& path : contents.sharedMainFiles) NIB_RETURN_IF_ERROR(txn->put(*shared, path, ""));
  auto errors = txn->openDb("errors", true), foreign = txn->openDb("foreign", true),
       compiled = txn->openDb("compiled", true);
  if (!errors) return errors.status();
  if (!foreign) return foreign.status();
  if (!compiled) return compiled.status();
  for (const std::string& path : contents.compiledMainFiles)
    if (!path.empty() && path.size() <= kMaxNameKey) NIB_RETURN_IF_ERROR(txn->put(*compiled, path, ""));
  for (const std::string& path : contents.foreignFiles)
    if (!path.empty() && path.size() <= kMaxNameKey) NIB_RETURN_IF_ERROR(txn->put(*foreign, path, ""));
  for (const std::string& path : contents.parsedWithErrors)
    if (!path.empty() && path.size() <= kMaxNameKey) NIB_RETURN_IF_ERROR(txn->put(*errors, path, ""));
  NIB_RETURN_IF_ERROR(writeRanges(*txn, *skipped, contents.skipped));
  if (!contents.varying.empty()) {
    auto varying = txn->openDb("varying", true);
    if (!varying) return varying.status();
    NIB_RETURN_IF_ERROR(writeRanges(*txn, *varying, contents.varying));
  }
  if (!contents.designators.empty()) {
    auto designators = txn->openDb("designators", true);
    if (!designators) return designators.status();
    NIB_RETURN_IF_ERROR(writeRanges(*txn, *designators, contents.designators));
  }
  if (!contents.minority.empty()) {
    auto minority = txn->openDb("minority", true);
    if (!minority) return minority.status();
    NIB_RETURN_IF_ERROR(writeRanges(*txn, *minority, contents.minority));
  }
  if (!contents.minorityLanguage.empty()) {
    auto table = txn->openDb("minority-language", true);
    if (!table) return table.status();
    for (const auto& [symbol, paths] : contents.minorityLanguage) {
      ByteWriter w;
      w.varint(paths.size());
      for (const std::string& path : paths) w.str(path);
      NIB_RETURN_IF_ERROR(txn->put(*table, idKey(symbol), w.data(), MDB_APPEND));
    }
  }
  if (!contents.reads.empty()) NIB_RETURN_IF_ERROR(writeReads(*txn, *meta, contents));
  NIB_RETURN_IF_ERROR(writeInclusions(*txn, contents));
  NIB_RETURN_IF_ERROR(writeOutside(*txn, contents));
  if (!contents.programs.files.empty()) {
    auto programs = txn->openDb("programs", true);
    if (!programs) return programs.status();
    ByteWriter folders;
    folders.varint(contents.programs.folders.size());
    for (size_t i = 0; i < contents.programs.folders.size(); ++i) {
      folders.str(contents.programs.folders[i]);
      folders.u8(i < contents.programs.composite.size() && contents.programs.composite[i] ? 1 : 0);
    }
    NIB_RETURN_IF_ERROR(txn->put(*meta, "program-folders", folders.data()));
    for (const auto& [path, program] : contents.programs.files) {
      ByteWriter w;
      w.varint(program.projects.size());
      for (uint32_t p : program.projects) w.varint(p);
      w.varint(program.imports.size());
      for (const std::string& i : program.imports) w.str(i);
      NIB_RETURN_IF_ERROR(txn->put(*programs, path, w.data()));
    }
  }
  NIB_RETURN_IF_ERROR(txn->put(*meta, "format", std::string(1, static_cast<char>(kFormat))));
  if (!contents.root.empty()) NIB_RETURN_IF_ERROR(txn->put(*meta, "root", contents.root));
  for (const auto& [path, occurrences] : contents.files) {
    ByteWriter w;
    w.varint(occurrences.size());
    uint32_t previous = 0;
    for (const ClangFileOccurrence& o : occurrences) {
      w.varint(o.start - previous);  // deltas: occurrences are in offset order
      w.varint(o.end - o.start);
      w.varint(o.symbol);
      w.u8(static_cast<uint8_t>(o.role) | (o.expanded ? 0x80 : 0) | (o.guessed ? 0x40 : 0) | (o.unlisted ? 0x20 : 0) |
           (o.foreign ? 0x10 : 0));
      previous = o.start;
    }
    NIB_RETURN_IF_ERROR(txn->put(*files, path, w.data()));
  }
  for (size_t id = 0; id < contents.symbols.size(); ++id) {
    const ClangSymbol& s = contents.symbols[id];
    ByteWriter w;
    w.str(s.usr);
    w.str(s.name);
    w.u8(s.kind);
    w.varint(s.sites.size());
    for (const ClangSite& site : s.sites) {
      w.str(site.path);
      writeRange(w, site.range);
      w.u8(static_cast<uint8_t>(site.role) | (site.call ? 0x80 : 0) | (site.interpolated ? 0x40 : 0) |
           (site.canonical ? 0x20 : 0) | (site.expanded ? 0x10 : 0) | (site.macroBody ? 0x08 : 0) |
           (site.unlisted ? 0x04 : 0));
    }
    for (const std::vector<uint32_t>* ids : s.edges()) {
      w.varint(ids->size());
      for (uint32_t id : *ids) w.varint(id);
    }
    NIB_RETURN_IF_ERROR(txn->put(*symbols, idKey(static_cast<uint32_t>(id)), w.data(), MDB_APPEND));
  }
  // Symbol ids by name, for lookups by the bare word (see symbolsNamed).
  std::map<std::string_view, std::vector<uint32_t>> byName;
  for (size_t id = 0; id < contents.symbols.size(); ++id)
    if (const std::string& name = contents.symbols[id].name; !name.empty() && name.size() <= kMaxNameKey &&
                                                             !std::binary_search(contents.unnamed.begin(), contents.unnamed.end(), id))
      byName[name].push_back(static_cast<uint32_t>(id));
  for (const auto& [name, ids] : byName) {
    ByteWriter w;
    for (uint32_t id : ids) w.varint(id);
    NIB_RETURN_IF_ERROR(txn->put(*names, name, w.data(), MDB_APPEND));
  }
  NIB_RETURN_IF_ERROR(txn->commit());
  return (*env)->sync();
}

Expected<std::unique_ptr<ClangView>> ClangView::open(const std::filesystem::path& dir) {
  auto reader = openLmdbReader(dir);
  if (!reader) return reader.status();
  std::unique_ptr<ClangView> v(new ClangView(std::move(reader->env), std::move(reader->txn)));
  auto meta = v->txn_.openDb("meta", false);
  if (!meta) return Status(ErrorCode::Corrupt, "the clang view lacks a table");
  auto format = v->txn_.get(*meta, "format");
  if (!format || format->size() != 1 || static_cast<uint8_t>((*format)[0]) != kFormat)
    return Status(ErrorCode::Unsupported, "the clang view is of another format: run `nib index` to rebuild it");
  auto files = v->txn_.openDb("files", false), symbols = v->txn_.openDb("symbols", false),
       interpolated = v->txn_.openDb("interpolated", false), names = v->txn_.openDb("names", false),
       skipped = v->txn_.openDb("skipped", false), shared = v->txn_.openDb("shared", false),
       unindexed = v->txn_.openDb("unindexed", false);
  if (!files || !symbols || !interpolated || !names || !skipped || !shared || !unindexed)
    return Status(ErrorCode::Corrupt, "the clang view lacks a table");
  // Unindexed files are stat'ed where the build found them (a moved repository makes them all
  // changed: their sites are left out rather than trusted). The table is a few generated headers,
  // held in memory: every site of an answer asks whether its file is one (unindexedChanged).
  if (auto root = v->txn_.get(*meta, "root")) v->root_ = std::string(*root);
  Status s = v->txn_.scan(*unindexed, "", [&](std::string_view key, std::string_view signature) {
    v->unindexed_.emplace(key, signature);
    return true;
  });
  if (!s.isOk()) return s;
  v->files_ = *files;
  v->symbols_ = *symbols;
  v->interpolated_ = *interpolated;
  v->names_ = *names;
  v->skipped_ = *skipped;
  v->shared_ = *shared;
  if (auto programs = v->txn_.openDb("programs", false)) v->programs_ = *programs;
  if (auto reads = v->txn_.openDb("reads", false)) v->reads_ = *reads;
  if (auto errors = v->txn_.openDb("errors", false)) v->errors_ = *errors;
  if (auto compiled = v->txn_.openDb("compiled", false)) v->compiled_ = *compiled;
  if (auto foreign = v->txn_.openDb("foreign", false)) v->foreign_ = *foreign;
  if (auto inclusions = v->txn_.openDb("inclusions", false)) v->inclusions_ = *inclusions;
  if (auto varying = v->txn_.openDb("varying", false)) v->varying_ = *varying;
  if (auto designators = v->txn_.openDb("designators", false)) v->designators_ = *designators;
  if (auto minority = v->txn_.openDb("minority", false)) v->minority_ = *minority;
  if (auto language = v->txn_.openDb("minority-language", false)) v->minorityLanguage_ = *language;
  if (auto enclosed = v->txn_.openDb("enclosed", false)) v->enclosed_ = *enclosed;
  if (auto outside = v->txn_.openDb("opened-outside", false)) v->openedOutside_ = *outside;
  if (auto sites = v->txn_.openDb("outside-sites", false)) v->outsideSites_ = *sites;
  return v;
}

std::optional<ClangOutsideSite> ClangView::outsideSite(uint32_t id) {
  if (!outsideSites_) return std::nullopt;
  auto value = txn_.get(*outsideSites_, idKey(id));
  if (!value) return std::nullopt;
  ByteReader r(*value);
  ClangOutsideSite site;
  site.path = std::string(r.str());
  site.range = readRange(r);
  site.definition = r.u8() == 1;
  site.signature = std::string(r.str());
  if (!r.ok() || site.path.empty()) return std::nullopt;
  return site;
}

bool ClangView::openedOutside(uint32_t id) { return openedOutside_ && txn_.get(*openedOutside_, idKey(id)).hasValue(); }

bool ClangView::enclosedFile(const std::string& path) {
  if (!enclosed_ || path.empty() || path.size() > kMaxNameKey) return false;
  auto mark = txn_.get(*enclosed_, path);
  return mark && (mark->empty() || mark->find('s') != std::string_view::npos);
}

bool ClangView::externCFile(const std::string& path) {
  if (!enclosed_ || path.empty() || path.size() > kMaxNameKey) return false;
  auto mark = txn_.get(*enclosed_, path);
  return mark && mark->find('c') != std::string_view::npos;
}

Expected<std::vector<std::pair<uint32_t, std::string_view>>> ClangView::inclusionsIn(const std::string& path) {
  std::vector<std::pair<uint32_t, std::string_view>> out;
  if (!inclusions_ || path.empty() || path.size() > kMaxNameKey) return out;
  auto v = txn_.get(*inclusions_, path);
  if (!v) return out;
  ByteReader r(*v);
  uint32_t offset = 0;
  while (!r.atEnd() && r.ok()) {
    offset += r.u32();
    std::string_view file = r.str();
    if (r.ok()) out.emplace_back(offset, file);
  }
  if (!r.ok()) return Status(ErrorCode::Corrupt, "malformed #includes of " + path + " in the clang view");
  return out;
}

Expected<std::optional<std::vector<std::string_view>>> ClangView::filesReadBy(const std::string& path) {
  using Files = std::optional<std::vector<std::string_view>>;
  if (!reads_ || path.empty() || path.size() > kMaxNameKey) return Files();
  auto v = txn_.get(*reads_, path);
  if (!v) return Files();
  if (!readFiles_) {
    auto meta = txn_.openDb("meta", false);
    auto list = meta ? txn_.get(*meta, "read-files") : Expected<std::string_view>(Status(ErrorCode::NotFound, ""));
    if (!list) return Status(ErrorCode::Corrupt, "the clang view lacks its list of files read");
    ByteReader r(*list);
    uint32_t count = r.u32();
    // Each path takes a byte at least: a larger count is damage, not a size to allocate.
    std::vector<std::string> files(count <= list->size() ? count : 0);
    for (std::string& f : files) f = std::string(r.str());
    if (!r.ok() || count > list->size()) return Status(ErrorCode::Corrupt, "malformed list of files read in the clang view");
    readFiles_ = std::move(files);
  }
  std::vector<std::string_view> out;
  ByteReader r(*v);
  uint32_t number = 0;
  while (!r.atEnd() && r.ok()) {
    number += r.u32();
    if (number >= readFiles_->size()) return Status(ErrorCode::Corrupt, "malformed files read by " + path);
    out.push_back((*readFiles_)[number]);
  }
  if (!r.ok()) return Status(ErrorCode::Corrupt, "malformed files read by " + path);
  return Files(std::move(out));
}

Expected<std::optional<ProgramTable>> ClangView::programs() {
  if (!programs_) return std::optional<ProgramTable>();
  ProgramTable out;
  bool damaged = false;
  auto meta = txn_.openDb("meta", false);
  auto folders = meta ? txn_.get(*meta, "program-folders") : Expected<std::string_view>(Status(ErrorCode::NotFound, ""));
  if (folders) {
    ByteReader r(*folders);
    uint64_t n = r.varint();
    for (uint64_t i = 0; i < n && r.ok(); ++i) {
      out.folders.emplace_back(r.str());
      out.composite.push_back(r.u8() != 0);
    }
    damaged = !r.ok();
  }
  Status s = txn_.scan(*programs_, "", [&](std::string_view key, std::string_view value) {
    ByteReader r(value);
    FileProgram p;
    uint64_t n = r.varint();
    for (uint64_t i = 0; i < n && r.ok(); ++i) p.projects.push_back(static_cast<uint32_t>(r.varint()));
    n = r.varint();
    for (uint64_t i = 0; i < n && r.ok(); ++i) p.imports.emplace_back(r.str());
    for (uint32_t project : p.projects) damaged = damaged || project == 0 || project > out.folders.size();
    if (!r.ok() || damaged) {
      damaged = true;
      return false;
    }
    out.files.emplace(key, std::move(p));
    return true;
  });
  if (!s.isOk()) return s;
  if (damaged) return Status(ErrorCode::Corrupt, "the precise view's programs table is damaged");
  return std::optional<ProgramTable>(std::move(out));
}

bool ClangView::hasFile(const std::string& path) { return static_cast<bool>(txn_.get(files_, path)); }

Expected<std::vector<ClangFileOccurrence>> ClangView::occurrences(const std::string& path) {
  std::vector<ClangFileOccurrence> out;
  auto raw = txn_.get(files_, path);
  if (!raw) return out;
  ByteReader r(*raw);
  uint64_t n = r.varint();
  if (n > raw->size()) return Status(ErrorCode::Corrupt, "malformed clang occurrences of " + path);
  uint32_t start = 0;
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    ClangFileOccurrence o;
    start += r.u32();
    o.start = start;
    o.end = start + r.u32();
    o.symbol = r.u32();
    uint8_t role = r.u8();
    if ((role & 0x0F) > 2) r.fail();
    o.role = static_cast<ClangRole>(role & 0x0F);
    o.expanded = role & 0x80;
    o.guessed = role & 0x40;
    o.unlisted = role & 0x20;
    o.foreign = role & 0x10;
    out.push_back(o);
  }
  if (!r.ok() || !r.atEnd()) return Status(ErrorCode::Corrupt, "malformed clang occurrences of " + path);
  return out;
}

Expected<ClangSymbol> ClangView::symbol(uint32_t id) { return decodeSymbol(id, nullptr, 0); }

Expected<ClangSymbol> ClangView::symbolForDefinition(uint32_t id, std::string_view path, uint32_t offset) {
  return decodeSymbol(id, &path, offset);
}

// `onlyAt`: leave out reference sites but the one at (*onlyAt, offset); null keeps every site.
Expected<ClangSymbol> ClangView::decodeSymbol(uint32_t id, const std::string_view* onlyAt, uint32_t offset) {
  auto raw = txn_.get(symbols_, idKey(id));
  if (!raw) return Status(ErrorCode::Corrupt, "the clang view lacks symbol " + std::to_string(id));
  ByteReader r(*raw);
  ClangSymbol s;
  s.usr = std::string(r.str());
  s.name = std::string(r.str());
  s.kind = r.u8();
  uint64_t n = r.varint();
  if (n > raw->size()) r.fail();
  std::string_view firstPath;
  bool oneFile = n > 0;
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    ClangSite site;
    std::string_view sitePath = r.str();
    if (i == 0) firstPath = sitePath;
    oneFile = oneFile && sitePath == firstPath;
    site.range = readRange(r);
    uint8_t role = r.u8();
    if (onlyAt && (role & 0x03) == static_cast<uint8_t>(ClangRole::Reference) &&
        !(sitePath == *onlyAt && site.range.startByte == offset))
      continue;
    site.path = std::string(sitePath);
    site.role = static_cast<ClangRole>(role & 0x03);
    site.unlisted = role & 0x04;
    site.expanded = role & 0x10;
    site.macroBody = role & 0x08;
    site.call = role & 0x80;
    site.interpolated = role & 0x40;
    site.canonical = role & 0x20;
    if ((role & 0x03) > 2) r.fail();
    s.sites.push_back(std::move(site));
  }
  for (std::vector<uint32_t>* ids : s.edges()) {
    uint64_t k = r.varint();
    if (k > raw->size()) r.fail();
    for (uint64_t i = 0; i < k && r.ok(); ++i) ids->push_back(r.u32());
  }
  if (!r.ok() || !r.atEnd()) return Status(ErrorCode::Corrupt, "malformed clang symbol " + std::to_string(id));
  s.oneFile = oneFile;
  s.id = id;
  return s;
}

Expected<std::vector<uint32_t>> ClangView::symbolsNamed(const std::string& name) {
  std::vector<uint32_t> out;
  if (name.empty() || name.size() > kMaxNameKey) return out;
  auto v = txn_.get(names_, name);
  if (!v) return out;
  ByteReader r(*v);
  while (!r.atEnd() && r.ok()) out.push_back(r.u32());
  if (!r.ok()) return Status(ErrorCode::Corrupt, "malformed clang name entry for " + name);
  return out;
}

bool ClangView::mayHoldForeign(const std::string& path) {
  if (!foreign_) return true;
  if (path.empty() || path.size() > kMaxNameKey) return false;
  return txn_.get(*foreign_, path).hasValue();
}

bool ClangView::parsedWithErrors(const std::string& path) {
  if (!errors_ || path.empty() || path.size() > kMaxNameKey) return false;
  return txn_.get(*errors_, path).hasValue();
}

bool ClangView::compiledMainFile(const std::string& path) {
  if (!compiled_ || path.empty() || path.size() > kMaxNameKey) return false;
  return txn_.get(*compiled_, path).hasValue();
}

bool ClangView::skippedAt(const std::string& path, uint32_t offset) { return rangesHold(skipped_, path, offset); }

bool ClangView::variesAt(const std::string& path, uint32_t offset) {
  return varying_ && rangesHold(*varying_, path, offset);
}

bool ClangView::designatorAt(const std::string& path, uint32_t offset) {
  return designators_ && rangesHold(*designators_, path, offset);
}

std::vector<std::pair<uint32_t, uint32_t>> ClangView::varyingIn(const std::string& path) {
  return varying_ ? rangesOf(*varying_, path) : std::vector<std::pair<uint32_t, uint32_t>>();
}

std::vector<std::pair<uint32_t, uint32_t>> ClangView::minorityIn(const std::string& path) {
  return minority_ ? rangesOf(*minority_, path) : std::vector<std::pair<uint32_t, uint32_t>>();
}

std::vector<std::string> ClangView::minorityLanguageOf(uint32_t symbol) {
  std::vector<std::string> out;
  if (!minorityLanguage_) return out;
  auto value = txn_.get(*minorityLanguage_, idKey(symbol));
  if (!value) return out;
  ByteReader r(*value);
  uint64_t n = r.varint();
  for (uint64_t i = 0; i < n && r.ok() && i < value->size(); ++i) out.emplace_back(r.str());
  if (!r.ok()) out.clear();
  return out;
}

bool ClangView::rangesHold(MDB_dbi table, const std::string& path, uint32_t offset) {
  for (const auto& [start, end] : rangesOf(table, path))
    if (offset >= start && offset < end) return true;
  return false;
}

std::vector<std::pair<uint32_t, uint32_t>> ClangView::rangesOf(MDB_dbi table, const std::string& path) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  if (path.empty() || path.size() > kMaxNameKey) return out;
  auto v = txn_.get(table, path);
  if (!v) return out;
  ByteReader r(*v);
  while (!r.atEnd() && r.ok()) {
    uint32_t start = r.u32(), length = r.u32();
    if (r.ok()) out.emplace_back(start, start + static_cast<uint64_t>(length) > UINT32_MAX ? UINT32_MAX : start + length);
  }
  return out;
}

Expected<std::vector<std::string>> ClangView::keys(MDB_dbi table) {
  std::vector<std::string> out;
  Status s = txn_.scan(table, "", [&](std::string_view key, std::string_view) {
    out.emplace_back(key);
    return true;
  });
  if (!s.isOk()) return s;
  return out;
}

Expected<std::vector<std::string>> ClangView::interpolatedFiles() { return keys(interpolated_); }

Expected<std::vector<std::string>> ClangView::sharedMainFiles() { return keys(shared_); }

bool ClangView::unindexedChanged(const std::string& path) const {
  auto it = unindexed_.find(path);
  return it != unindexed_.end() && fileStatSignature(root_ + path) != it->second;
}

std::vector<std::string> ClangView::changedUnindexedFiles() const {
  std::vector<std::string> changed;
  for (const auto& [path, signature] : unindexed_)
    if (fileStatSignature(root_ + path) != signature) changed.push_back(path);
  return changed;
}

std::string fileStatSignature(const std::filesystem::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "-";
  return "s" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace nib
