// Error vocabulary shared by every module: Status for operations without a value, Expected<T>
// for operations with one. No exception crosses a module boundary; callers test and propagate.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace nib {

enum class ErrorCode {
  Ok = 0,
  InvalidArgument,  // the caller's input is wrong (bad path, bad position, bad option)
  NotFound,         // the thing asked for does not exist (file, symbol, index)
  IoError,          // the operating system refused (open, read, write, rename)
  Corrupt,          // persisted data failed a check (digest, format version, truncated record)
  Unsupported,      // a valid request nib cannot answer (language without grammar, ABI mismatch)
  Internal,         // a broken invariant inside nib
  Unavailable,      // a collaborator is missing or died (a live language server that cannot start)
  TimedOut,         // a collaborator did not answer in time
  Cancelled,        // the caller withdrew the request
};

const char* errorCodeName(ErrorCode code);

// What a caller may act on beyond the code: the outcomes a front door answers differently (a
// null result instead of an error, a hint to run `nib index`). Callers branch on this, never on
// a message's text, so rewording a message changes no behaviour.
enum class Reason : uint8_t {
  None = 0,
  NoIndex,           // the repository has no index yet (NotFound)
  NotARepository,    // the path is not inside a git repository (NotFound)
  OutsideWorkspace,  // the path is outside the repository's worktree (InvalidArgument)
  NotIndexed,        // the file is not in the index: untracked, ignored, skipped or deleted (NotFound)
  NoSymbol,          // no identifier, or nothing the index knows, at the position (NotFound)
  Declined,          // this source of facts has no say here: the next one answers (NotFound)
  Unsafe,            // a change nib cannot make exactly, refused whole (a rename; Unsupported)
  OtherFormat,       // the index was written by another version of nib: `nib index` rebuilds it (Unsupported)
};

const char* reasonName(Reason reason);

class Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
  Status(ErrorCode code, Reason reason, std::string message)
      : code_(code), reason_(reason), message_(std::move(message)) {}
  static Status ok() { return Status(); }

  bool isOk() const { return code_ == ErrorCode::Ok; }
  explicit operator bool() const { return isOk(); }
  ErrorCode code() const { return code_; }
  Reason reason() const { return reason_; }
  bool is(Reason reason) const { return reason_ == reason && reason != Reason::None; }
  const std::string& message() const { return message_; }
  // "not-found: no index in /x" — for logs and CLI errors.
  std::string toString() const;

 private:
  ErrorCode code_ = ErrorCode::Ok;
  Reason reason_ = Reason::None;
  std::string message_;
};

inline Status errorStatus(ErrorCode code, std::string message) {
  return Status(code, std::move(message));
}

// A value or the Status explaining its absence. Deliberately small: C++20 has no
// std::expected, and nib needs only construction, testing and access.
template <typename T>
class Expected {
 public:
  Expected(T value) : data_(std::move(value)) {}
  Expected(Status status) : data_(std::move(status)) { assert(!std::get<Status>(data_).isOk()); }

  bool hasValue() const { return data_.index() == 0; }
  explicit operator bool() const { return hasValue(); }

  T& value() & { return std::get<0>(data_); }
  const T& value() const& { return std::get<0>(data_); }
  T&& value() && { return std::get<0>(std::move(data_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Status& status() const {
    static const Status okStatus;
    return hasValue() ? okStatus : std::get<1>(data_);
  }

 private:
  std::variant<T, Status> data_;
};

// Whether a source of facts declined a request (Reason::Declined): the next source answers.
template <typename T>
bool isDeclined(const Expected<T>& e) {
  return !e.hasValue() && e.status().is(Reason::Declined);
}

}  // namespace nib

// Propagates a failed Status from an expression returning Status.
#define NIB_RETURN_IF_ERROR(expr)            \
  do {                                       \
    ::nib::Status nib_status_ = (expr);      \
    if (!nib_status_.isOk()) return nib_status_; \
  } while (0)
