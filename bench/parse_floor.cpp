// The floor for a cold structural index: parse every source file of a tree with bare
// tree-sitter (same grammars, same language detection, same thread count as `nib index`) and
// do nothing else. Prints: files, bytes, seconds, MB/s.
//   usage: nib_parse_floor DIR [THREADS]
#include <tree_sitter/api.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "indexer/LanguageSpec.h"
#include "support/FileIo.h"
#include "support/Language.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::error_code ec;
  if (argc < 2 || argc > 3 || !fs::is_directory(argv[1], ec)) {
    std::fprintf(stderr, "usage: %s DIR [THREADS]\n  DIR must be a folder%s\n", argv[0],
                 argc >= 2 ? (std::string(": ") + argv[1] + " is not one").c_str() : "");
    return 2;
  }
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  if (argc > 2) {
    char* end = nullptr;
    unsigned long n = std::strtoul(argv[2], &end, 10);
    if (!*argv[2] || *end || n == 0 || n > 1024) {
      std::fprintf(stderr, "%s: THREADS must be a number from 1 to 1024, not '%s'\n", argv[0], argv[2]);
      return 2;
    }
    threads = static_cast<unsigned>(n);
  }
  std::vector<fs::path> files;
  // Unreadable folders are skipped, as `nib index` skips them, rather than ending the walk.
  for (auto it = fs::recursive_directory_iterator(argv[1], fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::error_code entry;  // a dangling link or a file gone meanwhile: skipped, never the end of the walk
    if (it->is_directory(entry) && (name == ".git" || name == ".nib")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(entry) && !it->is_symlink(entry) && it->file_size(entry) <= (1u << 20) && !entry)
      files.push_back(it->path());
  }
  if (ec) {
    std::fprintf(stderr, "%s: cannot list %s: %s\n", argv[0], argv[1], ec.message().c_str());
    return 1;
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
