#include "protocol/LspTypes.h"

#include "protocol/JsonValues.h"

namespace nib::lsp {

nlohmann::json rangeValue(const Range& r) {
  return {{"start", {{"line", r.start.line}, {"character", r.start.character}}},
          {"end", {{"line", r.end.line}, {"character", r.end.character}}}};
}

namespace {
using json = nlohmann::json;

json rangeJson(const Range& r) { return rangeValue(r); }

json locationJson(const Location& l) {
  json j = {{"path", l.path}, {"range", rangeJson(l.range)}};
  if (!l.role.empty()) j["role"] = l.role;
  if (!l.kind.empty()) j["kind"] = l.kind;
  if (!l.name.empty()) j["name"] = l.name;
  if (!l.container.empty()) j["container"] = l.container;
  return j;
}

// Freshness values are strings internally; booleans go out as JSON booleans.
json scalar(const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  return v;
}

}  // namespace

nlohmann::json searchValue(const SearchAnswer& s) {
  json hits = json::array();
  for (const SearchHitAnswer& h : s.hits) {
    json j = {{"path", h.path}, {"range", rangeJson(h.range)}, {"score", h.score}, {"route", h.route},
              {"snippet", h.snippet}, {"snippetLine", h.snippetLine}};
    if (!h.uri.empty()) j["uri"] = h.uri;
    if (!h.name.empty()) j["name"] = h.name;
    if (!h.kind.empty()) j["kind"] = h.kind;
    hits.push_back(j);
  }
  json j = {{"route", s.route}, {"hits", hits}, {"truncated", s.truncated}, {"notes", s.notes}};
  json f = json::object();
  for (const auto& [k, v] : s.freshness) f[k] = scalar(v);
  j["freshness"] = f;
  return j;
}

namespace {

std::string dump(const json& j) {
  // Invalid UTF-8 in names or paths must not abort the output: replace it.
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}
}  // namespace

std::string toJson(const NavigationAnswer& a) {
  json j;
  j["symbol"] = a.symbol;
  j["confidence"] = a.confidence;
  if (!a.facts.empty()) j["facts"] = a.facts;
  if (!a.note.empty()) j["note"] = a.note;
  j["locations"] = json::array();
  for (const Location& l : a.locations) j["locations"].push_back(locationJson(l));
  json f = json::object();
  for (const auto& [k, v] : a.freshness) f[k] = scalar(v);
  j["freshness"] = f;
  j["provider"] = a.provider;
  if (!a.policy.empty()) j["policy"] = a.policy;
  if (!a.reason.empty()) j["reason"] = a.reason;
  if (!a.backend.empty()) j["backend"] = a.backend;
  if (a.liveMilliseconds >= 0) j["liveMilliseconds"] = a.liveMilliseconds;
  if (!a.liveError.empty()) j["liveError"] = a.liveError;
  if (a.agree) j["agree"] = *a.agree;
  if (!a.category.empty()) j["category"] = a.category;
  if (!a.agreement.empty()) j["agreement"] = a.agreement;
  return dump(j);
}

std::string toJson(const std::vector<Location>& symbols) {
  json j = json::array();
  for (const Location& l : symbols) j.push_back(locationJson(l));
  return dump(j);
}

std::string toJson(const StatusAnswer& s) {
  json j;
  j["root"] = s.root;
  for (const auto& [k, v] : s.manifest) j["manifest"][k] = scalar(v);
  j["views"] = json::array();
  for (const ViewSummary& v : s.views) {
    json vj = {{"name", v.name}, {"status", v.status}, {"profile", v.profile}, {"capabilities", v.capabilities}};
    if (!v.error.empty()) vj["error"] = v.error;
    j["views"].push_back(vj);
  }
  json stats = json::object();
  for (const auto& [k, v] : s.stats) {
    char* end = nullptr;
    long long n = std::strtoll(v.c_str(), &end, 10);
    if (!v.empty() && *end == '\0') {
      stats[k] = n;
      continue;
    }
    double d = std::strtod(v.c_str(), &end);
    if (!v.empty() && *end == '\0') stats[k] = d;
    else stats[k] = v;
  }
  j["stats"] = stats;
  json f = json::object();
  for (const auto& [k, v] : s.freshness) f[k] = scalar(v);
  f["changedFiles"] = s.changedFiles;
  f["deletedFiles"] = s.deletedFiles;
  j["freshness"] = f;
  json agreement = json::array();
  for (const AgreementSummary& a : s.agreement)
    agreement.push_back({{"language", a.language}, {"request", a.request}, {"category", a.category},
                         {"backend", a.backend}, {"sampled", a.sampled}, {"agreed", a.agreed},
                         {"rate", a.sampled ? static_cast<double>(a.agreed) / static_cast<double>(a.sampled) : 0.0},
                         {"low", a.low}, {"high", a.high}, {"text", a.text}});
  j["agreement"] = agreement;
  return dump(j);
}

std::string toJson(const SearchAnswer& s) { return dump(searchValue(s)); }

}  // namespace nib::lsp

