# Sourced by bench/prepare-clang-heldout.sh: the recipe that builds each held-out code base once,
# in its own directory, so that it has a compilation database and the headers its build
# generates, and the helpers the recipes share. The main script's header says what the recipes of
# sets 24 to 35 build and why, set 36's are described here, beside them; the functions are kept
# here so that the main script stays short. Sets 37's, 38's and 39's recipes, with their
# descriptions, are in bench/prepare-clang-heldout-sets.sh, which the main script sources after
# this file.
# shellcheck shell=bash

# Appends the build outputs of one code base to its root .gitignore.
ignore() {
  { echo; echo "# nib bench setup: build outputs"; printf '%s\n' "$@"; } >> .gitignore
}

# The tracked files that a package's recipe changes, one a line; "bench setup" commits them.
changed_by_recipe() {
  case "$1" in
    leveldb|snappy|jansson) echo CMakeLists.txt ;;
    yaml-cpp) echo test/CMakeLists.txt ;;
    libwebm|wabt) echo CMakeLists.txt ;;
    zlib) printf '%s\n' Makefile zconf.h ;;
    re2) echo re2/unicode.py ;;
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

# Fails the build of package $1 unless each file after it exists (what its build generates).
require_files() {
  local pkg=$1 f
  shift
  for f; do [ -f "$f" ] || { echo "heldout: $pkg: no $f" >&2; exit 1; }; done
}

# Fails the build of package $1 unless configuration header $2 defines each macro after them
# (a dependency the build was meant to find); taglib's config.h puts several spaces after #define.
require_defines() {
  local pkg=$1 header=$2 m
  shift 2
  for m; do grep -q "^#define  *$m" "$header" || { echo "heldout: $pkg: $header does not define $m" >&2; exit 1; }; done
}

# CMake from SRC into build/ with the arguments and a compilation database, then a build.
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

# The set 32 recipes end each build step with || exit 1, because the main script runs a recipe
# in a subshell on the left of an ||, where bash ignores set -e: without the explicit exits, a
# failed compile would leave a partial compilation database behind a recipe that succeeds.
build_libjpeg_turbo() {
  # Without the SIMD extensions: on x86-64 they are NASM assembly, which neither clangd nor nib
  # reads; jsimd_none.c stands in for them.
  cmake_build . -DWITH_SIMD=OFF -DWITH_JAVA=OFF -DWITH_FUZZ=OFF || exit 1
  require_files libjpeg-turbo build/jconfig.h build/jconfigint.h build/jversion.h
  require_defines libjpeg-turbo build/jconfig.h C_ARITH_CODING_SUPPORTED D_ARITH_CODING_SUPPORTED
  cdb_from_build
}

build_cpp_jwt() {
  # Debian's nlohmann-json3-dev instead of the vendored json.hpp, which the +ds tarball strips.
  cmake_build . -DCPP_JWT_BUILD_TESTS=ON -DCPP_JWT_BUILD_EXAMPLES=ON \
        -DCPP_JWT_USE_VENDORED_NLOHMANN_JSON=OFF || exit 1
  grep -q '^GTest_DIR:PATH=/usr/' build/CMakeCache.txt &&
    grep -q '^nlohmann_json_DIR:PATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: cpp-jwt: Debian's googletest or nlohmann-json not found" >&2; exit 1; }
  cdb_from_build
}

