// file:// URIs at the protocol edge. Everything inside nib speaks repository paths; these two
// functions are where a client's URI becomes a filesystem path and back (RFC 3986
// percent-encoding, as VS Code and Neovim produce it).
#pragma once

#include <string>
#include <string_view>

#include "support/Status.h"

namespace nib {

// "file:///a/b%20c.py" -> "/a/b c.py". Non-file schemes and malformed escapes are rejected.
Expected<std::string> uriToPath(std::string_view uri);
std::string pathToUri(std::string_view absolutePath);

}  // namespace nib