namespace nib::lsp {

std::string toJson(const LiveBenchAnswer& a) {
  json languages = json::array();
  for (const LiveBenchLanguage& l : a.languages)
    languages.push_back({{"language", l.language},
                         {"backend", l.backend},
                         {"files", l.files},
                         {"samples", l.samples},
                         {"staticStartMs", l.staticStartMs},
                         {"liveStartMs", l.liveStartMs},
                         {"liveFirstAnswerMs", l.liveFirstAnswerMs},
                         {"backgroundIndexMs", l.backgroundIndexMs},
                         {"livePeakRssKiB", l.livePeakRssKiB}});
  json rows = json::array();
  for (const LiveBenchRow& r : a.rows)
    rows.push_back({{"language", r.language},       {"method", r.method},
                    {"requests", r.requests},       {"matched", r.matched},
                    {"bothEmpty", r.bothEmpty},     {"liveEmpty", r.liveEmpty},
                    {"liveFailed", r.liveFailed},   {"staticFailed", r.staticFailed},
                    {"matchRate", r.matchRate},     {"low", r.low},
                    {"high", r.high},               {"precision", r.precision},
                    {"recall", r.recall},           {"staticP50Ms", r.staticP50},
                    {"staticP95Ms", r.staticP95},   {"liveP50Ms", r.liveP50},
                    {"liveP95Ms", r.liveP95},       {"inEngineP50Ms", r.engineP50},
                    {"inEngineP95Ms", r.engineP95}, {"ratioWarm", r.ratioWarm},
                    {"ratioCold", r.ratioCold},     {"warmMatched", r.warmMatched},
                    {"coldMatched", r.coldMatched}, {"staticMs", r.staticMs},
                    {"liveMs", r.liveMs}});
  json categories = json::array();
  for (const LiveBenchCategory& c : a.categories)
    categories.push_back({{"language", c.language}, {"method", c.method}, {"category", c.category},
                          {"requests", c.requests}, {"matched", c.matched}, {"low", c.low}, {"high", c.high}});
  json requests = json::array();
  for (const LiveBenchRequest& r : a.requests)
    requests.push_back({{"language", r.language},         {"method", r.method},
                        {"path", r.path},                 {"line", r.line},
                        {"column", r.column},             {"category", r.category},
                        {"staticFirst", r.staticFirst},   {"liveAnswered", r.liveAnswered},
                        {"matched", r.matched},           {"staticDigest", r.staticDigest},
                        {"liveDigest", r.liveDigest},     {"staticOnly", r.staticOnly},
                        {"liveOnly", r.liveOnly}});
  json j = {{"root", a.root},
            {"indexVersion", a.indexVersion},
            {"machine", a.machine},
            {"staticCommand", a.staticCommand},
            {"seed", a.seed},
            {"samplesPerLanguage", a.samplesPerLanguage},
            {"staticFirstAnswerMs", a.staticFirstAnswerMs},
            {"staticPeakRssKiB", a.staticPeakRssKiB},
            {"languages", languages},
            {"rows", rows},
            {"categories", categories},
            {"requests", requests},
            {"mismatches", a.mismatches},
            {"notes", a.notes}};
  return dump(j);
}

}  // namespace nib::lsp
