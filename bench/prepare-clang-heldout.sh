#!/usr/bin/env bash
# Prepares a held-out set of C/C++ code bases, Debian bookworm source packages on which nib's C
# and C++ answers are measured against clangd. They are never used for tuning, so that the
# measurement says how nib does on code it was not shaped around.
#   set 24 (issue 24; default DEST /tmp/held24): lz4 1.9.4, pcre2 10.42, libpng 1.6.39 and
#          leveldb 1.23, the packages lz4, pcre2, libpng1.6 and leveldb
#   set 25 (a second, fresh set; default DEST /tmp/held25): Lua 5.4.4, zlib 1.2.13, snappy 1.1.9
#          and expat 2.5.0, the packages lua5.4, zlib, snappy and expat
#   set 26 (a third, fresh set; default DEST /tmp/held26): jansson 2.14, yaml-cpp 0.7.0 and
#          brotli 1.0.9, the packages jansson, yaml-cpp (0.7.0+dfsg) and brotli
#   set 27 (a fourth, fresh set; default DEST /tmp/held27): c-ares 1.18.1, libconfig 1.5,
#          pugixml 1.13 and double-conversion 3.2.1, the packages c-ares, libconfig, pugixml and
#          double-conversion
#   set 28 (a fifth, fresh set; default DEST /tmp/held28): libev 4.33, glog 0.6.0, json-c 0.16
#          and tinyxml2 9.0.0, the packages libev, google-glog, json-c and tinyxml2
#          (9.0.0+dfsg)
#   set 29 (a sixth, fresh set; default DEST /tmp/held29): cJSON 1.7.15, libzip 1.7.3, Google
#          benchmark 1.7.1 and cmark 0.30.2, the packages cjson, libzip, benchmark and cmark
#   set 30 (a seventh, fresh set; default DEST /tmp/held30): utf8proc 2.8.0, LZO 2.10, Microsoft's
#          GSL 4.0.0 and LibYAML 0.2.5, the packages utf8proc, lzo2, ms-gsl and libyaml
#   set 31 (an eighth, fresh set; default DEST /tmp/held31): hiredis 0.14.1, FLAC 1.4.2, Jsonnet
#          0.18.0 and libdeflate 1.14, the packages hiredis, flac (1.4.2+ds), jsonnet (0.18.0+ds)
#          and libdeflate
#
# Each code base becomes DEST/<package>, a git repository whose first commit is the package's
# .orig tarball (made by bench/fetch-corpus.sh). The script then builds it once, because clangd
# needs a compilation database (compile_commands.json) and the headers that the build generates:
#   lz4        bear -- make -j2 (the library and the lz4 program)
#   pcre2      ./configure --enable-jit, then bear over make and make pcre2_jit_test
#   libpng1.6  CMake into build/ with the tests and executables, then a build (it generates
#              build/pnglibconf.h); build/compile_commands.json is copied to the root
#   leveldb    CMake into build/ with the tests, without the benchmarks, static, then a build;
#              build/compile_commands.json is copied to the root
#   lua5.4     bear -- make -j2 linux (src/liblua.a and the lua and luac programs: every .c file
#              of the tarball; bookworm's 5.4.4 tarball has no onelua.c)
#   zlib       ./configure, then bear -- make -j2 in the tree: the static and the shared library
#              (each library file compiled twice, the second time with -fPIC -DPIC), and
#              test/example.c and test/minigzip.c as example, minigzip, examplesh, minigzipsh and,
#              with -D_FILE_OFFSET_BITS=64, example64 and minigzip64; test/infcover.c, examples/
#              and contrib/minizip/ are not built. configure rewrites the tracked Makefile (a stub
#              that asks for ./configure) and zconf.h (from Makefile.in and zconf.h.in), so the
#              configured ones are in "bench setup"
#   snappy     CMake into build/ with the tests and the benchmark, then a build (it generates
#              build/config.h and build/snappy-stubs-public.h); build/compile_commands.json is
#              copied to the root. The fuzzers are not built
#   expat      CMake from expat/ into build/ with the tests (runtests, and runtestspp, which
#              compiles the C test suite as C++), xmlwf and the examples, without the man page,
#              then a build (it generates build/expat_config.h); build/compile_commands.json is
#              copied to the root. fuzz/, gennmtab/, tests/benchmark/ and xmlwf's ct.c,
#              xmlmime.c, unixfilemap.c and win32filemap.c are not built; lib/xmltok_impl.c and
#              lib/xmltok_ns.c are only #included by lib/xmltok.c
#   jansson    CMake into build/ with the test programs (the test_* of test/suites/api and
#              test/bin/json_process) and the example simple_parse, without the docs (Sphinx),
#              then a build. The tarball has configure.ac but no configure script; CMake's checks
#              generate build/include/jansson_config.h and build/private_include/
#              jansson_private_config.h (HAVE_CONFIG_H: 24 HAVE_* macros, USE_URANDOM and the
#              JSON_INLINE, json_int_t, JSON_HAVE_* and other configuration macros of the public
#              header). CMakeLists.txt is patched so that it no longer copies src/jansson.h to
#              build/include/ and puts src/ on the include path instead: the test programs'
#              <jansson.h> is then the tracked src/jansson.h, not a copy in build/.
#              build/compile_commands.json is copied to the root.
#              test/suites/api/test_version.c (only in the automake build), test/ossfuzz/ and
#              doc/github_commits.c are not built
#   yaml-cpp   CMake into build/ with the tests (test/yaml-cpp-tests, googletest and gmock), the
#              tools in util/ (parse, read, sandbox) and contrib/ in the library, then a build
#              (everything with -std=gnu++11, yaml-cpp's CXX_STANDARD 11, which Debian's
#              googletest 1.12.1 still accepts); build/compile_commands.json is copied to the
#              root. util/api.cpp is not built
#   brotli     CMake into build/ without the tests (they are ctest runs of the brotli program
#              over tests/testdata/, which the tarball lacks; no test code is compiled), then a
#              build: brotlicommon, brotlidec and brotlienc, each as a shared library (with
#              -DBROTLI_SHARED_COMPILATION and -DBROTLI<LIB>_SHARED_COMPILATION) and a static
#              one, so each file of c/common, c/dec and c/enc has two entries, and the brotli
#              program (c/tools/brotli.c); build/compile_commands.json is copied to the root.
#              python/_brotli.cc (the Python extension) is not built
#   c-ares     CMake into build/ with the tests, then a build: the shared library (src/lib), the
#              tools adig, ahost and acountry (src/tools, which compile some src/lib files again)
#              and the test programs: test/arestest (C++11, googletest and gmock 1.11.0, which
#              the tarball bundles as test/gmock-1.11.0/gmock-gtest-all.cc), aresfuzz,
#              aresfuzzname and dnsdump (test/dns-proto.cc twice). CMake's checks generate
#              build/ares_config.h (HAVE_CONFIG_H: 97 HAVE_* macros, the RECV_*, SEND_*,
#              GETNAMEINFO_* and other configuration macros; the test programs get the same file
#              again as build/test/config.h) and build/ares_build.h (the tarball also has an
#              include/ares_build.h); build/compile_commands.json is copied to the root. Every
#              .c and .cc file of the tarball is built
#   libconfig  ./configure, then bear -- make -j2 in the tree: libconfig and libconfig++ (the same
#              C files of lib/ again, and lib/libconfigcpp.c++ with g++; libtool compiles each
#              object twice, with -fPIC -DPIC and without, so each C file of lib/ has four
#              entries), tests/libconfig_tests (tinytest/), and the C and C++ examples in
#              examples/. configure generates ac_config.h (HAVE_CONFIG_H: 14 HAVE_* macros and the
#              PACKAGE_* ones). lib/grammar.c and lib/scanner.c are the tarball's bison and flex
#              outputs, not generated again; lib/libconfigcpp.cc (it only #includes
#              libconfigcpp.c++) and contrib/ are not built
#   pugixml    CMake into build/ with the tests (pugixml-check: tests/*.cpp but the fuzzers,
#              the tests' own framework in tests/test.hpp), static, then a build; no header is
#              generated (src/pugiconfig.hpp's PUGIXML_* configuration macros are all commented
#              out); build/compile_commands.json is copied to the root. docs/samples/ and
#              tests/fuzz_*.cpp are not built
#   double-conversion
#              CMake into build/ with the tests (test/cctest/cctest, the tests' own framework in
#              cctest.h, with the gay-*.cc tables of 10,000 to 100,000 lines), static, then a
#              build; build/compile_commands.json is copied to the root. Every .cc file of the
#              tarball is built. The tarball's .gitignore ignores compile_commands.json (and its
#              SCons Makefile, which the first commit therefore lacks): the setup adds the
#              compilation database with git add -f
#   libev      ./configure, then bear -- make -j2 in the tree: the one library, libev (libtool
#              compiles each object twice, with -fPIC -DPIC and without, so ev.c and event.c, the
#              libevent emulation, have two entries each; there are no tests). configure
#              generates config.h (HAVE_CONFIG_H: 29 HAVE_* macros, from which ev.c derives its
#              EV_USE_* ones). ev.c #includes the backends ev_epoll.c, ev_linuxaio.c,
#              ev_iouring.c, ev_poll.c and ev_select.c, each under its #if EV_USE_* (and, for
#              other systems, ev_kqueue.c, ev_port.c, ev_win32.c and an ev_iocp.c that the
#              tarball lacks), none of which is compiled on its own, and ev_vars.h and ev_wrap.h
#              several times; ev++.h (the C++ interface) is not compiled
#   google-glog
#              CMake into build/ with the tests, without gflags and libunwind (so that the build
#              does not depend on what else the machine has), then a build: the shared library
#              (its objects also make the static libglogtest that the tests link) and twelve test
#              programs with Debian's googletest and gmock 1.12.1 (HAVE_LIB_GTEST and
#              HAVE_LIB_GMOCK: src/googletest.h, the tests' own shim, then uses gtest, and
#              mock-log_unittest is built). CMake's checks generate build/config.h (from
#              src/config.h.cmake.in: 42 HAVE_* macros and the other configuration macros) and
#              build/glog/logging.h, raw_logging.h, stl_logging.h and vlog_is_on.h (from the
#              src/glog/*.h.in that the tarball has instead of these public headers; every
#              <glog/logging.h> of the sources is the generated one) and build/glog/export.h;
#              build/compile_commands.json is copied to the root. src/logging_striptest*.cc,
#              src/windows/, src/package_config_unittest/ (a ctest run builds it) and
#              bazel/example/ are not built
#   json-c     CMake into build/ with the tests, then a build: the shared and the static library
#              (each library file compiled twice), the test programs of tests/ (test1.c and test2.c
#              twice, the second time with -DTEST_FORMATTED=1 as test1Formatted and
#              test2Formatted; test_strerror and test_util_file compile strerror_override.c
#              again) and apps/json_parse, with json-c's -Werror. CMake's checks generate
#              build/config.h (from cmake/config.h.in: 44 HAVE_* macros and the other
#              configuration macros), build/json_config.h, build/json.h (from json.h.cmakein; the
#              tarball has no json.h) and build/apps/apps_config.h; build/compile_commands.json is
#              copied to the root. libjson.c (a compatibility stub), fuzz/ and the root's
#              autotools json_config.h.in are not built or used
#   tinyxml2   CMake into build/ with the test (xmltest), static, then a build: tinyxml2.cpp and
#              xmltest.cpp; no header is generated; build/compile_commands.json is copied to the
#              root. contrib/html5-printer.cpp and test/ (a find_package consumer) are not built
#   cjson      CMake into build/ with cJSON_Utils and the tests, then a build: the shared
#              libraries cjson (cJSON.c) and cjson_utils (cJSON_Utils.c), cJSON_test (test.c), the
#              Unity test programs of tests/ (18 on cJSON and 3 on cJSON_Utils, with the bundled
#              tests/unity/src/unity.c) and fuzzing/fuzz_main (fuzz_main.c and
#              cjson_read_fuzzer.c), all with cJSON's -std=c89 and -Werror; no header is
#              generated. tests/common.h #includes ../cJSON.c whole, so each of the 21 test
#              programs compiles cJSON.c again inside its own unit (and links the library as
#              well); build/compile_commands.json is copied to the root. tests/unity_setup.c (for
#              MSVC), fuzzing/afl.c and the rest of tests/unity/ (Unity's own examples, extras and
#              tests) are not built
#   libzip     CMake into build/ with the tools (zipcmp, zipmerge, ziptool), the regression test
#              programs of regress/ and the example in-memory, without the man pages, with OpenSSL
#              for the encryption (not GnuTLS or mbed TLS), bzip2 and LZMA, then a build: the
#              shared library (lib/, with zip_crypto_openssl.c, zip_algorithm_bzip2.c and
#              zip_algorithm_xz.c, and build/zip_err_str.c, which CMake writes from lib/zip.h's
#              ZIP_ER_* macros), the tools and the test programs. CMake's checks generate
#              build/config.h (from cmake-config.h.in: 20 HAVE_* macros defined and 28 left
#              #undef, among them HAVE_OPENSSL, HAVE_LIBBZ2 and HAVE_LIBLZMA, which the recipe
#              checks, and SIZEOF_OFF_T, SIZEOF_SIZE_T) and build/zipconf.h (from
#              cmake-zipconf.h.in: the zip_int*_t types, the ZIP_INT*_MIN and *_MAX limits and
#              LIBZIP_VERSION). regress/ziptool_regress.c #defines FOR_REGRESS and the hooks it
#              selects, then #includes src/ziptool.c whole (src/ziptool builds it on its own as
#              well); regress/fuzz_main.c #includes regress/zip_read_fuzzer.cc, which is not
#              compiled on its own; regress/source_hole.c is compiled twice (hole and
#              ziptool_regress). The build also unpacks the test archives into build/regress/;
#              build/compile_commands.json is copied to the root. The Windows, CommonCrypto,
#              GnuTLS and mbed TLS files of lib/, src/getopt.c (the C library has getopt),
#              regress/malloc.c and examples/windows-open.c are not built
#   benchmark  CMake into build/ with the tests, with Debian's googletest and gmock 1.12.1 instead
#              of a bundled copy (BENCHMARK_USE_BUNDLED_GTEST=OFF: find_package(GTest), as
#              Debian's own build does), without -Werror, libpfm and the assembly tests (which
#              need LLVM's FileCheck), static, then a build (-std=c++11): the library (src/, and
#              src/benchmark_main.cc as benchmark_main), the eight googletest programs
#              test/*_gtest.cc (linked with gmock_main) and the 29 test programs that run
#              benchmarks themselves (test/output_test_helper.cc the output tests' helper;
#              test/cxx03_test.cc with -std=c++98). git describe finds no tag, so the version is
#              project()'s 1.7.1; no header is generated (include/benchmark/export.h is in the
#              tarball); build/compile_commands.json is copied to the root. bindings/python/,
#              cmake/*.cpp (CMake's feature checks) and test/*_assembly_test.cc are not built.
#              The tarball's .gitignore ignores *.cmake, so the first commit lacks the four
#              cmake/Modules/Find*.cmake
#   cmark      CMake into build/ with the tests, then a build: libcmark twice, shared and static
#              (-DCMARK_STATIC_DEFINE), so each file of src/ but main.c has two entries, the cmark
#              program (src/main.c, with -DCMARK_STATIC_DEFINE) and api_test (api_test/main.c and
#              harness.c, and cplusplus.cpp with g++). CMake generates build/src/config.h (from
#              src/config.h.in: HAVE_STDBOOL_H, HAVE___BUILTIN_EXPECT, HAVE___ATTRIBUTE__ and the
#              CMARK_ATTRIBUTE, CMARK_INLINE and other macros they select), build/src/
#              cmark_version.h and build/src/cmark_export.h (generate_export_header's CMARK_EXPORT);
#              build/compile_commands.json is copied to the root. src/scanners.c is the tarball's
#              re2c output (13,656 lines; only cmark's Makefile, not CMake, runs re2c again);
#              src/utf8.c #includes the case-folding switch src/case_fold_switch.inc and
#              src/houdini_html_u.c the entity table src/entities.inc. test/ holds Python scripts
#              that ctest runs; test/cmark-fuzz.c (libFuzzer) is not built
#   utf8proc   CMake into build/ with the tests, static, then a build: utf8proc.c (-std=c99, the
#              test programs have no -std) and the nine test programs and the fuzzer (test/*.c but
#              iscase.c, which only the Makefile builds; each compiles test/tests.c again, so it
#              has nine entries). The configure step tries to download two Unicode test files
#              into build/data/ (ctest's input; offline it leaves them empty, and nothing is
#              compiled from them). The Makefile is not used: its test programs compile and link
#              in one command, and clangd 14 drops -std=c99 from such an entry. No header is
#              generated. utf8proc.c #includes utf8proc_data.c whole (16,925 lines of generated
#              tables, not compiled on its own); build/compile_commands.json is copied to the
#              root. bench/ and data/ (the Ruby and Julia table generators) are not built
#   lzo2       ./configure, then bear -- make -j2 in the tree: the static library only
#              (configure's default; src/*.c) and the noinst programs: examples/*.c,
#              lzotest/lzotest.c, tests/*.c and minilzo/testmini.c with minilzo/minilzo.c, a
#              6,365-line amalgamation of the library (-DMINILZO_HAVE_CONFIG_H). configure
#              generates config.h (-DLZO_HAVE_CONFIG_H: 114 #defines, 77 of them HAVE_*, and the
#              SIZEOF_* ones). src/*.c #include 19 .ch fragments (lzo1x_1.c lzo1x_c.ch, ...);
#              src/lzo1y_9x.c and lzo1z_9x.c #include lzo1x_9x.c whole, lzo1y_d3.c and lzo1z_d3.c
#              lzo1x_d3.c, which are compiled on their own as well. asm/ (i386 assembly) and B/
#              (DOS, OS/2 and Windows build scripts) are not built
#   ms-gsl     CMake into build/ with the tests, with Debian's googletest (tests/CMakeLists.txt's
#              pkg_search_module(gtest_main); it only downloads googletest when that fails, and
#              the recipe checks it did not), -std=c++17 (GSL_CXX_STANDARD 17; without it CMake
#              writes no -std at all), then a build: the library is header-only (include/gsl/,
#              headers without an extension), so the entries are the test programs gsl_tests
#              (12 tests/*.cpp) and gsl_noexcept_tests (no_exception_ensure_tests.cpp,
#              -fno-exceptions), with -Werror (clang 14 adds -Wmissing-braces errors in
#              span_tests.cpp and span_ext_tests.cpp that g++ does not). No header is generated;
#              the -isystem tests/googletest/googletest/include of each command names the missing
#              download; build/compile_commands.json is copied to the root
#   libyaml    CMake into build/ with the tests, static, then a build: src/*.c and the 13 programs
#              of tests/ (test-reader, test-version, run-*, example-*). CMake generates
#              build/include/config.h (HAVE_CONFIG_H: only the four YAML_VERSION_* macros) from
#              cmake/config.h.in, which the first commit lacks (the tarball's .gitignore ignores
#              config.h*); the autotools build (no configure in the tarball) is not used.
#              tests/run-emitter-test-suite.c #includes ../src/yaml_private.h;
#              build/compile_commands.json is copied to the root
#   hiredis    bear -- make -j2, then make hiredis-example, in the tree: libhiredis (shared and
#              static from the same objects: net.c, hiredis.c, sds.c, async.c, read.c, alloc.c),
#              hiredis-test (test.c; running it needs a redis-server) and examples/example.c
#              (compiled and linked in one command). No header is generated. async.c #includes
#              dict.c whole (its static hash table), which is not compiled on its own; adapters/
#              (the event-loop adapters, headers only) and the other examples (libevent, libev,
#              glib, ivykis, macOS, ae, libuv, Qt) are not built
#   flac       ./configure --disable-doxygen-docs --disable-version-from-git, then bear over
#              make -j2 and make -j2 -C src check (which builds the test programs of src/test_*
#              without running them) in the tree: libFLAC and libFLAC++ (shared only, configure's
#              default), flac, metaflac, the C and C++ examples, microbench/benchmark_residual
#              and the test programs (test_libFLAC, test_libFLAC++, test_seeking, test_streams,
#              test_cuesheet, test_picture), with libogg (FLAC__HAS_OGG, which the recipe checks).
#              configure generates config.h (HAVE_CONFIG_H: 28 HAVE_* macros defined and 23 left
#              #undef, and the FLAC__CPU_*, FLAC__HAS_*, FLAC__USE_*, SIZEOF_* and other
#              configuration macros) and test/common.sh. src/libFLAC/lpc.c, lpc_intrin_sse2.c,
#              lpc_intrin_fma.c, lpc_intrin_neon.c and lpc_intrin_vsx.c #include the
#              src/libFLAC/deduplication/*.c bodies whole, several times each under different
#              macros; none of them is compiled on its own. oss-fuzz/ (libFuzzer),
#              src/flac/iffscan.c, src/share/win_utf8_io/, src/share/utf8/charset_test.c and
#              makemap.c, and src/utils/ (flacdiff, flactimer) are not built
#   jsonnet    CMake into build/ with the tests, with Debian's googletest 1.12.1
#              (USE_SYSTEM_GTEST: find_package(GTest), which the recipe checks, instead of the
#              download), then a build: libjsonnet twice, shared and static, so each file of
#              core/ but the tests has two entries, libjsonnet++ (cpp/) twice as well, the
#              bundled rapidyaml (third_party/rapidyaml: ryml, with c4core, which is compiled a
#              second time as the c4core library), third_party/md5, the jsonnet and jsonnetfmt
#              programs (cmd/, cmd/utils.cpp twice), the googletest programs lexer_test,
#              parser_test, libjsonnet_test and libjsonnet++_test (-std=gnu++11 after the
#              project's -std=c++11) and the C test programs libjsonnet_test_file and
#              libjsonnet_test_snippet (-std=c99). The build compiles stdlib/to_c_array.cpp and
#              runs it to generate core/std.jsonnet.h in the tree (the standard library as one
#              line of character literals, which core/desugarer.cpp #includes inside an array
#              initializer; the tarball's .gitignore already ignores it);
#              build/compile_commands.json is copied to the root. The tarball's .gitignore
#              ignores Makefile and **/core.*, so the first commit lacks the root Makefile,
#              case_studies/fractal/Makefile and vs2017/core.vcxproj. python/_jsonnet.c (the
#              Python extension), case_studies/*/tilegen/mandelbrot.cpp and rapidyaml's and
#              c4core's own tests, benchmarks and examples (test/, bm/, examples/, the vendored
#              fast_float and debugbreak tests) are not built; test_suite/ holds jsonnet files
#              that ctest runs, and test_cmd/*.golden.*.cpp are expected outputs of the jsonnet
#              program, not C++
#   libdeflate bear -- make -j2 all test_programs in the tree: libdeflate, static and shared
#              (each file of lib/ compiled twice, the second time as *.shlib.o with -fPIC), the
#              programs gzip (gunzip a hard link to it), benchmark and checksum and the test
#              programs programs/test_*.c. make generates programs/config.h (scripts/detect.sh:
#              six HAVE_* macros for the programs) and .build-config. lib/*.c #include the
#              per-architecture lib/x86/*_impl.h (and, for ARM, lib/arm/*_impl.h), which
#              #include the templates lib/adler32_vec_template.h, lib/decompress_template.h and
#              lib/x86/crc32_pclmul_template.h several times with different target attributes;
#              lib/arm/cpu_features.c is compiled, but its body is under #if for ARM. scripts/
#              (the table generators and the AFL fuzzers) is not built
# leveldb's and snappy's CMakeLists.txt want googletest and Google benchmark as git submodules in
# third_party/, which the tarballs leave empty. The script patches them to use Debian's
# libgtest-dev, libgmock-dev and libbenchmark-dev instead: the two add_subdirectory lines become
# find_package calls, and the block that adds a warning option to the googletest targets (which
# no longer exist) is deleted. leveldb's test programs then link against -lgmock -lgtest
# -lbenchmark; snappy's name the imported targets instead (snappy_unittest GTest::gmock_main
# GTest::gtest, snappy_benchmark benchmark::benchmark_main), because Debian's libgmock_main.a
# and libbenchmark_main.a hold only main() and need gmock and benchmark linked after them.
# yaml-cpp's test/CMakeLists.txt wants the googletest 1.10.0 that Debian's +dfsg tarball strips
# from test/gtest-1.10.0/: the script patches it the same way, the add_subdirectory becomes
# find_package(GTest), the include_directories of the bundled headers is deleted, and
# yaml-cpp-tests links GTest::gmock GTest::gtest (Debian's 1.12.1) instead of gmock.
#
# A second commit, "bench setup", adds .nib.conf (calibration.idle-ms = 0), the compilation
# database at the root (both added with git add -f, since a tarball's .gitignore may list them),
# lines in the root .gitignore for every build output (object files, libraries, programs,
# generated headers such as pcre2's src/config.h and src/pcre2.h or libconfig's ac_config.h,
# build/), and the tracked files a recipe changed (leveldb's, snappy's and jansson's patched
# CMakeLists.txt, yaml-cpp's patched test/CMakeLists.txt, zlib's configured Makefile and
# zconf.h); afterwards git status is empty. Every "directory" and "file" of each compilation
# database is checked to lie inside DEST/<package>, and every "file" to exist.
#
# The script is idempotent: a code base whose last commit is "bench setup", with a compilation
# database at the root and a clean status (clangd's own index, an untracked .cache/ that a
# clangd run on the code base writes next to compile_commands.json, is allowed), is left alone.
# A partly prepared one is removed and fetched again. Missing build tools (bear, cmake,
# build-essential, zlib1g-dev, libgtest-dev, libgmock-dev, libbenchmark-dev, and libbz2-dev,
# liblzma-dev and libssl-dev for libzip, pkg-config for ms-gsl, libogg-dev for flac) are
# installed with apt-get, which needs root.
# Usage: bench/prepare-clang-heldout.sh [--set 24|25|26|27|28|29|30|31] [DEST]   (default: set 24, DEST /tmp/held<set>)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "usage: $0 [--set 24|25|26|27|28|29|30|31] [DEST]" >&2; exit 2; }
set_id=24
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --set) [ $# -ge 2 ] || usage; set_id=$2; shift 2 ;;
    --set=*) set_id=${1#--set=}; shift ;;
    -h|--help) usage ;;
    -*) usage ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -le 1 ] || usage
