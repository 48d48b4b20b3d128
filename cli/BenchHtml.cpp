// `nib bench live-vs-static --html FILE`: a self-contained report (inline SVG, no script, no
// network) — agreement per language and method and per category with their 95 % intervals,
// latency CDFs of both sides, and the mismatches with links to the places both sides named.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "cli/Commands.h"
#include "protocol/LspTypes.h"

namespace nib::cli {
namespace {

std::string num(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

// Percent-encodes what a file: URI cannot hold as is.
std::string uriPath(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || std::string_view("/-._~").find(static_cast<char>(c)) != std::string_view::npos) out += static_cast<char>(c);
    else {
      static const char* kHex = "0123456789ABCDEF";
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// "path:line:column" as a link to the file (a browser opens the file; the text names the line).
std::string placeLink(const std::string& root, const std::string& place) {
  std::string path = place.substr(0, place.find(':'));
  return "<a href=\"file://" + uriPath(root + "/" + path) + "\">" + escape(place) + "</a>";
}

// Agreement bars with their intervals: one row per label, 0–100 % over 500 pixels.
void agreementChart(std::ostringstream& o, const std::string& id,
                    const std::vector<std::tuple<std::string, double, double, double, size_t>>& bars) {
  int h = static_cast<int>(bars.size()) * 24 + 30;
  o << "<svg id=\"" << id << "\" class=\"agreement\" width=\"1040\" height=" << h << " font-size=\"12\">";
  for (int p = 0; p <= 100; p += 25)
    o << "<line x1=" << 300 + p * 5 << " y1=\"0\" x2=" << 300 + p * 5 << " y2=" << h - 20 << " stroke=\"#ddd\"/><text x="
      << 292 + p * 5 << " y=" << h - 5 << ">" << p << "%</text>";
  int y = 4;
  for (const auto& [label, rate, low, high, n] : bars) {
    o << "<text x=\"0\" y=" << y + 13 << ">" << escape(label) << " (" << n << ")</text>";
    o << "<rect class=\"bar\" x=\"300\" y=" << y << " width=" << num(rate * 500, 1) << " height=\"16\" fill=\"#3182bd\"/>";
    o << "<line class=\"interval\" x1=" << num(300 + low * 500, 1) << " y1=" << y + 8 << " x2=" << num(300 + high * 500, 1)
      << " y2=" << y + 8 << " stroke=\"#000\" stroke-width=\"2\"/>";
    o << "<text x=" << num(310 + high * 500, 1) << " y=" << y + 13 << ">" << num(rate * 100, 1) << " % ["
      << num(low * 100, 1) << ", " << num(high * 100, 1) << "]</text>";
    y += 24;
  }
  o << "</svg>";
}

// The cumulative share of requests answered within x ms, log scale, one step line per side.
void latencyCdf(std::ostringstream& o, const lsp::LiveBenchRow& r) {
  double maxMs = 1, minMs = 1e9;
  for (const auto* v : {&r.staticMs, &r.liveMs})
    for (double ms : *v) maxMs = std::max(maxMs, ms), minMs = std::min(minMs, std::max(ms, 0.01));
  if (minMs > maxMs) minMs = 0.01;
  double lo = std::log10(minMs), hi = std::log10(maxMs) + 0.1;
  auto x = [&](double ms) { return 50 + (std::log10(std::max(ms, minMs)) - lo) / (hi - lo) * 500; };
  o << "<svg class=\"cdf\" width=\"620\" height=\"230\" font-size=\"11\"><text x=\"50\" y=\"12\">" << escape(r.language + " " + r.method)
    << ": share of requests answered within (ms, log scale)</text>";
  o << "<line x1=\"50\" y1=\"200\" x2=\"550\" y2=\"200\" stroke=\"#000\"/><line x1=\"50\" y1=\"20\" x2=\"50\" y2=\"200\" stroke=\"#000\"/>";
  for (int e = static_cast<int>(std::floor(lo)); e <= static_cast<int>(std::ceil(hi)); ++e) {
    double ms = std::pow(10.0, e);
    if (ms < minMs || ms > std::pow(10.0, hi)) continue;
    o << "<text x=" << num(x(ms) - 8, 1) << " y=\"214\">" << num(ms, ms < 1 ? 2 : 0) << "</text>";
  }
  const char* colors[2] = {"#3182bd", "#e6550d"};
  const std::vector<double>* series[2] = {&r.staticMs, &r.liveMs};
  for (int s = 0; s < 2; ++s) {
    std::vector<double> v = *series[s];
    std::sort(v.begin(), v.end());
    std::string d;
    for (size_t i = 0; i < v.size(); ++i) {
      double y0 = 200 - 180.0 * static_cast<double>(i) / static_cast<double>(v.size());
      double y1 = 200 - 180.0 * static_cast<double>(i + 1) / static_cast<double>(v.size());
      d += (i ? " L" : "M") + num(x(v[i]), 1) + " " + num(y0, 1) + " L" + num(x(v[i]), 1) + " " + num(y1, 1);
    }
    if (!d.empty())
      o << "<path class=\"cdf-line " << (s ? "live" : "static") << "\" d=\"" << d << "\" fill=\"none\" stroke=" << colors[s]
        << " stroke-width=\"2\"/>";
    o << "<text x=\"560\" y=" << 40 + 16 * s << " fill=" << colors[s] << ">" << (s ? "live" : "nib serve") << "</text>";
  }
  o << "</svg>";
}

void mismatchTable(std::ostringstream& o, const lsp::LiveBenchAnswer& a) {
  o << "<h2>Mismatches</h2><table id=\"mismatches\"><tr><th>request</th><th>category</th><th>at</th>"
       "<th>only nib</th><th>only live</th></tr>";
  size_t shown = 0;
  for (const lsp::LiveBenchRequest& q : a.requests) {
    if (q.matched || shown++ >= 200) continue;
    std::string at = q.path + ":" + std::to_string(q.line) + ":" + std::to_string(q.column);
    auto list = [&](const std::vector<std::string>& places) {
      std::string out;
      for (const std::string& p : places) out += placeLink(a.root, p) + "<br>";
      return out.empty() ? std::string("-") : out;
    };
    o << "<tr class=\"mismatch\"><td>" << escape(q.language + " " + q.method) << "</td><td>" << escape(q.category)
      << "</td><td>" << placeLink(a.root, at) << "</td><td>" << list(q.staticOnly) << "</td><td>" << list(q.liveOnly)
      << "</td></tr>";
  }
  o << "</table>";
}

}  // namespace

std::string benchHtml(const lsp::LiveBenchAnswer& a, const std::string& tableText) {
  std::ostringstream o;
  o << "<!doctype html><meta charset=\"utf-8\"><title>nib: live vs static</title>"
       "<style>body{font:14px sans-serif;margin:2em}pre{background:#f4f4f4;padding:1em;overflow:auto}"
       "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top;font-size:12px}"
       "</style><h1>nib bench live-vs-static</h1>";
  o << "<p>" << escape(a.root) << " (index " << escape(a.indexVersion) << "), " << escape(a.machine) << ", seed " << a.seed
    << ". Positions: identifiers drawn from the files' text, never from nib's index. Both sides over stdio ("
    << escape(a.staticCommand) << " and the live server), interleaved; every request counted.</p>";
  std::vector<std::tuple<std::string, double, double, double, size_t>> rows, categories;
  for (const lsp::LiveBenchRow& r : a.rows) rows.emplace_back(r.language + " " + r.method, r.matchRate, r.low, r.high, r.requests);
  for (const lsp::LiveBenchCategory& c : a.categories)
    categories.emplace_back(c.language + " " + c.method + ": " + c.category,
                            c.requests ? static_cast<double>(c.matched) / static_cast<double>(c.requests) : 0, c.low,
                            c.high, c.requests);
  o << "<h2>Agreement with the live server</h2>";
  agreementChart(o, "rows", rows);
  o << "<h2>By the index answer's category</h2>";
  agreementChart(o, "categories", categories);
  o << "<h2>Latency</h2>";
  for (const lsp::LiveBenchRow& r : a.rows) latencyCdf(o, r);
  mismatchTable(o, a);
  o << "<h2>Table</h2><pre>" << escape(tableText) << "</pre>";
  return o.str();
}

}  // namespace nib::cli
