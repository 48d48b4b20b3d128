#include "scip/ScipExport.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <unistd.h>

#include "scip.pb.h"
#include "support/DefinitionText.h"
#include "support/Language.h"
#include "support/Text.h"
#include "views/ClangFacts.h"
#include "views/ClangView.h"
#include "views/CommitView.h"
#include "views/FactStore.h"
#include "views/FileFacts.h"
#include "views/IndexLayout.h"
#include "views/Manifest.h"
#include "views/VersionDelta.h"

#ifndef NIB_VERSION
#define NIB_VERSION "0"
#endif

namespace nib {
namespace fs = std::filesystem;

namespace {

scip::SymbolInformation::Kind scipKind(SymbolKind k) {
  using K = scip::SymbolInformation;
  switch (k) {
    case SymbolKind::Module: return K::Module;
    case SymbolKind::Namespace: return K::Namespace;
    case SymbolKind::Class: return K::Class;
    case SymbolKind::Struct: return K::Struct;
    case SymbolKind::Interface: return K::Interface;
    case SymbolKind::Enum: return K::Enum;
    case SymbolKind::EnumMember: return K::EnumMember;
    case SymbolKind::Function: return K::Function;
    case SymbolKind::Method: return K::Method;
    case SymbolKind::Constructor: return K::Constructor;
    case SymbolKind::Field: return K::Field;
    case SymbolKind::Property: return K::Property;
    case SymbolKind::Variable: return K::Variable;
    case SymbolKind::Constant: return K::Constant;
    case SymbolKind::Parameter: return K::Parameter;
    case SymbolKind::TypeAlias: return K::TypeAlias;
    case SymbolKind::Macro: return K::Macro;
    case SymbolKind::Union: return K::Union;
    case SymbolKind::TypeParameter: return K::TypeParameter;
    default: return K::UnspecifiedKind;
  }
}

// A USR as an SCIP global symbol: one term descriptor, backquoted (backquotes doubled), under
// the scheme `nib-clang` with an empty package.
std::string clangSymbol(const std::string& usr) {
  std::string escaped;
  for (char c : usr) {
    if (c == '`') escaped += '`';
    escaped += c;
  }
  return "nib-clang . . . `" + escaped + "`.";
}

int scipRoles(ClangRole role) {
  return role == ClangRole::Definition ? scip::Definition : role == ClangRole::Declaration ? scip::ForwardDefinition : 0;
}

// The files of a version: a full version's commit view, or a delta's base with its entries.
struct VersionFiles {
  std::vector<FileRecord> files;  // by path
};

Expected<VersionFiles> versionFiles(const IndexLayout& layout, const Manifest& m) {
  const std::string& viewVersion = m.base.empty() ? m.versionId : m.base;
  auto view = CommitView::open(layout.versionDir(viewVersion) / CommitView::kDirectory);
  if (!view) return view.status();
  std::map<std::string, FileRecord> byPath;
  (*view)->forEachFile([&](const FileRecord& f) {
    byPath[f.path] = f;
    return true;
  });
  if (!m.base.empty()) {
    auto delta = VersionDelta::open(layout.versionDir(m.versionId) / "delta");
    if (!delta) return delta.status();
    for (const DeltaEntry& e : (*delta)->entries()) {
      if (e.state != DeltaEntry::State::Indexed) {
        byPath.erase(e.path);
        continue;
      }
      FileRecord r;
      r.path = e.path;
      r.blobOid = e.blobOid;
      r.language = e.language;
      r.size = e.size;
      r.profileDigest = m.extractorProfile;
      byPath[e.path] = std::move(r);
    }
  }
  VersionFiles out;
  for (auto& [path, f] : byPath) out.files.push_back(std::move(f));
  return out;
}

class Exporter {
 public:
  Exporter(scip::Index& index, FactStore::Reader& reader) : index_(index), reader_(reader) {}

  std::unique_ptr<ClangView> precise, clang;
  ScipExportStats stats;

