// `nib/search`'s trigram route: candidate files from the trigram postings (every trigram of the
// literal, or of the regex plan's atoms, with the location and next-byte masks), verified in
// parallel against their bytes — stored content for unchanged files, the disk or the open
// buffer for changed ones — so that the results equal a full scan (invariant 7).
#include "providers/SearchProvider.h"

#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <thread>

#include "providers/RegexPlan.h"
#include "support/LiteralFinder.h"
#include "support/SearchText.h"
#include "views/StoredContent.h"

namespace nib {
namespace {

constexpr size_t kBinaryProbe = 8000;  // as the indexer: the prefix git inspects for NUL bytes

// The docs that may hold the literal `lit` (3+ bytes): every one of its trigrams, at positions
// that agree modulo 8 and each followed by the literal's next byte, as far as the masks tell.
// The masks only ever rule docs out that cannot hold the literal, so no match is lost.
std::vector<uint32_t> docsHolding(TrigramView& view, std::string_view lit,
                                  std::map<uint32_t, std::vector<TrigramPosting>>& lists) {
  // The literal's trigrams, rarest first by the size of their encoded lists, each list decoded
  // only when the docs still possible need it: a long literal (a pasted sentence) has hundreds
  // of trigrams, many in most files, and the rarest few usually leave no doc.
  struct At {
    size_t offset;
    uint32_t trigram;
    size_t bytes;
  };
  std::vector<At> ats;
  for (size_t i = 0; i + 2 < lit.size(); ++i) {
    uint32_t t = packTrigram(static_cast<unsigned char>(lit[i]), static_cast<unsigned char>(lit[i + 1]),
                             static_cast<unsigned char>(lit[i + 2]));
    ats.push_back({i, t, view.postingsBytes(t)});
  }
  std::stable_sort(ats.begin(), ats.end(), [](const At& a, const At& b) { return a.bytes < b.bytes; });
  auto postingsOf = [&](const At& at) -> const std::vector<TrigramPosting>& {
    auto it = lists.find(at.trigram);
    if (it == lists.end()) it = lists.emplace(at.trigram, view.postings(at.trigram)).first;
    return it->second;
  };
  // Narrows a doc's possible start positions (mod 8) by the trigram at `offset`; false when none
  // is left or the byte after the trigram cannot be the literal's.
  auto admits = [&](size_t offset, uint16_t mask, uint8_t* starts) {
    if (offset + 3 < lit.size() && !(mask & trigramNextBit(static_cast<unsigned char>(lit[offset + 3])))) return false;
    unsigned loc = mask & 0xFF, r = offset & 7;
    *starts &= static_cast<uint8_t>(((loc >> r) | (loc << (8 - r))) & 0xFF);
    return *starts != 0;
  };
  std::vector<uint32_t> docs;
  std::vector<uint8_t> starts;
  for (const TrigramPosting& p : postingsOf(ats.front())) {
    uint8_t s = 0xFF;
    if (admits(ats.front().offset, p.mask, &s)) {
      docs.push_back(p.doc);
      starts.push_back(s);
    }
  }
  for (size_t k = 1; k < ats.size() && !docs.empty(); ++k) {
    const auto& list = postingsOf(ats[k]);
    size_t kept = 0, j = 0;
    for (size_t d = 0; d < docs.size(); ++d) {
      while (j < list.size() && list[j].doc < docs[d]) ++j;
      if (j == list.size()) break;
      if (list[j].doc != docs[d]) continue;
      uint8_t s = starts[d];
      if (!admits(ats[k].offset, list[j].mask, &s)) continue;
      docs[kept] = docs[d];
      starts[kept++] = s;
    }
    docs.resize(kept);
    starts.resize(kept);
  }
  return docs;
}

std::string fold(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(foldByte(static_cast<unsigned char>(c)));
  return out;
}


struct Verifier {
  const SearchRequest& request;
  const RE2* re;           // per-line matcher (regex route)
  const RE2* prefilter;    // whole-file matcher, (?m): skips files without any match
  LiteralFinder needle;    // literal route, folded when case-insensitive
  // Regex route: the plan's atoms (lower case). The plan's formula is monotone and fails with
  // no atom, and a match lies within one line, so only lines holding an atom need the regex.
  std::vector<LiteralFinder> lineLiterals;

