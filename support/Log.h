// Minimal leveled logging to stderr. Quiet by default so that CLI output stays clean; NIB_LOG
// (error|warn|info|debug) raises the level.
#pragma once

#include <string>
#include <string_view>

namespace nib {

enum class LogLevel { Error = 0, Warn = 1, Info = 2, Debug = 3 };

LogLevel logLevel();
void setLogLevel(LogLevel level);
void logMessage(LogLevel level, std::string_view message);

// The current time in UTC, ISO 8601 to the second ("2026-11-30T12:00:00Z").
std::string utcTimestamp();

inline void logWarn(std::string_view m) { logMessage(LogLevel::Warn, m); }
inline void logInfo(std::string_view m) { logMessage(LogLevel::Info, m); }
inline void logDebug(std::string_view m) { logMessage(LogLevel::Debug, m); }

}  // namespace nib