  void file(const FileRecord& f) {
    scip::Document* doc = index_.add_documents();
    doc->set_relative_path(validUtf8(f.path));
    doc->set_language(languageName(f.language));
    ++stats.documents;
    auto content = reader_.content(f.blobOid);
    std::optional<LineTable> lines;
    if (content) lines.emplace(*content);
    doc->set_position_encoding(lines ? scip::UTF16CodeUnitOffsetFromLineStart : scip::UTF8CodeUnitOffsetFromLineStart);
    lines_ = lines ? &*lines : nullptr;
    content_ = content ? *content : std::string_view();
    file_ = &f;
    startLines_.reset();
    locals_.clear();
    if (precise && precise->hasFile(f.path)) fromView(*precise, /*clangView=*/false, f.path, doc);
    else if (clang && clang->hasFile(f.path)) fromView(*clang, /*clangView=*/true, f.path, doc);
    else fromFacts(f, doc);
  }

 private:
  // A column in the document's encoding.
  uint32_t column(uint32_t line, uint32_t byteColumn) const {
    return lines_ ? lines_->toUnits(line, byteColumn, Encoding::Utf16) : byteColumn;
  }

  void addOccurrence(scip::Document* doc, const ByteRange& r, const std::string& symbol, int roles) {
    scip::Occurrence* o = doc->add_occurrences();
    o->add_range(static_cast<int32_t>(r.start.line));
    o->add_range(static_cast<int32_t>(column(r.start.line, r.start.column)));
    if (r.end.line != r.start.line) o->add_range(static_cast<int32_t>(r.end.line));
    o->add_range(static_cast<int32_t>(column(r.end.line, r.end.column)));
    o->set_symbol(symbol);
    o->set_symbol_roles(roles);
    ++stats.occurrences;
  }

  // The SCIP symbol of a view's symbol in this document: its own for an SCIP source, a USR's
  // for the clang view; locals numbered per document.
  std::string symbolOf(const ClangSymbol& s, uint32_t id, bool clangView) {
    bool local = clangView ? isFunctionLocalUsr(s.usr) : s.usr.rfind("local:", 0) == 0;
    if (local) {
      auto [it, added] = locals_.emplace(id, "local " + std::to_string(locals_.size()));
      return it->second;
    }
    return clangView ? clangSymbol(s.usr) : s.usr;
  }

  void fromView(ClangView& view, bool clangView, const std::string& path, scip::Document* doc) {
    auto occurrences = view.occurrences(path);
    if (!occurrences) return;
    std::unordered_map<uint32_t, std::optional<ClangSymbol>> symbols;
    auto symbolFor = [&](uint32_t id) -> const ClangSymbol* {
      auto [it, added] = symbols.emplace(id, std::nullopt);
      if (added)
        if (auto s = view.symbol(id)) it->second = std::move(*s);
      return it->second ? &*it->second : nullptr;
    };
    std::set<std::pair<uint32_t, uint32_t>> seen;  // (offset, symbol): one occurrence each
    for (const ClangFileOccurrence& o : *occurrences) {
      if (o.guessed || o.foreign || !seen.emplace(o.start, o.symbol).second) continue;
      const ClangSymbol* s = symbolFor(o.symbol);
      // What TypeScript's server answers at a callee (scip/TypeScriptCalls) is nib's, no symbol.
      if (!s || s->usr.rfind(kCalledDefinitionsUsr, 0) == 0) continue;
      // Sites are in (path, offset) order (ClangView.h).
      auto site = std::lower_bound(s->sites.begin(), s->sites.end(), std::make_pair(&path, o.start),
                                   [](const ClangSite& a, const std::pair<const std::string*, uint32_t>& b) {
                                     return a.path != *b.first ? a.path < *b.first : a.range.startByte < b.second;
                                   });
      if (site == s->sites.end() || site->path != path || site->range.startByte != o.start)
        continue;  // a name only the AST resolves: no site to place it by
      std::string symbol = symbolOf(*s, o.symbol, clangView);
      addOccurrence(doc, site->range, symbol, scipRoles(o.role));
      if (o.role == ClangRole::Definition && described_.insert(symbol.rfind("local ", 0) == 0 ? path + "#" + symbol : symbol).second)
        describe(view, *s, symbol, clangView, site->range, doc);
    }
  }

