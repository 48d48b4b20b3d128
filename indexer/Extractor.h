// Tree-sitter extraction of one file's facts: definitions, occurrences with their in-file
// resolution, imports, call sites and source units. One Extractor per thread (it owns a parser
// and a query cursor); the compiled queries are shared and immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "support/Language.h"
#include "support/Status.h"
#include "views/FileFacts.h"

namespace nib {

class Extractor {
 public:
  static constexpr uint64_t kDefaultParseTimeoutMicros = 10'000'000;
  // `parseTimeoutMicros` bounds one file's parse (0: the default, 10 s).
  explicit Extractor(uint64_t parseTimeoutMicros = 0);
  ~Extractor();
  Extractor(const Extractor&) = delete;
  Extractor& operator=(const Extractor&) = delete;

  Expected<FileFacts> extract(Language lang, std::string_view content);

  // Digest of everything that decides what extract() returns: nib's extractor revision, the
  // queries and the grammar versions. Part of every FactKey.
  static const std::string& profileDigest();
  // Compiles every language's query; the first failure names the language and the offset.
  static Status selfCheck();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nib
