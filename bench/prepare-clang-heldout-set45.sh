# Sourced by bench/prepare-clang-heldout.sh after bench/prepare-clang-heldout-set44.sh: set 45's
# recipes, with what each builds, in a file of their own like set 44's. The build_recipe at the end
# of this file wraps the one of prepare-clang-heldout-set44.sh (sets 24 to 44), and
# changed_by_recipe is wrapped the same way. The recipes use the helpers of
# prepare-clang-heldout-recipes.sh (ignore, require_files, require_defines, cmake_build,
# cdb_from_build).
# shellcheck shell=bash

# Set 45's recipes. Like set 44's, each build step ends with || exit 1. What each one builds:
#   chrony     chrony 4.3 (C, the NTP daemon chronyd and its client chronyc). chrony's own
#              ./configure (a shell script, not autoconf) with Nettle and GnuTLS from Debian (so
#              NTS, FEAT_NTS, and Nettle 3.8's SIV and CMAC) and without editline, NSS, libtomcrypt,
#              libcap and seccomp (which the bench's package list does not install), then bear over
#              make -j2 and make -j2 -C test/unit (which builds the unit tests without running them)
#              in the tree: chronyd and chronyc (the 58 root .c files they use, each compiled once;
#              array.c, cmdparse.c, memory.c, socket.c and util.c serve both) and the 23 unit test
#              programs of test/unit (with their test.c): 82 entries over 82 files, with -O2 -g
#              -D_FORTIFY_SOURCE=2 -pthread and GnuTLS's -I/usr/include/p11-kit-1 (no other -D).
#              configure generates config.h (41 #defines, none left #undef: 16 HAVE_* macros;
#              FEAT_CMDMON, FEAT_NTP, FEAT_REFCLOCK, FEAT_RTC, FEAT_PHC, FEAT_IPV6, FEAT_ASYNCDNS,
#              FEAT_SECHASH and FEAT_NTS, which select code all over the daemon and five of which
#              the recipe checks; the DEFAULT_* paths and CHRONYD_FEATURES), Makefile, doc/Makefile
#              and test/unit/Makefile. Twenty of the unit tests, test/unit/<name>.c, #include
#              <<name>.c> whole (keys.c, ntp_core.c, sources.c, util.c, nts_ke_server.c, ...: the
#              file of the same name two directories up, through -I../..) and link every other
#              chronyd object; their -I../.. also puts chrony's sched.h and memory.h ahead of the
#              system's headers of those names for <...> includes. siv_nettle.c #includes
#              siv_nettle_int.c, but only without HAVE_NETTLE_SIV_CMAC (defined here), and
#              hash_intmd5.c (the hash of builds without a crypto library, not built here) #includes
#              md5.c; neither included file is compiled on its own. getdate.c is the tarball's bison
#              output (getdate.y), not generated again. The tarball has no .gitignore. The GnuTLS,
#              NSS and libtomcrypt variants (hash_gnutls.c, hash_nss.c, hash_tomcrypt.c,
#              cmac_gnutls.c, siv_gnutls.c), hash_intmd5.c, privops.c (libcap's privilege drop),
#              ntp_signd.c (Samba's signd), sys_macosx.c, sys_netbsd.c, sys_solaris.c, test/kernel/,
#              doc/ (Asciidoctor) and the shell tests of test/simulation and test/system are not
#              built or used
#   nanomsg    nanomsg 1.1.5 (C, a socket library of the scalability protocols: pair, req/rep,
#              pub/sub, survey, bus, pipeline). CMake into build/ with the tests and the tools,
#              without the docs (Asciidoctor), then a build: the shared library libnanomsg (the 96
#              .c files of src/: core/, aio/, devices/, protocols/ bus, pair, pipeline, pubsub,
#              reqrep and survey, transports/ inproc, ipc, tcp and ws, utils/), nanocat
#              (tools/nanocat.c and options.c), the 43 test programs of tests/ (all but the
#              Windows-only win_sec_attr.c) and the six programs of perf/: 147 entries over 147
#              files. No header is generated: CMake's checks put the configuration on every command
#              line as 24 -D macros (NN_HAVE_LINUX, NN_HAVE_EPOLL, NN_HAVE_EVENTFD, NN_HAVE_ACCEPT4,
#              NN_HAVE_GETADDRINFO_A, NN_HAVE_SEMAPHORE, NN_HAVE_GCC_ATOMIC_BUILTINS,
#              NN_MAX_SOCKETS=512, ...), which select the platform code that src/ #includes as .inc
#              files (aio/poller.c poller_epoll.inc, aio/usock.c usock_posix.inc, aio/worker.c
#              worker_posix.inc, utils/efd.c efd_eventfd.inc, utils/thread.c thread_posix.inc,
#              transports/utils/dns.c dns_getaddrinfo_a.inc). The test, tool and perf programs
#              #include library .c files whole: tests/testutil.h, which 39 of the tests #include,
#              brings ../src/utils/err.c and sleep.c, and tests, nanocat and perf programs #include
#              ../src/utils/thread.c, atomic.c, alloc.c, list.c, hash.c, clock.c, stopwatch.c and
#              ../src/protocols/pubsub/trie.c themselves (stopwatch.c is compiled on its own
#              nowhere; the others are library files as well). build/compile_commands.json is copied
#              to the root. The tarball's .gitignore ignores .*/, so the first commit lacks
#              .circleci/. demo/ (five programs that the CMake build does not know),
#              tests/win_sec_attr.c, the Windows and kqueue .inc files and doc/ are not built
#   fmtlib     {fmt} 9.1.0 (C++, the formatting library). CMake into build/ with the tests and
#              FMT_PEDANTIC (as Debian's own build has it), without the docs, with Debian's
#              googletest and gmock 1.12.1 instead of test/gtest/ (the bundled gmock-gtest-all.cc,
#              which the +ds1 tarball strips; the recipe patches test/CMakeLists.txt: its
#              add_subdirectory(gtest) becomes find_package(GTest), which the recipe checks finds
#              /usr, and the programs link GTest::gmock GTest::gtest; Debian's own patch instead
#              builds /usr/src/googletest in the build tree, whose gtest-all.cc would be an entry
#              outside the code base), then a build (-std=gnu++11, CMAKE_BUILD_TYPE Release, which
#              fmt's CMakeLists.txt picks: -O3 -DNDEBUG; FMT_PEDANTIC's long list of g++ warning
#              options): the static libfmt (src/format.cc and src/os.cc), test-main (test-main.cc,
#              gtest-extra.cc, util.cc) and the 20 googletest programs of test/: format-impl-test
#              (with header-only-test.cc), compile-fp-test and unicode-test header-only
#              (-DFMT_HEADER_ONLY=1, so that fmt/format.h #includes fmt/format-inl.h, the
#              implementation; each compiles test-main.cc, gtest-extra.cc, util.cc and src/os.cc
#              again), ranges-test with ranges-odr-test.cc, enforce-checks-test with
#              -DFMT_ENFORCE_COMPILE_STRING, and posix-mock-test, whose posix-mock-test.cc #includes
#              ../src/os.cc whole after posix-mock.h's macros redirect its POSIX calls to mocks (it
#              compiles src/format.cc and the test-main sources again); FMT_PEDANTIC adds the
#              libraries noexception-test (src/format.cc and noexception-test.cc with
#              -fno-exceptions) and nolocale-test (src/format.cc with
#              -DFMT_STATIC_THOUSANDS_SEPARATOR=1): 46 entries over 28 files, src/format.cc and
#              src/os.cc four each and the three test-main sources five each. No header is
#              generated; Debian's libfmt-dev (for spdlog) puts fmt 9.1.0's headers in
#              /usr/include/fmt too, behind every command's -I include. The tarball's .gitignore
#              already ignores build/; build/compile_commands.json is copied to the root. src/fmt.cc
#              and test/module-test.cc (the C++20 module; fmt 9.1.0's CMakeLists.txt never sets
#              FMT_CAN_MODULE), test/fuzzing/, test/cuda-test/, the projects that ctest builds
#              (compile-error-test, find-package-test, add-subdirectory-test, static-export-test),
#              test/detect-stdfs.cc (a try_compile), doc/ and support/ are not built or used
#   box2d      Box2D 2.4.1 (C++, the 2D physics engine). CMake into build/ with the unit tests and
#              the testbed, then a build (no CMAKE_BUILD_TYPE, so no -O; -std=c++11, box2d's
#              CXX_STANDARD 11 without extensions; C++ with -fvisibility=hidden): the static library
#              box2d (the 47 .cpp files of src/: collision/, common/, dynamics/ with its contact and
#              joint classes, rope/), unit_test (the five .cpp files of unit-test/ with the bundled
#              doctest 2.3.7, unit-test/doctest.h, 5,956 lines; hello_world.cpp defines
#              DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN) and the testbed, an OpenGL program: testbed/'s
#              main.cpp, draw.cpp, test.cpp, settings.cpp and the Dear ImGui GLFW and OpenGL 3
#              backends, the 58 samples of testbed/tests/ (each a subclass of Test that registers
#              itself through a static int initialized by RegisterTest), and the libraries it
#              bundles in extern/: GLFW 3.3 (16 C files, its X11, GLX, EGL and OSMesa backends, with
#              the tarball's hand-written src/glfw_config.h; Debian's libx11-dev, libxrandr-dev,
#              libxinerama-dev, libxcursor-dev and libxi-dev), glad (src/gl.c, the OpenGL loader),
#              Dear ImGui (four .cpp files) and sajson: 136 entries over 136 files (119 .cpp, 17
#              .c). The bundled doctest sizes an array with SIGSTKSZ, which glibc 2.34 made a call
#              to sysconf: the recipe appends a target_compile_definitions(unit_test PRIVATE
#              DOCTEST_CONFIG_NO_POSIX_SIGNALS) to unit-test/CMakeLists.txt (Debian's build uses its
#              doctest-dev instead). No header is generated; the tarball's .gitignore already
#              ignores build/; build/compile_commands.json is copied to the root. GLFW's Windows,
#              Cocoa, Wayland and null backends and docs/ (Doxygen) are not built
build_chrony() {
  # Nettle and GnuTLS (NTS) from Debian; the optional libraries that the bench's package list
  # does not install are left out, so that the build does not depend on what else the machine has.
  ./configure --without-editline --without-nss --without-tomcrypt --without-libcap \
    --without-seccomp >/dev/null || exit 1
  bear -- sh -c 'make -j2 && make -j2 -C test/unit' || exit 1
  require_files chrony config.h chronyd chronyc test/unit/ntp_core.test test/unit/keys.test
  require_defines chrony config.h FEAT_NTS FEAT_SECHASH FEAT_CMDMON FEAT_REFCLOCK FEAT_PHC \
    HAVE_NETTLE_SIV_CMAC
  ignore '*.o' '.deps/' '/Makefile' '/doc/Makefile' '/test/unit/Makefile' '/config.h' \
         '/config.log' '/chronyd' '/chronyc' '/test/unit/*.test'
}

