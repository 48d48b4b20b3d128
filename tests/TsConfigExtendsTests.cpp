// indexer/TsConfigExtends: a tsconfig.json's `extends`, read from JSON with comments, and whether
// it names a file that exists.
#include <catch2/catch.hpp>

#include <filesystem>

#include "TestRepo.h"
#include "indexer/TsConfigExtends.h"

namespace nib::test {
namespace fs = std::filesystem;

TEST_CASE("a tsconfig.json's extends is its top-level string, past comments and other keys", "[typescript]") {
  CHECK(tsconfigExtends(R"({"extends": "@sindresorhus/tsconfig", "include": ["src"]})") == "@sindresorhus/tsconfig");
  CHECK(tsconfigExtends("// the base\n{\n  /* \"extends\": \"no\" */\n  \"compilerOptions\": {\"extends\": \"nested\"},\n"
                        "  \"extends\" : \"./base.json\", // trailing\n}\n") == "./base.json");
  CHECK(tsconfigExtends(R"({"files": ["extends"], "x": "extends"})") == std::nullopt);
  CHECK(tsconfigExtends(R"({"extends": ["./a.json", "./b.json"]})") == std::nullopt);  // a list: left to the indexer
  CHECK(tsconfigExtends(R"({"extends": "a\"b"})") == "a\"b");
  CHECK(tsconfigExtends(R"({"extends": )") == std::nullopt);
  CHECK(tsconfigExtends("") == std::nullopt);
}

TEST_CASE("extends resolves to a path or to a package in a node_modules folder above", "[typescript]") {
  TestRepo repo;  // a temporary folder, removed afterwards
  repo.write("pkg/tsconfig.json", "{}");
  repo.write("node_modules/@tsconfig/node16/tsconfig.json", "{}");
  repo.write("base.json", "{}");
  const fs::path pkg = repo.root() / "pkg";
  CHECK(tsconfigExtendsResolves(pkg, "../base.json"));
  CHECK(tsconfigExtendsResolves(pkg, "../base"));  // `.json` may be left out
  CHECK_FALSE(tsconfigExtendsResolves(pkg, "./base.json"));
  CHECK(tsconfigExtendsResolves(pkg, "@tsconfig/node16/tsconfig.json"));
  CHECK(tsconfigExtendsResolves(pkg, "@tsconfig/node16"));
  CHECK_FALSE(tsconfigExtendsResolves(pkg, "@sindresorhus/tsconfig"));
  CHECK_FALSE(tsconfigExtendsResolves(pkg, "./node_modules/gts/tsconfig-google.json"));
}

TEST_CASE("a tsconfig.json is composite by its own compilerOptions or by what it extends", "[typescript]") {
  CHECK(tsconfigComposite(R"({"compilerOptions": {"paths": {"a": ["b"]}, "composite": true}})") == true);
  CHECK(tsconfigComposite(R"({"compilerOptions": {"composite": false}})") == false);
  CHECK(tsconfigComposite(R"({"references": [{"composite": true}], "compilerOptions": {}})") == std::nullopt);
  CHECK(tsconfigComposite(R"({"composite": true})") == std::nullopt);  // not a compiler option there
  TestRepo repo;
  repo.write("tsconfig.json", "// the solution\n{\"compilerOptions\": {\"composite\": true}}\n");
  repo.write("packages/a/tsconfig.json", "{\"extends\": \"../../tsconfig.json\", \"include\": [\"lib\"]}");
  repo.write("packages/b/tsconfig.json", "{\"extends\": \"../../tsconfig\", \"compilerOptions\": {\"composite\": false}}");
  repo.write("packages/c/tsconfig.json", "{\"extends\": \"@missing/base\"}");
  auto composite = [&](const std::string& package) {
    const fs::path dir = repo.root() / "packages" / package;
    return tsconfigIsComposite(dir, readText(dir / "tsconfig.json"));
  };
  CHECK(composite("a"));
  CHECK_FALSE(composite("b"));
  CHECK_FALSE(composite("c"));
}

}  // namespace nib::test
