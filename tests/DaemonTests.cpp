// `nib daemon`: a background process that answers `nib search` from its open index and watched
// worktree. Its answers must be the bytes the command prints without it, and as fresh.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "TestRepo.h"
#include "indexer/IndexBuilder.h"
#include "protocol/MessageFraming.h"
#include "server/Daemon.h"
#include "support/FileIo.h"

namespace nib::test {
namespace fs = std::filesystem;
namespace {

void writeProject(TestRepo& repo) {
  repo.write("lib/hash.c", "#include <stdint.h>\n\nuint32_t fnv1a_hash(const char *s) {\n  uint32_t h = 2166136261u;\n"
                           "  while (*s) h = (h ^ (uint8_t)*s++) * 16777619u;\n  return h;\n}\n");
  repo.write("src/client.py", "def send_request(url):\n    # Retry a failed request a few times.\n"
                              "    return fetch(url)\n\n\ndef fetch(url):\n    return url\n");
  repo.write("src/util.py", "def fnv1a_hash_py(s):\n    return hash(s)\n");
  repo.commitAll();
}

struct Nib {
  const TestRepo& repo;
  int run(const std::string& args, std::string* out) const {
    return runCommand("cd " + shellQuote(repo.root().string()) + " && " + shellQuote(nibBinary()) + " " + args, out,
                      /*mergeStderr=*/true);
  }
};

// Stops the daemon whatever happens to the test.
struct DaemonGuard {
  Nib nib;
  ~DaemonGuard() {
    std::string out;
    nib.run("daemon stop", &out);
  }
};

// The daemon's socket address (abstract namespace) for a repository.
sockaddr_un daemonAddress(const TestRepo& repo, socklen_t* length) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string name = Daemon::socketName(repo.root() / ".nib");
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  *length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return addr;
}

// `nib COMMAND ARGS` answered by the daemon and by the command itself (`--no-daemon`): the
// same bytes and the same exit status. Returns the daemon's output.
std::string sameWithAndWithoutDaemon(const Nib& nib, const std::string& command, const std::string& args) {
  std::string viaDaemon, direct;
  int rcDaemon = nib.run(command + " " + args, &viaDaemon);
  int rcDirect = nib.run(command + " --no-daemon " + args, &direct);
  INFO(command << " " << args);
  CHECK(rcDaemon == rcDirect);
  CHECK(viaDaemon == direct);
  return viaDaemon;
}

uint64_t servedCount(const Nib& nib) {
  std::string out;
  if (nib.run("daemon status", &out) != 0) return 0;
  size_t at = out.find(" request(s) served");
  size_t from = out.rfind(' ', at - 1);
  return std::stoull(out.substr(from + 1, at - from - 1));
}

}  // namespace

