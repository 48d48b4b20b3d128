#include "providers/QueryWords.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

namespace nib {
namespace {

// Abbreviations code uses that do not start the word they stand for (those that do, "arg",
// "buf", "init", are found as prefixes). Sorted by word.
struct Abbreviation {
  std::string_view word;
  std::string_view forms;  // space-separated
};
constexpr Abbreviation kAbbreviations[] = {
    {"button", "btn"},        {"callback", "cb"},       {"character", "chr"},   {"client", "clnt"},
    {"command", "cmd"},       {"compare", "cmp"},       {"config", "cfg"},      {"configuration", "cfg"},
    {"context", "ctx"},       {"copy", "cpy"},          {"count", "cnt"},       {"database", "db"},
    {"debug", "dbg"},         {"descriptor", "fd"},     {"destination", "dst"}, {"element", "elt"},
    {"escape", "esc"},        {"event", "evt"},         {"format", "fmt"},      {"function", "fn"},
    {"handle", "hndl"},       {"header", "hdr"},        {"image", "img"},       {"index", "idx"},
    {"keyboard", "kbd"},      {"level", "lvl"},         {"list", "lst"},        {"manager", "mgr"},
    {"message", "msg"},       {"millisecond", "msec"},  {"newline", "nl"},      {"next", "nxt"},
    {"number", "nr"},         {"package", "pkg"},       {"packet", "pkt"},      {"password", "pwd passwd"},
    {"pointer", "ptr"},       {"read", "rd"},           {"receive", "recv rcv rx"}, {"response", "rsp"},
    {"send", "snd"},          {"server", "srv"},        {"service", "svc"},     {"size", "sz"},
    {"source", "src"},        {"statement", "stmt"},    {"table", "tbl"},       {"temporary", "tmp"},
    {"text", "txt"},          {"timestamp", "ts"},      {"transmit", "tx xmit"}, {"update", "upd"},
    {"user", "usr"},          {"window", "wnd"},        {"write", "wr"},
};

std::vector<std::string_view> abbreviationsOf(std::string_view word) {
  std::vector<std::string_view> out;
  auto it = std::lower_bound(std::begin(kAbbreviations), std::end(kAbbreviations), word,
                             [](const Abbreviation& a, std::string_view w) { return a.word < w; });
  if (it == std::end(kAbbreviations) || it->word != word) return out;
  std::string_view forms = it->forms;
  while (!forms.empty()) {
    size_t space = forms.find(' ');
    out.push_back(forms.substr(0, space));
    forms = space == std::string_view::npos ? std::string_view() : forms.substr(space + 1);
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, double>> variantsOf(const std::string& word) {
  std::vector<std::pair<std::string, double>> out{{word, kExactWeight}};
  auto add = [&](std::string t, double w) {
    if (t.size() < 2 || t == word) return;
    for (const auto& [x, _] : out)
      if (x == t) return;
    out.emplace_back(std::move(t), w);
  };
  bool letters = std::all_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  if (!letters || word.size() < 4) return out;
  auto ends = [&](const char* suffix) {
    size_t n = std::strlen(suffix);
    return word.size() > n + 2 && word.compare(word.size() - n, n, suffix) == 0;
  };
  std::string stem = word;
  if (ends("ies")) stem = word.substr(0, word.size() - 3) + "y";
  else if (ends("ing")) stem = word.substr(0, word.size() - 3);
  else if (ends("ed")) stem = word.substr(0, word.size() - 2);
  else if (ends("es")) stem = word.substr(0, word.size() - 2);
  else if (ends("s") && !ends("ss")) stem = word.substr(0, word.size() - 1);
  if (stem != word) {
    add(stem, kPlainFormWeight);
    add(stem + "e", kPlainFormWeight);  // "moving" -> "move", "used" -> "use"
    add(stem + "s", kPlainFormWeight);
  }
  // Abbreviations of the word or of its plain forms ("commands" -> "cmd", "cmds").
  for (size_t i = 0, plain = out.size(); i < plain; ++i)
    for (std::string_view abbreviation : abbreviationsOf(out[i].first)) {
      add(std::string(abbreviation), kShortFormWeight);
      add(std::string(abbreviation) + "s", kShortFormWeight);
    }
  if (word.size() >= 5)
    for (size_t len = 3; len + 2 <= word.size() && len <= 6; ++len) {
      add(word.substr(0, len), kShortFormWeight);
      add(word.substr(0, len) + "s", kShortFormWeight);
    }
  return out;
}

std::vector<std::string> compoundsFor(LexicalView& view, const std::string& word,
                                      const std::vector<std::pair<std::string, double>>& variants,
                                      const std::vector<std::string>& queryTerms) {
  std::vector<std::pair<size_t, std::string>> found;  // (query words held, compound)
  // A joining word ("of", "to") says little on its own ("sizeof"): it counts only in compounds
  // that also hold a longer word of the query ("clear to end of line": "clearendofline").
  const bool joining = word.size() < 3;
  for (const auto& [form, weight] : variants) {
    if (weight < kPlainFormWeight) continue;
    for (std::string& c : view.compoundsOf(form)) {
      if (c == word) continue;
      size_t held = 0, longer = 0;
      for (const std::string& q : queryTerms)
        if (c.find(q) != std::string::npos) ++held, longer += q.size() >= 3;
      if (joining && longer == 0) continue;
      found.emplace_back(held, std::move(c));
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    if (a.second.size() != b.second.size()) return a.second.size() < b.second.size();
    return a.second < b.second;
  });
  std::vector<std::string> out;
  for (auto& [_, c] : found) {
    if (out.size() == kCompounds) break;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
  }
  return out;
}

// Whether a query reads as words rather than code: `auto` ranks prose (lexical) and matches code
// exactly (trigram). Code shows itself by structure — brackets, operators, a statement's `;`,
// `::` or `->`, a lone token — and prose by several plain words: letters, digits and `_`, an
// apostrophe or hyphen inside, quotes around, sentence punctuation after ("grep: fix a bug with
// -i and titlecase", "how is a key's time to live set"). Words that are not plain (`-i`,
// `file.c`) may be among them, but not most.
bool looksLikeProse(std::string_view q) {
  if (q.find_first_of("(){}[];=<>*+&|\\#$@~^%`") != std::string_view::npos || q.find("::") != std::string_view::npos ||
      q.find("->") != std::string_view::npos)
    return false;
  auto word = [](unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; };
  size_t words = 0, plain = 0;
  size_t i = 0;
  while (i < q.size()) {
    while (i < q.size() && std::isspace(static_cast<unsigned char>(q[i]))) ++i;
    size_t end = i;
    while (end < q.size() && !std::isspace(static_cast<unsigned char>(q[end]))) ++end;
    std::string_view t = q.substr(i, end - i);
    i = end;
    while (!t.empty() && (t.front() == '"' || t.front() == '\'')) t.remove_prefix(1);
    while (!t.empty() && strchr("\"'.,:;?!", t.back())) t.remove_suffix(1);
    if (t.empty()) continue;
    ++words;
    bool ok = word(static_cast<unsigned char>(t.front())) && word(static_cast<unsigned char>(t.back()));
    for (char c : t) ok = ok && (word(static_cast<unsigned char>(c)) || c == '\'' || c == '-');
    plain += ok;
  }
  return words >= 2 && plain >= 2 && plain * 5 >= words * 3;
}

}  // namespace nib
