// The LSP session's threads: who reads input, who answers, and how a request is cancelled
// (LspServer.h). Kept apart from the request handlers in LspServer.cpp.
#include <algorithm>

#include "server/LspServer.h"

#include <malloc.h>

namespace nib {

int LspServer::run(int inFd, int outFd) {
  writer_ = std::make_unique<MessageWriter>(outFd);
  MessageReader reader(inFd);
  for (unsigned i = 0; i < std::max(1u, options_.workers); ++i) pool_.emplace_back([this, &reader] { serve(reader); });
  serve(reader);
  for (auto& t : pool_) t.join();
  pool_.clear();
  if (indexThread_.joinable()) indexThread_.join();
  sampler_.reset();  // stops sampling and saves the counts
  return shutdown_ && exit_ ? 0 : 1;
}

// Every thread of the server runs this loop (leader/follower): one thread at a time holds the
// reader's role. When it reads a request and another thread is idle, it hands the role on and
// answers the request itself, so a request never waits for a worker to wake up (that hand-off
// was a third of a definition request's time on an open file). When every other thread is
// busy, it queues the request and keeps reading: the reader never waits for the engine, so
// `$/cancelRequest` and `exit` are read while long queries run. A quick request (answersQuickly)
// with no more input waiting is the exception: waking the idle thread took longer than the
// answer (0.11-0.19 ms against 0.07 ms for a definition on an open file with an editor's pauses
// between requests), so the reader answers it and reads on, and hands its role on only if the
// request has to wait. Threads that finish a request take queued ones first.
void LspServer::serve(MessageReader& reader) {
  std::unique_lock<std::mutex> lock(queueMutex_);
  for (;;) {
    if (!queue_.empty()) {
      Task task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      runTask(task);
      lock.lock();
      continue;
    }
    if (stopping_) return;  // input ended (or the server is destroyed) and nothing is queued
    if (readerTaken_) {
      ++idle_;
      queueReady_.wait(lock);
      --idle_;
      continue;
    }
    readerTaken_ = true;
    lock.unlock();
    std::optional<Task> task = readRequest(reader);
    while (task) {
      lock.lock();
      if (idle_ > 0) break;
      queue_.push_back(std::move(*task));  // everyone else is busy: queue it, read on
      lock.unlock();
      task = readRequest(reader);
    }
    if (!task) {
      // Queued requests still get their answers; a background index build is told to stop.
      buildCancelled_ = true;
      stop();
      lock.lock();
      readerTaken_ = false;
      continue;
    }
    readerTaken_ = false;
    // An idle thread takes the reader's role, unless the request is a quick one and no more
    // input is waiting: then this thread reads again once it has answered.
    const bool handOff = !answersQuickly(task->method) || reader.pending();
    lock.unlock();
    if (handOff) queueReady_.notify_one();
    runTask(*task);
    lock.lock();
  }
}

// References are quick too, though a name used everywhere can take milliseconds: every request
// answers under the one engine lock, so input read meanwhile could only wait for that lock, and
// a `$/cancelRequest` for this very request is honoured after the answer either way. Handing the
// reader on first cost a thread wake-up per request (0.05-0.1 ms, as much as the answer).
bool LspServer::answersQuickly(const std::string& method) {
  return method == "textDocument/definition" || method == "textDocument/declaration" ||
         method == "textDocument/typeDefinition" || method == "textDocument/hover" ||
         method == "textDocument/documentHighlight" || method == "textDocument/references";
}

void LspServer::handOffReader() {
  std::lock_guard<std::mutex> g(queueMutex_);
  if (!readerTaken_ && idle_ > 0) queueReady_.notify_one();
}

std::optional<LspServer::Task> LspServer::readRequest(MessageReader& reader) {
  // Document changes are recorded here, in the order they came, and applied by the next
  // request under the engine lock.
  while (!exit_) {
    auto body = reader.next();
    if (!body) {
      if (body.status().code() == ErrorCode::NotFound) break;  // end of input
      log(1, "dropped a malformed message: " + body.status().message());
      // A request behind the broken header still gets an answer, so its client never waits.
      lsp::Incoming dropped = lsp::decodeMessage(reader.dropped());
      if (dropped.kind == lsp::Incoming::Kind::Request)
        send(lsp::encodeError(dropped.id, lsp::ParseError, "the message's header was malformed: " + body.status().message()));
      continue;
    }
    // A large message's memory (the frame buffer, the body, its decoded JSON) goes back to the
    // system once it is handled, not at the next allocation that happens to reuse it: a 50 MB
    // message otherwise left the server 11x its idle size.
    const bool large = body->size() > kLargeMessage;
    std::optional<Task> task;
    {
      lsp::Incoming message = lsp::decodeMessage(*body);
      std::string().swap(*body);
      task = dispatch(message);
    }
    if (large) {
      reader.releaseBuffer();
      malloc_trim(0);
    }
    if (task) return task;
  }
  return std::nullopt;
}

void LspServer::cancel(const lsp::RequestId& id) {
  {
    std::lock_guard<std::mutex> g(cancelMutex_);
    if (!active_.count(id)) return;  // unknown or finished: nothing to remember
    cancelled_.insert(id);
  }
  { std::lock_guard<std::mutex> g(engineMutex_); }
  engineReady_.notify_all();
}

bool LspServer::isCancelled(const lsp::RequestId& id) {
  std::lock_guard<std::mutex> g(cancelMutex_);
  return cancelled_.count(id) > 0;
}

void LspServer::finish(const lsp::RequestId& id) {
  std::lock_guard<std::mutex> g(cancelMutex_);
  active_.erase(id);
  cancelled_.erase(id);
}

}  // namespace nib
