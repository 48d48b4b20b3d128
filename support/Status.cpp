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

const char* reasonName(Reason reason) {
  switch (reason) {
    case Reason::None: return "none";
    case Reason::NoIndex: return "no-index";
    case Reason::NotARepository: return "not-a-repository";
    case Reason::OutsideWorkspace: return "outside-workspace";
    case Reason::NotIndexed: return "not-indexed";
    case Reason::NoSymbol: return "no-symbol";
    case Reason::Declined: return "declined";
    case Reason::Unsafe: return "unsafe";
    case Reason::OtherFormat: return "other-format";
  }
  return "unknown";
}

std::string Status::toString() const {
  if (isOk()) return "ok";
  return std::string(errorCodeName(code_)) + ": " + message_;
}

}  // namespace nib
