# Sourced by bench/prepare-clang-heldout.sh after bench/prepare-clang-heldout-recipes.sh: the
# recipes of the later sets (37 to 41), with what each builds, for lack of room in the other two
# files. build_recipe, in prepare-clang-heldout-recipes.sh, calls those of sets 37 to 39; sets
# 40's and 41's are called by the build_recipe at the end of this file, which wraps that one. They
# use its helpers (ignore, require_files, require_defines, cmake_build, cdb_from_build).
# shellcheck shell=bash

# Set 37's recipes. Like set 32's, each build step ends with || exit 1. What each one builds is
# described here rather than in the main script's header, which has no room left:
#   tkrzw      ./configure with zlib, LZMA, LZ4 and Zstandard (--enable-zlib, --enable-lzma,
#              --enable-lz4, --enable-zstd) and --disable-opt, then bear -- make -j2 all test in
#              the tree: libtkrzw (static and shared from the same objects), the programs
#              tkrzw_build_util, tkrzw_dbm_util, tkrzw_ulog_util, tkrzw_dbm_tran, the *_perf ones
#              and tkrzw_langc_check (C, the C interface's check) and the 34 googletest programs
#              *_test.cc (491 TEST and TEST_F; each #includes gmock/gmock.h for EXPECT_THAT, with
#              Debian's googletest and gmock 1.12.1; the tests of the database and file classes
#              share templates in tkrzw_dbm_test_common.h and tkrzw_file_test_common.h), all with
#              -std=c++17. configure writes no header: the configuration macros are on every
#              command line (-D_TKRZW_COMP_ZLIB, _ZSTD, _LZ4 and _LZMA, which select code in
#              tkrzw_compress.cc and the recipe checks, and string macros such as
#              _TKRZW_PKG_VERSION), and tkrzw_sys_config.h derives the platform ones.
#              --disable-opt appends -O0 to configure's -O2, because the optimized build takes
#              about eight minutes on two cores; every command also has -I/usr/local/include
#              (configure's prefix). example/ (its own Makefile) is not built. The tarball has no
#              .gitignore
#   libevent   CMake into build/ with its defaults (the tests, the samples and the benchmarks,
#              OpenSSL, zlib for the tests, Debian's python3 for the RPC generator), then a build:
#              libevent, libevent_core and libevent_extra, libevent_openssl and libevent_pthreads,
#              each shared and static, so the core files (event.c, buffer.c, evutil.c, ...) and
#              the extra ones (http.c, evdns.c, evrpc.c, event_tagging.c) have four entries each;
#              the test programs (regress, from test/regress*.c and tinytest.c, test-eof,
#              test-ratelim and the other test-*, bench*) and the 11 samples. CMake's checks
#              generate build/include/event2/event-config.h (108 EVENT__HAVE_* macros defined and
#              30 EVENT__* left #undef, the EVENT__SIZEOF_* ones; the sources test them all over
#              for the backends and the platforms) and build/include/evconfig-private.h, and
#              event_rpcgen.py writes test/regress.gen.c and regress.gen.h from test/regress.rpc
#              into the tree. evutil_rand.c #includes arc4random.c whole, but only without
#              EVENT__HAVE_ARC4RANDOM, which glibc 2.36 provides: arc4random.c is in no unit.
#              build/compile_commands.json is copied to the root. The Windows files (win32select.c,
#              evthread_win32.c, the IOCP ones, WIN32-Code/, test/regress_iocp.c and
#              print-winsock-errors.c), the other systems' backends (kqueue.c, devpoll.c,
#              evport.c), epoll_sub.c and cmake/CheckFileOffsetBits.c are not built. The tarball
#              has no .gitignore
#   luajit     The .orig tarball has no top directory, as tcc's (the main script gives it one).
#              bear -- make -j2 amalg in the tree: the host tools, src/host/minilua.c (a trimmed
#              Lua 5.1.5 in one 7,770-line file) and buildvm (src/host/buildvm*.c, with
#              -DLUAJIT_TARGET=LUAJIT_ARCH_x64), which generate src/host/buildvm_arch.h (DynASM's
#              translation of src/vm_x64.dasc, #included by buildvm.c), src/lj_vm.S (the
#              interpreter), src/lj_bcdef.h, lj_ffdef.h, lj_libdef.h (which 11 of the lib_*.c
#              #include), lj_recdef.h, lj_folddef.h and src/jit/vmdef.lua; then src/ljamalg.c
#              twice, for libluajit.so (-fPIC) and libluajit.a, and src/luajit.c. ljamalg.c
#              #includes the 69 other .c files of src/ (lj_*.c and lib_*.c) whole, and none of
#              them is compiled on its own: 9 entries in all, once the two lj_vm.S entries are
#              dropped. lj_arch.h derives the LJ_* configuration macros (LJ_TARGET_X64, LJ_GC64,
#              LJ_HASJIT, LJ_HASFFI, ...; 142 conditionals) from the compiler's and the LUAJIT_*
#              ones. The tarball's .gitignore files already ignore every build output
#   srt        CMake into build/ with the unit tests, the testing programs, the examples and
#              socket groups (ENABLE_BONDING), with OpenSSL's libcrypto (USE_ENCLIB=openssl),
#              then a build: libsrt, shared and static from one object library (srtcore/*.cpp, and
#              haicrypt/*.c with cc), the programs srt-live-transmit, srt-file-transmit and
#              srt-tunnel (apps/), the testing/ programs (srt-test-live, srt-test-mpbond and five
#              others), nine examples (five of them C) and test-srt, one googletest program of the
#              22 test/*.cpp (217 TEST, TEST_F and TEST_P) with Debian's googletest 1.12.1
#              (find_package(GTest), which the recipe checks, instead of the download). The
#              configuration macros are on every command line (ENABLE_BONDING,
#              SRT_ENABLE_ENCRYPTION, USE_OPENSSL, HAI_ENABLE_SRT, HAVE_PTHREAD_GETNAME_NP, ...);
#              CMake generates only build/version.h (from srtcore/version.h.in). Each program
#              compiles the apps/ files it uses again (apps/uriparser.cpp seven times);
#              build/compile_commands.json is copied to the root. srtcore/sync_cxx11.cpp (the
#              build uses sync_posix.cpp), common/win_time.cpp, haicrypt's GnuTLS, mbed TLS and
#              OpenSSL EVP back ends and haicrypt/hcrypt_ut.c are not built. The tarball's
#              .gitignore ignores compile_commands.json (the setup adds it with git add -f)
build_tkrzw() {
  # Every compression library, so that tkrzw_compress.cc's code for each of them is built;
  # without optimization (-O0 after configure's -O2), because the optimized build of the library,
  # the programs and the 34 test programs takes about eight minutes on two cores.
  ./configure --enable-zlib --enable-lzma --enable-lz4 --enable-zstd --disable-opt >/dev/null ||
    exit 1
  bear -- make -j2 all test || exit 1
  require_files tkrzw libtkrzw.a libtkrzw.so tkrzw_dbm_util tkrzw_str_util_test tkrzw_dbm_hash_test
  local lib
  for lib in ZLIB LZMA LZ4 ZSTD; do
    grep -q -e "-D_TKRZW_COMP_$lib\"" compile_commands.json ||
      { echo "heldout: tkrzw: built without _TKRZW_COMP_$lib" >&2; exit 1; }
  done
  ignore '*.o' '*.a' '*.so' '*.so.*' '/Makefile' '/config.log' '/config.status' '/config.tmp' \
         '/tkrzw.pc' '/tkrzw_*' '!/tkrzw_*.cc' '!/tkrzw_*.h'
}