build_nanomsg() {
  cmake_build . -DNN_ENABLE_DOC=OFF -DNN_TESTS=ON -DNN_TOOLS=ON || exit 1
  require_files nanomsg build/libnanomsg.so build/nanocat build/hash build/trie
  cdb_from_build || exit 1
}

build_fmtlib() {
  # Debian's googletest and gmock 1.12.1 instead of test/gtest/, which the +ds1 tarball strips.
  sed -i \
    -e 's|^add_subdirectory(gtest)$|find_package(GTest REQUIRED)  # nib bench: Debian libgtest-dev, libgmock-dev|' \
    -e 's|^target_link_libraries(test-main gtest fmt)$|target_link_libraries(test-main GTest::gmock GTest::gtest fmt)  # nib bench|' \
    -e 's|^\(\s*\)set(libs gtest fmt-header-only)$|\1set(libs GTest::gmock GTest::gtest fmt-header-only)  # nib bench|' \
    -e 's|^\(\s*\)set(libs gtest test-module)$|\1set(libs GTest::gmock GTest::gtest test-module)  # nib bench|' \
    -e 's|^\(\s*\)target_link_libraries(posix-mock-test gtest)$|\1target_link_libraries(posix-mock-test GTest::gmock GTest::gtest)  # nib bench|' \
    test/CMakeLists.txt
  [ "$(grep -c '# nib bench' test/CMakeLists.txt)" = 5 ] && ! grep -q 'add_subdirectory(gtest)' test/CMakeLists.txt ||
    { echo "heldout: fmtlib: the test/CMakeLists.txt patch did not apply" >&2; exit 1; }
  cmake_build . -DFMT_TEST=ON -DFMT_DOC=OFF -DFMT_PEDANTIC=ON || exit 1
  grep -q '^GTest_DIR:PATH=/usr/' build/CMakeCache.txt ||
    { echo "heldout: fmtlib: googletest not found in /usr" >&2; exit 1; }
  require_files fmtlib build/libfmt.a build/bin/format-test build/bin/posix-mock-test \
    build/test/libnoexception-test.a
  cdb_from_build || exit 1
}

