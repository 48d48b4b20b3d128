// The floor for a cold structural index: parse every source file of a tree with bare
// tree-sitter (same grammars, same language detection, same thread count as `nib index`) and
// do nothing else. Prints: files, bytes, seconds, MB/s.
//   usage: nib_parse_floor DIR [THREADS]
#include <tree_sitter/api.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "indexer/LanguageSpec.h"
#include "support/FileIo.h"
#include "support/Language.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [THREADS]\n", argv[0]);
    return 2;
  }
  unsigned threads = argc > 2 ? std::stoul(argv[2]) : std::max(1u, std::thread::hardware_concurrency());
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(argv[1]); it != fs::recursive_directory_iterator(); ++it) {
    std::string name = it->path().filename().string();
    if (it->is_directory() && (name == ".git" || name == ".nib")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && !it->is_symlink() && it->file_size() <= (1u << 20)) files.push_back(it->path());
  }
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> bytes{0}, parsed{0};
  auto start = std::chrono::steady_clock::now();
  auto work = [&] {
    TSParser* parser = ts_parser_new();
    for (;;) {
      size_t i = next++;
      if (i >= files.size()) break;
      auto content = nib::readFile(files[i]);
      if (!content) continue;
      std::string_view head(content->data(), std::min<size_t>(content->size(), 16384));
      if (head.find('\0') != std::string_view::npos) continue;
      nib::Language lang = nib::detectLanguage(files[i].string(), head);
      const nib::LanguageSpec* spec = nib::languageSpec(lang);
      if (!spec) continue;
      ts_parser_set_language(parser, spec->grammar());
      TSTree* tree = ts_parser_parse_string(parser, nullptr, content->data(), content->size());
      ts_tree_delete(tree);
      bytes += content->size();
      ++parsed;
    }
    ts_parser_delete(parser);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("files %llu bytes %llu seconds %.3f mbps %.2f threads %u\n", static_cast<unsigned long long>(parsed.load()),
              static_cast<unsigned long long>(bytes.load()), secs, bytes.load() / 1e6 / secs, threads);
  return 0;
}
