// The LSP base protocol's framing (protocol/MessageFraming): any byte stream is read to its end
// without a crash or a hang; every frame read is within the size limit.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>

#include "FuzzInput.h"
#include "protocol/MessageFraming.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A memory file: the reader reads from a descriptor, and a pipe would hold only 64 KiB.
  int fd = ::memfd_create("frames", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  nib::MessageReader reader(fd);
  // Each call consumes input or ends it: at most one error per byte, plus the frames.
  for (size_t calls = 0; calls <= size + 1; ++calls) {
    auto body = reader.next();
    if (!body && body.status().code() == nib::ErrorCode::NotFound) break;
    if (body && body->size() > (64u << 20)) std::abort();
    if (calls == size + 1) std::abort();  // did not reach the end: it would loop forever
  }
  ::close(fd);
  return 0;
}
