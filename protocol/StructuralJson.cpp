// JSON for the structural answers (nib/callers, nib/callees, nib/impact, nib/trace) and for
// context bundles (nib/context), shared by the LSP server, the CLI's --json and `nib mcp`.
#include "protocol/JsonValues.h"

namespace nib::lsp {
namespace {
using json = nlohmann::json;

json rangeJ(const Range& r) { return rangeValue(r); }

json itemJson(const GraphItem& i) {
  json j = {{"name", i.name}, {"kind", i.kind}, {"path", i.path}, {"range", rangeJ(i.range)},
            {"selectionRange", rangeJ(i.selectionRange)}};
  if (!i.container.empty()) j["container"] = i.container;
  if (!i.uri.empty()) j["uri"] = i.uri;
  return j;
}

json hopJson(const GraphHopAnswer& h) {
  json sites = json::array();
  for (const Range& r : h.sites) sites.push_back(rangeJ(r));
  return {{"from", itemJson(h.from)}, {"to", itemJson(h.to)}, {"kind", h.kind}, {"confidence", h.confidence},
          {"distance", h.distance}, {"sites", sites}};
}

json impactJson(const ImpactAnswer& e) {
  return {{"item", itemJson(e.item)}, {"distance", e.distance}, {"via", e.via}, {"confidence", e.confidence},
          {"site", rangeJ(e.site)}};
}

json freshnessJson(const std::map<std::string, std::string>& f) {
  json j = json::object();
  for (const auto& [k, v] : f) j[k] = v == "true" ? json(true) : v == "false" ? json(false) : json(v);
  return j;
}

json unitJson(const ContextUnitAnswer& u, bool withText) {
  json j = {{"path", u.path}, {"range", rangeJ(u.range)}, {"kind", u.kind}, {"reason", u.reason},
            {"score", u.score}, {"tokens", u.tokens}};
  if (!u.name.empty()) j["name"] = u.name;
  if (!u.uri.empty()) j["uri"] = u.uri;
  if (withText) j["text"] = u.text;
  return j;
}

std::string dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); }

}  // namespace

json structuralValue(const StructuralAnswer& s) {
  json roots = json::array(), hops = json::array(), impact = json::array();
  for (const GraphItem& i : s.roots) roots.push_back(itemJson(i));
  for (const GraphHopAnswer& h : s.hops) hops.push_back(hopJson(h));
  for (const ImpactAnswer& e : s.impact) impact.push_back(impactJson(e));
  return {{"roots", roots}, {"hops", hops}, {"impact", impact}, {"found", s.found}, {"confidence", s.confidence},
          {"notes", s.notes}, {"freshness", freshnessJson(s.freshness)}};
}

json contextValue(const ContextAnswerWire& c) {
  json flows = json::array(), units = json::array(), omitted = json::array(), blast = json::array();
  for (const ContextFlowAnswer& f : c.flows) {
    json hops = json::array();
    for (const GraphHopAnswer& h : f.hops) hops.push_back(hopJson(h));
    flows.push_back({{"from", f.from}, {"to", f.to}, {"found", !f.hops.empty()}, {"hops", hops}});
  }
  for (const ContextUnitAnswer& u : c.units) units.push_back(unitJson(u, true));
  for (const ContextUnitAnswer& u : c.omitted) omitted.push_back(unitJson(u, false));
  for (const ContextBlastAnswer& b : c.blast) {
    json entries = json::array();
    for (const ImpactAnswer& e : b.entries) entries.push_back(impactJson(e));
    blast.push_back({{"item", itemJson(b.item)}, {"callers", b.callers}, {"typeUses", b.typeUses}, {"total", b.total},
                     {"entries", entries}});
  }
  json j = {{"budgetTokens", c.budgetTokens}, {"tokensUsed", c.tokensUsed}, {"estimator", c.estimator},
            {"flows", flows}, {"units", units}, {"omitted", omitted}, {"blastRadius", blast},
            {"unresolved", c.unresolved}, {"notes", c.notes}, {"text", c.text},
            {"freshness", freshnessJson(c.freshness)}};
  if (c.hasFollowUp) {
    json params = {{"symbols", c.followUp.symbols}, {"paths", c.followUp.paths}, {"budgetTokens", c.followUp.budgetTokens}};
    if (!c.followUp.intent.empty()) params["intent"] = c.followUp.intent;
    j["followUp"] = {{"method", "nib/context"}, {"params", params}, {"command", c.followUpCommand}};
  } else {
    j["followUp"] = nullptr;
  }
  return j;
}

std::string toJson(const StructuralAnswer& a) { return dump(structuralValue(a)); }
std::string toJson(const ContextAnswerWire& a) { return dump(contextValue(a)); }

}  // namespace nib::lsp
