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
#   set 32 (a ninth, fresh set; default DEST /tmp/held32): libjpeg-turbo 2.1.5, cpp-jwt 1.4, Opus
#          1.3.1 and TagLib 1.13, the packages libjpeg-turbo, cpp-jwt (1.4+ds), opus and taglib
#   set 33 (a tenth, fresh set; default DEST /tmp/held33): MuJS 1.3.2, JsonCpp 1.9.5, Nettle 3.8.1
#          and spdlog 1.10.0, the packages mujs, libjsoncpp, nettle and spdlog (1.10.0+ds)
#   set 34 (an eleventh, fresh set; default DEST /tmp/held34): Oniguruma 6.9.8, libwebm 1.0.0.29,
#          libSRTP 2.5.0 and GeographicLib 2.1.2, the packages libonig, libwebm, libsrtp2 and
#          geographiclib
#   set 35 (a twelfth, fresh set; default DEST /tmp/held35): FreeType 2.12.1, XZ Utils 5.4.1,
#          libyuv (LIBYUV_VERSION 1857, git b2528b0 of 2023-01-23) and WABT 1.0.32, the packages
#          freetype (2.12.1+dfsg), xz-utils, libyuv (0.0~git20230123.b2528b0) and wabt
#   set 36 (a thirteenth, fresh set; default DEST /tmp/held36): RE2 2022-06-01, LibTomMath 1.2.0,
#          Tiny C Compiler 0.9.27 (git 62c30a4a of 2020-08-14) and LMDB 0.9.24, the packages re2
#          (20220601+dfsg), libtommath, tcc (0.9.27+git20200814.62c30a4a) and lmdb. LibTomMath
#          stands in for mpdecimal, which bookworm does not have (it has no source package
#          there; python3.11 bundles its own libmpdec). What their recipes build is described in
#          bench/prepare-clang-heldout-recipes.sh, beside the recipes, for lack of room here
#   set 37 (a fourteenth, fresh set; default DEST /tmp/held37): Tkrzw 1.0.25, libevent 2.1.12,
#          LuaJIT 2.1.0-beta3 (git of 2022-03-20) and SRT 1.5.1, the packages tkrzw, libevent,
#          luajit (2.1.0~beta3+git20220320+dfsg) and srt
#   set 38 (a fifteenth, fresh set; default DEST /tmp/held38): socat 1.7.4.4, jemalloc 5.3.0,
#          ZeroMQ 4.3.4 and Draco 1.5.5, the packages socat, jemalloc, zeromq3 and draco
#          (1.5.5+dfsg)
#   set 39 (a sixteenth, fresh set; default DEST /tmp/held39): tree-sitter 0.20.7, msgpack-c 4.0.0
#          (the C library), Mbed TLS 2.28.3 and Exiv2 0.27.6, the packages tree-sitter,
#          msgpack-c, mbedtls and exiv2. msgpack-c stands in for uriparser and exiv2 for cctz
#          (and crc32c, which bookworm does not have): this mirror lacks uriparser's and cctz's
#          .orig tarballs
#   set 40 (a seventeenth, fresh set; default DEST /tmp/held40): wolfSSL 5.5.4, RapidJSON 1.1.0,
#          GNU libmicrohttpd 0.9.75 and dav1d 1.0.0, the packages wolfssl, rapidjson
#          (1.1.0+dfsg2), libmicrohttpd and dav1d
#   set 41 (an eighteenth, fresh set; default DEST /tmp/held41): x264 0.164.3095 (git baee400),
#          mpg123 1.31.2, CLI11 2.1.2 and libwebp 1.2.4, the packages x264
#          (2:0.164.3095+gitbaee400), mpg123, cli11 (2.1.2+ds) and libwebp. Sets 37's to 41's
#          recipes, and what each builds, are in bench/prepare-clang-heldout-sets.sh
#   set 42 (a nineteenth, fresh set; default DEST /tmp/held42): libsodium 1.0.18, libssh 0.10.6,
#          glslang 12.0.0 and libxml2 2.9.14, the packages libsodium, libssh, glslang and libxml2
#          (2.9.14+dfsg). Set 42's recipes, and what each builds, are in
#          bench/prepare-clang-heldout-set42.sh. uriparser, gumbo-parser, libtins, cpu-features
#          and pistache were passed over: this mirror lacks their .orig tarballs
#   set 43 (a twentieth, fresh set; default DEST /tmp/held43): CppUTest 4.0, LAME 3.100,
#          libxcrypt 4.4.33 and nghttp2 1.52.0, the packages cpputest, lame, libxcrypt and
#          nghttp2. Set 43's recipes, and what each builds, are in
#          bench/prepare-clang-heldout-set43.sh. zxing-cpp and chibi-scheme were passed over:
#          this mirror lacks their .orig tarballs
#   set 44 (a twenty-first, fresh set; default DEST /tmp/held44): GNU awk 5.2.1, Jim Tcl 0.81,
#          prometheus-cpp 1.0.1 and Ninja 1.11.1, the packages gawk, jimtcl (0.81+dfsg0),
#          prometheus-cpp and ninja-build. Set 44's recipes, and what each builds, are in
#          bench/prepare-clang-heldout-set44.sh. cpuinfo, spatialindex, ignition-math and libnop
#          were passed over: this mirror lacks their .orig tarballs; zimg too: its +ds1 tarball
#          lacks test/extra/ (googletest, musl-libm, sha1), without which its unit tests do not
#          build
#   set 45 (a twenty-second, fresh set; default DEST /tmp/held45): chrony 4.3, nanomsg 1.1.5,
#          {fmt} 9.1.0 and Box2D 2.4.1, the packages chrony, nanomsg (1.1.5+dfsg), fmtlib
#          (9.1.0+ds1) and box2d. Set 45's recipes, and what each builds, are in
#          bench/prepare-clang-heldout-set45.sh. ccache, opencc, re2c, libsigc++-3.0, octomap and
#          marisa were passed over: this mirror lacks their .orig tarballs
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
#   libjpeg-turbo
#              CMake into build/ without the SIMD extensions (on x86-64 they are NASM assembly,
#              which clangd does not read; jsimd_none.c stands in for them), the Java wrapper and
#              the fuzzers, then a build: libjpeg and libturbojpeg, each shared and static
#              (libturbojpeg compiles the libjpeg files again, so each of those has four entries),
#              cjpeg, djpeg, jpegtran, rdjpgcom, wrjpgcom, tjbench, tjexample and the test programs
#              tjunittest, jcstest, strtest and md5cmp (the *-static programs compile their own
#              sources a second time). CMake generates build/jconfig.h (the *_CODING_SUPPORTED
#              macros, which the recipe checks, MEM_SRCDST_SUPPORTED and BITS_IN_JSAMPLE),
#              build/jconfigint.h (INLINE, THREAD_LOCAL, SIZEOF_SIZE_T, HAVE_BUILTIN_CTZL,
#              FALLTHROUGH) and build/jversion.h from the tarball's *.h.in;
#              build/compile_commands.json is copied to the root. jccolor.c #includes jccolext.c
#              and jdcolor.c jdcolext.c seven times each, under other RGB_* macros every time,
#              jdcolor.c jdcol565.c twice, jdmerge.c jdmrgext.c seven times and jdmrg565.c twice,
#              and jcparam.c and jdhuff.c both #include jstdhuff.c; none of these six is compiled
#              on its own. simd/ (NASM, and C intrinsics for ARM, MIPS and PowerPC), fuzz/, java/
#              and turbojpeg-jni.c are not built
#   cpp-jwt    CMake into build/ with the tests and the examples, with Debian's googletest 1.12.1
#              and nlohmann-json 3.11.2 (find_package; the recipe checks that both come from /usr)
#              instead of the vendored json.hpp, which the +ds tarball strips, then a build
#              (-std=gnu++14): the library is header-only (include/jwt/*.hpp, five of which
#              #include their implementation, include/jwt/impl/*.ipp, at their end), so the
#              entries are the seven googletest programs of tests/ and the three examples, all
#              with OpenSSL 3 (its deprecated RSA and EC calls warn). No header is generated;
#              build/compile_commands.json is copied to the root. include/jwt/test/ (older tests
#              built by hand, see its compile.txt) and include/jwt/json/test_json.cc are not
#              built. The tarball's project() still says 1.2.0
#   opus       ./configure --enable-custom-modes --disable-doc (custom modes as Debian's own build
#              has them), then bear -- make -j2 check TESTS= in the tree, which builds the test
#              programs without running them: libopus (shared and static; libtool compiles each
#              object twice, with -fPIC -DPIC and without), opus_demo, opus_custom_demo,
#              opus_compare, repacketizer_demo and the test programs tests/test_opus_*,
#              celt/tests/test_unit_* and silk/tests/test_unit_LPC_inv_pred_gain. configure
#              generates config.h (HAVE_CONFIG_H: 33 macros defined and 31 left #undef; the
#              recipe checks CUSTOM_MODES, OPUS_HAVE_RTCD, OPUS_X86_MAY_HAVE_SSE4_1 and
#              VAR_ARRAYS; the OPUS_X86_MAY_HAVE_* and OPUS_X86_PRESUME_* macros select the SSE
#              code and its run-time dispatch, and FIXED_POINT, DISABLE_FLOAT_API, USE_ALLOCA,
#              FUZZING and the OPUS_ARM_* ones are left #undef). celt/x86/*_sse4_1.c and
#              silk/x86/*_sse4_1.c are compiled with -msse4.1. celt/tests/test_unit_*.c #include
#              the celt .c files they test (entcode.c, entenc.c, entdec.c, cwrs.c, laplace.c,
#              mathops.c, ...), which are compiled on their own as well. The floating-point build
#              leaves silk/fixed/ unbuilt; celt/arm/, silk/arm/ (NEON), celt/mips/ and silk/mips/
#              (headers only) and doc/trivial_example.c are not built either
#   taglib     CMake into build/ with the tests, the examples and the C bindings, then a build:
#              libtag, static (taglib's default), from every .cpp of taglib/ (the toolkit and the
#              ID3, APE, ASF, FLAC, MP4, MPC, Ogg, RIFF, tracker and other formats, each in its own
#              namespace, with classes of the same name, File, Tag and Properties, in many
#              directories, all of them on the include path), bindings/c (tag_c), the five
#              examples and tests/test_runner (main.cpp and 38 cppunit test files, with Debian's
#              libcppunit-dev). CMake's checks generate build/config.h (HAVE_CONFIG_H: HAVE_ZLIB,
#              which the recipe checks, HAVE_GCC_BYTESWAP, HAVE_GCC_ATOMIC, HAVE_VSNPRINTF and
#              TESTS_DIR) and build/taglib_config.h (TAGLIB_WITH_ASF, TAGLIB_WITH_MP4);
#              build/compile_commands.json is copied to the root. toolkit/tlist.h and tmap.h
#              #include their template bodies, tlist.tcc and tmap.tcc; 3rdparty/utf8-cpp is
#              header-only. No command names a -std (g++ 12 defaults to gnu++17, clang 14 to
#              gnu++14). Every .cpp and .c file of the tarball is built. The tarball's .gitignore
#              ignores .* (itself among them), so the first commit lacks .gitignore, .astylerc,
#              .editorconfig and .github/
#   mujs       bear -- make -j2 (the default target, shell) in the tree: build/release/libmujs.a
#              from one.c, which #includes the 26 library .c files (js*.c, regexp.c, utf.c), none of
#              which is compiled on its own, and the programs mujs (main.c, with readline,
#              -DHAVE_READLINE) and mujs-pp (pp.c): three entries, all with -std=c99. No header is
#              generated: astnames.h and opnames.h (the Makefile's greps over jsparse.h and
#              jscompile.h) and utfdata.h (genucd.py's tables, which utf.c #includes) are in the
#              tarball. The shared library (make shared: one.c compiled and linked in one command)
#              is not built; tools/ holds the test262 runner, a shell script and its harness
#   libjsoncpp CMake into build/ with the tests and the examples, without the post-build run of the
#              tests, then a build (-std=c++11): the library three times, jsoncpp_lib (shared,
#              -DJSON_DLL_BUILD), jsoncpp_static and jsoncpp_object, so each of src/lib_json's
#              json_reader.cpp, json_value.cpp and json_writer.cpp has three entries; the test
#              programs jsoncpp_test (src/test_lib_json: main.cpp, 3,971 lines of tests, fuzz.cpp
#              and the tests' own framework, jsontest.cpp and jsontest.h) and jsontestrunner_exe
#              (src/jsontestrunner/main.cpp, the reader of test/data's cases, which ctest runs) and
#              the four programs of example/. No header is generated (include/json/version.h is in
#              the tarball). json_value.cpp #includes json_valueiterator.inl (ValueIteratorBase and
#              its subclasses), which is not compiled on its own; build/compile_commands.json is
#              copied to the root. The tarball's .gitignore ignores compile_commands.json (the setup
#              adds it with git add -f). amalgamate.py, the Meson and Bazel builds and the Python
#              scripts of test/ are not used
#   nettle     ./configure --disable-assembler --disable-documentation, then bear over make -j2 and
#              a build of the test programs without running them (make -j2 -C testsuite of a rule,
#              read from stdin, that depends on $(TS_ALL) and $(EXTRA_TARGETS)), in the tree:
#              libnettle and libhogweed (Debian's libgmp-dev: HAVE_LIBGMP and WITH_HOGWEED, which
#              the recipe checks), shared and static from the same -fpic objects, so each file has
#              one entry; the tools (sexp-conv, nettle-hash, nettle-pbkdf2, nettle-lfib-stream,
#              pkcs1-conv), the examples (nettle-benchmark with its OpenSSL glue, WITH_OPENSSL,
#              which the recipe checks; hogweed-benchmark, ecc-benchmark, rsa-*, base16*, base64*,
#              random-prime) and the test programs (testsuite/*-test.c with testutils.c,
#              cxx-test.cxx with g++, sha1-huge-test.c and dlopen-test.c). Without the assembler
#              the C files that x86_64/*.asm would replace (aes-*-internal.c, memxor.c,
#              sha*-compress.c, ...) are compiled, and configure generates config.h (HAVE_CONFIG_H:
#              40 #defines, 26 of them HAVE_*, and 60 left #undef, among them every
#              HAVE_NATIVE_* that would select an assembly routine over the C one;
#              HAVE_VALGRIND_MEMCHECK_H follows the machine), config.make, config.m4 and version.h.
#              The build compiles eccdata.c, which #includes mini-gmp.c whole, and runs it to
#              generate ecc-curve25519.h, ecc-curve448.h, ecc-gost-gc256b.h, ecc-gost-gc512a.h and
#              ecc-secp{192,224,256,384,521}r1.h, the tables that ecc-<curve>.c #include.
#              testsuite/testutils.c #includes mini-gmp.c too, but only without hogweed. The fat
#              builds' fat-*.c, mini-gmp.c on its own, the table generators aesdata.c, desdata.c,
#              gcmdata.c, shadata.c and twofishdata.c, and sha-example.c are not built; the
#              assembly directories (x86_64/, arm/, arm64/, powerpc64/, s390x/, sparc*/, x86/) are
#              not used
#   spdlog     CMake into build/ with the tests and the example, with Debian's fmt 9.1.0
#              (SPDLOG_FMT_EXTERNAL: find_package(fmt), which the recipe checks; the +ds tarball
#              strips the bundled copy, include/spdlog/fmt/bundled/) and without PkgConfig (so that
#              libsystemd is never looked for and tests/test_systemd.cpp is left out whatever the
#              machine has), then a build (-std=c++11): the static library in its compiled form
#              (-DSPDLOG_COMPILED_LIB: src/spdlog.cpp, stdout_sinks.cpp, color_sinks.cpp,
#              file_sinks.cpp, async.cpp and cfg.cpp #include the 22 *-inl.h implementation
#              headers of include/spdlog/, which the headers themselves #include only under
#              SPDLOG_HEADER_ONLY, and instantiate the sink templates explicitly),
#              example/example.cpp and tests/spdlog-utests (21 tests/*.cpp with the bundled Catch
#              single header, tests/catch.hpp, 17,959 lines; test_eventlog.cpp's body is under
#              #if _WIN32). No header is generated; build/compile_commands.json is copied to the
#              root. src/fmt.cpp (it compiles the bundled fmt, so only without an external one), the
#              header-only variant (SPDLOG_BUILD_TESTS_HO, SPDLOG_BUILD_EXAMPLE_HO) and bench/ (it
#              #includes fmt/locale.h, which fmt 9 no longer has) are not built
#   libonig    autoreconf -i (the tarball has configure.ac and Makefile.am but no configure script;
#              without -f, so the tarball's compile, config.guess, INSTALL and the other auxiliary
#              files are kept), ./configure --enable-posix-api, then bear -- make -j2 check TESTS=
#              in the tree, which builds the test programs and the samples without running them:
#              libonig (shared and static; libtool compiles each object twice, with -fPIC -DPIC and
#              without, so each of the 50 files of src/ it builds has two entries; regposix.c and
#              regposerr.c, the POSIX API, with -DUSE_POSIX_API), the test programs of test/
#              (test_utf8, test_syntax, test_options, test_regset, test_back, testc for EUC-JP,
#              testp for the POSIX API and testcu, from testu.c, for UTF-16) and 15 of sample/.
#              configure generates src/config.h (HAVE_CONFIG_H: 14 HAVE_* macros, the SIZEOF_*
#              ones, from which regint.h derives its pointer-sized types, and
#              USE_CRNL_AS_LINE_TERMINATOR left #undef). src/unicode.c #includes the generated
#              Unicode tables unicode_fold_data.c, unicode_property_data.c (31,863 lines, or
#              unicode_property_data_posix.c without USE_UNICODE_PROPERTIES), unicode_wb_data.c
#              and unicode_egcb_data.c whole, none of which is compiled on its own; the gperf
#              outputs unicode_fold[123]_key.c and unicode_unfold_key.c are. The tarball's
#              .gitignore already ignores every output of autoreconf, configure and the build (and
#              config.h, so the first commit lacks tis-ci/config.h). src/koi8.c, src/mktable.c,
#              sample/crnl.c (it wants USE_CRNL_AS_LINE_TERMINATOR), harnesses/ (the fuzzers),
#              tis-ci/ and windows/ are not built
#   libwebm    CMake into build/ with the tests and the new parser API (ENABLE_WEBM_PARSER), with
#              Debian's googletest and gmock 1.12.1 (the recipe checks that they come from /usr),
#              then a build (-std=c++11): the static library webm (common/, mkvmuxer/, mkvparser/
#              and the 22 .cc files of webm_parser/src, whose other parsers are header-only
#              templates in webm_parser/src/*.h), the programs mkvparser_sample, mkvmuxer_sample,
#              dumpvtt, vttdemux, webm_info, webm2pes, webm2ts and webm_parser_demo, and six
#              googletest programs: mkvmuxer_tests, mkvparser_tests, vp9_header_parser_tests,
#              vp9_level_stats_tests, webm2pes_tests and webm_parser_tests (the 59 *_test.cc of
#              webm_parser/tests, its main in webm_parser_tests.cc, and webm_parser/test_utils/
#              with limited_reader.cc and the gmock MockCallback). testing/test_util.cc is
#              compiled five times, common/vp9_header_parser.cc three times. No header is
#              generated; build/compile_commands.json is copied to the root. The tarball's
#              .gitignore ignores *.cmake and *.mkv, so the first commit lacks the tarball's build/
#              (cxx_flags.cmake and msvc_runtime.cmake, which CMakeLists.txt includes, and two
#              MinGW toolchain files; they stay in build/, now the build directory too) and the
#              test data testing/testdata/*.mkv. testing/mkvparser_fuzzer.cc and
#              webm_parser/fuzzing/ are not built
#   libsrtp2   ./configure --enable-openssl, then bear -- make -j2 in the tree: libsrtp2.a, with
#              OpenSSL 3 (Debian's own build uses NSS) and libpcap, and the test programs
#              (crypto/test: cipher_driver, datatypes_driver, kernel_driver and env; test/:
#              srtp_driver, replay_driver, roc_driver, rdbx_driver, rtpw, rtp_decoder and
#              test_srtp), each compiled and linked in one command with its helpers (test/util.c,
#              getopt_s.c, ut_sim.c, rtp.c, crypto/math/datatypes.c again). configure generates
#              crypto/include/config.h (HAVE_CONFIG_H: 40 #defines, 28 of them HAVE_*, and 20 left
#              #undef; the recipe checks OPENSSL, GCM, HAVE_PCAP, HAVE_X86 and CPU_CISC). The
#              configuration picks the crypto implementation by file: OpenSSL's aes_icm_ossl.c,
#              aes_gcm_ossl.c and hmac_ossl.c are built, and the library's own aes.c, aes_icm.c,
#              hmac.c and sha1.c (with crypto/test/aes_calc.c and sha1_driver.c, built only
#              without a crypto library), the mbed TLS and NSS ones are not; GCM, OPENSSL and NSS
#              select code in srtp/srtp.c, crypto_kernel.c and the test programs.
#              test/test_srtp.c #includes ../srtp/srtp.c whole (to reach its static functions),
#              which the library compiles on its own as well. The tarball's .gitignore already
#              ignores every build output. fuzzer/ (libFuzzer) is not built
#   geographiclib
#              CMake into build/ without Boost for the examples (so that the build does not
#              depend on what else the machine has), then a build (-std=c++11, Release: -O3
#              -DNDEBUG): the shared library (the 38 .cpp files of src/), the eleven tools of
#              tools/ (GeoConvert, GeodSolve, Planimeter, ...; each #includes its usage text,
#              man/<tool>.usage, from the tarball) and the test programs geodtest, signtest and
#              polygontest; then the exampleprograms target, which configures examples/ as a
#              CMake project of its own in build/exampleprograms against the library just built
#              and builds its 51 programs (example-*.cpp, GeoidToGTX.cpp, make-egmcof.cpp,
#              JacobiConformal.cpp; AuxLatitude.cpp with example-AuxLatitude; no -std, and the
#              headers by -isystem). CMake generates build/include/GeographicLib/Config.h (the
#              version, GEOGRAPHICLIB_DATA, GEOGRAPHICLIB_PRECISION 2, from which Math.hpp
#              derives the real type, GEOGRAPHICLIB_HAVE_LONG_DOUBLE, GEOGRAPHICLIB_WORDS_BIGENDIAN
#              and GEOGRAPHICLIB_SHARED_LIB). The two compilation databases are merged at the
#              root. wrapper/ (the C, Excel, Octave and Python wrappers) is not built
#   freetype   CMake into build/ with zlib, bzip2, libpng and Brotli required (FT_REQUIRE_*:
#              Debian's zlib1g-dev, libbz2-dev, libpng-dev and libbrotli-dev, so that the build does
#              not depend on what else the machine has) and without HarfBuzz (FT_DISABLE_HARFBUZZ),
#              then a build: the static library (CMake's default) from 42 files, FreeType's "single
#              object" sources: src/base/ftbase.c #includes 18 .c files of src/base whole
#              (ftadvanc.c, ftcalc.c, ftobjs.c, ftoutln.c, ftstream.c, ...), and each module's file
#              (src/truetype/truetype.c, src/cff/cff.c, src/sfnt/sfnt.c, src/autofit/autofit.c,
#              src/psaux/psaux.c, ...) the .c files of its directory, none of which is compiled on
#              its own; src/gzip/ftgzip.c #includes its bundled zlib (adler32.c, crc32.c, inflate.c,
#              ...) only without FT_CONFIG_OPTION_SYSTEM_ZLIB, so that code is inactive here.
#              builds/unix/ftsystem.c stands in for src/base/ftsystem.c. CMake generates
#              build/include/freetype/config/ftconfig.h (from builds/unix/ftconfig.h.in:
#              HAVE_UNISTD_H, HAVE_FCNTL_H) and build/include/freetype/config/ftoption.h, the
#              tarball's include/freetype/config/ftoption.h (the FT_CONFIG_OPTION_*,
#              TT_CONFIG_OPTION_*, T1_CONFIG_OPTION_*, CFF_CONFIG_OPTION_* and AF_CONFIG_OPTION_*
#              macros that select code all over src/) with FT_CONFIG_OPTION_SYSTEM_ZLIB,
#              FT_CONFIG_OPTION_USE_BZIP2, FT_CONFIG_OPTION_USE_PNG and FT_CONFIG_OPTION_USE_BROTLI
#              #defined, which the recipe checks: 52 #defines and 5 #undefs, 17 more left commented
#              out; build/compile_commands.json is copied to the root. The optional modules gxvalid
#              and otvalid, src/dlg/, src/tools/ and tests/ (Meson only) are not built
#   xz-utils   ./configure, then bear -- make -j2 check TESTS= in the tree, which builds the test
#              programs without running them: liblzma (shared and static; libtool compiles each
#              object twice, with -fPIC -DPIC and without, so each of the 80 files of src/liblzma
#              and src/common it builds has two entries), xz, xzdec and lzmadec (src/xzdec/xzdec.c
#              twice, the second time with -DLZMADEC) and lzmainfo (src/common/tuklib_exit.c and
#              tuklib_progname.c four times), and the test programs tests/test_*.c and
#              create_compress_files.c (with the tests' own framework, tests/tuktest.h).
#              configure generates config.h (HAVE_CONFIG_H: 90 #defines, 72 of them HAVE_*, and 61
#              left #undef; the HAVE_ENCODER_*, HAVE_DECODER_*, HAVE_MF_* and HAVE_CHECK_* macros
#              select the filters, match finders and checks liblzma builds, the recipe checks
#              HAVE_ENCODER_LZMA2, HAVE_DECODER_LZMA2, HAVE_MF_BT4, HAVE_CHECK_SHA256 and
#              MYTHREAD_POSIX), Doxyfile and the scripts src/scripts/xz{diff,grep,less,more}. The
#              tarball has no root .gitignore; po4a/.gitignore ignores /man and /xz-man.pot, so the
#              first commit lacks the translated man pages po4a/man/*/ and po4a/xz-man.pot.
#              debug/, doc/examples*/, extra/, lib/ (getopt for systems without it),
#              tests/ossfuzz/, the table generators (*_tablegen.c) and the small variants
#              crc32_small.c and crc64_small.c, and the experimental CMake build are not built or
#              used
#   libyuv     CMake into build/ with the test (-DTEST=ON), with Debian's libgtest.a (find_library;
#              the recipe checks that it comes from /usr, since the fallback compiles
#              /usr/src/gtest/src/gtest-all.cc) and libjpeg (HAVE_JPEG, which the recipe checks),
#              then a build: the library twice, static and shared, so each of the 54 .cc files of
#              source/ has two entries, util/yuvconvert.cc, util/yuvconstants.c and
#              libyuv_unittest (unit_test/*.cc: googletest's TEST_F and TEST over the conversion,
#              scaling, rotation and comparison functions, most of them generated by macros; its
#              own main in unit_test.cc). No command names a -std or an -O. No header is generated;
#              include/libyuv/row.h, scale_row.h, rotate_row.h and compare_row.h #define 577, 83,
#              11 and 11 HAS_* macros under #if on the architecture and the compiler, which select
#              the SIMD row functions (source/row_gcc.cc, row_neon*.cc, row_msa.cc, ...) and the
#              dispatch in source/*.cc. libgflags-dev is not installed: where it is, the test
#              program uses gflags (-DLIBYUV_USE_GFLAGS). build/compile_commands.json is copied to
#              the root. The tarball's .gitignore ignores /build, /tools, /testing and
#              /third_party (it has none of them). util/'s other programs (psnr, ssim, cpuid, ...)
#              and the GN, gyp, Android and linux.mk builds are not built or used
#   wabt       CMake into build/ with the tests, with Debian's googletest (USE_SYSTEM_GTEST;
#              third_party/gtest, a git submodule, is empty in the tarball) and without libwasm
#              (BUILD_LIBWASM=OFF: third_party/wasm-c-api is empty too), then a build (C++ with
#              -std=c++17 -fno-exceptions): the static libwabt (src/*.cc, src/interp/), wasm-rt-impl
#              (wasm2c/wasm-rt-impl.c, C), the twelve tools of src/tools/ (wat2wasm, wasm2wat,
#              wasm-interp, wasm2c, wasm-objdump, wasm-decompile, ...; the build copies them to
#              bin/) and the googletest programs hexfloat_test (src/test-hexfloat.cc, and
#              src/literal.cc again) and wabt-unittests (the nine other src/test-*.cc). CMake
#              generates build/include/wabt/config.h (from src/config.h.in: HAVE_ALLOCA_H,
#              HAVE_UNISTD_H, HAVE_SNPRINTF, HAVE_SSIZE_T, HAVE_STRCASECMP, HAVE_WIN32_VT100, the
#              SIZEOF_* and COMPILER_IS_* macros, WITH_EXCEPTIONS and WABT_VERSION_STRING) and
#              build/wasm2c_header_top.cc, wasm2c_header_bottom.cc, wasm2c_source_includes.cc and
#              wasm2c_source_declarations.cc (src/template/wasm2c.*, the runtime code that wasm2c
#              writes, as string literals; compiled into libwabt). src/wast-lexer.cc #includes
#              src/prebuilt/lexer-keywords.cc (gperf's keyword table), which is not compiled on its
#              own; build/compile_commands.json is copied to the root. src/interp/interp-wasi.cc
#              (WITH_WASI, uvwasi), src/interp/interp-wasm-c-api.cc (libwasm), the wasm-c-api
#              examples, src/emscripten-helpers.cc, src/tools/wasm2wat-fuzz.cc, fuzzers and
#              wasm2c/examples/ are not built; test/ holds the files that run-tests.py runs the
#              tools on
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
# libwebm's CMakeLists.txt wants a googletest checkout beside the code base (../googletest): the
# script replaces the block that builds it (add_subdirectory or gtest-all.cc) and its
# include_directories with find_package(GTest), deletes the googlemock include_directories, and
# the six test programs link GTest::gtest (webm_parser_tests GTest::gmock GTest::gtest) instead of
# gtest and gmock.
# wabt's CMakeLists.txt builds the wasm-c-api examples (third_party/wasm-c-api/example/*.c, from
# another empty submodule) whenever the tests are built: the script replaces the c_api_example
# function and its calls with a comment.
#
# A second commit, "bench setup", adds .nib.conf (calibration.idle-ms = 0), the compilation
# database at the root and the root .gitignore (all three added with git add -f, since a
# tarball's .gitignore may list them; taglib's ignores itself), with lines in that .gitignore for
# every build output (object files, libraries, programs,
# generated headers such as pcre2's src/config.h and src/pcre2.h or libconfig's ac_config.h,
# build/), and the tracked files a recipe changed (leveldb's, snappy's and jansson's patched
# CMakeLists.txt, yaml-cpp's patched test/CMakeLists.txt, libwebm's and wabt's patched
# CMakeLists.txt, re2's patched re2/unicode.py, zlib's configured Makefile and zconf.h, glslang's
# patched gtests/CMakeLists.txt, libxml2's configured include/libxml/xmlversion.h, cpputest's
# replaced .gitignore, fmtlib's patched test/CMakeLists.txt); afterwards git
# status is empty. Every "directory" and "file" of each compilation database is
# checked to lie inside DEST/<package>, and every "file" to exist.
#
# The script is idempotent: a code base whose last commit is "bench setup", with a compilation
# database at the root and a clean status (clangd's own index, an untracked .cache/ that a
# clangd run on the code base writes next to compile_commands.json, is allowed), is left alone.
# A partly prepared one is removed and fetched again. Missing build tools (bear, cmake,
# build-essential, zlib1g-dev, libgtest-dev, libgmock-dev, libbenchmark-dev, and libbz2-dev,
# liblzma-dev and libssl-dev for libzip (libssl-dev for libsrtp2 and socat too), pkg-config for
# ms-gsl, libogg-dev for flac, nlohmann-json3-dev for cpp-jwt, libcppunit-dev for taglib,
# libreadline-dev for mujs (and socat), libgmp-dev for nettle, libfmt-dev for spdlog,
# autoconf, automake and libtool for libonig, libpcap-dev for libsrtp2, libpng-dev and
# libbrotli-dev for freetype, libjpeg-dev for libyuv, unicode-data and python3-six for re2,
# liblz4-dev and libzstd-dev for tkrzw, libgnutls28-dev for zeromq3 and libmicrohttpd,
# libexpat1-dev for exiv2, libcurl4-openssl-dev for libmicrohttpd, meson and nasm for dav1d (nasm
# for x264 too), catch2 for cli11, libcmocka-dev for libssh, libcunit1-dev for nghttp2,
# libmpfr-dev for gawk, libcivetweb-dev and civetweb for prometheus-cpp, nettle-dev for chrony,
# libxrandr-dev, libxinerama-dev, libxcursor-dev and libxi-dev for box2d) are installed with
# apt-get, which needs root.
# The recipes themselves are in bench/prepare-clang-heldout-recipes.sh, for sets 37 to 41 in
# bench/prepare-clang-heldout-sets.sh, for set 42 in bench/prepare-clang-heldout-set42.sh, for
# set 43 in bench/prepare-clang-heldout-set43.sh, for set 44 in
# bench/prepare-clang-heldout-set44.sh and for set 45 in bench/prepare-clang-heldout-set45.sh.
# Usage: bench/prepare-clang-heldout.sh [--set 24|25|26|27|28|29|30|31|32|33|34|35|36|37|38|39|40|41|42|43|44|45] [DEST]   (default: set 24, DEST /tmp/held<set>)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "usage: $0 [--set 24|25|26|27|28|29|30|31|32|33|34|35|36|37|38|39|40|41|42|43|44|45] [DEST]" >&2; exit 2; }
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
  32) packages=(libjpeg-turbo cpp-jwt opus taglib) ;;
  33) packages=(mujs libjsoncpp nettle spdlog) ;;
  34) packages=(libonig libwebm libsrtp2 geographiclib) ;;
  35) packages=(freetype xz-utils libyuv wabt) ;;
  36) packages=(re2 libtommath tcc lmdb) ;;
  37) packages=(tkrzw libevent luajit srt) ;;
  38) packages=(socat jemalloc zeromq3 draco) ;;
  39) packages=(tree-sitter msgpack-c mbedtls exiv2) ;;
  40) packages=(wolfssl rapidjson libmicrohttpd dav1d) ;;
  41) packages=(x264 mpg123 cli11 libwebp) ;;
  42) packages=(libsodium libssh glslang libxml2) ;;
  43) packages=(cpputest lame libxcrypt nghttp2) ;;
  44) packages=(gawk jimtcl prometheus-cpp ninja-build) ;;
  45) packages=(chrony nanomsg fmtlib box2d) ;;
  *) echo "heldout: unknown set $set_id (24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44 or 45)" >&2; exit 2 ;;