build_libevent() {
  # The defaults build the tests, the samples and the benchmarks. Debian's python3 runs
  # event_rpcgen.py (it writes test/regress.gen.c), whatever python3 comes first on the PATH.
  cmake_build . -DPYTHON_EXECUTABLE=/usr/bin/python3 || exit 1
  require_files libevent build/include/event2/event-config.h build/include/evconfig-private.h \
    test/regress.gen.c test/regress.gen.h build/bin/regress
  require_defines libevent build/include/event2/event-config.h EVENT__HAVE_OPENSSL \
    EVENT__HAVE_LIBZ EVENT__HAVE_EPOLL EVENT__HAVE_PTHREADS
  cdb_from_build
  ignore '/test/regress.gen.c' '/test/regress.gen.h'
}

build_luajit() {
  # The amalgamated build: src/ljamalg.c #includes the other core and library files. The
  # interpreter's lj_vm.S entries (assembly, which neither clangd nor nib reads) are dropped, and
  # the check makes sure that no core file was compiled on its own.
  bear -- make -j2 amalg || exit 1
  require_files luajit src/luajit src/libluajit.a src/libluajit.so src/lj_vm.S src/lj_bcdef.h \
    src/lj_ffdef.h src/lj_libdef.h src/lj_recdef.h src/lj_folddef.h src/host/buildvm_arch.h
  python3 - <<'EOF' || exit 1
import json, os, sys
db = [e for e in json.load(open("compile_commands.json")) if not e["file"].endswith(".S")]
files = {os.path.relpath(os.path.join(e["directory"], e["file"])) for e in db}
if "src/lj_gc.c" in files or not {"src/ljamalg.c", "src/luajit.c", "src/host/buildvm.c"} <= files:
    sys.exit("heldout: luajit: not the amalgamated build: %s" % sorted(files))
json.dump(db, open("compile_commands.json", "w"), indent=2)
EOF
}

build_srt() {
  # Bonding on, so that srtcore/group*.cpp and the bonding examples are built; OpenSSL named, so
  # that the build does not depend on which other crypto libraries the machine has.
  cmake_build . -DENABLE_UNITTESTS=ON -DENABLE_TESTING=ON -DENABLE_EXAMPLES=ON \
        -DENABLE_BONDING=ON -DUSE_ENCLIB=openssl || exit 1
  grep -q '^GTest_DIR:PATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: srt: Debian's googletest not found" >&2; exit 1; }
  require_files srt build/version.h build/test-srt build/srt-live-transmit build/srt-test-mpbond
  cdb_from_build
}

# Set 38's recipes. Like set 32's, each build step ends with || exit 1. What each one builds:
#   socat      ./configure --disable-libwrap, then bear -- make -j2 in the tree: libxio.a (the
#              xio*.c files, one or more address types each, and the helpers) and the programs
#              socat, procan and filan, with OpenSSL 3 and readline: 68 entries, one per file, all
#              with -DHAVE_CONFIG_H. configure generates config.h (186 HAVE_* macros defined and 40
#              left #undef, and 35 WITH_* ones that select the address types and features, each
#              tested with #if WITH_* all over the xio*.c files; the recipe checks WITH_OPENSSL,
#              WITH_READLINE, WITH_STREAMS and WITH_IP6; WITH_LIBWRAP is left #undef).
#              xio-streams.c is compiled on its own, and xioopts.c (with ENABLE_OPTIONS) and
#              xio-fd.c (with ENABLE_APPLYOPT) #include it again, each for another part of it;
#              xioopen.c's #include of xiointegrate.c or xioaddrtab.c (files the tarball lacks) is
#              in the inactive #else of an #if 1. The tarball has no .gitignore, no test program
#              (test.sh is a shell script) and no other build
#   jemalloc   ./configure --enable-prof (heap profiling, with libgcc's unwinder), then bear --
#              make -j2 all tests in the tree, which builds every test program without running it:
#              each of the 62 .c files of src/ is compiled five times, for the static library
#              (*.o), the shared one (*.pic.o), the tests' JEMALLOC_JET variant (*.jet.o) and twice
#              with -DJEMALLOC_NO_PRIVATE_NAMESPACE (*.sym.o and *.jet.sym.o, whose symbols the
#              build lists with nm), and malloc_io.c, nstime.c and ticker.c a sixth time for the
#              integration tests; src/jemalloc_cpp.cpp twice; the test helpers of test/src once per
#              kind of test (unit, integration, stress, analyze); the 98 programs of test/unit
#              (-DJEMALLOC_UNIT_TEST), test/integration (three of them C++, test/integration/cpp/),
#              test/stress and test/analyze. 479 entries in all. configure generates
#              include/jemalloc/internal/jemalloc_internal_defs.h (69 #defines and 39 left #undef:
#              the JEMALLOC_* and LG_* configuration macros, which the recipe checks some of:
#              JEMALLOC_HAVE_PTHREAD, JEMALLOC_BACKGROUND_THREAD, JEMALLOC_STATS, JEMALLOC_TLS,
#              JEMALLOC_PROF and JEMALLOC_PROF_LIBGCC), jemalloc.h and the other public headers,
#              and the build writes include/jemalloc/internal/private_namespace.h and
#              private_namespace_jet.h: 723 #defines that rename every internal function to
#              je_<name> (jet_<name> with JEMALLOC_JET), so that nearly every call in src/ names a
#              macro.
#              test/unit/junk_alloc.c and junk_free.c #include junk.c whole, arena_reset_prof.c
#              arena_reset.c and batch_alloc_prof.c batch_alloc.c (each of which is a test program
#              of its own as well). The tarball's .gitignore already ignores every output of
#              configure and the build. msvc/ and the docs (xsltproc) are not built
#   zeromq3    CMake into build/ with the tests (BUILD_TESTS), the draft API (ENABLE_DRAFTS, which
#              CMake turns on by itself in a git checkout), CURVE with the bundled TweetNaCl
#              instead of libsodium (WITH_LIBSODIUM=OFF), WebSocket transports with GnuTLS for wss
#              (WITH_TLS) and without libbsd, so that the build does not depend on what else the
#              machine has, then a build (-std=gnu++11, -O3 -DNDEBUG): the objects library of 113
#              files of src/ (src/tweetnacl.c with -std=gnu11) that libzmq.so and libzmq.a share,
#              the perf/ programs (local_lat, remote_thr, ...), the test helper libraries testutil
#              and testutil-static (the four tests/testutil*.cpp, compiled for each), the 122 test
#              programs tests/test_*.cpp and the seven unittests/unittest_*.cpp (on the internal
#              classes, with the static library), all with the bundled Unity framework
#              (external/unity/unity.c). CMake's checks generate build/platform.hpp
#              (ZMQ_CUSTOM_PLATFORM_HPP on every command: 37 #defines, such as
#              ZMQ_IOTHREAD_POLLER_USE_EPOLL, ZMQ_USE_CV_IMPL_STL11, ZMQ_HAVE_EVENTFD,
#              ZMQ_HAVE_IPC, ZMQ_HAVE_TIPC, ZMQ_HAVE_WS, ZMQ_HAVE_WSS, ZMQ_HAVE_CURVE,
#              ZMQ_USE_TWEETNACL, ZMQ_USE_GNUTLS, ZMQ_USE_RADIX_TREE and ZMQ_BUILD_DRAFT_API, which
#              the recipe checks some of, and the platform ones, ZMQ_HAVE_LINUX among them). The
#              sources test them all over: the other pollers (kqueue.cpp, devpoll.cpp, pollset.cpp,
#              select.cpp), OpenPGM and NORM (pgm_*.cpp, norm_engine.cpp) are compiled with their
#              bodies under inactive #if; src/vmci*.cpp (WITH_VMCI) is not compiled.
#              build/compile_commands.json is copied to the root. external/wepoll (Windows),
#              external/sha1 (only without GnuTLS or NSS), builds/, the autotools build and the
#              docs are not built or used. The tarball's .gitignore already ignores build/
#   draco      CMake into build/ with the tests (DRACO_TESTS), googletest 1.12.1 compiled from
#              Debian's sources (DRACO_GOOGLETEST_PATH=/usr/src/googletest, since the +dfsg tarball
#              leaves third_party/googletest empty; the four entries of gtest-all.cc and
#              gtest_main.cc lie outside the code base and are dropped), then a build (-O3
#              -DNDEBUG, no -std): the library as some 30 object libraries of src/draco/
#              (attributes, compression, core, io, mesh, metadata, point_cloud, animation), the
#              programs draco_encoder and draco_decoder (each compiles the 16 io files again) and
#              the googletest programs draco_tests (41 *_test.cc) and draco_factory_tests: 177
#              entries over 145 files. CMake generates build/draco/draco_features.h (the
#              DRACO_*_SUPPORTED macros: mesh and point-cloud compression, the edgebreaker
#              variants, backwards compatibility, deduplication) and
#              build/testing/draco_test_config.h (the test data directory). The transcoder
#              (DRACO_TRANSCODER_SUPPORTED, which needs Eigen and TinyGLTF: src/draco/scene,
#              texture, material and the glTF io, 247 conditionals), src/draco/javascript
#              (Emscripten), unity/ and maya/ are not built
build_socat() {
  # OpenSSL and readline, which the recipe checks, and no libwrap (TCP wrappers), so that the
  # build does not depend on whether the machine has libwrap0-dev.
  ./configure --disable-libwrap >/dev/null || exit 1
  bear -- make -j2 || exit 1
  require_files socat config.h socat procan filan libxio.a
  require_defines socat config.h WITH_OPENSSL WITH_READLINE WITH_STREAMS WITH_IP6
  ignore '*.o' '/Makefile' '/config.h' '/config.log' '/config.status' '/libxio.a' '/socat' \
         '/procan' '/filan'
}

