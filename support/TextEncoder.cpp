#include "support/TextEncoder.h"

#include <arpa/inet.h>

#include <cstdlib>
#include <mutex>

#include "support/Log.h"

namespace nib {
namespace {

std::mutex factoryMutex;
TextEncoderFactory& factory() {
  static TextEncoderFactory f;
  return f;
}

}  // namespace

bool isLoopbackUrl(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return false;
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);  // user:pass@
  std::string_view host = rest;
  if (!host.empty() && host.front() == '[') host = host.substr(1, host.find(']') - 1);  // [::1]:8080
  else host = host.substr(0, host.find(':'));
  if (host == "localhost" || host == "::1") return true;
  // 127.0.0.0/8 as a dotted quad only: "127.0.0.1.example.com" is a name anywhere.
  in_addr addr{};
  return ::inet_pton(AF_INET, std::string(host).c_str(), &addr) == 1 && (ntohl(addr.s_addr) >> 24) == 127;
}

Expected<std::optional<EncoderSettings>> EncoderSettings::fromConfig(const ProjectConfig& config) {
  // The user's own setting, from the environment, wins and may name any host; the repository's
  // own configuration may name this machine only: a cloned repository must not make nib send
  // its code anywhere.
  std::optional<std::string> url;
  if (const char* env = std::getenv("NIB_ENCODER_URL"); env && *env) url = env;
  else url = config.get("dense.encoder.url");
  if (!url || url->empty()) return std::optional<EncoderSettings>();
  EncoderSettings s;
  s.url = *url;
  if (s.url.rfind("http://", 0) != 0 && s.url.rfind("https://", 0) != 0)
    return Status(ErrorCode::InvalidArgument, "dense.encoder.url must be an http:// or https:// URL, not '" + s.url + "'");
  if (!std::getenv("NIB_ENCODER_URL") && !isLoopbackUrl(s.url)) {
    // Refused, not fatal: the index is built with the repository-trained model instead.
    logWarn(".nib.conf's dense.encoder.url (" + s.url + ") names a host outside this machine and is ignored: a "
            "repository's own configuration may not make nib send its code elsewhere; set NIB_ENCODER_URL in your "
            "environment to use it");
    return std::optional<EncoderSettings>();
  }
  s.model = config.get("dense.encoder.model").value_or("");
  auto batch = config.getInt("dense.encoder.batch", 32, 1, 4096);
  if (!batch) return batch.status();
  s.batch = static_cast<size_t>(*batch);
  auto timeout = config.getInt("dense.encoder.timeout-ms", 30000, 100, 3600000);
  if (!timeout) return timeout.status();
  s.timeoutMs = static_cast<int>(*timeout);
  return std::optional<EncoderSettings>(s);
}

std::string EncoderSettings::serialize() const {
  return "url: " + url + "\nmodel: " + model + "\nbatch: " + std::to_string(batch) +
         "\ntimeout-ms: " + std::to_string(timeoutMs) + "\ndimension: " + std::to_string(dimension) + "\n";
}

Expected<EncoderSettings> EncoderSettings::parse(std::string_view text) {
  EncoderSettings s;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    size_t colon = line.find(": ");
    if (colon == std::string_view::npos) continue;
    std::string key(line.substr(0, colon)), value(line.substr(colon + 2));
    if (key == "url") s.url = value;
    else if (key == "model") s.model = value;
    else if (key == "batch") s.batch = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "timeout-ms") s.timeoutMs = std::atoi(value.c_str());
    else if (key == "dimension") s.dimension = std::atoi(value.c_str());
  }
  if (s.url.empty() || s.dimension <= 0 || s.batch == 0)
    return Status(ErrorCode::Corrupt, "the dense view's encoder settings are incomplete");
  return s;
}

void setTextEncoderFactory(TextEncoderFactory f) {
  std::lock_guard<std::mutex> g(factoryMutex);
  factory() = std::move(f);
}

Expected<std::unique_ptr<TextEncoder>> makeTextEncoder(const EncoderSettings& settings) {
  std::lock_guard<std::mutex> g(factoryMutex);
  if (!factory()) return Status(ErrorCode::Unsupported, "this program cannot reach an embedding endpoint");
  return factory()(settings);
}

}  // namespace nib