TEST_CASE("nib search through the daemon prints what it prints without one, and as fresh", "[daemon][cli]") {
  TestRepo repo;
  writeProject(repo);
  Nib nib{repo};
  std::string out;
  REQUIRE(nib.run("index -q --wait-dense", &out) == 0);
  CHECK(nib.run("daemon status", &out) == 1);
  CHECK(out.find("no daemon serves") != std::string::npos);
  REQUIRE(nib.run("daemon start --idle-minutes 5", &out) == 0);
  DaemonGuard guard{nib};
  CHECK(out.find("daemon started") != std::string::npos);
  // The daemon keeps no descriptor of its caller: a pipe the caller passed on (fd 3 here)
  // closes when the command ends, not when the daemon does.
  REQUIRE(nib.run("daemon stop", &out) == 0);
  CHECK(runCommand("cd " + shellQuote(repo.root().string()) + " && timeout 20 sh -c '" + nibBinary() +
                       " daemon start --idle-minutes 5 3>&1 | cat' >/dev/null", &out) == 0);
  CHECK(nib.run("daemon start", &out) == 0);
  CHECK(out.find("already serves") != std::string::npos);

  // Every kind of answer, the errors included, is byte for byte the same (exit status too).
  const std::vector<std::string> queries = {
      "fnv1a_hash", "-e 'uint32_t [a-z_0-9]+\\('", "-i FNV1A", "'retry failed request' -k 1", "--json fnv1a_hash",
      "-p src fnv1a", "zzqqxx_absent", "-e 'a(b'", "-l klingon x", "-r trigram -k 1 h"};
  uint64_t before = servedCount(nib);
  for (const std::string& q : queries) CHECK_FALSE(sameWithAndWithoutDaemon(nib, "search", q).empty());
  // The daemon answered them (not a silent fallback).
  CHECK(servedCount(nib) == before + queries.size());
  CHECK(nib.run("search fnv1a_hash", &out) == 0);
  CHECK(out == "lib/hash.c:3:10: uint32_t fnv1a_hash(const char *s) {\nsrc/util.py:1:5: def fnv1a_hash_py(s):\n");

  // An edit made while the daemon runs is seen on the next call.
  repo.write("src/util.py", "def fnv1a_hash_py(s):\n    return hash(s)  # daemon_fresh_token\n");
  CHECK(nib.run("search daemon_fresh_token", &out) == 0);
  CHECK(out == "src/util.py:2:23:     return hash(s)  # daemon_fresh_token\n");
  std::string direct;
  nib.run("search --no-daemon daemon_fresh_token", &direct);
  CHECK(out == direct);
  // A deleted file's lines are gone.
  fs::remove(repo.root() / "src/util.py");
  CHECK(nib.run("search fnv1a_hash_py", &out) == 1);
  CHECK(out.find("no matches") != std::string::npos);

  // A newly published version is followed.
  REQUIRE(nib.run("index -q --wait-dense", &out) == 0);
  CHECK(nib.run("search fnv1a_hash", &out) == 0);
  std::string current = *readFile(repo.root() / ".nib" / "CURRENT");
  while (!current.empty() && current.back() == '\n') current.pop_back();
  REQUIRE(nib.run("daemon status", &out) == 0);
  CHECK(out.find("version     " + current) != std::string::npos);

  REQUIRE(nib.run("daemon stop", &out) == 0);
  CHECK(out.find("daemon stopped") != std::string::npos);
  CHECK(nib.run("daemon status", &out) == 1);
  // Without a daemon the command does the work itself.
  CHECK(nib.run("search fnv1a_hash", &out) == 0);
}

TEST_CASE("nib status through the daemon prints what it prints without one", "[daemon][cli][freshness]") {
  TestRepo repo;
  writeProject(repo);
  Nib nib{repo};
  std::string out;
  REQUIRE(nib.run("index -q --wait-dense", &out) == 0);
  REQUIRE(nib.run("daemon start --idle-minutes 5", &out) == 0);
  DaemonGuard guard{nib};
  auto same = [&](const std::string& args) { return sameWithAndWithoutDaemon(nib, "status", args); };
  uint64_t before = servedCount(nib);
  CHECK(same("").find("fresh       yes") != std::string::npos);
  same("--json");
  // An edit and a deletion: named, and not fresh, in both.
  repo.write("src/util.py", "def fnv1a_hash_py(s):\n    return hash(s) + 1\n");
  fs::remove(repo.root() / "src/client.py");
  std::string changed = same("");
  CHECK(changed.find("1 changed (src/util.py); 1 deleted (src/client.py)") != std::string::npos);
  CHECK(changed.find("fresh       no") != std::string::npos);
  same("--json");
  same("--verify");
  CHECK(servedCount(nib) == before + 5);
}