build_jemalloc() {
  # Heap profiling on (JEMALLOC_PROF, with libgcc's unwinder), so that its code and its test
  # programs (test/unit/*_prof.c, two of which #include another test whole) are built; make tests
  # builds every test program without running it. The tarball's .gitignore already ignores every
  # output of configure and the build.
  ./configure --enable-prof >/dev/null || exit 1
  bear -- make -j2 all tests || exit 1
  require_files jemalloc include/jemalloc/internal/jemalloc_internal_defs.h \
    include/jemalloc/jemalloc.h lib/libjemalloc.a lib/libjemalloc.so test/unit/junk_alloc \
    test/unit/arena_reset_prof test/integration/cpp/basic test/stress/microbench
  require_defines jemalloc include/jemalloc/internal/jemalloc_internal_defs.h \
    JEMALLOC_HAVE_PTHREAD JEMALLOC_BACKGROUND_THREAD JEMALLOC_STATS JEMALLOC_TLS JEMALLOC_PROF \
    JEMALLOC_PROF_LIBGCC
}

build_zeromq3() {
  # The draft API, CURVE with the bundled TweetNaCl (not libsodium) and wss with GnuTLS, without
  # libbsd, named so that the build does not depend on what else the machine has.
  cmake_build . -DBUILD_TESTS=ON -DWITH_DOCS=OFF -DENABLE_DRAFTS=ON -DENABLE_CURVE=ON \
        -DWITH_LIBSODIUM=OFF -DWITH_TLS=ON -DWITH_NSS=OFF -DWITH_LIBBSD=OFF || exit 1
  require_files zeromq3 build/platform.hpp build/lib/libzmq.so build/lib/libzmq.a \
    build/bin/test_security_curve build/bin/test_ws_transport build/bin/unittest_radix_tree
  require_defines zeromq3 build/platform.hpp ZMQ_BUILD_DRAFT_API ZMQ_HAVE_CURVE ZMQ_USE_TWEETNACL \
    ZMQ_USE_GNUTLS ZMQ_HAVE_WSS ZMQ_USE_RADIX_TREE ZMQ_IOTHREAD_POLLER_USE_EPOLL
  cdb_from_build
}

build_draco() {
  # Debian's googletest sources (/usr/src/googletest, from libgtest-dev) for the draco_gtest and
  # draco_gtest_main libraries that the tests link, since the +dfsg tarball leaves
  # third_party/googletest empty; their four entries lie outside the code base and are dropped.
  cmake_build . -DDRACO_TESTS=ON -DDRACO_GOOGLETEST_PATH=/usr/src/googletest || exit 1
  require_files draco build/draco/draco_features.h build/testing/draco_test_config.h \
    build/draco_tests build/draco_factory_tests build/draco_encoder build/draco_decoder
  python3 - <<'PY' || exit 1
import json, os, sys
db = json.load(open("build/compile_commands.json"))
root = os.getcwd() + os.sep
kept = [e for e in db if not e["file"].startswith("/usr/src/googletest/")]
if len(db) - len(kept) != 4 or any(not e["file"].startswith(root) for e in kept):
    sys.exit("heldout: draco: unexpected entries outside the code base")
json.dump(kept, open("compile_commands.json", "w"), indent=2)
PY
  ignore '/build/'
}

