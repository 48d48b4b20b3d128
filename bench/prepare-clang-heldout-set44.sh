# Sourced by bench/prepare-clang-heldout.sh after bench/prepare-clang-heldout-set43.sh: set 44's
# recipes, with what each builds, in a file of their own like set 43's. The build_recipe at the end
# of this file wraps the one of prepare-clang-heldout-set43.sh (sets 24 to 43), and
# changed_by_recipe is wrapped the same way. The recipes use the helpers of
# prepare-clang-heldout-recipes.sh (ignore, require_files, require_defines, cmake_build,
# cdb_from_build).
# shellcheck shell=bash

# Set 44's recipes. Like set 43's, each build step ends with || exit 1. What each one builds:
#   gawk       GNU awk 5.2.1 (C). ./configure with its defaults (MPFR from Debian's libmpfr-dev,
#              readline, the persistent memory allocator), then bear over make -j2 -C support,
#              make -j2 gawk and make -j2 -C extension in the tree (not the top-level make, whose
#              doc/ step fails: this .orig tarball lacks doc/gawktexi.in and the other Texinfo
#              sources, and awklib/ extracts its programs from them): the gawk program (the
#              root's .c files, awkgram.c and command.c being the tarball's bison outputs, not
#              generated again), support/libsupport.a (gnulib's getopt, dfa, regex, ... and
#              support/malloc/'s dynarray files, and pma.c) and the 16 extension modules of
#              extension/ (libtool modules, each file compiled once, with -fPIC -DPIC): 52 entries
#              over 52 files, all with -DHAVE_CONFIG_H. configure generates config.h (121
#              #defines, 100 of them HAVE_*; the recipe checks HAVE_MPFR, HAVE_LIBREADLINE,
#              USE_PERSISTENT_MALLOC, HAVE_SOCKETS) and extension/config.h (48, from the
#              extension directory's own configure). Files #included whole, not compiled on their
#              own: support/regex.c #includes regex_internal.c, regcomp.c and regexec.c;
#              replace.c #includes missing_d/system.c, memcmp.c, strftime.c, ... each under its
#              #ifndef HAVE_* (on glibc all are left out); gawkmisc.c #includes
#              posix/gawkmisc.c; extension/fnmatch.c #includes ../missing_d/fnmatch.c (under
#              #ifndef HAVE_FNMATCH). The tarball has no .gitignore. make check (awk scripts, no
#              compiled test code but test/makepmafile.c), awklib/, doc/, po/, pc/, vms/ and
#              posix/'s other files are not built or used
#   jimtcl     Jim Tcl 0.81 (C, a small Tcl interpreter). First what autosetup's
#              autosetup-find-tclsh does where no jimsh or tclsh is found: cc -o jimsh0
#              autosetup/jimsh0.c under bear, the bootstrap jimsh0, from the amalgamation
#              autosetup/jimsh0.c (22,509 lines: jim.c, the core extensions and jimsh.c in one file,
#              with its own configuration #defines); ./configure --full then runs its Tcl with
#              ./jimsh0, the first interpreter it tries (the recipe checks config.log's "Tclsh:"
#              line). Then bear --append over make -j2 and make -C examples.api: libjim.a (jim.c,
#              jimregexp.c, utf8.c, linenoise.c, the jim-*.c extensions that --full selects, among
#              them aio with SSL and IPv6, json with jsmn/jsmn.c, zlib, tclprefix, and the _*.c
#              files that make writes from the Tcl extensions, glob.tcl, oo.tcl, stdlib.tcl, ...,
#              and _load-static-exts.c), jimsh (jimsh.c, _initjimsh.c) and the five API examples of
#              examples.api/: 47 entries over 47 files. jimsh0.c defines the same functions as
#              jim.c (Jim_CreateInterp, Jim_Eval, ...) in a unit of its own. configure generates
#              jimautoconf.h (124 #defines: HAVE_*, JIM_SSL, JIM_IPV6, JIM_MATH_FUNCTIONS, JIM_UTF8
#              and a jim_ext_* macro for each extension, which the recipe checks some of) and
#              jim-config.h. The tarball's .gitignore already ignores every output but the
#              examples. The tests (Tcl scripts), jim-mk.cpp, sqlite3/ (a bundled sqlite3.c that
#              no enabled extension uses), jim-sdl.c, jim-redis.c, jim-readline.c, jim-win32*.c and
#              examples.ext/ are not built or used
#   prometheus-cpp
#              prometheus-cpp 1.0.1 (C++, a Prometheus metrics client). CMake into build/ with
#              USE_THIRDPARTY_LIBRARIES=OFF, so that Debian's civetweb (libcivetweb-dev, and its
#              CMake package names the civetweb program of the package civetweb), googletest and
#              Google benchmark are used in place of the 3rdparty/ submodules, which the tarball
#              leaves empty, and the tests, then a build: the static libraries core (metrics,
#              registry, serializers), pull (an HTTP exposer on civetweb, with zlib: -DHAVE_ZLIB)
#              and push (a gateway client on libcurl), and in build/bin/ the googletest and gmock
#              programs prometheus_core_test (core/tests), prometheus_pull_test,
#              prometheus_pull_internal_test and prometheus_pull_integration_test (pull/tests,
#              GTest::gmock_main), benchmarks (core/benchmarks, Google benchmark) and the samples
#              sample_server, sample_server_multi, sample_server_auth and sample_client (push/):
#              45 entries over 45 files, all with -std=c++11 (its OVERRIDE_CXX_STANDARD_FLAGS, which
#              Debian's googletest 1.12.1 still accepts).
#              CMake generates build/{core,pull,push}/include/prometheus/detail/*_export.h (the
#              PROMETHEUS_CPP_*_EXPORT macros of every public class). The tarball's .gitignore
#              already ignores build/; build/compile_commands.json is copied to the root.
#              cmake/project-import-*/ (find_package and pkg-config consumers) and bazel/ are not
#              built or used
#   ninja-build
#              Ninja 1.11.1 (C++, the build tool). CMake into build/ with the tests, then a build:
#              libninja (src/*.cc: the manifest parser, build log, deps log, graph, ...),
#              libninja-re2c from the tarball's re2c outputs src/depfile_parser.cc and src/lexer.cc
#              (re2c is not installed, so CMake does not generate them again from src/*.in.cc; the
#              recipe checks that the compilation database names the tarball's), the ninja program
#              (src/ninja.cc, and src/browse.cc with -DNINJA_HAVE_BROWSE and the header
#              build/build/browse_py.h that the build writes from src/browse.py), ninja_test (the
#              src/*_test.cc files but status_test.cc, with ninja's own test framework src/test.h,
#              not googletest) and the perf tests (build_log_perftest, canon_perftest, ...): 55
#              entries over 55 files, with g++'s default C++ standard. The tarball's .gitignore
#              already ignores /build*/ and /compile_commands.json (the setup adds the compilation
#              database with git add -f). The Windows files (subprocess-win32.cc, msvc_helper*,
#              minidump-win32.cc, includes_normalize-win32.cc, getopt.c), configure.py's bootstrap
#              build and misc/manifest_fuzzer.cc are not built or used
build_gawk() {
  ./configure >/dev/null || exit 1
  bear -- sh -c 'make -j2 -C support && make -j2 gawk && make -j2 -C extension' || exit 1
  require_files gawk config.h extension/config.h gawk support/libsupport.a \
    extension/.libs/filefuncs.so extension/.libs/rwarray.so
  require_defines gawk config.h HAVE_MPFR HAVE_LIBREADLINE USE_PERSISTENT_MALLOC HAVE_SOCKETS
  ignore '*.o' '*.lo' '*.la' '*.a' '.libs/' '.deps/' '.dirstamp' 'Makefile' 'config.log' \
         'config.status' 'stamp-h1' '/config.h' '/extension/config.h' '/extension/libtool' \
         '/po/Makefile.in' '/po/POTFILES' '/extension/po/Makefile.in' '/extension/po/POTFILES' \
         '/gawk' '/gawkbug'
}

