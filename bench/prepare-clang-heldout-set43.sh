# Sourced by bench/prepare-clang-heldout.sh after bench/prepare-clang-heldout-set42.sh: set 43's
# recipes, with what each builds, in a file of their own like set 42's. The build_recipe at the end
# of this file wraps the one of prepare-clang-heldout-set42.sh (sets 24 to 42), and
# changed_by_recipe is wrapped the same way. The recipes use the helpers of
# prepare-clang-heldout-recipes.sh (ignore, require_files, require_defines, cmake_build,
# cdb_from_build).
# shellcheck shell=bash

# Set 43's recipes. Like set 42's, each build step ends with || exit 1. What each one builds:
#   cpputest   CppUTest 4.0 (C++, a unit-test framework tested with itself). The tarball's root
#              .gitignore is "*" and "!.gitignore" (the one of its cpputest_build/ directory), so
#              fetch-corpus.sh's first commit holds that one file alone: the recipe first adds
#              every file of the tarball with git add -f and amends that first commit (which then
#              is the whole .orig tarball, as for the other code bases), and replaces the root
#              .gitignore with one that ignores cpputest_build/ (it is in "bench setup"). Then
#              CMake into cpputest_build/ (the tarball's own build directory; not build/, which
#              holds the tarball's hand-written makefiles) with the tests and the examples
#              (EXAMPLES=ON), without the test discovery that runs the test programs during the
#              build, then a build: CppUTest (src/CppUTest, src/Platforms/Gcc) and CppUTestExt
#              (src/CppUTestExt: mocks, memory reporter, ...), the test programs CppUTestTests and
#              CppUTestExtTests (tests/CppUTest, tests/CppUTestExt: TEST_GROUP, TEST and IGNORE_TEST
#              macros defining classes, some tests in .c files called from C++), and the examples
#              (examples/AllTests, examples/ApplicationLib): 109 entries over 109 files, C++ and C.
#              Every command line has -include MemoryLeakDetectorNewMacros.h and -include
#              MemoryLeakDetectorMallocMacros.h (MEMORY_LEAK_DETECTION: new, malloc, free, ...
#              become macros that record the file and line), -DHAVE_CONFIG_H and CPPUTEST_HAVE_*
#              options (FORK, GETTIMEOFDAY, PTHREAD_MUTEX_LOCK, STRDUP); CMake generates
#              cpputest_build/generated/CppUTestGeneratedConfig.h beside the tarball's autotools
#              generated/CppUTestGeneratedConfig.h. cpputest_build/compile_commands.json is copied
#              to the root. The autotools build, platforms/ and platforms_examples/, scripts/ and
#              the Visual Studio projects are not built or used
#   lame       LAME 3.100 (C, an MP3 encoder). ./configure with its defaults, then bear -- make -j2
#              in the tree: libmp3lame (shared and static: libtool compiles each object twice, with
#              -fPIC -DPIC and without, so each of the 29 files of libmp3lame/, its vector/ and
#              mpglib/ has two entries), with mpglib, the decoder (HAVE_MPGLIB), and the lame
#              program (frontend/): 66 entries over 37 files, all with -DHAVE_CONFIG_H. configure
#              generates config.h: 68 #defines (HAVE_* and SIZEOF_* macros, the A_INT32_T-style
#              integer types, and the build options DECODE_ON_THE_FLY, TAKEHIRO_IEEE754_HACK,
#              USE_FAST_LOG, HAVE_XMMINTRIN_H, which the recipe checks), which the sources test
#              in #if lines throughout (libmp3lame/machine.h, util.h, the SSE quantizer
#              vector/xmm_quantize_sub.c). The tarball has no .gitignore. mp3rtp, mp3x (GTK),
#              ACM/, Dll/, dshow/, macosx/, misc/ and the other makefiles are not built or used
#   libxcrypt  libxcrypt 4.4.33 (C, the crypt(3) library). ./autogen.sh (the tarball has no
#              configure script), ./configure --disable-static (so that libtool compiles each
#              library file once), then bear over make -j2 and make -j2 check TESTS= (which builds
#              the test programs without running them) in the tree: libcrypt.so (lib/: 34 files;
#              lib/gen-des-tables.c is a table generator compiled alone) and the test programs of
#              test/: 79 entries over 64 files. test/ka-tester.c has 16 entries, one per hashing
#              method, each with its own -DTEST_<method> (bcrypt, yescrypt, md5crypt, ...).
#              lib/alg-yescrypt-opt.c #includes lib/alg-yescrypt-platform.c whole (not compiled
#              on its own), and test/crypt-gost-yescrypt.c #includes ../lib/crypt-gost-yescrypt.c
#              whole (which is also compiled into the library) to reach its static functions.
#              configure generates config.h (54 #defines) and the build generates crypt.h,
#              xcrypt.h, crypt-symbol-vers.h and crypt-hashes.h (from lib/hashes.conf: the 16
#              INCLUDE_<method> macros, every method on, which the recipe checks some of, and the
#              crypt_<method>_rn renames), which the sources test in #if INCLUDE_* lines. The
#              tarball's .gitignore already ignores every output of autogen.sh, configure and
#              the build
#   nghttp2    nghttp2 1.52.0 (C, the HTTP/2 library). CMake into build/ with the CUnit tests
#              (Debian's libcunit1-dev 2.1-3), without the applications, the HPACK tools, the
#              examples, HTTP/3, the Python bindings and the documentation (their dependencies are
#              not installed, and the recipe pins them off), then a build of the library and of
#              the test programs main and failmalloc (EXCLUDE_FROM_ALL targets): libnghttp2
#              shared and nghttp2_static (which the tests link, with -DNGHTTP2_STATICLIB), so each
#              of the 23 files of lib/ has two entries, and the 17 files of tests/
#              (tests/nghttp2_test_helper.c twice): 64 entries over 40 files. CMake generates
#              build/config.h (from cmakeconfig.h.in: 21 #defines, HAVE_* and SIZEOF_*) and
#              build/lib/includes/nghttp2/nghttp2ver.h; every command has -DHAVE_CONFIG_H and
#              -DBUILDING_NGHTTP2. build/compile_commands.json is copied to the root. src/ (the
#              C++ applications), examples/, integration-tests/, python/, fuzz/, bpf/ and the
#              autotools build are not built or used
build_cpputest() {
  # The first commit holds the tarball's .gitignore alone (it ignores everything): every file of
  # the tarball is added to it, before anything is built.
  git add -f . || exit 1
  git "${git_c[@]}" commit -q --amend --no-edit || exit 1
  [ "$(git ls-files | wc -l)" -gt 100 ] ||
    { echo "heldout: cpputest: the first commit still lacks the tarball's files" >&2; exit 1; }
  printf '%s\n' '# nib bench setup: the tarball'"'"'s root .gitignore ignored everything ("*")' \
    '/cpputest_build/' > .gitignore
  cmake -S . -B cpputest_build -DTESTS=ON -DEXAMPLES=ON -DTESTS_BUILD_DISCOVER=OFF \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null || exit 1
  cmake --build cpputest_build -j2 || exit 1
  require_files cpputest cpputest_build/generated/CppUTestGeneratedConfig.h \
    cpputest_build/tests/CppUTest/CppUTestTests cpputest_build/tests/CppUTestExt/CppUTestExtTests \
    cpputest_build/examples/AllTests/ExampleTests
  cp cpputest_build/compile_commands.json compile_commands.json || exit 1
}