TEST_CASE("nib def, refs and symbols through the daemon print what they print without one, for the worktree as it is",
          "[daemon][cli][freshness]") {
  TestRepo repo;
  writeProject(repo);
  Nib nib{repo};
  std::string out;
  REQUIRE(nib.run("index -q --wait-dense", &out) == 0);
  REQUIRE(nib.run("daemon start --idle-minutes 5", &out) == 0);
  DaemonGuard guard{nib};
  auto same = [&](const std::string& command) {
    size_t space = command.find(' ');
    return sameWithAndWithoutDaemon(nib, command.substr(0, space), command.substr(space + 1));
  };
  uint64_t before = servedCount(nib);
  CHECK(same("refs src/client.py:6:5").find("src/client.py:3:12: return fetch(url)") != std::string::npos);
  same("def --json src/client.py:3:12");
  CHECK(same("symbols fetch").find("function     fetch  src/client.py:6:5") != std::string::npos);
  // Lines shift in one file, another calls fetch, a third is new: both doors answer the
  // worktree's positions, from the same overlay.
  repo.write("src/client.py", "\n\ndef send_request(url):\n    return fetch(url)\n\n\ndef fetch(url):\n    return url\n");
  repo.write("src/retry.py", "from src.client import fetch\n\n\ndef again(u):\n    return fetch(u)\n");
  std::string refs = same("refs src/client.py:7:5");
  CHECK(refs.find("src/client.py:4:12: return fetch(url)") != std::string::npos);
  CHECK(refs.find("src/retry.py:5:12: return fetch(u)") != std::string::npos);
  CHECK(refs.find("warning") == std::string::npos);
  same("refs --json src/client.py:7:5");
  CHECK(same("symbols again").find("function     again  src/retry.py:4:5") != std::string::npos);
  CHECK(servedCount(nib) == before + 6);
}

TEST_CASE("the daemon refuses malformed requests and keeps serving", "[daemon]") {
  TestRepo repo;
  writeProject(repo);
  indexAndOpen(repo, 1);
  DaemonOptions d;
  d.root = repo.root();
  d.idleTimeout = std::chrono::seconds(60);
  // The handler stands in for a command: it answers with what the engine finds.
  d.handler = [](Engine& engine, std::string_view payload) {
    SearchRequest request;
    request.query = std::string(payload);
    request.route = SearchRoute::Trigram;
    CommandOutput o;
    auto result = engine.search(request);
    o.out = result ? std::to_string(result->hits.size()) + " hit(s)" : result.status().message();
    o.exitCode = result && !result->hits.empty() ? 0 : 1;
    return o;
  };
  auto daemon = Daemon::start(d);
  REQUIRE(daemon.hasValue());
  std::thread serving([&] { (*daemon)->serve(); });
  fs::path indexDir = repo.root() / ".nib";

  auto answer = callDaemon(indexDir, DaemonCall::Run, "fnv1a_hash", 10000);
  REQUIRE(answer.hasValue());
  CHECK(answer->out == "2 hit(s)");
  CHECK(answer->exitCode == 0);
  // A second daemon for the same index is refused.
  auto second = Daemon::start(d);
  REQUIRE_FALSE(second.hasValue());
  CHECK(second.status().message().find("already serves") != std::string::npos);

  // Garbage on the socket gets an error frame back, and the daemon goes on.
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  socklen_t length;
  sockaddr_un addr = daemonAddress(repo, &length);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), length) == 0);
  MessageWriter writer(fd);
  REQUIRE(writer.write("\x07not a request").isOk());
  MessageReader reader(fd);
  auto reply = reader.next();
  ::close(fd);
  REQUIRE(reply.hasValue());
  CHECK(reply->find("malformed daemon request") != std::string::npos);
  CHECK(callDaemon(indexDir, DaemonCall::Run, "send_request", 10000)->out == "1 hit(s)");

  auto stopped = callDaemon(indexDir, DaemonCall::Stop, {}, 10000);
  REQUIRE(stopped.hasValue());
  serving.join();
  (*daemon).reset();
  CHECK(callDaemon(indexDir, DaemonCall::Status, {}, 1000).status().code() == ErrorCode::NotFound);
}