case "$set_id" in
  24) packages=(lz4 pcre2 libpng1.6 leveldb) ;;
  25) packages=(lua5.4 zlib snappy expat) ;;
  26) packages=(jansson yaml-cpp brotli) ;;
  27) packages=(c-ares libconfig pugixml double-conversion) ;;
  28) packages=(libev google-glog json-c tinyxml2) ;;
  29) packages=(cjson libzip benchmark cmark) ;;
  30) packages=(utf8proc lzo2 ms-gsl libyaml) ;;
  31) packages=(hiredis flac jsonnet libdeflate) ;;
  *) echo "heldout: unknown set $set_id (24, 25, 26, 27, 28, 29, 30 or 31)" >&2; exit 2 ;;
esac
dest=$(realpath -m "${args[0]:-/tmp/held$set_id}")
git_c=(-c user.name=nib-bench -c user.email=bench@nib -c commit.gpgsign=false)

need=()
for p in bear cmake build-essential zlib1g-dev libgtest-dev libgmock-dev libbenchmark-dev \
         libbz2-dev liblzma-dev libssl-dev pkg-config libogg-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "heldout: installing ${need[*]}" >&2
  apt-get -qq update >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get -qq install -y "${need[@]}" >/dev/null
fi

prepared() {
  local d=$1
  [ -d "$d/.git" ] && [ -f "$d/compile_commands.json" ] && [ -f "$d/.nib.conf" ] &&
    [ "$(git -C "$d" log -1 --format=%s 2>/dev/null)" = "bench setup" ] &&
    [ -z "$(git -C "$d" status --porcelain | grep -v -x -e '?? .cache/' || true)" ]
}