build_jimtcl() {
  # autosetup-find-tclsh's own command for the bootstrap interpreter, under bear.
  bear -- cc -o jimsh0 autosetup/jimsh0.c || exit 1
  ./configure --full >/dev/null || exit 1
  grep -q '^Tclsh: .*/jimsh0$' config.log ||
    { echo "heldout: jimtcl: configure did not run with ./jimsh0" >&2; exit 1; }
  bear --append -- sh -c 'make -j2 && make -C examples.api' || exit 1
  require_files jimtcl jimautoconf.h jim-config.h libjim.a jimsh _load-static-exts.c \
    examples.api/jim_hello
  require_defines jimtcl jimautoconf.h JIM_SSL JIM_IPV6 JIM_MATH_FUNCTIONS JIM_UTF8 HAVE_FORK \
    jim_ext_aio jim_ext_json jim_ext_zlib jim_ext_tclprefix
  ignore '/examples.api/jim_command' '/examples.api/jim_hello' '/examples.api/jim_list' \
         '/examples.api/jim_obj' '/examples.api/jim_return'
}

build_prometheus_cpp() {
  cmake_build . -DUSE_THIRDPARTY_LIBRARIES=OFF -DENABLE_TESTING=ON -DENABLE_PULL=ON \
    -DENABLE_PUSH=ON -DENABLE_COMPRESSION=ON || exit 1
  grep -q '^benchmark_DIR:PATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: prometheus-cpp: Google benchmark not found" >&2; exit 1; }
  require_files prometheus-cpp build/core/include/prometheus/detail/core_export.h \
    build/pull/include/prometheus/detail/pull_export.h \
    build/push/include/prometheus/detail/push_export.h build/bin/prometheus_core_test \
    build/bin/prometheus_pull_test build/bin/benchmarks build/bin/sample_server
  cdb_from_build || exit 1
}

build_ninja() {
  cmake_build . -DBUILD_TESTING=ON || exit 1
  grep -q '"file": ".*/src/lexer\.cc"' build/compile_commands.json ||
    { echo "heldout: ninja-build: the lexer was generated again (re2c is installed)" >&2; exit 1; }
  require_files ninja-build build/build/browse_py.h build/ninja build/ninja_test \
    build/canon_perftest
  cdb_from_build || exit 1
}

# The tracked files that set 44's recipes change (none); the other sets' are
# changed_by_recipe_24_43's.
eval "changed_by_recipe_24_43() $(declare -f changed_by_recipe | tail -n +2)"
changed_by_recipe() {
  changed_by_recipe_24_43 "$1"
}

# The build_recipe of prepare-clang-heldout-set43.sh (sets 24 to 43) is kept as
# build_recipe_24_43; this one adds set 44's packages.
eval "build_recipe_24_43() $(declare -f build_recipe | tail -n +2)"
build_recipe() {
  case "$1" in
    gawk) build_gawk ;;
    jimtcl) build_jimtcl ;;
    prometheus-cpp) build_prometheus_cpp ;;
    ninja-build) build_ninja ;;
    *) build_recipe_24_43 "$1" ;;
  esac
}
