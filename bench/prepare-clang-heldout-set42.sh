# Sourced by bench/prepare-clang-heldout.sh after bench/prepare-clang-heldout-sets.sh: set 42's
# recipes, with what each builds, in a file of their own because the sets file has no room left.
# The build_recipe at the end of this file wraps the one of prepare-clang-heldout-sets.sh (sets 24
# to 41). The recipes use the helpers of prepare-clang-heldout-recipes.sh (ignore, require_files,
# require_defines, cmake_build, cdb_from_build); changed_by_recipe is wrapped here too, for the
# tracked files that set 42's recipes change.
# shellcheck shell=bash

# Set 42's recipes. Like set 32's, each build step ends with || exit 1. What each one builds:
#   libsodium  autoreconf -i (the tarball has no configure script), ./configure --disable-static,
#              then bear over make -j2 and make -j2 check TESTS= (which builds the test programs
#              without running them) in the tree: libsodium (shared only: one entry per file; 104
#              of the 106 files of src/libsodium, 13 of them CPU-specific implementations
#              compiled with their own -msse2, -mssse3, -msse4.1, -mavx, -mavx2, -mavx512f, -maes
#              or -mpclmul) and the 77 test programs of test/default: 181 entries over 181 files,
#              once the two assembly entries (.S: salsa20_xmm6-asm.S and sandy2x.S, which
#              #includes the other six .S files of sandy2x/) are dropped. configure writes no
#              header: the configuration is on every command line (82 -D options, 49 of them
#              HAVE_*: HAVE_TI_MODE, HAVE_AMD64_ASM, HAVE_AVX2INTRIN_H, HAVE_CPUID, ..., which the
#              recipe checks some of), and implementations are selected by #include:
#              crypto_core/ed25519/ref10/ed25519_ref10.c #includes fe_51/fe.h, constants.h,
#              base.h and base2.h under #ifdef HAVE_TI_MODE (fe_25_5/'s are inactive),
#              poly1305_donna.c poly1305_donna64.h (not poly1305_donna32.h), and the ChaCha20
#              SSSE3 and AVX2 and the Salsa20 AVX2 files #include u0.h, u1.h, u4.h and u8.h,
#              loop bodies, in the middle of a function. Each test #defines TEST_NAME and
#              #includes test/default/cmptest.h, which defines main() and then #defines main as
#              xmain, so that the test's own main() is renamed. crypto_stream/salsa20/ref and
#              xmm6int/salsa20_xmm6int-sse2.c (the amd64 assembly replaces them), builds/,
#              contrib/, dist-build/ and test/quirks are not built or used. The tarball's
#              .gitignore ignores every output but the test programs
#   libssh     CMake into build/ with the cmocka unit tests (UNIT_TESTING, Debian's libcmocka-dev
#              1.1.5) and the examples, OpenSSL's libcrypto, zlib, the server and SFTP, without
#              GSSAPI and libnacl, then a build: libssh shared and static (UNIT_TESTING builds
#              the static one, which the tests link), so each of the 62 library files (src/,
#              src/threads/ and, of src/external/, bcrypt_pbkdf.c and blowfish.c) has two
#              entries; the torture library (tests/torture*.c, cmdline.c), the 32 unit tests of
#              tests/unittests and the 16 example programs (examples/authentication.c,
#              connect_ssh.c and knownhosts.c in most of them; libsshpp.cpp and
#              libsshpp_noexcept.cpp are C++ over include/libssh/libsshpp.hpp): 204 entries over
#              117 files.
#              18 of the 32 unit tests #include library files whole (torture_buffer.c
#              "buffer.c", torture_pki*.c "pki.c", torture_config.c "match.c" and "config.c",
#              misc.c, error.c, knownhosts.c, packet.c, socket.c, channels.c, dh.c, dh-gex.c,
#              legacy.c) to reach their static functions. CMake's checks generate build/config.h
#              (63 #defines, 50 of them HAVE_*, and 35 left #undef; the recipe checks
#              HAVE_LIBCRYPTO, HAVE_OPENSSL_ECC, HAVE_OPENSSL_ED25519, WITH_ZLIB, WITH_SFTP,
#              WITH_SERVER and WITH_GEX), which selects the crypto back end: src/libcrypto.c,
#              pki_crypto.c, dh_crypto.c, ecdh_crypto.c and md_crypto.c are built, the libgcrypt
#              and mbed TLS ones (libgcrypt.c, pki_gcrypt.c, libmbedcrypto.c, ...) are not (the
#              recipe checks it), and OpenSSL 3's Ed25519, X25519 and ChaCha20-Poly1305 stand in
#              for src/external/'s ed25519.c, curve25519_ref.c, chacha.c and poly1305.c, which
#              are not built either. build/compile_commands.json is copied to the root. The
#              client, server, pkd, benchmark and fuzz tests, the other unit tests (DSA, PKCS#11)
#              and doc/ are not built
#   glslang    CMake into build/ with the tests (gtests/glslangtests, with Debian's googletest
#              and gmock 1.12.1 instead of the External/googletest checkout; the recipe patches
#              gtests/CMakeLists.txt), HLSL, without SPIRV-Tools and precompiled headers, then a
#              build (-std=c++11, -fno-rtti -fno-exceptions, no optimization): the libraries
#              glslang (glslang/MachineIndependent, its preprocessor/, GenericCodeGen/, HLSL/,
#              CInterface/ and OSDependent/Unix/ossource.cpp), OGLCompiler, SPIRV (SPIRV/*.cpp;
#              SPIRV/doc.cpp a second time for SPVRemapper) and
#              glslang-default-resource-limits, the programs glslangValidator and spirv-remap
#              (StandAlone/) and glslangtests: the 16 files of gtests/ (23 TEST, 2 TEST_F and 52
#              TEST_P with 54 INSTANTIATE_TEST_SUITE_P, most of them over the shader files of
#              Test/): 72 entries over 71 files. The configuration is on the command line
#              (-DENABLE_HLSL -DENABLE_OPT=0 -DGLSLANG_OSINCLUDE_UNIX); GLSLANG_WEB and
#              GLSLANG_ANGLE, undefined, guard code in some 500 #if lines of 43 files. CMake
#              generates build/include/glslang/build_info.h (from build_info.h.tmpl and
#              CHANGES.md, by build_info.py) and glsl_intrinsic_header.h (gen_extension_headers.py,
#              from glslang/ExtensionHeaders/); glslang/MachineIndependent/glslang_tab.cpp is the
#              tarball's bison output (12,526 lines). build/compile_commands.json is copied to
#              the root. glslang/OSDependent/Windows/ and Web/, ndk_test/ and the
#              Android/Bazel/GN builds are not built
#   libxml2    ./configure --without-python (zlib, LZMA and threads; no ICU, no readline), then
#              bear over make -j2, make of the test programs named one by one (make check would
#              run the test suite) and make of fuzz/testFuzzer and example/gjobread, in the tree:
#              libxml2 (shared and static: libtool compiles each of the 45 library files twice,
#              with -fPIC -DPIC and without), xmllint, xmlcatalog, the 20 test programs of
#              Makefile.am's check_PROGRAMS (testapi.c, generated by gentest.py, some 52,000
#              lines; runtest.c, runsuite.c, ...), fuzz/testFuzzer (testFuzzer.c and fuzz.c) and
#              example/gjobread: 115 entries over 70 files, all with -DHAVE_CONFIG_H
#              -D_REENTRANT. configure generates config.h (76 #defines, most of them HAVE_*, and
#              14 left #undef; the recipe checks some) and rewrites include/libxml/xmlversion.h
#              from xmlversion.h.in: 30 LIBXML_*_ENABLED feature macros defined (THREAD, TREE,
#              OUTPUT, PUSH, READER, PATTERN, WRITER, SAX1, FTP, HTTP, VALID, HTML, LEGACY, C14N,
#              CATALOG, DOCB, XPATH, XPTR, XINCLUDE, ICONV, ISO8859X, DEBUG, UNICODE, REGEXP,
#              AUTOMATA, SCHEMAS, SCHEMATRON, MODULES, ZLIB, LZMA; ICU, THREAD_ALLOC and EXPR are
#              under #if 0; the recipe checks some), which the sources test in some 2,300 #if
#              lines. fuzz/testFuzzer.c
#              #includes fuzz/html.c, regexp.c, schema.c, uri.c, xml.c and xpath.c whole, each
#              under a HAVE_*_FUZZER that fuzz/fuzz.h derives from the LIBXML_* macros and with
#              LLVMFuzzerTestOneInput #defined to another name; none of them is compiled on its
#              own. trio.c, triostr.c and trionan.c (WITH_TRIO is off), DOCBparser.c (the
#              deprecated DocBook parser, left out of this build's sources), python/, the other
#              fuzzers, os400/, macos/, VxWorks/, win32/ and the CMake build are not built or used
build_libsodium() {
  # The tarball has configure.ac but no configure script: autoreconf -i generates it. Shared only
  # (--disable-static), so that libtool compiles each library file once; the CPU-specific
  # implementations (SSE2, SSSE3, SSE4.1, AVX, AVX2, AVX-512F, AES-NI, each file with its own
  # -m options) are compiled as configure finds the compiler supports them. make check TESTS=
  # builds the test programs without running them. The assembly entries (.S) are dropped. The
  # tarball's .gitignore already ignores every output of autoreconf, configure and the build but
  # the test programs.
  autoreconf -i >/dev/null 2>&1 || exit 1
  ./configure --disable-static >/dev/null || exit 1
  bear -- sh -c 'make -j2 && make -j2 check TESTS=' || exit 1
  require_files libsodium src/libsodium/include/sodium/version.h \
    src/libsodium/.libs/libsodium.so test/default/box test/default/sodium_core \
    test/default/aead_aes256gcm test/default/scalarmult_ed25519
  python3 - <<'EOF' || exit 1
import json, os, sys
db = [e for e in json.load(open("compile_commands.json")) if not e["file"].endswith(".S")]
args = lambda e: e.get("arguments") or e["command"].split()
wanted = {"-DHAVE_TI_MODE=1", "-DHAVE_AMD64_ASM=1", "-DHAVE_EMMINTRIN_H=1",
          "-DHAVE_AVX2INTRIN_H=1", "-DHAVE_WMMINTRIN_H=1", "-DNATIVE_LITTLE_ENDIAN=1"}
core = [e for e in db if e["file"].endswith("ed25519_ref10.c")]
if not core or not wanted <= set(args(core[0])):
    sys.exit("heldout: libsodium: the configuration is not on the command line: %s"
             % sorted(wanted - set(args(core[0])) if core else wanted))
files = {os.path.relpath(os.path.join(e["directory"], e["file"])) for e in db}
if not {"src/libsodium/crypto_stream/chacha20/dolbeau/chacha20_dolbeau-avx2.c",
        "src/libsodium/crypto_onetimeauth/poly1305/donna/poly1305_donna.c",
        "test/default/box.c"} <= files:
    sys.exit("heldout: libsodium: a file missing")
json.dump(db, open("compile_commands.json", "w"), indent=2)
EOF
  ignore '/test/default/*' '!/test/default/*.c' '!/test/default/*.h' '!/test/default/*.exp'
}