# Appends the build outputs of one code base to its root .gitignore.
ignore() {
  { echo; echo "# nib bench setup: build outputs"; printf '%s\n' "$@"; } >> .gitignore
}

# The tracked files that a package's recipe changes, one a line; "bench setup" commits them.
changed_by_recipe() {
  case "$1" in
    leveldb|snappy|jansson) echo CMakeLists.txt ;;
    yaml-cpp) echo test/CMakeLists.txt ;;
    zlib) printf '%s\n' Makefile zconf.h ;;
  esac
}

# Turns the add_subdirectory of an empty third_party/ submodule into a find_package of Debian's
# package (leveldb, snappy), and deletes the block that sets a warning option on the submodule's
# googletest targets. $1: the if() condition that block tests.
use_debian_gtest_benchmark() {
  sed -i \
    -e 's|^\(\s*\)add_subdirectory("third_party/googletest")|\1find_package(GTest REQUIRED)  # nib bench: Debian libgtest-dev, libgmock-dev|' \
    -e 's|^\(\s*\)add_subdirectory("third_party/benchmark")|\1find_package(benchmark REQUIRED)  # nib bench: Debian libbenchmark-dev|' \
    -e "/# GoogleTest triggers a missing field initializers warning./,/endif($1)/d" \
    CMakeLists.txt
}

