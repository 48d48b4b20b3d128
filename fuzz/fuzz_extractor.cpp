// The extractor (indexer/Extractor) on hostile source: the first byte picks the language, the
// rest is the file. Any input extracts to facts or an error; the facts serialize.
#include "FuzzInput.h"
#include "indexer/Extractor.h"
#include "views/FileFacts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const nib::Language kLanguages[] = {
      nib::Language::C,          nib::Language::Cpp,  nib::Language::Python, nib::Language::JavaScript,
      nib::Language::TypeScript, nib::Language::Tsx,  nib::Language::Go,     nib::Language::Rust,
      nib::Language::Java};
  nib::Language language = kLanguages[data[0] % (sizeof kLanguages / sizeof kLanguages[0])];
  static nib::Extractor extractor(/*parseTimeoutMicros=*/2'000'000);
  auto facts = extractor.extract(language, nib::fuzz::bytes(data + 1, size - 1));
  if (facts) (void)nib::serializeFacts(*facts);
  return 0;
}
