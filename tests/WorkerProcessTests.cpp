// WorkerProcess: a worker run once (runWorker) and a worker kept across requests (WorkerSession),
// with real processes (sh, python3): time limits, a worker that dies between requests, and one
// that writes much to stderr while its input is still coming.
#include <catch2/catch.hpp>

#include <algorithm>

#include <string>
#include <vector>

#include "indexer/WorkerProcess.h"

namespace nib::test {
namespace {

bool hasLines(const std::string& out, size_t n) { return static_cast<size_t>(std::count(out.begin(), out.end(), '\n')) >= n; }

TEST_CASE("a worker's time limit counts from its last output when asked, so it holds per unit", "[worker]") {
  // Five outputs half a second apart: 2.5 s in all, never more than 0.5 s without output.
  std::vector<std::string> args = {"/bin/sh", "-c", "for i in 1 2 3 4 5; do sleep 0.5; echo $i; done"};
  WorkerResult whole = runWorker(args, "", std::chrono::seconds(1));
  CHECK(whole.timedOut);
  WorkerResult paced = runWorker(args, "", std::chrono::seconds(2), {}, /*timeoutPerOutput=*/true);
  CHECK_FALSE(paced.timedOut);
  CHECK(paced.status == 0);
  CHECK(paced.out == "1\n2\n3\n4\n5\n");
}

TEST_CASE("a worker session answers request after request, and says when the worker is gone", "[worker]") {
  // Echoes each line in capitals; exits at "quit".
  std::string error;
  auto session = WorkerSession::start(
      {"/bin/sh", "-c", "while read -r line; do [ \"$line\" = quit ] && exit 7; echo \"$line\" | tr a-z A-Z; done"}, &error);
  REQUIRE(session);
  auto line = [](const std::string& out) { return hasLines(out, 1); };
  for (const char* word : {"one", "two", "three"}) {
    REQUIRE(session->send(std::string(word) + "\n", std::chrono::seconds(5), {}) == WorkerSession::Wait::Ready);
    REQUIRE(session->readUntil(line, std::chrono::seconds(5), {}, true) == WorkerSession::Wait::Ready);
    std::string expected = word;
    for (char& c : expected) c = static_cast<char>(c - 'a' + 'A');
    CHECK(session->out() == expected + "\n");
    session->out().clear();
  }
  REQUIRE(session->send("quit\n", std::chrono::seconds(5), {}) == WorkerSession::Wait::Ready);
  CHECK(session->readUntil(line, std::chrono::seconds(5), {}, true) == WorkerSession::Wait::Exited);
  // Writing to a worker that has exited fails, and raises no SIGPIPE here.
  CHECK(session->send("more\n", std::chrono::seconds(5), {}) == WorkerSession::Wait::Exited);
  WorkerResult r = session->finish(/*kill=*/false, /*timedOut=*/false);
  CHECK(r.status == 7);
}

TEST_CASE("a worker session never blocks a write on the worker's unread stderr", "[worker]") {
  // The worker writes 1 MiB to stderr before it reads its input (a pipe holds 64 KiB), then
  // echoes the size of what it read: a writer that did not read meanwhile would wait forever.
  std::string error;
  auto session = WorkerSession::start({"/usr/bin/env", "python3", "-c",
                                       "import sys\nsys.stderr.write('x' * (1 << 20))\nsys.stderr.flush()\n"
                                       "data = sys.stdin.buffer.read(1 << 20)\nprint(len(data), flush=True)\n"},
                                      &error);
  REQUIRE(session);
  REQUIRE(session->send(std::string(1 << 20, 'y'), std::chrono::seconds(20), {}) == WorkerSession::Wait::Ready);
  REQUIRE(session->readUntil([](const std::string& out) { return hasLines(out, 1); }, std::chrono::seconds(20), {}, true) ==
          WorkerSession::Wait::Ready);
  CHECK(session->out() == "1048576\n");
  WorkerResult r = session->finish(/*kill=*/false, /*timedOut=*/false);
  CHECK(r.status == 0);
  // Of stderr, the last 64 KiB are kept.
  CHECK(r.err.size() >= 64 * 1024);
  CHECK(r.err.size() <= 1 << 20);
}

TEST_CASE("a worker session that hangs times out, and one that cannot start says why", "[worker]") {
  std::string error;
  auto session = WorkerSession::start({"/bin/sh", "-c", "sleep 30"}, &error);
  REQUIRE(session);
  REQUIRE(session->send("x\n", std::chrono::seconds(2), {}) == WorkerSession::Wait::Ready);
  CHECK(session->readUntil([](const std::string&) { return false; }, std::chrono::seconds(1), {}, true) ==
        WorkerSession::Wait::TimedOut);
  WorkerResult r = session->finish(/*kill=*/true, /*timedOut=*/true);
  CHECK(r.timedOut);
  CHECK_FALSE(WorkerSession::start({"/nonexistent/worker"}, &error));
  CHECK(error.find("cannot start /nonexistent/worker") != std::string::npos);
}

}  // namespace
}  // namespace nib::test