# CMake from SRC into build/ with the arguments and a compilation database, then a build.
# Fails the build of package $1 unless each file after it exists (what its build generates).
require_files() {
  local pkg=$1 f
  shift
  for f; do [ -f "$f" ] || { echo "heldout: $pkg: no $f" >&2; exit 1; }; done
}

# Fails the build of package $1 unless configuration header $2 defines each macro after them
# (a dependency the build was meant to find).
require_defines() {
  local pkg=$1 header=$2 m
  shift 2
  for m; do grep -q "^#define $m" "$header" || { echo "heldout: $pkg: $header does not define $m" >&2; exit 1; }; done
}

cmake_build() {
  local src=$1
  shift
  cmake -S "$src" -B build "$@" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
  cmake --build build -j2
}

# The build's compilation database at the root; build/ ignored.
cdb_from_build() {
  cp build/compile_commands.json compile_commands.json
  ignore '/build/'
}

build_lz4() {
  bear -- make -j2
  ignore '*.o' '*.a' '*.so' '*.so.*' '/lz4' '/programs/lz4' '/programs/lz4c' '/programs/lz4cat' \
         '/programs/unlz4'
}

build_pcre2() {
  ./configure --enable-jit >/dev/null
  bear -- sh -c 'make -j2 && make -j2 pcre2_jit_test'
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' '.dirstamp' '/Makefile' '/config.log' \
         '/config.status' '/libtool' 'stamp-h1' '/src/config.h' '/src/pcre2.h' \
         '/src/pcre2_chartables.c' '/libpcre2-*.pc' '/pcre2-config' '/pcre2grep' '/pcre2test' \
         '/pcre2_jit_test' '/pcre2posix_test'
}

