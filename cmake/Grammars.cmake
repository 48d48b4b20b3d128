# Compiles the pinned tree-sitter grammars fetched by scripts/setup.sh (npm ci --ignore-scripts)
# into one static library. Generated parsers are third-party C: built with -w -O2 whatever the
# build type, since an unoptimised parser is several times slower and nobody debugs it.
set(NIB_GRAMMAR_ROOT "${PROJECT_SOURCE_DIR}/third_party/grammars/node_modules")
if(NOT EXISTS "${NIB_GRAMMAR_ROOT}/tree-sitter-c/src/parser.c")
  message(FATAL_ERROR "tree-sitter grammars are missing: run scripts/setup.sh first "
                      "(it runs npm ci --ignore-scripts in third_party/grammars).")
endif()

set(_grammar_dirs
  tree-sitter-c/src tree-sitter-cpp/src tree-sitter-python/src tree-sitter-javascript/src
  tree-sitter-typescript/typescript/src tree-sitter-typescript/tsx/src tree-sitter-go/src
  tree-sitter-rust/src tree-sitter-java/src)
set(_grammar_sources)
foreach(dir IN LISTS _grammar_dirs)
  set(_src "${NIB_GRAMMAR_ROOT}/${dir}")
  list(APPEND _grammar_sources "${_src}/parser.c")
  if(EXISTS "${_src}/scanner.c")
    list(APPEND _grammar_sources "${_src}/scanner.c")
  endif()
  # Each grammar's sources include "tree_sitter/parser.h" relative to their own folder.
  set_source_files_properties("${_src}/parser.c" "${_src}/scanner.c" PROPERTIES
    INCLUDE_DIRECTORIES "${_src}" COMPILE_OPTIONS "-w;-O2;-g0")
endforeach()
add_library(nib_grammars STATIC ${_grammar_sources})
set_target_properties(nib_grammars PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)

# Grammar versions recorded in every manifest, read from the pinned package.json.
file(READ "${PROJECT_SOURCE_DIR}/third_party/grammars/package.json" _pkg)
string(JSON _deps GET "${_pkg}" dependencies)
string(JSON _n LENGTH "${_deps}")
math(EXPR _last "${_n} - 1")
set(NIB_GRAMMAR_VERSIONS "")
foreach(i RANGE ${_last})
  string(JSON _name MEMBER "${_deps}" ${i})
  string(JSON _ver GET "${_deps}" "${_name}")
  string(APPEND NIB_GRAMMAR_VERSIONS "${_name}@${_ver} ")
endforeach()
string(STRIP "${NIB_GRAMMAR_VERSIONS}" NIB_GRAMMAR_VERSIONS)
