#include "support/Status.h"

namespace nib {

const char* errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::Ok: return "ok";
    case ErrorCode::InvalidArgument: return "invalid-argument";
    case ErrorCode::NotFound: return "not-found";
    case ErrorCode::IoError: return "io-error";
    case ErrorCode::Corrupt: return "corrupt";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::Internal: return "internal";
    case ErrorCode::Unavailable: return "unavailable";
    case ErrorCode::TimedOut: return "timed-out";
    case ErrorCode::Cancelled: return "cancelled";
  }
  return "unknown";
}

std::string Status::toString() const {
  if (isOk()) return "ok";
  return std::string(errorCodeName(code_)) + ": " + message_;
}

}  // namespace nib