# Set 39's recipes. Like set 32's, each build step ends with || exit 1. What each one builds:
#   tree-sitter
#              bear -- make -j2 AMALGAMATED=1 in the tree: only the C library (the Makefile's
#              libtree-sitter.a and libtree-sitter.so.0.0), from lib/src/lib.c, which #includes the
#              eleven other .c files of lib/src (alloc.c, get_changed_ranges.c, language.c, lexer.c,
#              node.c, parser.c, query.c, stack.c, subtree.c, tree_cursor.c, tree.c) whole, none of
#              which is compiled on its own: one entry in all (-O3 -Werror -std=gnu99, the
#              Makefile's defaults). No header is generated; lib/src/unicode/ is a trimmed copy of
#              ICU's UTF-8 and UTF-16 macros. The Makefile's VERSION still says 0.6.3. The Rust
#              crates (cli/, highlight/, tags/, lib/binding_rust), lib/binding_web/binding.c
#              (Emscripten), the test grammars' scanner.c files of test/fixtures/, test/fuzz/ and
#              test/profile/ are not built. The tarball's .gitignore already ignores every build
#              output
#   msgpack-c  CMake into build/ with the tests (MSGPACK_BUILD_TESTS) and the examples, without
#              cJSON (so that example/jsonconv.c is never built, whatever the machine has), then a
#              build: msgpackc twice, shared and static, so each of the five files of src/ has two
#              entries, the six C examples and the five googletest programs test/*_c.cpp (C++, the
#              C API's tests, with Debian's googletest 1.12.1, find_package(GTest), which the
#              recipe checks, and zlib). No command names a -std. CMake generates
#              build/include/msgpack/sysdep.h and pack_template.h (from cmake/*.h.in: the byte
#              order and the _msgpack_* macros); unpack_template.h and the other pack and unpack
#              headers are in the tarball; build/compile_commands.json is copied to the root.
#              The tarball has no .gitignore
#   mbedtls    CMake into build/ with its defaults (the programs and the tests, -Werror, no -O),
#              with Debian's python3 for the test generator, then a build: the static libraries
#              mbedcrypto, mbedx509 and mbedtls (the 96 .c files of library/), the test helpers
#              of tests/src/ (mbedtls_test), the programs of programs/ (aes, hash, pkey, psa,
#              random, ssl, test, util, x509, and the 22 fuzz programs, which compile
#              programs/fuzz/onefile.c and common.c again each) and the 103 test suites:
#              tests/scripts/generate_test_code.py writes build/tests/test_suite_<name>.c from
#              tests/suites/test_suite_<name>.function (73 of them; aes.ecb, aes.cbc, ... share
#              one), helpers.function, main_test.function and host_test.function, with #line
#              directives that point back at those .function files (main_test.function's and
#              helpers.function's as relative names, suites/..., which are relative to tests/, not
#              to the command's directory). 295 entries over 281 files. No header is generated:
#              the configuration is the tracked include/mbedtls/config.h (140 MBEDTLS_* macros
#              #defined and 206 commented out; the recipe checks some: MBEDTLS_SSL_TLS_C,
#              MBEDTLS_X509_CRT_PARSE_C, MBEDTLS_PSA_CRYPTO_C, MBEDTLS_AESNI_C, MBEDTLS_SELF_TEST),
#              and include/mbedtls/check_config.h and the sources test them all over.
#              build/compile_commands.json is copied to the root. 3rdparty/everest (only with
#              MBEDTLS_ECDH_VARIANT_EVEREST_ENABLED), programs/test/dlopen.c (only with the shared
#              libraries), programs/test/cmake_subproject/, programs/wince_main.c and
#              tests/src/external_timing/ are not built; programs/psa/psa_constant_names_generated.c
#              and programs/ssl/ssl_test_common_source.c are #included by psa_constant_names.c and
#              by ssl_client2.c and ssl_server2.c. The tarball's .gitignore already ignores build/
#   exiv2      CMake into build/ with the unit tests (EXIV2_BUILD_UNIT_TESTS, with Debian's
#              googletest 1.12.1, find_package(GTest), which the recipe checks), BMFF and video
#              support (EXIV2_ENABLE_BMFF, EXIV2_ENABLE_VIDEO) and CMake's other defaults (XMP with
#              the bundled xmpsdk/ and Debian's expat, PNG with zlib, the samples, the exiv2
#              program, no NLS, no curl or libssh), then a build (-O3 -DNDEBUG; the library and
#              the samples -std=gnu++98, the unit tests -std=gnu++11): exiv2lib (shared, the 77
#              files of src/ it builds: the image formats, the maker notes, the tag tables, ...),
#              exiv2lib_int (src/, the internal helpers that the unit tests use as well),
#              exiv2-xmp (the 16 .cpp files of xmpsdk/src), the exiv2 program, 37 samples
#              (samples/*.cpp; src/getopt.cpp and src/utils.cpp again) and unit_tests (the 18
#              unitTests/*.cpp): 148 entries over 142 files. CMake generates build/exv_conf.h
#              (from cmake/config.h.cmake: 29 #defines, EXV_HAVE_* and EXV_ENABLE_* among them,
#              which the recipe checks some of: EXV_HAVE_XMP_TOOLKIT, EXV_HAVE_LIBZ,
#              EXV_ENABLE_BMFF, EXV_ENABLE_VIDEO) and build/exiv2lib_export.h
#              (generate_export_header's EXIV2API); build/compile_commands.json is copied to the
#              root. src/ssh.cpp (libssh), samples/httptest.cpp, mt-test.cpp, tiffaddpath-test.cpp
#              and toexv.cpp, contrib/ and fuzz/ are not built. The tarball's .gitignore already
#              ignores build/ (build*)
build_tree_sitter() {
  # Only the C library, amalgamated: lib/src/lib.c #includes the other lib/src/*.c files. The
  # Rust CLI and bindings are not built. The tarball's .gitignore already ignores the outputs.
  bear -- make -j2 AMALGAMATED=1 || exit 1
  require_files tree-sitter lib/src/lib.o libtree-sitter.a libtree-sitter.so.0.0
  python3 - <<'EOF' || exit 1
import json, os, sys
files = [os.path.relpath(os.path.join(e["directory"], e["file"]))
         for e in json.load(open("compile_commands.json"))]
if files != ["lib/src/lib.c"]:
    sys.exit("heldout: tree-sitter: not the amalgamated build: %s" % files)
EOF
}

build_msgpack_c() {
  # The tests and the examples; cJSON is never looked for, so that jsonconv.c is not built
  # whatever the machine has.
  cmake_build . -DMSGPACK_BUILD_TESTS=ON -DMSGPACK_BUILD_EXAMPLES=ON \
        -DCMAKE_DISABLE_FIND_PACKAGE_cJSON=ON || exit 1
  grep -q '^GTest_DIR:PATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: msgpack-c: Debian's googletest not found" >&2; exit 1; }
  require_files msgpack-c build/include/msgpack/sysdep.h build/include/msgpack/pack_template.h \
    build/test/msgpack_c build/test/streaming_c build/example/simple_c
  cdb_from_build
}