build_libpng() {
  cmake_build . -DPNG_TESTS=ON -DPNG_EXECUTABLES=ON
  require_files libpng build/pnglibconf.h
  cdb_from_build
}

build_leveldb() {
  # Debian's googletest and benchmark instead of the empty third_party submodules.
  use_debian_gtest_benchmark LEVELDB_HAVE_NO_MISSING_FIELD_INITIALIZERS
  grep -q 'find_package(GTest REQUIRED)' CMakeLists.txt && ! grep -q 'third_party/' CMakeLists.txt ||
    { echo "heldout: leveldb: the CMakeLists.txt patch did not apply" >&2; exit 1; }
  cmake_build . -DLEVELDB_BUILD_TESTS=ON -DLEVELDB_BUILD_BENCHMARKS=OFF -DBUILD_SHARED_LIBS=OFF
  cdb_from_build
}

build_lua() {
  bear -- make -j2 linux
  ignore '*.o' '*.a' '/src/lua' '/src/luac'
}

build_zlib() {
  ./configure >/dev/null
  bear -- make -j2
  ignore '*.o' '*.lo' '*.a' '*.so' '*.so.*' '/configure.log' '/zlib.pc' '/example' '/minigzip' \
         '/examplesh' '/minigzipsh' '/example64' '/minigzip64'
}