build_libssh() {
  # OpenSSL's libcrypto (CMake's default; not libgcrypt or mbed TLS) with zlib, the server, SFTP,
  # the examples and the cmocka unit tests (UNIT_TESTING, with Debian's libcmocka-dev), without
  # GSSAPI and libnacl, so that the build does not depend on what else the machine has (OpenSSL 3
  # then provides Curve25519 and Ed25519). UNIT_TESTING also builds the static library,
  # which the tests link. The client and server tests (CLIENT_TESTING, SERVER_TESTING) need the
  # cwrap libraries and an OpenSSH server, and are not built. CMakeLists.txt links
  # build/compile_commands.json into the root (a symbolic link into the ignored build/), which is
  # removed so that the copy takes its place. The tarball has no .gitignore.
  cmake_build . -DUNIT_TESTING=ON -DWITH_GSSAPI=OFF -DWITH_NACL=OFF -DWITH_EXAMPLES=ON || exit 1
  rm -f compile_commands.json || exit 1
  require_files libssh build/config.h build/lib/libssh.so build/src/libssh.a \
    build/tests/unittests/torture_buffer build/tests/unittests/torture_pki_rsa \
    build/tests/unittests/torture_config build/examples/ssh-client
  require_defines libssh build/config.h HAVE_LIBCRYPTO HAVE_OPENSSL_ECC HAVE_OPENSSL_ED25519 \
    WITH_ZLIB WITH_SFTP WITH_SERVER WITH_GEX
  python3 - <<'EOF' || exit 1
import json, os, sys
files = {os.path.relpath(os.path.join(e["directory"], e["file"]))
         for e in json.load(open("build/compile_commands.json"))}
wanted = {"src/libcrypto.c", "src/pki_crypto.c", "tests/unittests/torture_buffer.c",
          "tests/unittests/torture_pki.c", "examples/libsshpp.cpp"}
other = {"src/libgcrypt.c", "src/pki_gcrypt.c", "src/libmbedcrypto.c", "src/pki_mbedcrypto.c"}
if files & other or not wanted <= files:
    sys.exit("heldout: libssh: another crypto back end, or a file missing: %s"
             % sorted(files & other or wanted - files))
EOF
  cdb_from_build || exit 1
  [ -f compile_commands.json ] && [ ! -L compile_commands.json ] ||
    { echo "heldout: libssh: compile_commands.json is not a copy" >&2; exit 1; }
}

