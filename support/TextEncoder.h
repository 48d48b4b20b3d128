// An external text encoder for the dense view: a neural embedding model behind an
// OpenAI-compatible `/v1/embeddings` endpoint (llama.cpp's server, Ollama,
// text-embeddings-inference), named in the project configuration (.nib.conf). The dense view
// (views/) and its HTTP and JSON implementation (protocol/HttpEncoder, installed by each binary
// at start) meet at this interface, which is why it lives in support/: views/ never speaks JSON,
// and protocol/ never sees views/.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/ProjectConfig.h"
#include "support/Status.h"

namespace nib {

// Whether an http(s) URL names this machine (localhost, 127.0.0.0/8, ::1).
bool isLoopbackUrl(std::string_view url);

struct EncoderSettings {
  std::string url;    // the endpoint, e.g. http://127.0.0.1:8080/v1/embeddings
  std::string model;  // the `model` field of each request
  size_t batch = 32;  // texts per request
  int timeoutMs = 30000;
  int dimension = 0;  // learned from the first answer; recorded in the view
  // What the vectors depend on (the cache's model key): the endpoint and model, not the timing.
  std::string identity() const { return std::string(kProfilePrefix) + "url=" + url + ";model=" + model; }
  // A dense view's profile starts so when an external encoder made its vectors.
  static constexpr const char* kProfilePrefix = "http;";
  static bool madeProfile(const std::string& viewProfile) { return viewProfile.rfind(kProfilePrefix, 0) == 0; }
  // The settings the configuration names, nullopt when it names no encoder.
  // From NIB_ENCODER_URL (the user's own: any host) else .nib.conf's dense.encoder.url (the
  // repository's: this machine only; another host is ignored with a warning naming the rule).
  static Expected<std::optional<EncoderSettings>> fromConfig(const ProjectConfig& config);
  // The form kept in a dense view (dense/encoder), so that queries use the same encoder.
  std::string serialize() const;
  static Expected<EncoderSettings> parse(std::string_view text);
};

class TextEncoder {
 public:
  virtual ~TextEncoder() = default;
  // One vector per text, in order (not normalized); an error names the endpoint and the cause.
  virtual Expected<std::vector<std::vector<float>>> encode(const std::vector<std::string>& texts) = 0;
};

using TextEncoderFactory = std::function<std::unique_ptr<TextEncoder>(const EncoderSettings&)>;
void setTextEncoderFactory(TextEncoderFactory factory);
// An encoder for the settings; Unsupported when this binary installed none.
Expected<std::unique_ptr<TextEncoder>> makeTextEncoder(const EncoderSettings& settings);

}  // namespace nib