build_snappy() {
  # Debian's googletest and benchmark instead of the empty third_party submodules; the test
  # programs link the imported targets, which bring gmock and benchmark after the *_main libraries.
  use_debian_gtest_benchmark SNAPPY_HAVE_NO_MISSING_FIELD_INITIALIZERS
  sed -i \
    -e 's|^\(\s*target_link_libraries(snappy_unittest snappy_test_support\) gmock_main gtest)|\1 GTest::gmock_main GTest::gtest)  # nib bench|' \
    -e 's|^\(\s*target_link_libraries(snappy_benchmark snappy_test_support\) benchmark_main)|\1 benchmark::benchmark_main)  # nib bench|' \
    CMakeLists.txt
  grep -q 'find_package(GTest REQUIRED)' CMakeLists.txt && grep -q 'GTest::gmock_main GTest::gtest' CMakeLists.txt &&
    grep -q 'benchmark::benchmark_main' CMakeLists.txt && ! grep -q 'third_party/' CMakeLists.txt &&
    ! grep -q 'TARGET gtest' CMakeLists.txt ||
    { echo "heldout: snappy: the CMakeLists.txt patch did not apply" >&2; exit 1; }
  cmake_build . -DSNAPPY_BUILD_TESTS=ON -DSNAPPY_BUILD_BENCHMARKS=ON
  cdb_from_build
}

build_expat() {
  cmake_build expat -DEXPAT_BUILD_TESTS=ON -DEXPAT_BUILD_TOOLS=ON -DEXPAT_BUILD_EXAMPLES=ON \
        -DEXPAT_BUILD_DOCS=OFF
  require_files expat build/expat_config.h
  cdb_from_build
}

build_jansson() {
  # src/ on the include path instead of a copy of src/jansson.h in build/include/.
  sed -i \
    -e '/^# Copy the jansson.h file to the public include folder$/,/^\s*DESTINATION ${CMAKE_CURRENT_BINARY_DIR}\/include\/)$/c\# nib bench: no copy of src/jansson.h in build/include/; the programs include src/jansson.h itself\ninclude_directories (${CMAKE_CURRENT_SOURCE_DIR}/src)' \
    CMakeLists.txt
  grep -q '^include_directories (${CMAKE_CURRENT_SOURCE_DIR}/src)$' CMakeLists.txt &&
    ! grep -q '^file (COPY .*src/jansson.h' CMakeLists.txt ||
    { echo "heldout: jansson: the CMakeLists.txt patch did not apply" >&2; exit 1; }
  cmake_build . -DJANSSON_EXAMPLES=ON -DJANSSON_BUILD_DOCS=OFF
  [ -f build/include/jansson_config.h ] && [ -f build/private_include/jansson_private_config.h ] &&
    [ ! -e build/include/jansson.h ] ||
    { echo "heldout: jansson: unexpected generated headers in build/" >&2; exit 1; }
  cdb_from_build
}

build_yaml_cpp() {
  # Debian's googletest and gmock instead of the bundled test/gtest-1.10.0, which the +dfsg
  # tarball strips.
  sed -i \
    -e '/^add_subdirectory($/,/^  "${CMAKE_CURRENT_BINARY_DIR}\/prefix")$/c\find_package(GTest REQUIRED)  # nib bench: Debian libgtest-dev, libgmock-dev' \
    -e '/^include_directories(SYSTEM "${CMAKE_CURRENT_SOURCE_DIR}\/gtest-1.10.0\/googletest\/include")$/d' \
    -e 's|^\(\s*\)gmock)$|\1GTest::gmock GTest::gtest)  # nib bench: Debian gmock, gtest|' \
    test/CMakeLists.txt
  grep -q 'find_package(GTest REQUIRED)' test/CMakeLists.txt &&
    grep -q 'GTest::gmock GTest::gtest)' test/CMakeLists.txt && ! grep -q 'gtest-1.10.0' test/CMakeLists.txt ||
    { echo "heldout: yaml-cpp: the test/CMakeLists.txt patch did not apply" >&2; exit 1; }
  cmake_build . -DYAML_CPP_BUILD_TESTS=ON -DYAML_CPP_BUILD_TOOLS=ON -DYAML_CPP_BUILD_CONTRIB=ON
  cdb_from_build
}