build_mbedtls() {
  # The defaults build the programs and the test suites, whose .c files the test generator
  # writes into build/tests/; Debian's python3 runs it, whatever python3 comes first on the PATH.
  cmake_build . -DPython3_EXECUTABLE=/usr/bin/python3 || exit 1
  require_files mbedtls build/library/libmbedtls.a build/tests/test_suite_ssl.c \
    build/tests/test_suite_ssl build/tests/test_suite_aes.ecb build/programs/ssl/ssl_client2
  require_defines mbedtls include/mbedtls/config.h MBEDTLS_SSL_TLS_C MBEDTLS_X509_CRT_PARSE_C \
    MBEDTLS_PSA_CRYPTO_C MBEDTLS_AESNI_C MBEDTLS_SELF_TEST
  cdb_from_build
}

build_exiv2() {
  # The unit tests, and BMFF and video support (no dependencies), so that their files are built.
  cmake_build . -DEXIV2_BUILD_UNIT_TESTS=ON -DEXIV2_ENABLE_BMFF=ON -DEXIV2_ENABLE_VIDEO=ON || exit 1
  grep -q '^GTest_DIR:PATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: exiv2: Debian's googletest not found" >&2; exit 1; }
  require_files exiv2 build/exv_conf.h build/exiv2lib_export.h build/bin/unit_tests \
    build/bin/exiv2 build/bin/exifprint
  require_defines exiv2 build/exv_conf.h EXV_HAVE_XMP_TOOLKIT EXV_HAVE_LIBZ EXV_ENABLE_BMFF \
    EXV_ENABLE_VIDEO
  cdb_from_build
}

# Set 40's recipes. Like set 32's, each build step ends with || exit 1. What each one builds:
#   wolfssl    ./autogen.sh (autoreconf: the tarball has no configure script), ./configure
#              --enable-all, then bear over make -j2 and make -j2 check TESTS= (which builds the
#              test programs without running them) in the tree: libwolfssl (shared only; the 53
#              files of wolfcrypt/src and the 9 of src/ it builds), the examples client, server,
#              echoclient, echoserver and tls_bench, wolfcrypt/test/testwolfcrypt and
#              wolfcrypt/benchmark/benchmark, tests/unit.test (tests/api.c, some 2 MB, and
#              suites.c, hash.c, srp.c, quic.c, w64wrapper.c, unit.c; client.c and server.c again)
#              and testsuite/testsuite.test (test.c, client.c, server.c, echoclient.c and
#              echoserver.c again): 84 entries over 77 files, all with -O2. The configuration is
#              on every command line (some 250 -D options, 191 of them different: OPENSSL_ALL,
#              WOLFSSL_TLS13, WOLFSSL_DTLS, HAVE_ECC, HAVE_CURVE448, WOLFSSL_SP_MATH_ALL, ...,
#              which the recipe checks some of) and again in wolfssl/options.h, which configure
#              writes (252 #defines); config.h has 63 more (47 HAVE_*). The sources test them all
#              over. 53 of the 77 files (43 of wolfcrypt/src, 6 of src and 4 of tests) #include
#              wolfcrypt/src/misc.c (the inline helpers) whole, and src/ssl.c #includes
#              src/ssl_misc.c, wolfcrypt/src/evp.c, src/pk.c, src/bio.c, src/x509.c, src/conf.c
#              and src/x509_str.c, none of which is compiled on its own (the recipe checks it).
#              autogen.sh links wolfSSL's pre-commit.sh and pre-push.sh into .git/hooks, which
#              the recipe removes. The tarball's .gitignore already ignores every output.
#              tfm.c (the fast math the SP math replaces), the port/ files, IDE/, linuxkm/,
#              wrapper/ and the other examples and tests are not built
#   rapidjson  CMake into build/ with the tests and the examples, without the docs, then a build
#              (-std=c++11 -march=native, -O2 -g -DNDEBUG -Wno-error after the CMakeLists'
#              -Werror, since GCC 12 warns on the 2016 headers): RapidJSON is a header-only
#              library (include/rapidjson/), so every entry is a program: unittest (the 25 files
#              of test/unittest, 340 TEST and TEST_F, googletest compiled from Debian's sources,
#              /usr/src/gtest, whose two entries lie outside the code base and are dropped;
#              namespacetest.cpp a second time as the namespacetest library, which renames the
#              rapidjson namespace), perftest (the five files of test/perftest) and the 15
#              examples (example/*/*.cpp): 46 entries over 45 files. No header is generated;
#              include/rapidjson/rapidjson.h derives the RAPIDJSON_* configuration macros (64-bit,
#              endianness, C++11 features), test/unittest/simdtest.cpp #defines RAPIDJSON_SSE42 or
#              RAPIDJSON_SSE2 from the compiler's, and the unit tests have
#              -DRAPIDJSON_HAS_STDSTRING=1. The tarball's .gitignore already ignores build/;
#              thirdparty/gtest is empty (+dfsg)
#   libmicrohttpd
#              ./configure --enable-https --with-gnutls, then bear over make -j2 and make -j2
#              check TESTS= (which builds the test programs without running them) in the tree:
#              libmicrohttpd (shared and static; libtool compiles each object twice, with -fPIC
#              -DPIC and without, so each of the 21 library files of src/microhttpd has two
#              entries, and some again in the unit tests), the 20 unit tests of src/microhttpd
#              (test_str*.c, test_postprocessor*.c, test_upgrade*.c, ...), the libcurl tests of
#              src/testcurl (31 files) and src/testcurl/https (14, with GnuTLS), the 25 examples
#              of src/examples and the 8 of doc/examples: 157 entries over 120 files, all with
#              -DHAVE_CONFIG_H -O2. configure generates MHD_config.h (137 #defines, 78 of them
#              HAVE_*, and 94 left #undef; the recipe checks HTTPS_SUPPORT, HAVE_LIBCURL,
#              EPOLL_SUPPORT, UPGRADE_SUPPORT, BAUTH_SUPPORT, DAUTH_SUPPORT and
#              HAVE_POSTPROCESSOR), which the sources test all over (mhd_sockets.h,
#              mhd_threads.h, mhd_itc.h, the select, poll and epoll loops of daemon.c). The
#              experimental new API (src/lib and src/microhttpd_ws, --enable-experimental), the
#              zzuf tests, w32/ and contrib/ are not built. The tarball has no .gitignore
#   dav1d      Meson into build/ with its defaults (release, -std=c99 -O3; the tools, the tests
#              and the x86 assembly, with nasm, which the compilation database does not list),
#              without xxhash, then a build with ninja: libdav1d (shared; the 20 *_tmpl.c files
#              of src/ and src/x86/ are compiled twice, with -DBITDEPTH=8 and -DBITDEPTH=16, so
#              that each has two entries), the dav1d program (tools/), the tests checkasm (seven
#              of its files twice again, per bit depth), seek_stress, dav1d_fuzzer and
#              dav1d_fuzzer_mt (tests/libfuzzer/, each file twice) and the header tests
#              (tests/header_test.c five times, with -DDAV1D_TEST_HEADER naming each public
#              header): 104 entries over 71 files. Meson's compilation database names each file
#              relative to build/ ("../src/lib.c"); it is copied to the root as it is. 87
#              commands have GCC's -mpreferred-stack-boundary=6 (9 -mincoming-stack-boundary=4 too),
#              which clang rejects as an unknown argument: clangd publishes that error for every
#              file it opens, though it parses the file as the build compiles it. Meson
#              generates build/config.h (ARCH_*, CONFIG_8BPC, CONFIG_16BPC, HAVE_ASM, HAVE_*; 0
#              or 1 each, tested with #if; the recipe checks ARCH_X86_64, CONFIG_8BPC,
#              CONFIG_16BPC and HAVE_ASM), build/config.asm and build/include/dav1d/version.h.
#              The other architectures' files (src/arm, src/ppc), examples/ (dav1dplay, SDL) and
#              the docs are not built. The tarball has no .gitignore
build_wolfssl() {
  # The tarball has no configure script: autogen.sh runs autoreconf. Since DEST/wolfssl is a git
  # repository, it also links wolfSSL's pre-commit.sh and pre-push.sh (which run its test suite)
  # into .git/hooks; they are removed, so that the "bench setup" commit runs nothing. Every
  # feature (--enable-all); make check TESTS= builds the test programs without running them. The
  # tarball's .gitignore already ignores every output of autogen.sh, configure and the build.
  ./autogen.sh >/dev/null || exit 1
  rm -f .git/hooks/pre-commit .git/hooks/pre-push || exit 1
  ./configure --enable-all >/dev/null || exit 1
  bear -- sh -c 'make -j2 && make -j2 check TESTS=' || exit 1
  require_files wolfssl wolfssl/options.h config.h src/.libs/libwolfssl.so tests/unit.test \
    testsuite/testsuite.test wolfcrypt/test/testwolfcrypt wolfcrypt/benchmark/benchmark \
    examples/client/client examples/server/server
  require_defines wolfssl wolfssl/options.h OPENSSL_ALL WOLFSSL_TLS13 WOLFSSL_DTLS HAVE_ECC \
    HAVE_CURVE448 HAVE_ED448 WOLFSSL_SP_MATH_ALL
  python3 - <<'EOF' || exit 1
import json, os, sys
files = {os.path.relpath(os.path.join(e["directory"], e["file"]))
         for e in json.load(open("compile_commands.json"))}
included = {"wolfcrypt/src/misc.c", "wolfcrypt/src/evp.c", "src/ssl_misc.c", "src/pk.c",
            "src/bio.c", "src/x509.c", "src/conf.c", "src/x509_str.c"}
if files & included or not {"src/ssl.c", "wolfcrypt/src/sp_int.c", "tests/api.c"} <= files:
    sys.exit("heldout: wolfssl: an #included file compiled on its own, or a file missing: %s"
             % sorted(files & included))
EOF
}