build_box2d() {
  # The bundled doctest 2.3.7 sizes an array with SIGSTKSZ, which glibc 2.34 made a call to
  # sysconf: the unit tests are built without doctest's POSIX signal handlers (Debian's build
  # uses its doctest-dev instead).
  echo 'target_compile_definitions(unit_test PRIVATE DOCTEST_CONFIG_NO_POSIX_SIGNALS)  # nib bench' \
    >> unit-test/CMakeLists.txt
  cmake_build . -DBOX2D_BUILD_UNIT_TESTS=ON -DBOX2D_BUILD_TESTBED=ON -DBOX2D_BUILD_DOCS=OFF || exit 1
  require_files box2d build/bin/libbox2d.a build/bin/unit_test build/bin/testbed
  cdb_from_build || exit 1
}

# The tracked files that set 45's recipes change (fmtlib's patched test/CMakeLists.txt); the other
# sets' are changed_by_recipe_24_44's.
eval "changed_by_recipe_24_44() $(declare -f changed_by_recipe | tail -n +2)"
changed_by_recipe() {
  case "$1" in
    fmtlib) echo test/CMakeLists.txt ;;
    box2d) echo unit-test/CMakeLists.txt ;;
    *) changed_by_recipe_24_44 "$1" ;;
  esac
}

# The build_recipe of prepare-clang-heldout-set44.sh (sets 24 to 44) is kept as
# build_recipe_24_44; this one adds set 45's packages.
eval "build_recipe_24_44() $(declare -f build_recipe | tail -n +2)"
build_recipe() {
  case "$1" in
    chrony) build_chrony ;;
    nanomsg) build_nanomsg ;;
    fmtlib) build_fmtlib ;;
    box2d) build_box2d ;;
    *) build_recipe_24_44 "$1" ;;
  esac
}
