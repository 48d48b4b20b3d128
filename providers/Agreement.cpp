#include "providers/Agreement.h"

#include <cmath>
#include <cstdio>

#include "support/FileIo.h"

namespace nib {
namespace {

constexpr const char* kHeader = "nib-agreement 1";

std::string percent(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f %%", value * 100);
  return buffer;
}

std::vector<std::string> splitTabs(std::string_view line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    fields.emplace_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return fields;
    start = tab + 1;
  }
}

bool parseCount(const std::string& text, uint64_t* out) {
  if (text.empty() || text.size() > 19) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

// Tabs and line ends would break the line format; categories, backends and profiles never hold
// them, but a name from elsewhere must not corrupt the file.
std::string clean(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

// Paths a live server answers with that the index never holds: installed packages' files.
bool installedOrGit(const std::string& path) {
  return path.rfind("node_modules/", 0) == 0 || path.find("/node_modules/") != std::string::npos ||
         path.rfind(".git/", 0) == 0;
}

}  // namespace

AnswerSites answerSites(const Expected<NavigationResult>& answer, bool outside) {
  AnswerSites out;
  if (answer)
    for (const SymbolLocation& l : answer->locations)
      if (!installedOrGit(l.path) && (outside || !std::filesystem::path(l.path).is_absolute()))
        out.emplace(l.path, l.range.start.line, l.range.start.column);
  return out;
}

AnswerSites answerSites(const LiveAnswer& answer, bool outside) {
  AnswerSites out;
  for (const LiveLocation& l : answer.locations)
    if (!installedOrGit(l.path) && (outside || l.inWorkspace)) out.emplace(l.path, l.range.start.line, l.range.start.column);
  return out;
}

std::pair<double, double> AgreementCount::interval() const {
  if (sampled == 0) return {0, 1};
  const double z = 1.96, n = static_cast<double>(sampled), p = rate();
  double center = (p + z * z / (2 * n)) / (1 + z * z / n);
  double half = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n);
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

std::string answerCategory(const Expected<NavigationResult>& answer) {
  if (!answer) return "none";
  std::string category = answer->source + " " + confidenceName(answer->confidence);
  if (!answer->facet.empty()) category += " " + answer->facet;
  return category;
}

std::string categorySource(const std::string& category) {
  if (category == "none") return "";
  return category.substr(0, category.find(' '));
}

std::string backendName(const std::vector<std::string>& argv) {
  if (argv.empty()) return "";
  // An interpreter running a script is known by the script (python3 fake_backend.py).
  size_t i = 0;
  std::string program = std::filesystem::path(argv[0]).filename().string();
  if ((program.rfind("python", 0) == 0 || program == "node") && argv.size() > 1) i = 1;
  return std::filesystem::path(argv[i]).filename().string();
}

std::string describeAgreement(const AgreementKey& key, const AgreementCount& count) {
  auto [low, high] = count.interval();
  double margin = std::max(count.rate() - low, high - count.rate());
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, " ± %.1f of %llu sampled", margin * 100,
                static_cast<unsigned long long>(count.sampled));
  std::string what = navigationKindName(key.kind);
  if (key.kind != NavigationKind::References) what += "s";  // "definitions"
  return std::string(languageName(key.language)) + " " + what +
         " from " + key.category + " (" + key.backend + "): " + percent(count.rate()) + buffer;
}

Calibration::Calibration(std::filesystem::path file, std::map<std::string, std::string> profiles,
                         CalibrationSettings settings)
    : file_(std::move(file)), profiles_(std::move(profiles)), settings_(settings) {}

std::shared_ptr<Calibration> Calibration::load(const std::filesystem::path& file, const std::filesystem::path& previous,
                                               std::map<std::string, std::string> profiles,
                                               CalibrationSettings settings, std::string* problem) {
  auto calibration = std::make_shared<Calibration>(file, std::move(profiles), settings);
  std::error_code ec;
  bool own = std::filesystem::exists(file, ec);
  const std::filesystem::path& source = own ? file : previous;
  if (source.empty() || !std::filesystem::exists(source, ec)) return calibration;
  auto text = readFile(source);
  auto counts = text ? decode(*text) : Expected<std::map<AgreementKey, AgreementCount>>(text.status());
  if (!counts) {
    if (problem) *problem = source.string() + ": " + counts.status().message() + " (its counts are not used)";
    return calibration;
  }
  // Another version's counts hold where this version's facts are the same as theirs.
  for (auto& [key, count] : *counts)
    if (own || count.profile == calibration->profileOf(key)) calibration->counts_.emplace(key, std::move(count));
  calibration->dirty_ = !own && !calibration->counts_.empty();
  return calibration;
}

std::string Calibration::profileOf(const AgreementKey& key) const {
  auto it = profiles_.find(categorySource(key.category));
  return it == profiles_.end() ? std::string() : it->second;
}

void Calibration::record(const AgreementKey& key, bool agreed) {
  std::string profile = profileOf(key);
  std::lock_guard<std::mutex> g(mutex_);
  AgreementCount& count = counts_[key];
  if (count.profile != profile) count = AgreementCount{0, 0, profile};
  ++count.sampled;
  count.agreed += agreed ? 1 : 0;
  dirty_ = true;
}

std::optional<AgreementCount> Calibration::count(const AgreementKey& key) const {
  std::string profile = profileOf(key);
  std::lock_guard<std::mutex> g(mutex_);
  auto it = counts_.find(key);
  if (it == counts_.end() || it->second.profile != profile) return std::nullopt;
  return it->second;
}

namespace {

CalibrationVerdict judge(const AgreementKey& key, const AgreementCount& c, const CalibrationSettings& s) {
  CalibrationVerdict v;
  auto [low, high] = c.interval();
  v.conclusive = low >= s.threshold || high < s.threshold;
  v.fromIndex = low >= s.threshold;
  v.agreement = describeAgreement(key, c);
  v.reason = v.agreement + (v.fromIndex ? ", at or above " : v.conclusive ? ", below " : ", not yet conclusive against ") +
             percent(s.threshold);
  return v;
}

bool decidesAlone(const AgreementCount& c, const CalibrationSettings& s) {
  if (c.sampled < s.minSamples) return false;
  auto [low, high] = c.interval();
  return low >= s.threshold || high < s.threshold;
}

}  // namespace

// A category sampled min-samples times or more is judged by its own measurement, conclusive or
// not (undecided, the rules for unmeasured categories answer): chrony's references in code the
// preprocessor left out, 235 of 235 agreeing, went to clangd with every undecided category when
// ten answers at offsetof designators, agreeing on 2, were pooled with them. A category sampled
// fewer times takes the verdict of its undecided siblings — the categories of the same facts
// (language, request and backend alike) that decide nothing on their own, measured together —
// when theirs is conclusive. Python references from pyright's facts against pylsp agreed on 5 of
// 20 samples spread over five kinds of symbol, none with 20 of its own, and the rule for
// unmeasured compiler answers sent all five to the index.
std::optional<CalibrationVerdict> Calibration::verdict(const AgreementKey& key) const {
  CalibrationSettings s = settings();
  if (auto c = count(key); c && c->sampled >= s.minSamples) return judge(key, *c, s);
  std::string source = categorySource(key.category);
  if (source.empty()) return std::nullopt;
  AgreementCount pool;
  for (const auto& [k, c] : entries()) {
    if (k.language != key.language || k.kind != key.kind || k.backend != key.backend ||
        categorySource(k.category) != source || decidesAlone(c, s))
      continue;
    pool.sampled += c.sampled;
    pool.agreed += c.agreed;
  }
  if (pool.sampled < s.minSamples || !decidesAlone(pool, s)) return std::nullopt;
  AgreementKey pooled = key;
  pooled.category = "the " + source + " categories not decided alone";
  return judge(pooled, pool, s);
}

bool Calibration::decidedAlone(const AgreementKey& key) const {
  auto c = count(key);
  return c && decidesAlone(*c, settings());
}

std::vector<std::pair<AgreementKey, AgreementCount>> Calibration::entries() const {
  std::lock_guard<std::mutex> g(mutex_);
  std::vector<std::pair<AgreementKey, AgreementCount>> out;
  for (const auto& [key, count] : counts_)
    if (count.profile == profileOf(key)) out.emplace_back(key, count);
  return out;
}

Status Calibration::save() {
  std::string text;
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (!dirty_) return Status::ok();
    text = encode(counts_);
    dirty_ = false;
  }
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  Status s = writeFileAtomic(file_, text);
  if (!s.isOk()) {
    std::lock_guard<std::mutex> g(mutex_);
    dirty_ = true;  // tried again at the next save
  }
  return s;
}