  // Every matching line of one file: (line, column, length), the first match of each line.
  std::vector<SearchHit> run(const std::string& path, std::string_view text) const {
    std::vector<SearchHit> hits;
    auto emit = [&](uint32_t line, size_t lineStart, size_t lineEnd, size_t col, size_t len) {
      SearchHit h;
      h.path = path;
      h.route = SearchRoute::Trigram;
      h.score = 1;
      h.range.startByte = static_cast<uint32_t>(lineStart + col);
      h.range.endByte = static_cast<uint32_t>(lineStart + col + len);
      h.range.start = Position{line, static_cast<uint32_t>(col)};
      h.range.end = Position{line, static_cast<uint32_t>(col + len)};
      h.snippetLine = line;
      std::string_view l = text.substr(lineStart, lineEnd - lineStart);
      h.snippet = std::string(l.substr(0, kSearchSnippetLineBytes));
      // Columns need converting only when the line has non-ASCII bytes before the match's end.
      h.ascii = isAscii(l.substr(0, std::min(l.size(), col + len)));
      hits.push_back(std::move(h));
    };
    // Line boundaries as grep sees them: '\n' ends a line, a '\r' before it is not content,
    // and a final newline does not start an empty line.
    auto lineEndOf = [&](size_t from) {
      size_t e = text.find('\n', from);
      return e == std::string_view::npos ? text.size() : e;
    };
    auto contentEnd = [&](size_t lineStart, size_t end) {
      return end > lineStart && text[end - 1] == '\r' ? end - 1 : end;
    };
    if (!request.regex) {
      std::string folded;
      std::string_view hay = text;
      if (!request.caseSensitive) {
        folded = fold(text);
        hay = folded;
      }
      auto find = [&](size_t from) { return needle.find(hay, from); };
      const size_t needleSize = needle.needle().size();
      uint32_t line = 0;
      size_t counted = 0;  // newlines are counted up to here
      size_t pos = find(0);
      while (pos != std::string_view::npos) {
        line += static_cast<uint32_t>(countByte(text.substr(counted, pos - counted), '\n'));
        counted = pos;
        size_t lineStart = text.rfind('\n', pos == 0 ? 0 : pos - 1);
        lineStart = (pos == 0 || lineStart == std::string_view::npos) ? 0 : lineStart + 1;
        if (pos > 0 && text[pos - 1] == '\n') lineStart = pos;
        size_t end = lineEndOf(pos);
        size_t cend = contentEnd(lineStart, end);
        if (pos + needleSize <= cend) emit(line, lineStart, cend, pos - lineStart, needleSize);
        else {
          // The match runs into the line's '\r': not a match within the line. Look further on
          // the same line.
          size_t next = find(pos + 1);
          if (next != std::string_view::npos && next < end) {
            pos = next;
            continue;
          }
        }
        if (end >= text.size()) break;
        pos = find(end + 1);
      }
      return hits;
    }
    // Runs the regex on the line starting at `start`; returns where the line ends.
    auto matchLine = [&](uint32_t line, size_t start) {
      size_t end = lineEndOf(start);
      size_t cend = contentEnd(start, end);
      std::string_view l = text.substr(start, cend - start);
      re2::StringPiece m;
      if (re->Match(l, 0, l.size(), RE2::UNANCHORED, &m, 1))
        emit(line, start, cend, static_cast<size_t>(m.data() - l.data()), m.size());
      return end;
    };
    if (!lineLiterals.empty()) {
      std::string folded = fold(text);
      std::vector<size_t> starts;  // starts of the lines holding a literal
      for (const LiteralFinder& lit : lineLiterals) {
        for (size_t pos = lit.find(folded); pos != std::string_view::npos;) {
          size_t nl = pos == 0 ? std::string_view::npos : text.rfind('\n', pos - 1);
          starts.push_back(nl == std::string_view::npos ? 0 : nl + 1);
          size_t end = lineEndOf(pos);
          if (end >= text.size()) break;
          pos = lit.find(folded, end + 1);
        }
      }
      std::sort(starts.begin(), starts.end());
      starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
      uint32_t line = 0;
      size_t counted = 0;  // newlines are counted up to here
      for (size_t start : starts) {
        line += static_cast<uint32_t>(countByte(text.substr(counted, start - counted), '\n'));
        counted = start;
        matchLine(line, start);
      }
      return hits;
    }
    // Without literals, one pass of the whole-file matcher rules out most files cheaply.
    bool hasCr = text.find('\r') != std::string_view::npos;
    if (prefilter && !hasCr && !RE2::PartialMatch(text, *prefilter)) return hits;
    uint32_t line = 0;
    for (size_t start = 0; start < text.size(); ++line) start = matchLine(line, start) + 1;
    // An empty text has one empty line; a regex matching "" matches it, as grep would not:
    // grep prints nothing for an empty file, so neither does nib.
    return hits;
  }
};

// The files a search verifies, in path order; empty blobOid: read the current content.
struct VerifiedFile {
  std::string path;
  std::string blobOid;
  bool operator<(const VerifiedFile& o) const { return path < o.path; }
  bool operator==(const VerifiedFile& o) const { return path == o.path; }
};

// Verifies in batches, in parallel; batches are merged in path order so that the answer (and
// where k cuts it) does not depend on timing. Contents are fetched on this thread (index
// lookups are not to be shared across threads); the bytes themselves can be, and each worker
// unpacks the stored ones it verifies into a buffer of its own.
void verifyFiles(const std::vector<VerifiedFile>& files, const Verifier& verifier, const SearchRequest& request,
                 const SearchContext& context, SearchResult& out) {
  unsigned threads = std::min(4u, std::max(1u, std::thread::hardware_concurrency()));
  // Batches grow from a few files to 512: an answer cut at a small k (the CLI's 20) then reads
  // and unpacks only the first files it needs, and a full answer soon runs in large batches.
  constexpr size_t kFirstBatch = 32, kBatch = 512;
  size_t binaryNow = 0, unreadableTotal = 0;
  size_t batch = request.k < 1000 ? kFirstBatch : kBatch;
  // One unpacking buffer per thread for the whole answer, not per batch: a buffer grown for one
  // batch's largest file serves the next batches without new memory (in a one-shot `nib search`
  // every new page is a page fault, and a broad answer unpacked thousands of them again).
  std::vector<std::string> buffers(threads);
  for (size_t begin = 0, end = 0; begin < files.size() && !out.truncated; begin = end, batch = std::min(kBatch, batch * 4)) {
    end = std::min(files.size(), begin + batch);
    std::vector<std::string_view> texts(end - begin);
    std::vector<bool> packed(end - begin);
    std::vector<std::string> owned(end - begin);
    for (size_t i = begin; i < end; ++i) {
      std::optional<std::string_view> stored;
      if (!files[i].blobOid.empty() && context.packedContent) stored = context.packedContent(files[i].blobOid);
      if (stored) {
        texts[i - begin] = *stored;
        packed[i - begin] = true;
      } else if (auto c = context.readCurrent(files[i].path)) {
        // A file that turned binary since it was indexed is left out, as the index would.
        if (std::string_view(*c).substr(0, kBinaryProbe).find('\0') != std::string_view::npos) {
          ++binaryNow;
          continue;
        }
        owned[i - begin] = std::move(*c);
        texts[i - begin] = owned[i - begin];
      }
    }
    std::vector<std::vector<SearchHit>> results(end - begin);
    std::atomic<size_t> next{begin};
    std::atomic<size_t> unreadable{0};
    auto work = [&](std::string& buffer) {
      for (size_t i; (i = next++) < end;) {
        std::string_view text = texts[i - begin];
        if (packed[i - begin]) {
          auto unpacked = unpackContentInto(text, buffer);
          if (!unpacked) {
            ++unreadable;
            continue;
          }
          text = *unpacked;
        }
        results[i - begin] = verifier.run(files[i].path, text);
      }
    };
    std::vector<std::thread> pool;
    // A thread for every 64 files or every 256 KiB of bytes (packed bytes unpack at ~1.5 GB/s:
    // a few files of a large answer are worth a thread's start).
    size_t bytes = 0;
    for (std::string_view t : texts) bytes += t.size();
    size_t useThreads = std::min<size_t>(threads, std::max((end - begin + 63) / 64, 1 + bytes / (256 << 10)));
    for (size_t t = 1; t < useThreads; ++t) pool.emplace_back(work, std::ref(buffers[t]));
    work(buffers[0]);
    for (auto& t : pool) t.join();
    unreadableTotal += unreadable;
    out.candidates += end - begin;
    for (auto& fileHits : results)
      for (SearchHit& h : fileHits) {
        if (out.hits.size() >= request.k) {
          out.truncated = true;
          break;
        }
        out.hits.push_back(std::move(h));
      }
  }
  if (unreadableTotal > 0) {
    out.partial = true;
    out.notes.push_back(std::to_string(unreadableTotal) + " file(s) could not be read from the index (its stored contents are damaged) and were not searched");
  }
  if (binaryNow > 0) {
    out.partial = true;
    out.notes.push_back(std::to_string(binaryNow) + " changed file(s) hold binary data now and were not searched");
  }
}

}  // namespace

Expected<SearchResult> SearchProvider::searchTrigram(const SearchRequest& request, const SearchContext& context) {
  if (!trigram_) return Status(ErrorCode::Unsupported, trigramError_);
  SearchResult out;
  out.route = SearchRoute::Trigram;
  std::unique_ptr<RE2> re, prefilter;
  std::optional<RegexPlan> plan;  // regex route: the atoms matches need
  bool filtered = true;
  if (request.regex) {
    RE2::Options options;
    options.set_case_sensitive(request.caseSensitive);
    options.set_log_errors(false);
    options.set_never_nl(true);
    re = std::make_unique<RE2>(request.query, options);
    if (!re->ok()) return Status(ErrorCode::InvalidArgument, "invalid regular expression: " + re->error());
    auto built = RegexPlan::build(request.query, options);
    if (!built) return built.status();
    plan = std::move(*built);
    filtered = !plan->scansEverything();
    // Without atoms to pick lines by, a whole-file matcher rules out most files first. It runs
    // the pattern in multi-line mode, where \A and \z keep meaning the file's ends (a line's
    // ends for the per-line matcher), so with them it is not used.
    bool lineFiltered = filtered && plan->lineFilterSound();
    if (!lineFiltered && request.query.find("\\A") == std::string::npos && request.query.find("\\z") == std::string::npos) {
      prefilter = std::make_unique<RE2>("(?m)" + request.query, options);
      if (!prefilter->ok()) prefilter.reset();
    }
  } else {
    filtered = request.query.size() >= 3;
  }
  std::vector<uint32_t> candidates;
  if (filtered) {
    std::map<uint32_t, std::vector<TrigramPosting>> lists;  // postings read once per query
    if (!plan) {
      candidates = docsHolding(*trigram_, request.query, lists);
    } else {
      // Per file, the atoms it may hold; the plan's formula decides.
      std::map<uint32_t, std::vector<int>> present;
      for (size_t a = 0; a < plan->atoms().size(); ++a)
        for (uint32_t doc : docsHolding(*trigram_, plan->atoms()[a], lists)) present[doc].push_back(static_cast<int>(a));
      for (const auto& [doc, atoms] : present)
        if (plan->mayMatch(atoms)) candidates.push_back(doc);
    }
  }
  // The files to verify, in path order: candidates (or everything), minus what changed, plus
  // what changed or was added (searched as it is now). Unchanged files are read from the index.
  std::vector<VerifiedFile> files;
  auto consider = [&](const SearchDoc& d) {
    if (context.changed.count(d.path) || context.deleted.count(d.path)) return;
    if (passesFilters(request, d.path, d.language)) files.push_back({d.path, d.blobOid});
  };
  if (filtered)
    for (uint32_t id : candidates) {
      if (auto d = trigram_->byId(id)) consider(*d);
    }
  else
    trigram_->forEach([&](const SearchDoc& d) {
      consider(d);
      return true;
    });
  for (const std::string& p : context.changed) {
    auto d = trigram_->byPath(p);
    if (passesFilters(request, p, d ? d->language : detectLanguage(p, ""))) files.push_back({p, ""});
  }
  for (const std::string& p : context.added)
    if (passesFilters(request, p, detectLanguage(p, ""))) files.push_back({p, ""});
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());

  Verifier verifier{request, re.get(), prefilter.get(), LiteralFinder(request.caseSensitive ? request.query : fold(request.query)), {}};
  if (plan && filtered && plan->lineFilterSound())
    for (const std::string& atom : plan->lineAtoms()) verifier.lineLiterals.emplace_back(atom);
  verifyFiles(files, verifier, request, context, out);
  if (!filtered) out.notes.push_back("the query has no literal of 3+ bytes to look up: every file was scanned");
  return out;
}


}  // namespace nib