build_glslang() {
  # Debian's googletest and gmock 1.12.1 instead of the External/googletest checkout that the
  # tests expect: gtests/CMakeLists.txt's if(TARGET gmock) becomes find_package(GTest) and a test
  # of GTest::gmock, the include directories of the checkout are deleted, and glslangtests links
  # GTest::gmock GTest::gtest. Without SPIRV-Tools (ENABLE_OPT=OFF: External/spirv-tools is empty)
  # and without precompiled headers (ENABLE_PCH=OFF: their -include of build/'s cmake_pch.hxx
  # would be on every command line). The tarball has no .gitignore.
  sed -i \
    -e 's|^\(\s*\)if(TARGET gmock)$|\1find_package(GTest REQUIRED)  # nib bench: Debian libgtest-dev, libgmock-dev\n\1if(TARGET GTest::gmock)|' \
    -e '/^\s*\${gmock_SOURCE_DIR}\/include$/d' \
    -e 's|^\(\s*\)\${gtest_SOURCE_DIR}/include)$|\1)|' \
    -e 's|^\(\s*target_link_libraries(glslangtests PRIVATE \${LIBRARIES}\) gmock)$|\1 GTest::gmock GTest::gtest)  # nib bench|' \
    gtests/CMakeLists.txt
  grep -q 'find_package(GTest REQUIRED)' gtests/CMakeLists.txt &&
    grep -q 'GTest::gmock GTest::gtest)' gtests/CMakeLists.txt &&
    ! grep -Eq 'g(mock|test)_SOURCE_DIR' gtests/CMakeLists.txt ||
    { echo "heldout: glslang: the gtests/CMakeLists.txt patch did not apply" >&2; exit 1; }
  cmake_build . -DENABLE_OPT=OFF -DENABLE_PCH=OFF || exit 1
  grep -q '^GTest_DIR:PATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: glslang: Debian's googletest not found" >&2; exit 1; }
  require_files glslang build/include/glslang/build_info.h \
    build/include/glslang/glsl_intrinsic_header.h build/gtests/glslangtests \
    build/StandAlone/glslangValidator build/StandAlone/spirv-remap
  cdb_from_build
}