build_lame() {
  ./configure >/dev/null || exit 1
  bear -- make -j2 || exit 1
  require_files lame config.h frontend/lame libmp3lame/.libs/libmp3lame.so \
    libmp3lame/.libs/libmp3lame.a
  require_defines lame config.h HAVE_MPGLIB DECODE_ON_THE_FLY TAKEHIRO_IEEE754_HACK USE_FAST_LOG \
    HAVE_XMMINTRIN_H
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' 'Makefile' '/config.h' '/config.log' \
         '/config.status' '/libtool' '/stamp-h1' '/frontend/lame'
}

build_libxcrypt() {
  ./autogen.sh >/dev/null 2>&1 || exit 1
  ./configure --disable-static >/dev/null || exit 1
  bear -- sh -c 'make -j2 && make -j2 check TESTS=' || exit 1
  require_files libxcrypt config.h crypt.h crypt-hashes.h .libs/libcrypt.so test/ka-bcrypt \
    test/ka-yescrypt test/crypt-gost-yescrypt
  require_defines libxcrypt crypt-hashes.h INCLUDE_yescrypt INCLUDE_gost_yescrypt INCLUDE_bcrypt \
    INCLUDE_descrypt INCLUDE_sha512crypt INCLUDE_sunmd5
}

build_nghttp2() {
  cmake_build . -DENABLE_APP=OFF -DENABLE_HPACK_TOOLS=OFF -DENABLE_EXAMPLES=OFF \
    -DENABLE_HTTP3=OFF -DENABLE_PYTHON_BINDINGS=OFF -DENABLE_DOC=OFF -DENABLE_FAILMALLOC=ON \
    || exit 1
  cmake --build build -j2 --target main failmalloc || exit 1
  grep -q '^CUNIT_LIBRARY:FILEPATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: nghttp2: CUnit not found" >&2; exit 1; }
  require_files nghttp2 build/config.h build/lib/includes/nghttp2/nghttp2ver.h build/tests/main \
    build/tests/failmalloc
  cdb_from_build || exit 1
}

# The tracked files that set 43's recipes change; the other sets' are changed_by_recipe_24_42's.
eval "changed_by_recipe_24_42() $(declare -f changed_by_recipe | tail -n +2)"
changed_by_recipe() {
  case "$1" in
    cpputest) echo .gitignore ;;
    *) changed_by_recipe_24_42 "$1" ;;
  esac
}

# The build_recipe of prepare-clang-heldout-set42.sh (sets 24 to 42) is kept as
# build_recipe_24_42; this one adds set 43's packages.
eval "build_recipe_24_42() $(declare -f build_recipe | tail -n +2)"
build_recipe() {
  case "$1" in
    cpputest) build_cpputest ;;
    lame) build_lame ;;
    libxcrypt) build_libxcrypt ;;
    nghttp2) build_nghttp2 ;;
    *) build_recipe_24_42 "$1" ;;
  esac
}