build_opus() {
  # make check with an empty TESTS builds the test programs without running them.
  ./configure --enable-custom-modes --disable-doc >/dev/null || exit 1
  bear -- make -j2 check TESTS= || exit 1
  require_files opus config.h
  require_defines opus config.h CUSTOM_MODES OPUS_HAVE_RTCD OPUS_X86_MAY_HAVE_SSE4_1 VAR_ARRAYS
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' '.dirstamp' '/Makefile' '/doc/Makefile' \
         '/config.h' '/config.log' '/config.status' '/libtool' '/stamp-h1' '/test-suite.log' \
         '/opus.pc' '/opus-uninstalled.pc' '/doc/Doxyfile' '/celt/arm/armopts.s' '/opus_compare' \
         '/opus_custom_demo' '/opus_demo' '/repacketizer_demo' '/celt/tests/test_unit_*' \
         '!/celt/tests/*.c' '/silk/tests/test_unit_LPC_inv_pred_gain' '/tests/test_opus_*' \
         '!/tests/*.c'
}

build_taglib() {
  # The cppunit test runner (Debian's libcppunit-dev), the examples and the C bindings.
  cmake_build . -DBUILD_TESTING=ON -DBUILD_EXAMPLES=ON -DBUILD_BINDINGS=ON || exit 1
  require_files taglib build/config.h build/taglib_config.h build/tests/test_runner
  require_defines taglib build/config.h HAVE_ZLIB
  cdb_from_build
}

# Set 33. Like set 32's, each build step ends with || exit 1.
build_mujs() {
  # The default target (shell): build/release/libmujs.a from one.c, which #includes every other
  # library .c file, and the mujs (with readline) and mujs-pp programs.
  bear -- make -j2 || exit 1
  require_files mujs build/release/libmujs.a build/release/mujs build/release/mujs-pp
  ignore '/build/'
}

build_libjsoncpp() {
  # The tests are built but not run (no post-build unit test step).
  cmake_build . -DJSONCPP_WITH_TESTS=ON -DJSONCPP_WITH_POST_BUILD_UNITTEST=OFF \
        -DJSONCPP_WITH_EXAMPLE=ON || exit 1
  require_files libjsoncpp build/bin/jsoncpp_test build/bin/jsontestrunner_exe
  cdb_from_build
}

build_nettle() {
  # The C implementations instead of the x86-64 assembly (m4 over .asm files, which neither clangd
  # nor nib reads); the test programs are built through a rule read from stdin, because the
  # testsuite's own check target runs them.
  ./configure --disable-assembler --disable-documentation >/dev/null || exit 1
  bear -- sh -c 'make -j2 && printf "nib-bench-tests: \$(TS_ALL) \$(EXTRA_TARGETS)\n" |
    make -j2 -C testsuite -f Makefile -f - nib-bench-tests' || exit 1
  require_files nettle config.h version.h ecc-secp256r1.h testsuite/aes-test testsuite/cxx-test
  require_defines nettle config.h HAVE_LIBGMP WITH_HOGWEED WITH_OPENSSL SIZEOF_LONG
  ignore '*.o' '*.o.d' '*.a' '*.so' '*.so.*' '/.lib/' 'Makefile' '/config.h' '/config.log' \
         '/config.m4' '/config.make' '/config.status' '/version.h' '/ecc-curve25519.h' \
         '/ecc-curve448.h' '/ecc-gost-gc256b.h' '/ecc-gost-gc512a.h' '/ecc-secp192r1.h' \
         '/ecc-secp224r1.h' '/ecc-secp256r1.h' '/ecc-secp384r1.h' '/ecc-secp521r1.h' '/eccdata' \
         '/eccdata.stamp' '/libnettle.map' '/libhogweed.map' '/libnettle.stamp' \
         '/libhogweed.stamp' '/nettle.pc' '/hogweed.pc' '/examples/base16dec' \
         '/examples/base16enc' '/examples/base64dec' '/examples/base64enc' \
         '/examples/ecc-benchmark' '/examples/hogweed-benchmark' '/examples/nettle-benchmark' \
         '/examples/random-prime' '/examples/rsa-decrypt' '/examples/rsa-encrypt' \
         '/examples/rsa-keygen' '/examples/rsa-sign' '/examples/rsa-verify' '/testsuite/*-test' \
         '!/testsuite/nettle-pbkdf2-test' '!/testsuite/pkcs1-conv-test' \
         '!/testsuite/sexp-conv-test' '!/testsuite/symbols-test' '/tools/nettle-hash' \
         '/tools/nettle-lfib-stream' '/tools/nettle-pbkdf2' '/tools/pkcs1-conv' '/tools/sexp-conv'
}

build_spdlog() {
  # Debian's fmt 9.1.0 (the +ds tarball strips the bundled copy); no PkgConfig, so that the
  # systemd test is left out whether or not the machine has libsystemd-dev.
  cmake_build . -DSPDLOG_BUILD_TESTS=ON -DSPDLOG_BUILD_EXAMPLE=ON -DSPDLOG_FMT_EXTERNAL=ON \
        -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON || exit 1
  grep -q '^fmt_DIR:PATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: spdlog: Debian's fmt not found" >&2; exit 1; }
  require_files spdlog build/tests/spdlog-utests build/example/example
  cdb_from_build
}

# Set 34. Like set 32's, each build step ends with || exit 1.
build_libonig() {
  # The tarball has configure.ac but no configure script: autoreconf -i generates it (without -f,
  # so that the tarball's own compile, config.guess, INSTALL and the like are kept). make check
  # with an empty TESTS builds the test programs and the samples without running them.
  autoreconf -i || exit 1
  ./configure --enable-posix-api >/dev/null || exit 1
  bear -- make -j2 check TESTS= || exit 1
  require_files libonig src/config.h test/test_utf8 test/testp sample/posix
  require_defines libonig src/config.h HAVE_ALLOCA SIZEOF_LONG
}

build_libwebm() {
  # Debian's googletest and gmock instead of the ../googletest checkout that the tests expect.
  sed -i \
    -e '/^  set(GTEST_SRC_DIR "${LIBWEBM_SRC_DIR}\/..\/googletest" CACHE PATH$/,/^  include_directories("${GTEST_SRC_DIR}\/googletest\/include")$/c\  find_package(GTest REQUIRED)  # nib bench: Debian libgtest-dev, libgmock-dev' \
    -e '/^    include_directories("${GTEST_SRC_DIR}\/googlemock\/include")$/d' \
    -e 's|^\(\s*target_link_libraries(.* LINK_PUBLIC\) gmock gtest webm)$|\1 GTest::gmock GTest::gtest webm)  # nib bench|' \
    -e 's|^\(\s*target_link_libraries(.* LINK_PUBLIC\) gtest webm)$|\1 GTest::gtest webm)  # nib bench|' \
    CMakeLists.txt
  grep -q 'find_package(GTest REQUIRED)' CMakeLists.txt &&
    [ "$(grep -c 'LINK_PUBLIC GTest::' CMakeLists.txt)" = 6 ] &&
    ! grep -q 'GTEST_SRC_DIR' CMakeLists.txt ||
    { echo "heldout: libwebm: the CMakeLists.txt patch did not apply" >&2; exit 1; }
  cmake_build . -DENABLE_TESTS=ON -DENABLE_WEBM_PARSER=ON || exit 1
  grep -q '^GTest_DIR:PATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: libwebm: Debian's googletest not found" >&2; exit 1; }
  require_files libwebm build/mkvmuxer_tests build/webm2pes_tests build/webm_parser_tests
  cdb_from_build
}

build_libsrtp2() {
  # OpenSSL's AES-ICM, AES-GCM and HMAC-SHA1 instead of the library's own (Debian's build uses
  # NSS), and libpcap for test/rtp_decoder. The default target builds libsrtp2.a and the test
  # programs; the tarball's .gitignore already ignores every build output.
  ./configure --enable-openssl >/dev/null || exit 1
  bear -- make -j2 || exit 1
  require_files libsrtp2 crypto/include/config.h libsrtp2.a test/test_srtp test/rtp_decoder
  require_defines libsrtp2 crypto/include/config.h OPENSSL GCM HAVE_PCAP HAVE_X86 CPU_CISC
}

build_geographiclib() {
  # Without Boost for the examples (so that the build does not depend on what else the machine
  # has). The examples are a CMake project of their own, which the exampleprograms target
  # configures in build/exampleprograms against the library just built (CMake takes
  # CMAKE_EXPORT_COMPILE_COMMANDS from the environment there); the two databases are merged.
  cmake_build . -DUSE_BOOST_FOR_EXAMPLES=OFF || exit 1
  CMAKE_EXPORT_COMPILE_COMMANDS=ON cmake --build build --target exampleprograms || exit 1
  require_files geographiclib build/include/GeographicLib/Config.h build/tools/GeoConvert \
    build/tests/geodtest build/exampleprograms/compile_commands.json
  python3 - <<'EOF' || exit 1
import json
db = json.load(open("build/compile_commands.json"))
db += json.load(open("build/exampleprograms/compile_commands.json"))
json.dump(db, open("compile_commands.json", "w"), indent=2)
EOF
  ignore '/build/'
}

# Set 35. Like set 32's, each build step ends with || exit 1.
build_freetype() {
  # Debian's zlib, bzip2, libpng and Brotli required, so that the build does not depend on what
  # else the machine has; HarfBuzz (which itself links FreeType) left out.
  cmake_build . -DFT_REQUIRE_ZLIB=ON -DFT_REQUIRE_BZIP2=ON -DFT_REQUIRE_PNG=ON \
        -DFT_REQUIRE_BROTLI=ON -DFT_DISABLE_HARFBUZZ=ON || exit 1
  require_files freetype build/include/freetype/config/ftconfig.h \
    build/include/freetype/config/ftoption.h
  require_defines freetype build/include/freetype/config/ftoption.h FT_CONFIG_OPTION_SYSTEM_ZLIB \
    FT_CONFIG_OPTION_USE_BZIP2 FT_CONFIG_OPTION_USE_PNG FT_CONFIG_OPTION_USE_BROTLI
  cdb_from_build
}

build_xz_utils() {
  # make check with an empty TESTS builds the test programs without running them.
  ./configure >/dev/null || exit 1
  bear -- make -j2 check TESTS= || exit 1
  require_files xz-utils config.h src/liblzma/liblzma.la src/xz/xz src/xzdec/xzdec tests/test_index
  require_defines xz-utils config.h HAVE_ENCODER_LZMA2 HAVE_DECODER_LZMA2 HAVE_MF_BT4 \
    HAVE_CHECK_SHA256 MYTHREAD_POSIX
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' 'Makefile' '/Doxyfile' '/config.h' '/config.log' \
         '/config.status' '/libtool' '/stamp-h1' '/po/Makefile.in' '/po/POTFILES' \
         '/src/liblzma/liblzma.pc' '/src/scripts/xzdiff' '/src/scripts/xzgrep' \
         '/src/scripts/xzless' '/src/scripts/xzmore' '/src/xz/xz' '/src/xzdec/xzdec' \
         '/src/xzdec/lzmadec' '/src/lzmainfo/lzmainfo' '/tests/test-suite.log' \
         '/tests/create_compress_files' '/tests/test_bcj_exact_size' '/tests/test_block_header' \
         '/tests/test_check' '/tests/test_filter_flags' '/tests/test_hardware' '/tests/test_index' \
         '/tests/test_index_hash' '/tests/test_lzip_decoder' '/tests/test_memlimit' \
         '/tests/test_stream_flags' '/tests/test_vli'
}

build_libyuv() {
  # Debian's libgtest.a (find_library), not gtest-all.cc compiled from /usr/src/gtest, which
  # would put an entry outside the code base; libjpeg for the MJPEG functions (HAVE_JPEG).
  cmake_build . -DTEST=ON || exit 1
  grep -q '^GTEST_LIBRARY:FILEPATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: libyuv: Debian's libgtest not found" >&2; exit 1; }
  grep -q -e '-DHAVE_JPEG' build/compile_commands.json ||
    { echo "heldout: libyuv: built without libjpeg" >&2; exit 1; }
  require_files libyuv build/libyuv_unittest build/yuvconvert build/yuvconstants
  cdb_from_build
}

build_wabt() {
  # No wasm-c-api examples: their sources are in third_party/wasm-c-api, an empty submodule.
  sed -i \
    -e '/^  if (CMAKE_USE_PTHREADS_INIT)$/,/^  endif ()$/d' \
    -e '/^  function(c_api_example NAME)$/,/^  c_api_example(trap)$/c\  # nib bench: no wasm-c-api examples (third_party/wasm-c-api, a git submodule, is empty)' \
    CMakeLists.txt
  grep -q '^  # nib bench: no wasm-c-api examples' CMakeLists.txt && ! grep -q 'c_api_example' CMakeLists.txt ||
    { echo "heldout: wabt: the CMakeLists.txt patch did not apply" >&2; exit 1; }
  # Debian's googletest instead of the empty third_party/gtest submodule.
  cmake_build . -DBUILD_TESTS=ON -DUSE_SYSTEM_GTEST=ON -DBUILD_LIBWASM=OFF || exit 1
  require_files wabt build/include/wabt/config.h build/wabt-unittests build/hexfloat_test \
    build/wat2wasm bin/wat2wasm
  cdb_from_build
  ignore '/bin/'
}

# Set 36's recipes. Like set 32's, each build step ends with || exit 1. What each one builds is
# described here rather than in the main script's header, for lack of room there:
#   re2        The +dfsg tarball lacks the generated tables re2/perl_groups.cc,
#              re2/unicode_casefold.cc and re2/unicode_groups.cc: they are generated first, as
#              Debian's build does (REBUILD_TABLES), with re2/make_perl_groups.pl and
#              re2/make_unicode_{casefold,groups}.py (/usr/bin/python3 and python3-six) from
#              Debian's unicode-data 15.0.0 (re2/unicode.py's _UNICODE_DIR patched to
#              /usr/share/unicode, as Debian patches it, instead of unicode.org's 14.0.0 download).
#              Then CMake into build/ with the tests (RE2_BUILD_TESTING), static, then a build (no
#              -std, since g++ 12's default already meets cxx_std_11, and no -O): libre2 (re2/*.cc
#              and util/rune.cc, util/strutil.cc), the testing library (re2/testing/'s backtrack.cc,
#              dump.cc, exhaustive_tester.cc, null_walker.cc, regexp_generator.cc,
#              string_generator.cc, tester.cc and util/pcre.cc, whose PCRE comparisons are off
#              without USEPCRE), the 20 test programs (re2/testing/*_test.cc, each with util/test.cc
#              again, so it has 20 entries: RE2's own minimal framework in util/test.h, TEST() and
#              CHECK-based ASSERT_* macros; this version uses neither googletest nor Abseil) and
#              regexp_benchmark (with util/benchmark.cc, its own benchmark framework). No header is
#              generated; build/compile_commands.json is copied to the root. re2/fuzzing/,
#              util/fuzz.cc, testinstall.cc and the tarball's Makefile and Bazel build are not built
#              or used. The tarball's .gitignore ignores benchlog.*, so the first commit lacks
#              benchlog/benchlog.c2, .mini, .r70 and .wreck (benchmark logs)
#   libtommath bear -- make -j2 libtommath.a test mtest_opponent timing mtest in the tree (makefile,
#              with its -O3 -funroll-loops -fomit-frame-pointer): the static library, 157 bn_*.c
#              files of one function each, every body under #ifdef BN_<NAME>_C, the configuration
#              macros that tommath_class.h #defines (every one under LTM_ALL, tommath_superclass.h's
#              default; a smaller selection also #defines the ones each selected function's block
#              names as its dependencies); tommath.h picks the digit size, MP_64BIT here (60-bit
#              digits, GCC's 128-bit mode(TI) words), over MP_8BIT, MP_16BIT, MP_31BIT and the
#              32-bit default's MP_28BIT, which select code all over the library. The programs: test
#              and mtest_opponent (demo/test.c, demo/mtest_opponent.c and demo/shared.c), timing
#              (demo/timing.c with -DTIMER, compiled and linked in one command, so its entry also
#              names libtommath.a) and mtest/mtest (mtest/mtest.c, compiled and linked in one
#              command with -O0, #includes mtest/mpi.c whole, Michael Fromberger's MPI library,
#              which is not compiled on its own). No header is generated and no configure step
#              exists. pre_gen/mpi.c (an amalgamation of every bn_*.c), etc/ (tune and the
#              prime-table generators), doc/ and makefile.shared (libtool) are not built or used.
#              The tarball has no .gitignore
#   tcc        The .orig tarball has no top directory, which fetch-corpus.sh's tar
#              --strip-components=1 assumes: the script gives it one through TAR_OPTIONS (GNU tar
#              transforms names before it strips them). The tarball's .gitignore ignores conftest*
#              and tcc, so the first commit lacks conftest.c (configure compiles it to find the
#              host's triplet) and win32/include/tcc/ (they are on disk all the same).
#              ./configure, then bear -- make -j2 ONE_SOURCE=yes in the tree. The Makefile's native
#              default compiles libtcc.c, tccpp.c, tccgen.c, tccelf.c, tccasm.c, tccrun.c,
#              x86_64-gen.c, x86_64-link.c and i386-asm.c one by one, each with -DONE_SOURCE=0;
#              ONE_SOURCE=yes (tcc.h's own default, ONE_SOURCE 1, and the Makefile's for the
#              cross compilers) compiles libtcc.c alone without -DONE_SOURCE, and it #includes the
#              eight others whole, so none of them is compiled on its own (libtcc.a is libtcc.o;
#              the other targets' *-gen.c, *-link.c and *-asm.c, tcccoff.c, tccpe.c and
#              tccmacho.c are #included under #if branches that are inactive here);
#              tcc.c, with -DONE_SOURCE=0, #includes tcctools.c whole. The tcc program just built
#              then compiles lib/ into libtcc1.a (libtcc1.c, va_list.c, dsohandle.c and the
#              assembly alloca86_64.S, alloca86_64-bt.S) and bcheck.o, bt-exe.o and bt-log.o;
#              lib/bt-exe.c #defines CONFIG_TCC_BACKTRACE_ONLY and #includes ../tccrun.c whole. make
#              is given XTCC=<root>/tcc and bear a configuration that recognises that path as a
#              compiler, so these six C files are in the compilation database too (with the tcc
#              program as the compiler, -B.. -I..); the two .S entries are dropped. configure
#              generates config.h (CONFIG_TCCDIR, TCC_VERSION, GCC_MAJOR, GCC_MINOR, CC_NAME),
#              config.mak (-DCONFIG_TRIPLET="x86_64-linux-gnu" and -DTCC_TARGET_X86_64 come from
#              there) and config.texi; the build also writes tcc.1. The other targets' files
#              (arm*, c67, riscv64, il, tccpe.c, tcccoff.c, tccmacho.c, win32/), tests/ (make
#              test), examples/ and the cross compilers are not built
#   lmdb       bear -- make -j2 -C libraries/liblmdb (the tarball's only code; the compilation
#              database is written at the root): liblmdb.a and liblmdb.so (mdb.c and midl.c, each
#              compiled twice, the second time with -fPIC as *.lo), the tools mdb_stat, mdb_copy,
#              mdb_dump and mdb_load and the test programs mtest to mtest5, all with -pthread -O2
#              -g. No header is generated and no configure step exists: mdb.c's configuration
#              macros (MDB_USE_POSIX_SEM, MDB_USE_POSIX_MUTEX, MDB_USE_ROBUST, MDB_DEVEL, MDB_DEBUG,
#              the _WIN32 and BSD branches, ...) keep their defaults. mtest6.c (it needs MDB_DEBUG's
#              mdb_dkey) is not built. libraries/liblmdb/.gitignore already ignores every build
#              output; the root .gitignore lists them again, since the tarball has none at the root
build_re2() {
  # The generated tables that the +dfsg tarball strips, as Debian's build makes them
  # (REBUILD_TABLES=1), from Debian's Unicode data instead of a download from unicode.org.
  sed -i 's|^_UNICODE_DIR = "https://.*"$|_UNICODE_DIR = "/usr/share/unicode"  # nib bench|' \
    re2/unicode.py
  grep -q '^_UNICODE_DIR = "/usr/share/unicode"' re2/unicode.py ||
    { echo "heldout: re2: the re2/unicode.py patch did not apply" >&2; exit 1; }
  perl re2/make_perl_groups.pl > re2/perl_groups.cc || exit 1
  /usr/bin/python3 re2/make_unicode_casefold.py > re2/unicode_casefold.cc || exit 1
  /usr/bin/python3 re2/make_unicode_groups.py > re2/unicode_groups.cc || exit 1
  cmake_build . -DRE2_BUILD_TESTING=ON || exit 1
  require_files re2 build/libre2.a build/re2_test build/exhaustive_test build/regexp_benchmark
  cdb_from_build
  ignore '/re2/perl_groups.cc' '/re2/unicode_casefold.cc' '/re2/unicode_groups.cc'
}

build_libtommath() {
  bear -- make -j2 libtommath.a test mtest_opponent timing mtest || exit 1
  require_files libtommath libtommath.a test mtest_opponent timing mtest/mtest
  ignore '*.o' '/libtommath.a' '/test' '/mtest_opponent' '/timing' '/mtest/mtest'
}

build_tcc() {
  # ONE_SOURCE=yes: libtcc.c #includes the compiler's other files whole. bear is told that the tcc
  # just built (named by its full path, XTCC) is a compiler, so that lib/'s files are recorded.
  ./configure >/dev/null || exit 1
  local cfg
  cfg=$(mktemp) || exit 1
  printf '{"compilation": {"compilers_to_recognize": [{"executable": "%s"}]}}\n' "$PWD/tcc" > "$cfg"
  bear --config "$cfg" -- make -j2 ONE_SOURCE=yes XTCC="$PWD/tcc" || { rm -f "$cfg"; exit 1; }
  rm -f "$cfg"
  require_files tcc config.h config.mak tcc libtcc.a libtcc1.a bcheck.o bt-exe.o bt-log.o
  require_defines tcc config.h TCC_VERSION
  # Drops lib/alloca86_64.S and alloca86_64-bt.S (assembly; of the other sets only luajit has
  # any), and checks that the build was ONE_SOURCE's and that lib/ was recorded.
  python3 - <<'EOF' || exit 1
import json, os, sys
db = [e for e in json.load(open("compile_commands.json")) if not e["file"].endswith(".S")]
files = {os.path.relpath(os.path.join(e["directory"], e["file"])) for e in db}
if "tccpp.c" in files or not {"libtcc.c", "tcc.c", "lib/libtcc1.c", "lib/bt-exe.c"} <= files:
    sys.exit("heldout: tcc: not a ONE_SOURCE build with lib/ recorded: %s" % sorted(files))
json.dump(db, open("compile_commands.json", "w"), indent=2)
EOF
  # The tarball's .gitignore already ignores every build output (*.o, *.a, tcc, config*.h,
  # config*.mak, config.texi, tcc.1).
}

build_lmdb() {
  bear -- make -j2 -C libraries/liblmdb || exit 1
  require_files lmdb libraries/liblmdb/liblmdb.a libraries/liblmdb/liblmdb.so \
    libraries/liblmdb/mdb_stat libraries/liblmdb/mtest5
  ignore '/libraries/liblmdb/*.o' '/libraries/liblmdb/*.lo' '/libraries/liblmdb/liblmdb.a' \
         '/libraries/liblmdb/liblmdb.so' '/libraries/liblmdb/mdb_stat' \
         '/libraries/liblmdb/mdb_copy' '/libraries/liblmdb/mdb_dump' \
         '/libraries/liblmdb/mdb_load' '/libraries/liblmdb/mtest' '/libraries/liblmdb/mtest[2-5]'
}

# Runs the recipe of package $1 in the current directory, the code base's root.
build_recipe() {
  case "$1" in
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
    libjpeg-turbo) build_libjpeg_turbo ;;
    cpp-jwt) build_cpp_jwt ;;
    opus) build_opus ;;
    taglib) build_taglib ;;
    mujs) build_mujs ;;
    libjsoncpp) build_libjsoncpp ;;
    nettle) build_nettle ;;
    spdlog) build_spdlog ;;
    libonig) build_libonig ;;
    libwebm) build_libwebm ;;
    libsrtp2) build_libsrtp2 ;;
    geographiclib) build_geographiclib ;;
    freetype) build_freetype ;;
    xz-utils) build_xz_utils ;;
    libyuv) build_libyuv ;;
    wabt) build_wabt ;;
    re2) build_re2 ;;
    libtommath) build_libtommath ;;
    tcc) build_tcc ;;
    lmdb) build_lmdb ;;
    tkrzw) build_tkrzw ;;
    libevent) build_libevent ;;
    luajit) build_luajit ;;
    srt) build_srt ;;
    socat) build_socat ;;
    jemalloc) build_jemalloc ;;
    zeromq3) build_zeromq3 ;;
    draco) build_draco ;;
    tree-sitter) build_tree_sitter ;;
    msgpack-c) build_msgpack_c ;;
    mbedtls) build_mbedtls ;;
    exiv2) build_exiv2 ;;
  esac
}