build_libxml2() {
  # configure's defaults (zlib and LZMA, threads, every LIBXML_*_ENABLED feature that is on by
  # default: no ICU, no readline) without the Python bindings; make all builds libxml2 (shared
  # and static: libtool compiles each library file twice), xmllint and xmlcatalog; the test
  # programs are then named one by one (make check would run the test suite):
  # Makefile.am's check_PROGRAMS, fuzz/testFuzzer and example/gjobread. configure rewrites the
  # tracked include/libxml/xmlversion.h (from xmlversion.h.in; only LIBXML_VERSION_EXTRA, the
  # tarball's git description, changes), so the configured one is in "bench setup"; it also
  # replaces COPYING with a symbolic link to Copyright and writes today's date into libxml2.spec,
  # neither of which the build reads: both are checked out again. The tarball has no .gitignore.
  ./configure --without-python >/dev/null || exit 1
  git checkout -q -- COPYING libxml2.spec || exit 1
  bear -- sh -c 'make -j2 && make -j2 testSchemas testRelax testSAX testHTML testXPath testURI \
    testThreads testC14N testAutomata testRegexp testReader testapi testModule runtest runsuite \
    testchar testdict runxmlconf testrecurse testlimits && make -C fuzz -j2 testFuzzer &&
    make -C example gjobread' || exit 1
  require_files libxml2 config.h include/libxml/xmlversion.h .libs/libxml2.so .libs/libxml2.a \
    xmllint xmlcatalog runtest testapi fuzz/testFuzzer example/gjobread
  require_defines libxml2 config.h HAVE_PTHREAD_H HAVE_DLOPEN HAVE_MMAP HAVE_GETADDRINFO SUPPORT_IP6
  local m
  for m in LIBXML_THREAD_ENABLED LIBXML_XPATH_ENABLED LIBXML_SCHEMAS_ENABLED \
           LIBXML_ZLIB_ENABLED LIBXML_LZMA_ENABLED LIBXML_HTTP_ENABLED; do
    grep -q "^#define $m$" include/libxml/xmlversion.h ||
      { echo "heldout: libxml2: xmlversion.h does not define $m" >&2; exit 1; }
  done
  ignore '*.o' '*.lo' '*.la' '.libs/' '.deps/' 'Makefile' '/config.h' '/config.log' \
         '/config.status' '/libtool' '/stamp-h1' '/libxml-2.0.pc' '/libxml-2.0-uninstalled.pc' \
         '/libxml2-config.cmake' '/xml2-config' '/xml2Conf.sh' '/python/setup.py' '/xmllint' \
         '/xmlcatalog' '/testSchemas' '/testRelax' '/testSAX' '/testHTML' '/testXPath' '/testURI' \
         '/testThreads' '/testC14N' '/testAutomata' '/testRegexp' '/testReader' '/testapi' \
         '/testModule' '/runtest' '/runsuite' '/testchar' '/testdict' '/runxmlconf' \
         '/testrecurse' '/testlimits' '/fuzz/testFuzzer' '/example/gjobread'
}

# The tracked files that set 42's recipes change; the other sets' are changed_by_recipe_24_41's.
eval "changed_by_recipe_24_41() $(declare -f changed_by_recipe | tail -n +2)"
changed_by_recipe() {
  case "$1" in
    glslang) echo gtests/CMakeLists.txt ;;
    libxml2) echo include/libxml/xmlversion.h ;;
    *) changed_by_recipe_24_41 "$1" ;;
  esac
}

# The build_recipe of prepare-clang-heldout-sets.sh (sets 24 to 41) is kept as
# build_recipe_24_41; this one adds set 42's packages.
eval "build_recipe_24_41() $(declare -f build_recipe | tail -n +2)"
build_recipe() {
  case "$1" in
    libsodium) build_libsodium ;;
    libssh) build_libssh ;;
    glslang) build_glslang ;;
    libxml2) build_libxml2 ;;
    *) build_recipe_24_41 "$1" ;;
  esac
}