build_rapidjson() {
  # The tests (with Debian's googletest sources, /usr/src/gtest, which the tests' FindGTestSrc
  # finds; their two entries lie outside the code base and are dropped) and the examples, without
  # the docs (Doxygen). -Wno-error after the CMakeLists' -Werror (CMake puts the build type's
  # flags last), since GCC 12 warns on the 2016 headers (class-memaccess, implicit-fallthrough).
  cmake_build . -DRAPIDJSON_BUILD_DOC=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g -DNDEBUG -Wno-error" || exit 1
  grep -q '^GTEST_SOURCE_DIR:PATH=/usr/src/' build/CMakeCache.txt ||
    { echo "heldout: rapidjson: Debian's googletest sources not found" >&2; exit 1; }
  require_files rapidjson build/bin/unittest build/bin/perftest build/bin/tutorial \
    build/bin/schemavalidator
  python3 - <<'EOF' || exit 1
import json, os, sys
db = json.load(open("build/compile_commands.json"))
root = os.getcwd() + os.sep
kept = [e for e in db if not e["file"].startswith("/usr/src/")]
if len(db) - len(kept) != 2 or any(not e["file"].startswith(root) for e in kept):
    sys.exit("heldout: rapidjson: unexpected entries outside the code base")
json.dump(kept, open("compile_commands.json", "w"), indent=2)
EOF
}