std::string Calibration::encode(const std::map<AgreementKey, AgreementCount>& counts) {
  std::string out = std::string(kHeader) + "\n";
  for (const auto& [key, count] : counts)
    out += std::string(languageName(key.language)) + '\t' + navigationKindName(key.kind) + '\t' + clean(key.category) + '\t' +
           clean(key.backend) + '\t' + std::to_string(count.sampled) + '\t' + std::to_string(count.agreed) + '\t' +
           clean(count.profile) + '\n';
  return out;
}

Expected<std::map<AgreementKey, AgreementCount>> Calibration::decode(std::string_view text) {
  std::map<AgreementKey, AgreementCount> counts;
  size_t lineNumber = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) return Status(ErrorCode::Corrupt, "the agreement counts end inside a line");
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (++lineNumber == 1) {
      if (line != kHeader) return Status(ErrorCode::Corrupt, "not an agreement file of this format");
      continue;
    }
    auto f = splitTabs(line);
    AgreementKey key;
    AgreementCount count;
    bool ok = f.size() == 7 && parseCount(f[4], &count.sampled) && parseCount(f[5], &count.agreed) &&
              count.agreed <= count.sampled && (f[1] == "definition" || f[1] == "references") && !f[2].empty();
    if (ok) {
      key.language = languageFromName(f[0]);
      ok = key.language != Language::Unknown;
    }
    if (!ok) return Status(ErrorCode::Corrupt, "agreement line " + std::to_string(lineNumber) + " is malformed");
    key.kind = f[1] == "references" ? NavigationKind::References : NavigationKind::Definition;
    key.category = f[2];
    key.backend = f[3];
    count.profile = f[6];
    counts[key] = count;
  }
  if (lineNumber == 0) return Status(ErrorCode::Corrupt, "an empty agreement file");
  return counts;
}

}  // namespace nib
