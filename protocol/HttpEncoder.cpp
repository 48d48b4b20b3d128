#include "protocol/HttpEncoder.h"

#include <curl/curl.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "support/TextEncoder.h"

namespace nib {
namespace {

using json = nlohmann::json;

size_t appendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

class HttpEncoder : public TextEncoder {
 public:
  explicit HttpEncoder(EncoderSettings settings) : settings_(std::move(settings)) {}

  Expected<std::vector<std::vector<float>>> encode(const std::vector<std::string>& texts) override {
    std::vector<std::vector<float>> out;
    out.reserve(texts.size());
    for (size_t start = 0; start < texts.size(); start += settings_.batch) {
      size_t end = std::min(texts.size(), start + settings_.batch);
      auto part = post(std::vector<std::string>(texts.begin() + start, texts.begin() + end));
      if (!part) return part.status();
      for (auto& v : *part) out.push_back(std::move(v));
    }
    return out;
  }

 private:
  Expected<std::vector<std::vector<float>>> post(const std::vector<std::string>& texts) {
    json request = {{"input", texts}};
    if (!settings_.model.empty()) request["model"] = settings_.model;
    // Source text may hold invalid UTF-8: replaced, never a reason to fail.
    std::string body = request.dump(-1, ' ', false, json::error_handler_t::replace);
    std::string reply;
    CURL* curl = curl_easy_init();
    if (!curl) return Status(ErrorCode::Internal, "cannot start an HTTP request");
    struct curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    curl_easy_setopt(curl, CURLOPT_URL, settings_.url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(settings_.timeoutMs));
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, appendBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply);
    CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    const std::string where = "the embedding endpoint " + settings_.url;
    if (rc != CURLE_OK) return Status(ErrorCode::IoError, where + " is unreachable: " + curl_easy_strerror(rc));
    if (status != 200)
      return Status(ErrorCode::IoError, where + " answered HTTP " + std::to_string(status) + ": " + reply.substr(0, 200));
    json parsed = json::parse(reply, nullptr, /*allow_exceptions=*/false);
    const std::string notEmbeddings = where + " answered something that is not an embeddings response";
    if (!parsed.is_object() || !parsed.contains("data") || !parsed["data"].is_array() ||
        parsed["data"].size() != texts.size())
      return Status(ErrorCode::IoError, notEmbeddings + " (expected data[] with " + std::to_string(texts.size()) + " items)");
    std::vector<std::vector<float>> out(texts.size());
    for (size_t i = 0; i < parsed["data"].size(); ++i) {
      const json& item = parsed["data"][i];
      if (!item.is_object() || !item.contains("embedding") || !item["embedding"].is_array())
        return Status(ErrorCode::IoError, notEmbeddings + " (data[" + std::to_string(i) + "] has no embedding)");
      size_t index = i;
      if (item.contains("index")) {
        if (!item["index"].is_number_unsigned() || item["index"].get<size_t>() >= texts.size())
          return Status(ErrorCode::IoError, notEmbeddings + " (a bad index)");
        index = item["index"].get<size_t>();
      }
      std::vector<float>& v = out[index];
      for (const json& x : item["embedding"]) {
        if (!x.is_number()) return Status(ErrorCode::IoError, notEmbeddings + " (a non-number in an embedding)");
        v.push_back(x.get<float>());
      }
    }
    for (const auto& v : out)
      if (v.empty() || v.size() != out.front().size())
        return Status(ErrorCode::IoError, where + " answered embeddings of different sizes");
    return out;
  }

  EncoderSettings settings_;
};

}  // namespace

void installHttpEncoder() {
  static bool installed = [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    setTextEncoderFactory([](const EncoderSettings& s) { return std::make_unique<HttpEncoder>(s); });
    return true;
  }();
  (void)installed;
}

}  // namespace nib