TEST_CASE("a daemon that answers garbage is noted and bypassed", "[daemon][cli]") {
  TestRepo repo;
  writeProject(repo);
  Nib nib{repo};
  std::string out;
  REQUIRE(nib.run("index -q --wait-dense", &out) == 0);
  // A fake daemon on the real socket name: it reads the request and answers nonsense.
  int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  socklen_t length;
  sockaddr_un addr = daemonAddress(repo, &length);
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), length) == 0);
  REQUIRE(::listen(listener, 4) == 0);
  std::thread fake([&] {
    int fd = ::accept(listener, nullptr, nullptr);
    MessageReader reader(fd);
    (void)reader.next();
    MessageWriter writer(fd);
    (void)writer.write("\x01");  // an exit status and nothing else
    ::close(fd);
  });
  int rc = nib.run("search fnv1a_hash", &out);
  fake.join();
  ::close(listener);
  CHECK(rc == 0);
  CHECK(out.find("nib: note: the daemon's answer is malformed; answering without the daemon") != std::string::npos);
  CHECK(out.find("lib/hash.c:3:10: uint32_t fnv1a_hash(const char *s) {") != std::string::npos);
}

TEST_CASE("an idle daemon exits on its own", "[daemon]") {
  TestRepo repo;
  writeProject(repo);
  indexAndOpen(repo, 1);
  DaemonOptions d;
  d.root = repo.root();
  d.idleTimeout = std::chrono::seconds(1);
  d.handler = [](Engine&, std::string_view) { return CommandOutput{}; };
  auto daemon = Daemon::start(d);
  REQUIRE(daemon.hasValue());
  (*daemon)->serve();  // returns once a second has passed without a request
  (*daemon).reset();   // what the process does next: exit, closing the socket
  CHECK(callDaemon(repo.root() / ".nib", DaemonCall::Status, {}, 1000).status().code() == ErrorCode::NotFound);
}

}  // namespace nib::test

namespace nib::test {

TEST_CASE("a query on a large repository starts a daemon for the next ones, unless told not to", "[daemon]") {
  TestRepo repo;
  writeProject(repo);
  Nib nib{repo};
  std::string out;
  REQUIRE(nib.run("index -q --no-dense", &out) == 0);
  DaemonGuard guard{nib};
  const std::string note = "started a daemon that watches this worktree";
  // This repository counts as large with a threshold of one file.
  const std::string large = "NIB_DAEMON_AUTO_FILES=1";

  // Told not to: by the environment, by --no-daemon, by .nib.conf.
  REQUIRE(nib.run("symbols fnv1a_hash", &out) == 0);  // below the default threshold
  CHECK(out.find(note) == std::string::npos);
  NibRun run = runNibIn(repo, "NIB_NO_AUTO_DAEMON=1 " + large, "symbols fnv1a_hash");
  REQUIRE(run.rc == 0);
  CHECK(run.out.find(note) == std::string::npos);
  run = runNibIn(repo, large, "symbols --no-daemon fnv1a_hash");
  REQUIRE(run.rc == 0);
  CHECK(run.out.find(note) == std::string::npos);
  repo.write(".nib.conf", "daemon.auto = false\n");
  run = runNibIn(repo, large, "symbols fnv1a_hash");
  REQUIRE(run.rc == 0);
  CHECK(run.out.find(note) == std::string::npos);
  CHECK(nib.run("daemon status", &out) != 0);
  repo.remove(".nib.conf");

  // Large: the answer is printed, then a daemon starts and serves the next command.
  run = runNibIn(repo, large, "def src/client.py:3:12");
  REQUIRE(run.rc == 0);
  CHECK(run.out.find("src/client.py:6:5: function fetch") != std::string::npos);
  CHECK(run.out.find(note) != std::string::npos);
  bool serving = false;
  for (int i = 0; i < 100 && !serving; ++i) {
    serving = nib.run("daemon status", &out) == 0;
    if (!serving) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(serving);
  // With a daemon serving, nothing more is started.
  run = runNibIn(repo, large, "def src/client.py:3:12");
  REQUIRE(run.rc == 0);
  CHECK(run.out.find(note) == std::string::npos);
  CHECK(run.out.find("src/client.py:6:5: function fetch") != std::string::npos);
}

}  // namespace nib::test