esac
dest=$(realpath -m "${args[0]:-/tmp/held$set_id}")
git_c=(-c user.name=nib-bench -c user.email=bench@nib -c commit.gpgsign=false)

need=()
for p in bear cmake build-essential zlib1g-dev libgtest-dev libgmock-dev libbenchmark-dev \
         libbz2-dev liblzma-dev libssl-dev pkg-config libogg-dev nlohmann-json3-dev \
         libcppunit-dev libreadline-dev libgmp-dev libfmt-dev autoconf automake libtool \
         libpcap-dev libpng-dev libbrotli-dev libjpeg-dev unicode-data python3-six liblz4-dev \
         libzstd-dev libgnutls28-dev libexpat1-dev libcurl4-openssl-dev meson nasm catch2 \
         libcmocka-dev libcunit1-dev libmpfr-dev libcivetweb-dev civetweb nettle-dev \
         libxrandr-dev libxinerama-dev libxcursor-dev libxi-dev; do
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

# The recipes (build_recipe and the build_* functions) and the helpers they share; sets 37's to
# 41's build_* functions are in a file of their own, set 42's in another, set 43's in a third,
# set 44's in a fourth and set 45's in a fifth.
. "$here/prepare-clang-heldout-recipes.sh"
. "$here/prepare-clang-heldout-sets.sh"
. "$here/prepare-clang-heldout-set42.sh"
. "$here/prepare-clang-heldout-set43.sh"
. "$here/prepare-clang-heldout-set44.sh"
. "$here/prepare-clang-heldout-set45.sh"

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
  # tcc's and luajit's .orig tarballs have no top directory for fetch-corpus.sh's tar
  # --strip-components=1 to strip: TAR_OPTIONS adds one (GNU tar transforms a name before it
  # strips it; S: not the targets of symbolic links).
  fetch_env=()
  case "$pkg" in
    tcc|luajit) fetch_env=("TAR_OPTIONS=--transform=s,^,$pkg/,S") ;;
  esac
  env "${fetch_env[@]}" NIB_CORPUS_DIR="$dest" "$here/fetch-corpus.sh" "$pkg"
  [ -d "$d/.git" ] || { echo "heldout: cannot fetch $pkg" >&2; exit 1; }
  echo "heldout: building $pkg" >&2
  (
    cd "$d"
    build_recipe "$pkg"
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
  # compile_commands.json, taglib's ignores .gitignore itself).
  git -C "$d" add -f compile_commands.json .nib.conf .gitignore
  git -C "$d" "${git_c[@]}" commit -qm "bench setup"
  if [ -n "$(git -C "$d" status --porcelain)" ]; then
    echo "heldout: $pkg: git status is not empty after the setup commit" >&2; exit 1
  fi
  git -C "$d" ls-files --error-unmatch compile_commands.json .nib.conf >/dev/null 2>&1 ||
    { echo "heldout: $pkg: the setup commit lacks compile_commands.json or .nib.conf" >&2; exit 1; }
done