build_libmicrohttpd() {
  # HTTPS with GnuTLS and the libcurl tests (src/testcurl, src/testcurl/https), which the recipe
  # checks; make check TESTS= builds the test programs without running them. The experimental
  # new API (src/lib, src/microhttpd_ws: --enable-experimental) is not built. The tarball has no
  # .gitignore.
  ./configure --enable-https --with-gnutls >/dev/null || exit 1
  bear -- sh -c 'make -j2 && make -j2 check TESTS=' || exit 1
  require_files libmicrohttpd MHD_config.h src/microhttpd/.libs/libmicrohttpd.so \
    src/microhttpd/.libs/libmicrohttpd.a src/microhttpd/test_str_token src/testcurl/test_get \
    src/testcurl/https/test_https_get src/examples/demo_https doc/examples/tlsauthentication
  require_defines libmicrohttpd MHD_config.h HTTPS_SUPPORT HAVE_LIBCURL EPOLL_SUPPORT \
    UPGRADE_SUPPORT BAUTH_SUPPORT DAUTH_SUPPORT HAVE_POSTPROCESSOR
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' 'Makefile' 'test-suite.log' '/MHD_config.h' \
         '/config.log' '/config.status' '/libtool' '/libmicrohttpd.pc' '/stamp-h1' \
         '/po/Makefile.in' '/po/POTFILES' '/src/microhttpd/microhttpd_dll_res.rc' \
         '/src/microhttpd/test_*' '!/src/microhttpd/test_*.c' '!/src/microhttpd/test_*.h' \
         '/src/testcurl/test_*' '!/src/testcurl/test_*.c' \
         '/src/testcurl/https/test_*' '!/src/testcurl/https/test_*.c' \
         '/src/examples/*' '!/src/examples/*.c' '!/src/examples/Makefile.*' \
         '/doc/examples/*' '!/doc/examples/*.c' '!/doc/examples/Makefile.*'
}

build_dav1d() {
  # Meson into build/ with its defaults (release, -O3; the tools, the tests and the assembly, with
  # nasm), without xxhash (so that the build does not depend on whether the machine has
  # libxxhash-dev), then a build with ninja. Meson's compilation database names each file
  # relative to build/ ("../src/lib.c"); it is copied to the root as it is.
  meson setup build -Dxxhash_muxer=disabled >/dev/null || exit 1
  ninja -C build -j2 || exit 1
  require_files dav1d build/config.h build/include/dav1d/version.h build/src/libdav1d.so \
    build/tools/dav1d build/tests/checkasm build/tests/seek_stress \
    build/tests/libfuzzer/dav1d_fuzzer
  local m
  for m in ARCH_X86_64 CONFIG_8BPC CONFIG_16BPC HAVE_ASM; do
    grep -qx "#define $m 1" build/config.h ||
      { echo "heldout: dav1d: build/config.h does not set $m to 1" >&2; exit 1; }
  done
  cdb_from_build || exit 1
}

# Set 41's recipes. Like set 32's, each build step ends with || exit 1. What each one builds:
#   x264       ./configure with the static library, without the optional input libraries
#              (libavformat, ffms, GPAC, L-SMASH, swscale, AviSynth) and OpenCL, then bear over make
#              -j2 and make -j2 checkasm example in the tree: libx264.a, the x264 program (x264.c,
#              input/, output/, filters/, autocomplete.c), example.c and the test program
#              tools/checkasm.c (as checkasm8 and checkasm10). Both bit depths (configure's default,
#              --bit-depth=all): 31 files of common/, common/x86/, encoder/, filters/video/, input/
#              and tools/ are compiled twice, with -DHIGH_BIT_DEPTH=0 -DBIT_DEPTH=8 and with
#              -DHIGH_BIT_DEPTH=1 -DBIT_DEPTH=10, so that each has two entries: 87 entries over 56
#              files. Every command has GCC's -mpreferred-stack-boundary=6, which clang rejects as
#              an unknown argument (as dav1d's). configure generates config.h (42 #defines: HAVE_*
#              macros, 0 or 1, tested with #if, the HAVE_BITDEPTH8, HAVE_BITDEPTH10,
#              HAVE_INTERLACED, HAVE_THREAD, HAVE_MMX and ARCH_X86_64 ones that the recipe checks
#              among them), x264_config.h (X264_BIT_DEPTH, X264_CHROMA_FORMAT, X264_VERSION, ...)
#              and config.mak. encoder/analyse.c #includes encoder/rdo.c whole, which #includes
#              encoder/cavlc.c and encoder/cabac.c again (with RDO_SKIP_BS, which turns their
#              bitstream writers into bit counters; both are compiled on their own as well), and
#              encoder/slicetype.c; rdo.c and slicetype.c are not compiled on their own (the recipe
#              checks it). The x86 assembly (common/x86/*.asm, nasm) is not in the compilation
#              database; the other architectures' files (common/aarch64, arm, mips, ppc), OpenCL
#              (common/opencl.c, encoder/slicetype-cl.c), common/win32thread.c, x264dll.c,
#              extras/getopt.c and the input and output files of the disabled libraries are not
#              built
#   mpg123     ./configure --with-cpu=x86-64 --with-audio=oss --enable-modules=no, then bear over
#              make -j2 and make -j2 check TESTS= (which builds the test programs without running
#              them) in the tree: libmpg123, libout123 and libsyn123 (shared only, configure's
#              default: one entry per file), the programs mpg123, out123, mpg123-id3dump and
#              mpg123-strip and the seven test programs of src/tests: 71 entries over 71 files, all
#              in src/, once the 14 assembly entries (.S, the x86-64 and AVX synth and DCT code) are
#              dropped. The decoder choice is on every command line (-DOPT_MULTI -DOPT_X86_64
#              -DOPT_GENERIC -DOPT_GENERIC_DITHER -DREAL_IS_FLOAT -DOPT_AVX, which the recipe
#              checks), and libmpg123 tests the OPT_* macros all over (optimize.c, synth.c,
#              layer3.c, frame.c, decode.h, optimize.h and the synth_*.c). configure generates
#              src/config.h (HAVE_CONFIG_H: 91 #defines, 57 of them HAVE_*, and 89 left #undef;
#              GAPLESS, FRAME_INDEX, IEEE_FLOAT, NETWORK, ACCURATE_ROUNDING, DEFAULT_OUTPUT_MODULE,
#              the SIZEOF_* and LFS_* ones; the recipe checks some of them) and
#              src/libmpg123/mpg123.h, src/libout123/out123.h and src/libsyn123/syn123.h from the
#              tarball's *.h.in. The one output module, src/libout123/modules/oss.c, is linked in;
#              the other modules (alsa, pulse, jack, sdl, coreaudio and portaudio, the last three of
#              which #include src/libout123/sfifo.c whole, ...), the other CPUs' decoders (i386,
#              i486, AltiVec, ARM), the Windows files, doc/examples/ and ports/ are not built
#   cli11      CMake into build/ with the tests and the examples, with Debian's Catch2 2.13.10
#              (find_package(Catch2), which the recipe checks; tests/catch.hpp only #includes
#              <catch2/catch.hpp>), without the docs, then a build (-std=c++11): CLI11 is a
#              header-only library (the 15 include/CLI/*.hpp), so every entry is a program: the 20
#              Catch2 test programs of tests/ (some 800 TEST_CASE and TEMPLATE_TEST_CASE, with
#              tests/app_helper.hpp; tests/main.cpp is their catch_main library, and link_test_2.cpp
#              links link_test_1.cpp's library), tests/informational.cpp (it prints CLI11's
#              configuration) and the 25 examples (examples/subcom_in_files/ makes one program of
#              two files): 48 entries over 48 files. No header is generated (CLI11_SINGLE_FILE, the
#              amalgamated CLI11.hpp that CLI11.hpp.in makes, is off); build/compile_commands.json
#              is copied to the root. tests/BoostOptionTypeTest.cpp (Boost), tests/WindowsTest.cpp,
#              tests/mesonTest/, examples/json.cpp (it downloads nlohmann/json) and test_package/
#              are not built
#   libwebp    ./configure --enable-libwebpdecoder --enable-libwebpextras --disable-static, without
#              GIF, TIFF, OpenGL, SDL and WIC, then bear -- make -j2 in the tree: libwebp,
#              libwebpdecoder (9 files of src/dsp compiled a second time for it), libwebpdemux,
#              libwebpmux, libwebpextras and libsharpyuv (shared only), the tools cwebp, dwebp,
#              img2webp, webpinfo and webpmux with imageio/ (PNG and JPEG) and the extras get_disto
#              and webp_quality: 150 entries over 141 files. All 64 .c files of src/dsp are
#              compiled, 33 of them for NEON, MIPS32, MIPS DSP R2 and MSA with their bodies under
#              inactive #if WEBP_USE_* (src/dsp/dsp.h derives the WEBP_USE_* macros from the
#              compiler's and config.h's WEBP_HAVE_*; the SSE2 and SSE4.1 ones are active), and
#              imageio/tiffdec.c and wicdec.c with theirs under inactive #ifdef. configure generates
#              src/webp/config.h (HAVE_CONFIG_H: 30 #defines; the recipe checks WEBP_HAVE_PNG,
#              WEBP_HAVE_JPEG, WEBP_HAVE_SSE2, WEBP_HAVE_SSE41 and WEBP_USE_THREAD).
#              examples/gif2webp.c, anim_diff.c, anim_dump.c, vwebp.c and the other GIF, SDL and
#              OpenGL programs, tests/fuzzer/, swig/, webp_js/ and the CMake, Android and
#              Makefile.vc builds are not built or used
build_x264() {
  # Both bit depths and every chroma format (configure's defaults), the assembly (nasm, which the
  # compilation database does not list), and none of the optional input libraries (libavformat,
  # ffms, GPAC, L-SMASH, swscale, AviSynth, OpenCL), so that the build does not depend on what else
  # the machine has. make checkasm example builds the test program and the API example. The
  # tarball has no .gitignore.
  ./configure --enable-static --disable-lavf --disable-ffms --disable-gpac --disable-lsmash \
    --disable-swscale --disable-avs --disable-opencl >/dev/null || exit 1
  bear -- sh -c 'make -j2 && make -j2 checkasm example' || exit 1
  require_files x264 config.h config.mak x264_config.h libx264.a x264 checkasm8 checkasm10 example
  require_defines x264 config.h HAVE_BITDEPTH8 HAVE_BITDEPTH10 HAVE_INTERLACED HAVE_THREAD \
    HAVE_MMX ARCH_X86_64
  python3 - <<'EOF' || exit 1
import json, os, sys
files = {os.path.relpath(os.path.join(e["directory"], e["file"]))
         for e in json.load(open("compile_commands.json"))}
wanted = {"encoder/analyse.c", "encoder/cabac.c", "encoder/cavlc.c", "tools/checkasm.c"}
if files & {"encoder/rdo.c", "encoder/slicetype.c"} or not wanted <= files:
    sys.exit("heldout: x264: an #included file compiled on its own, or a file missing: %s"
             % sorted(files))
EOF
  ignore '*.o' '/.depend' '/config.h' '/config.log' '/config.mak' '/x264_config.h' '/x264.pc' \
         '/libx264.a' '/x264' '/checkasm8' '/checkasm10' '/example'
}

build_mpg123() {
  # The x86-64 decoders (configure's default here, named so that it does not depend on the
  # machine), one output module built in (OSS, which needs only the kernel's headers) instead of
  # loadable modules found among the machine's audio libraries; make check TESTS= builds the test
  # programs without running them. The assembly entries (.S) are dropped. The tarball has no
  # .gitignore.
  ./configure --with-cpu=x86-64 --with-audio=oss --enable-modules=no >/dev/null || exit 1
  bear -- sh -c 'make -j2 && make -j2 check TESTS=' || exit 1
  require_files mpg123 src/config.h src/libmpg123/mpg123.h src/libout123/out123.h \
    src/libsyn123/syn123.h src/libmpg123/.libs/libmpg123.so src/mpg123 src/out123 \
    src/tests/seek_accuracy src/tests/text
  require_defines mpg123 src/config.h GAPLESS FRAME_INDEX IEEE_FLOAT NETWORK ACCURATE_ROUNDING
  python3 - <<'EOF' || exit 1
import json, os, sys
db = [e for e in json.load(open("compile_commands.json")) if not e["file"].endswith(".S")]
opts = {"-DOPT_MULTI", "-DOPT_X86_64", "-DOPT_AVX", "-DREAL_IS_FLOAT"}
if not opts <= {a for e in db if "libmpg123" in e["file"]
                for a in (e.get("arguments") or e["command"].split())}:
    sys.exit("heldout: mpg123: not the x86-64 multi-decoder build")
json.dump(db, open("compile_commands.json", "w"), indent=2)
EOF
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' '.dirstamp' 'Makefile' '/test-suite.log' \
         '/config.log' '/config.status' '/libtool' '/lib*123.pc' '/src/config.h' '/src/stamp-h1' \
         '/src/libmpg123/mpg123.h' '/src/libout123/out123.h' '/src/libsyn123/syn123.h' \
         '/src/mpg123' '/src/mpg123-id3dump' '/src/mpg123-strip' '/src/out123' \
         '/src/tests/*' '!/src/tests/*.c' '!/src/tests/*.h' '!/src/tests/*.sh' \
         '!/src/tests/*.am' '!/src/tests/*.mp3' '!/src/tests/*.txt'
}

build_cli11() {
  # The tests with Debian's Catch2 2.13.10 (find_package(Catch2), which the recipe checks,
  # instead of the download) and the examples, without the docs (Doxygen) and the JSON example
  # (it downloads nlohmann/json). The tarball's .gitignore already ignores build/.
  cmake_build . -DCLI11_BUILD_DOCS=OFF -DCLI11_BUILD_EXAMPLES_JSON=OFF || exit 1
  grep -q '^Catch2_DIR:PATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: cli11: Debian's Catch2 not found" >&2; exit 1; }
  require_files cli11 build/tests/AppTest build/tests/HelpersTest build/examples/simple
  cdb_from_build
}

build_libwebp() {
  # libwebp, libwebpdecoder, libwebpdemux, libwebpmux, libwebpextras and sharpyuv (shared only),
  # the tools cwebp, dwebp, img2webp, webpinfo and webpmux with PNG and JPEG (which the recipe
  # checks), and the extras get_disto and webp_quality; without GIF, TIFF, OpenGL, SDL and WIC,
  # so that the build does not depend on what else the machine has. The tarball has no
  # .gitignore.
  ./configure --enable-libwebpdecoder --enable-libwebpextras --disable-static --disable-gl \
    --disable-sdl --disable-tiff --disable-gif --disable-wic >/dev/null || exit 1
  bear -- make -j2 || exit 1
  require_files libwebp src/webp/config.h src/.libs/libwebp.so src/.libs/libwebpdecoder.so \
    examples/cwebp examples/dwebp examples/webpmux extras/get_disto
  require_defines libwebp src/webp/config.h WEBP_HAVE_PNG WEBP_HAVE_JPEG WEBP_HAVE_SSE2 \
    WEBP_HAVE_SSE41 WEBP_USE_THREAD
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' 'Makefile' '/config.log' '/config.status' \
         '/libtool' '/src/*.pc' '/src/*/*.pc' '/sharpyuv/*.pc' '/src/webp/config.h' \
         '/src/webp/stamp-h1' '/examples/cwebp' '/examples/dwebp' '/examples/img2webp' \
         '/examples/webpinfo' '/examples/webpmux' '/extras/get_disto' '/extras/webp_quality'
}

# The build_recipe of prepare-clang-heldout-recipes.sh (sets 24 to 39) is kept as
# build_recipe_24_39; this one adds sets 40's and 41's packages.
eval "build_recipe_24_39() $(declare -f build_recipe | tail -n +2)"
build_recipe() {
  case "$1" in
    wolfssl) build_wolfssl ;;
    rapidjson) build_rapidjson ;;
    libmicrohttpd) build_libmicrohttpd ;;
    dav1d) build_dav1d ;;
    x264) build_x264 ;;
    mpg123) build_mpg123 ;;
    cli11) build_cli11 ;;
    libwebp) build_libwebp ;;
    *) build_recipe_24_39 "$1" ;;
  esac
}
