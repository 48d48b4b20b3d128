// Whether a tsconfig.json's `extends` can be read. A configuration that extends a package not
// installed (`"extends": "@sindresorhus/tsconfig"`, `"./node_modules/gts/tsconfig-google.json"`
// in a checkout without node_modules) makes scip-typescript refuse the whole project, where
// TypeScript's server reports the error and reads the project's own files and options all the
// same. The precise view then indexes the project from its own configuration without `extends`
// (PreciseBuilder, with TypeScript's parser computing the files); this decides when.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace nib {

// The top-level `"extends"` string of a tsconfig.json's text (JSON with comments and trailing
// commas, as TypeScript reads it); nullopt when there is none or it is not one string (a list,
// TypeScript 5's form, is left to the indexer).
std::optional<std::string> tsconfigExtends(std::string_view text);

// Whether `extends`, written in a configuration in `configDir`, names a file that exists: a path
// (relative to `configDir`, with or without `.json`), or a package in a node_modules folder of
// `configDir` or a folder above it (the package's folder, or the file it names in it).
bool tsconfigExtendsResolves(const std::filesystem::path& configDir, const std::string& extends);

// `compilerOptions.composite` of a tsconfig.json's text, when it says.
std::optional<bool> tsconfigComposite(std::string_view text);

// Whether the configuration `text`, read in `configDir`, is composite, by its own
// `compilerOptions` or, where it does not say, by the configurations it extends (those that can
// be found). TypeScript's server opens a file of a composite project with the tsconfig.json
// projects in the folders above it, any of which might be a solution referencing it
// (ClangNavigator::programOf).
bool tsconfigIsComposite(const std::filesystem::path& configDir, std::string_view text);

}  // namespace nib