  void describe(ClangView& view, const ClangSymbol& s, const std::string& symbol, bool clangView, const ByteRange& name,
                scip::Document* doc) {
    scip::SymbolInformation* info = doc->add_symbols();
    info->set_symbol(symbol);
    info->set_display_name(validUtf8(s.name));
    info->set_kind(scipKind(static_cast<SymbolKind>(s.kind)));
    document(*info, name, fullStartLine(name), static_cast<SymbolKind>(s.kind));
    ++stats.symbols;
    auto relate = [&](const std::vector<uint32_t>& ids, bool implementation, bool reference, bool type) {
      for (uint32_t id : ids) {
        auto other = view.symbol(id);
        if (!other || (clangView ? isFunctionLocalUsr(other->usr) : other->usr.rfind("local:", 0) == 0)) continue;
        scip::Relationship* r = info->add_relationships();
        r->set_symbol(clangView ? clangSymbol(other->usr) : other->usr);
        r->set_is_implementation(implementation);
        r->set_is_reference(reference);
        r->set_is_type_definition(type);
      }
    };
    relate(s.overrides, true, true, false);
    relate(s.bases, true, false, false);
    relate(s.types, false, false, true);
  }

  // The line a definition starts on (its comment is above it), from tree-sitter's facts of the
  // document when they hold a definition named at `name`; else the name's own line.
  uint32_t fullStartLine(const ByteRange& name) {
    if (!startLines_) {
      startLines_.emplace();
      if (auto facts = reader_.get(file_->factKey()))
        for (const Definition& d : facts->definitions) startLines_->emplace(d.nameRange.startByte, d.range.start.line);
    }
    auto it = startLines_->find(name.startByte);
    return it != startLines_->end() ? it->second : name.start.line;
  }

  // SCIP's documentation of a symbol: its signature as a code block, then the comment or
  // docstring that documents it, as nib's hover shows them.
  void document(scip::SymbolInformation& info, const ByteRange& name, uint32_t startLine, SymbolKind kind) {
    if (!lines_) return;
    std::string signature = definitionSignature(*lines_, startLine, name.start.line);
    if (signature.empty()) return;
    // Protobuf's strings must be UTF-8, and Sourcegraph's tools reject an index whose are not: a
    // file in another encoding, a signature cut at 300 bytes inside a character.
    info.add_documentation(validUtf8("```" + std::string(languageName(file_->language)) + "\n" + signature + "\n```"));
    std::string doc = leadingComment(*lines_, startLine);
    if (doc.empty() && file_->language == Language::Python && (isCallableKind(kind) || isTypeKind(kind)))
      doc = pythonDocstring(content_, name.endByte);
    if (!doc.empty()) info.add_documentation(validUtf8(doc));
  }

  // Tree-sitter's facts: definitions as the document's local symbols, and the occurrences that
  // resolve to them inside the file.
  void fromFacts(const FileRecord& f, scip::Document* doc) {
    auto facts = reader_.get(f.factKey());
    if (!facts) return;
    std::unordered_map<uint32_t, int32_t> definitionAt;  // name start -> definition
    for (size_t i = 0; i < facts->definitions.size(); ++i) {
      const Definition& d = facts->definitions[i];
      definitionAt.emplace(d.nameRange.startByte, static_cast<int32_t>(i));
      scip::SymbolInformation* info = doc->add_symbols();
      info->set_symbol("local " + std::to_string(i));
      info->set_display_name(validUtf8(d.name));
      info->set_kind(scipKind(d.kind));
      document(*info, d.nameRange, d.range.start.line, d.kind);
      ++stats.symbols;
    }
    for (const Occurrence& o : facts->occurrences) {
      int32_t target = -1;
      int roles = 0;
      if (o.role != OccurrenceRole::Reference) {
        auto it = definitionAt.find(o.range.startByte);
        if (it == definitionAt.end()) continue;
        target = it->second;
        roles = o.role == OccurrenceRole::Definition ? scip::Definition : scip::ForwardDefinition;
      } else if (o.resolution == Resolution::Local) {
        target = o.target;
      }
      if (target < 0 || target >= static_cast<int32_t>(facts->definitions.size())) continue;
      addOccurrence(doc, o.range, "local " + std::to_string(target), roles);
    }
  }

