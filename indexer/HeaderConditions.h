// Which headers clangd would parse differently from the units that #include them: a header whose
// own `#if` sections depend on a macro defined elsewhere — a source file defines it before its
// `#include` (`#define LZ4F_STATIC_LINKING_ONLY` in lz4frame.c, then lz4frame.h's static
// section), or a header the includer read first does (libpng's pngstruct.h tests pnglibconf.h's
// PNG_*_SUPPORTED, which pngpriv.h includes before it). clangd parses a header it opens alone,
// with the command it borrows, so those sections may be code left out there (the editor greys
// them), and what the including unit saw in them is no answer in the header (references of an
// open file come from its own parse only). The clang view gives such headers a made-up unit of
// their own (ClangBuilder), which makes each a main file: its own parse's skipped ranges and names
// answer there, as for a source file #included whole.
//
// The choice is by text, without a parse, and only bounds the cost: a header chosen whose
// standalone parse sees what its includers saw answers as before.
//
// A header without an include guard is parsed alone as well, and keeps that parse only where it
// reports errors (ClangBuilder), and so is a guarded one that names what only files it does not
// #include declare (headersNamingIncludersNames). Unguarded headers are mostly fragments that
// make sense only where they are included — rows of a table included inside an initializer
// (expat's iasciitab.h), declarations of types and macros the includer defined first (zlib's
// trees.h). clangd, opening
// one, parses it alone with errors and answers from what clang's error recovery made of it (an
// identifier of a row is an implicit-int variable declared there); the includer's view of the
// file is then no answer there. A guarded header is meant to stand alone, but some rely on their
// includers all the same (libjpeg's jmemsys.h names jpeglib.h's j_common_ptr and #includes
// nothing; opus' resampler_structs.h names opus_types.h's opus_int32): clangd's parse of such a
// header alone meets the same errors.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "views/ClangFacts.h"

namespace nib {

// What a file's directives say: the names its `#define`s define, and the identifiers in the
// conditions of its `#if`, `#ifdef`, `#ifndef` and `#elif` (continuation lines included,
// `defined` and comments left out). One scan of the text.
struct FileDirectives {
  std::set<std::string> defined, tested;
  // An include guard (`#ifndef X` or `#if !defined(X)` as the first directive, `#define X` the
  // second) or `#pragma once`: the file is meant to be included anywhere, and so to parse alone.
  bool guarded = false;
  // Defaults: macros it defines right inside a section that tests they are not defined yet
  // (`#ifndef X` / `#if !defined(X)`, then `#define X`), the include guard aside (LZO's
  // config1a.h: `#if !defined(DDBITS)` / `#define DDBITS 0`). An includer that defines one first
  // decides that section as any macro defined elsewhere does.
  std::set<std::string> defaulted;
  // Macros it #defines more than once: alternatives its sections choose between (`LJ_FUNC` is
  // `static` or `extern`).
  std::set<std::string> redefined;
  // The names its `#include`s (and `#import`s, `#include_next`s) spell, quoted or angled, in
  // order; a name a macro gives is left out.
  std::vector<std::string> includes;
};
FileDirectives directivesOf(std::string_view text);

// Reads a file outside the repository (a system header) for its #includes; nullopt when it
// cannot be read.
using OutsideReader = std::function<std::optional<std::string>(const std::string& path)>;

// Of `candidates` (absolute paths of guarded repository headers), those that in some unit's facts
// name an entity no declaration of which (in that unit) lies in the header's own #include
// closure: the header relies on what its includers declared first, and clangd's parse of it
// alone meets errors the units never see. `directives` holds the repository files the units
// read, by absolute path; an #include's name is matched against their paths' trailing components
// (`../jpeglib.h` finds `/r/jpeglib.h`), so a header that #includes one of two files of a name
// counts both as its own. With `readOutside`, an entity declared only outside the repository
// counts too, by the declaration the facts give for it (ClangOutsideTarget: CLI11's
// FormatterFwd.hpp names std::function and #includes <map>, <string>, <utility> and <vector>,
// which never #include <functional>), and the closure runs on through the system headers the
// units read (each read once, where a walk reaches it); without it such a name tells nothing.
std::set<std::string> headersNamingIncludersNames(const std::vector<const TuFacts*>& units,
                                                   const std::map<std::string, FileDirectives>& directives,
                                                   const std::set<std::string>& candidates,
                                                   const OutsideReader& readOutside = nullptr);

// Of `headers` (repository paths with their directives), those whose conditions test a macro
// another file defines (`definers`: how many of the files the build read define each name): one
// the header does not define itself, or one of its defaults. In the order given.
std::vector<std::string> headersConfiguredElsewhere(const std::vector<std::pair<std::string, FileDirectives>>& headers,
                                                    const std::map<std::string, size_t>& definers);

// Of `headers`, those not `configured` already whose code (comments and literals left out) uses a
// macro that a configured header defines more than once and the header does not define itself:
// which definition is in effect there depends on the includer too. LuaJIT's lj_def.h makes
// `LJ_FUNC` `static` where ljamalg.c, which #includes every source file whole, defined
// `ljamalg_c` first, and `extern` otherwise: lj_prng.h's `LJ_FUNC uint64_t lj_prng_u64(...)`
// declares another entity (another linkage, another USR) in its own parse, clangd's when the
// header is open, than in the amalgamation's. `texts`: each header's text by path.
std::vector<std::string> headersUsingConfiguredMacros(const std::vector<std::pair<std::string, FileDirectives>>& headers,
                                                      const std::vector<std::string>& configured,
                                                      const std::map<std::string, std::string>& texts);

}  // namespace nib