build_brotli() {
  cmake_build . -DBROTLI_DISABLE_TESTS=ON
  cdb_from_build
}

build_c_ares() {
  cmake_build . -DCARES_BUILD_TESTS=ON -DCARES_BUILD_TOOLS=ON
  require_files c-ares build/ares_config.h build/ares_build.h
  cdb_from_build
}

build_libconfig() {
  ./configure >/dev/null
  bear -- make -j2
  require_files libconfig ac_config.h
  ignore '*.o' '*.lo' '*.la' '*.a' '.libs/' '.deps/' 'Makefile' '/ac_config.h' '/config.log' \
         '/config.status' '/libtool' '/stamp-h1' '/lib/libconfig.pc' '/lib/libconfig++.pc' \
         '/tests/libconfig_tests' '/examples/c/example[1-3]' '/examples/c++/example[1-4]'
}

build_pugixml() {
  cmake_build . -DBUILD_TESTING=ON -DPUGIXML_BUILD_TESTS=ON -DBUILD_SHARED_LIBS=OFF
  cdb_from_build
}

build_double_conversion() {
  cmake_build . -DBUILD_TESTING=ON -DBUILD_SHARED_LIBS=OFF
  cdb_from_build
}

build_libev() {
  ./configure >/dev/null
  bear -- make -j2
  require_files libev config.h
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' '/Makefile' '/config.h' '/config.log' \
         '/config.status' '/libtool' '/stamp-h1'
}

build_glog() {
  cmake_build . -DBUILD_TESTING=ON -DWITH_GTEST=ON -DWITH_GMOCK=ON -DWITH_GFLAGS=OFF -DWITH_UNWIND=OFF
  require_files google-glog build/config.h build/glog/logging.h
  require_defines google-glog build/config.h HAVE_LIB_GTEST HAVE_LIB_GMOCK  # Debian's googletest and gmock
  cdb_from_build
}

build_json_c() {
  cmake_build . -DBUILD_TESTING=ON
  require_files json-c build/config.h build/json_config.h build/json.h
  cdb_from_build
}

build_tinyxml2() {
  cmake_build . -DBUILD_TESTING=ON -Dtinyxml2_BUILD_TESTING=ON -DBUILD_SHARED_LIBS=OFF
  cdb_from_build
}

build_cjson() {
  cmake_build . -DENABLE_CJSON_UTILS=ON -DENABLE_CJSON_TEST=ON
  cdb_from_build
}

build_libzip() {
  # OpenSSL for the encryption (not GnuTLS, which the machine may also have), bzip2 and LZMA.
  cmake_build . -DBUILD_TOOLS=ON -DBUILD_REGRESS=ON -DBUILD_EXAMPLES=ON -DBUILD_DOC=OFF \
        -DENABLE_OPENSSL=ON -DENABLE_GNUTLS=OFF -DENABLE_MBEDTLS=OFF -DENABLE_COMMONCRYPTO=OFF \
        -DENABLE_WINDOWS_CRYPTO=OFF -DENABLE_BZIP2=ON -DENABLE_LZMA=ON
  require_files libzip build/config.h build/zipconf.h
  require_defines libzip build/config.h HAVE_OPENSSL HAVE_LIBBZ2 HAVE_LIBLZMA
  cdb_from_build
}

build_benchmark() {
  cmake_build . -DBENCHMARK_ENABLE_TESTING=ON -DBENCHMARK_ENABLE_GTEST_TESTS=ON \
        -DBENCHMARK_USE_BUNDLED_GTEST=OFF -DBENCHMARK_ENABLE_WERROR=OFF \
        -DBENCHMARK_ENABLE_ASSEMBLY_TESTS=OFF -DBENCHMARK_ENABLE_LIBPFM=OFF -DBUILD_SHARED_LIBS=OFF
  cdb_from_build
}

build_cmark() {
  cmake_build . -DCMARK_TESTS=ON -DCMARK_SHARED=ON -DCMARK_STATIC=ON
  require_files cmark build/src/config.h build/src/cmark_export.h build/src/cmark_version.h
  cdb_from_build
}

build_utf8proc() {
  cmake_build . -DUTF8PROC_ENABLE_TESTING=ON
  cdb_from_build
}

