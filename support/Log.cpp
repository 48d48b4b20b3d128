#include "support/Log.h"

#include <ctime>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace nib {
namespace {
LogLevel initialLevel() {
  const char* env = std::getenv("NIB_LOG");
  if (!env) return LogLevel::Warn;
  if (!std::strcmp(env, "error")) return LogLevel::Error;
  if (!std::strcmp(env, "info")) return LogLevel::Info;
  if (!std::strcmp(env, "debug")) return LogLevel::Debug;
  return LogLevel::Warn;
}
std::atomic<int> gLevel{static_cast<int>(initialLevel())};
std::mutex gMutex;
}  // namespace

LogLevel logLevel() { return static_cast<LogLevel>(gLevel.load()); }
void setLogLevel(LogLevel level) { gLevel = static_cast<int>(level); }

void logMessage(LogLevel level, std::string_view message) {
  if (static_cast<int>(level) > gLevel.load()) return;
  static const char* names[] = {"error", "warning", "info", "debug"};
  std::lock_guard<std::mutex> lock(gMutex);
  std::fprintf(stderr, "nib: %s: %.*s\n", names[static_cast<int>(level)], static_cast<int>(message.size()),
               message.data());
}

std::string utcTimestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace nib