  scip::Index& index_;
  FactStore::Reader& reader_;
  const LineTable* lines_ = nullptr;
  std::string_view content_;                 // the document's text, from the index
  const FileRecord* file_ = nullptr;         // the document
  // Where each of its tree-sitter definitions starts (by the name's first byte), read when first needed.
  std::optional<std::unordered_map<uint32_t, uint32_t>> startLines_;
  std::unordered_map<uint32_t, std::string> locals_;  // view symbol id -> "local N", per document
  std::set<std::string> described_;                   // symbols given their SymbolInformation
};

Expected<std::unique_ptr<ClangView>> viewIfComplete(const IndexLayout& layout, const Manifest& m, const char* name) {
  const ViewRecord* v = m.view(name);
  if (!v || v->status != ViewStatus::Complete) return std::unique_ptr<ClangView>();
  return ClangView::open(layout.versionDir(m.versionId) / name);
}

}  // namespace

Status exportScip(const fs::path& root, const fs::path& indexDir, const fs::path& out, ScipExportStats* stats) {
  IndexLayout layout(indexDir);
  auto manifest = layout.currentManifest();
  if (!manifest) return manifest.status();
  auto files = versionFiles(layout, *manifest);
  if (!files) return files.status();
  auto store = FactStore::open(layout.factsDir(), /*readOnly=*/true);
  if (!store) return store.status();
  auto reader = (*store)->reader();
  if (!reader) return reader.status();

  scip::Index index;
  scip::Metadata* meta = index.mutable_metadata();
  std::error_code ec;
  meta->set_project_root("file://" + fs::weakly_canonical(root, ec).string());
  meta->set_text_document_encoding(scip::UTF8);
  meta->mutable_tool_info()->set_name("nib");
  meta->mutable_tool_info()->set_version(NIB_VERSION);
  meta->mutable_tool_info()->add_arguments("version=" + manifest->versionId);
  meta->mutable_tool_info()->add_arguments("commit=" + manifest->sourceCommit);
  meta->mutable_tool_info()->add_arguments(std::string("dirty=") + (manifest->dirty ? "true" : "false"));

  Exporter exporter(index, *reader);
  for (const char* name : {"precise", "clang"}) {
    auto view = viewIfComplete(layout, *manifest, name);
    if (!view) return Status(view.status().code(), std::string("the ") + name + " view: " + view.status().message());
    (std::string(name) == "precise" ? exporter.precise : exporter.clang) = std::move(*view);
  }
  for (const FileRecord& f : files->files) exporter.file(f);

  fs::path temporary = out;
  temporary += ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file || !index.SerializeToOstream(&file) || !file.flush())
      return Status(ErrorCode::IoError, "cannot write " + temporary.string());
  }
  fs::rename(temporary, out, ec);
  if (ec) {
    fs::remove(temporary, ec);
    return Status(ErrorCode::IoError, "cannot write " + out.string() + ": " + ec.message());
  }
  if (stats) {
    *stats = exporter.stats;
    stats->versionId = manifest->versionId;
    stats->commit = manifest->sourceCommit;
    stats->dirty = manifest->dirty;
  }
  return Status();
}

}  // namespace nib