build_lzo2() {
  ./configure >/dev/null
  bear -- make -j2
  require_files lzo2 config.h
  require_defines lzo2 config.h HAVE_STRING_H HAVE_MEMCMP SIZEOF_LONG SIZEOF_SIZE_T
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' '.dirstamp' '/Makefile' '/config.h' '/config.log' \
         '/config.status' '/libtool' '/stamp-h1' '/lzo2.pc' '/examples/*' '!/examples/*.[ch]' \
         '/lzotest/lzotest' '/tests/align' '/tests/chksum' '/tests/promote' '/tests/sizes' \
         '/minilzo/testmini'
}

build_ms_gsl() {
  # Debian's googletest (gtest_main.pc), not the download the tests fall back to; -std=c++17 on
  # every command (g++'s default, which cxx_std_14 alone leaves implicit; clang 14's is gnu++14).
  cmake_build . -DGSL_TEST=ON -DGSL_CXX_STANDARD=17 -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
  grep -q '^GTestMain_FOUND:INTERNAL=1$' build/CMakeCache.txt ||
    { echo "heldout: ms-gsl: Debian's gtest_main not found" >&2; exit 1; }
  cdb_from_build
}

build_libyaml() {
  cmake_build . -DBUILD_TESTING=ON
  require_files libyaml build/include/config.h
  cdb_from_build
}

build_hiredis() {
  bear -- sh -c 'make -j2 && make -j2 hiredis-example'
  ignore '*.o' '*.a' '*.so' '*.so.*' '/hiredis.pc' '/hiredis-test' '/examples/hiredis-example'
}

build_flac() {
  ./configure --disable-doxygen-docs --disable-version-from-git >/dev/null
  bear -- sh -c 'make -j2 && make -j2 -C src check'
  require_files flac config.h
  require_defines flac config.h FLAC__HAS_OGG HAVE_ICONV SIZEOF_OFF_T
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' '.dirstamp' 'Makefile' '/config.h' '/config.log' \
         '/config.status' '/libtool' '/stamp-h1' '/doc/Doxyfile' '/test/common.sh' \
         '/src/libFLAC/flac.pc' '/src/libFLAC++/flac++.pc' '/src/flac/flac' \
         '/src/metaflac/metaflac' \
         '/microbench/benchmark_residual' '/examples/c/decode/file/example_c_decode_file' \
         '/examples/c/encode/file/example_c_encode_file' \
         '/examples/cpp/decode/file/example_cpp_decode_file' \
         '/examples/cpp/encode/file/example_cpp_encode_file' \
         '/src/test_grabbag/cuesheet/test_cuesheet' '/src/test_grabbag/picture/test_picture' \
         '/src/test_libFLAC/test_libFLAC' '/src/test_libFLAC++/test_libFLAC++' \
         '/src/test_seeking/test_seeking' '/src/test_streams/test_streams'
}

build_jsonnet() {
  # Debian's googletest, not the download that the tests otherwise build.
  cmake_build . -DBUILD_TESTS=ON -DUSE_SYSTEM_GTEST=ON
  grep -q '^GTest_DIR:PATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: jsonnet: Debian's googletest not found" >&2; exit 1; }
  require_files jsonnet core/std.jsonnet.h
  cdb_from_build
  ignore '/core/std.jsonnet.h'
}

build_libdeflate() {
  bear -- make -j2 all test_programs
  require_files libdeflate programs/config.h
  ignore '*.o' '*.a' '*.so' '*.so.*' '/.build-config' '/programs/config.h' '/gzip' '/gunzip' \
         '/benchmark' '/checksum' '/test_*'
}

# Fails unless every entry's directory and file lie inside the code base and the file exists.
check_cdb() {
  python3 - "$1" <<'EOF'
import json, os, sys
root = os.path.realpath(sys.argv[1])
entries = json.load(open(os.path.join(root, "compile_commands.json")))
if not entries:
    sys.exit("heldout: %s: empty compilation database" % root)
for e in entries:
    d = os.path.realpath(e["directory"])
    f = os.path.realpath(os.path.join(d, e["file"]))
    for p in (d, f):
        if p != root and not p.startswith(root + os.sep):
            sys.exit("heldout: %s: entry outside the code base: %s" % (root, p))
    if not os.path.isfile(f):
        sys.exit("heldout: %s: entry for a missing file: %s" % (root, f))
print("heldout: %s: %d entries" % (os.path.basename(root), len(entries)), file=sys.stderr)
EOF
}

mkdir -p "$dest"
for pkg in "${packages[@]}"; do
  d="$dest/$pkg"
  if prepared "$d"; then
    echo "heldout: $pkg already prepared" >&2
    continue
  fi
  if [ -e "$d" ]; then
    echo "heldout: $pkg partly prepared; fetching it again" >&2
    rm -rf "$d"
  fi
  NIB_CORPUS_DIR="$dest" "$here/fetch-corpus.sh" "$pkg"
  [ -d "$d/.git" ] || { echo "heldout: cannot fetch $pkg" >&2; exit 1; }
  echo "heldout: building $pkg" >&2
  (
    cd "$d"
    case "$pkg" in
      lz4) build_lz4 ;;
      pcre2) build_pcre2 ;;
      libpng1.6) build_libpng ;;
      leveldb) build_leveldb ;;
      lua5.4) build_lua ;;
      zlib) build_zlib ;;
      snappy) build_snappy ;;
      expat) build_expat ;;
      jansson) build_jansson ;;
      yaml-cpp) build_yaml_cpp ;;
      brotli) build_brotli ;;
      c-ares) build_c_ares ;;
      libconfig) build_libconfig ;;
      pugixml) build_pugixml ;;
      double-conversion) build_double_conversion ;;
      libev) build_libev ;;
      google-glog) build_glog ;;
      json-c) build_json_c ;;
      tinyxml2) build_tinyxml2 ;;
      cjson) build_cjson ;;
      libzip) build_libzip ;;
      benchmark) build_benchmark ;;
      cmark) build_cmark ;;
      utf8proc) build_utf8proc ;;
      lzo2) build_lzo2 ;;
      ms-gsl) build_ms_gsl ;;
      libyaml) build_libyaml ;;
      hiredis) build_hiredis ;;
      flac) build_flac ;;
      jsonnet) build_jsonnet ;;
      libdeflate) build_libdeflate ;;
    esac
  ) > "$dest/$pkg.build.log" 2>&1 || { echo "heldout: $pkg: build failed, see $dest/$pkg.build.log" >&2; exit 1; }
  check_cdb "$d"
  echo 'calibration.idle-ms = 0' > "$d/.nib.conf"
  # Only the setup's own files may show up; anything else is a build output missing from .gitignore.
  expected=(-e '?? .nib.conf' -e '?? compile_commands.json' -e ' M .gitignore' -e '?? .gitignore')
  for f in $(changed_by_recipe "$pkg"); do expected+=(-e " M $f"); done
  stray=$(git -C "$d" status --porcelain | grep -v -x "${expected[@]}" || true)
  if [ -n "$stray" ]; then
    echo "heldout: $pkg: unexpected changes after the build:" >&2; echo "$stray" >&2; exit 1
  fi
  git -C "$d" add -A
  # Forced: a tarball's own .gitignore may ignore them (double-conversion's ignores
  # compile_commands.json).
  git -C "$d" add -f compile_commands.json .nib.conf
  git -C "$d" "${git_c[@]}" commit -qm "bench setup"
  if [ -n "$(git -C "$d" status --porcelain)" ]; then
    echo "heldout: $pkg: git status is not empty after the setup commit" >&2; exit 1
  fi
  git -C "$d" ls-files --error-unmatch compile_commands.json .nib.conf >/dev/null 2>&1 ||
    { echo "heldout: $pkg: the setup commit lacks compile_commands.json or .nib.conf" >&2; exit 1; }
done
