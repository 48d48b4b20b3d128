// Converts nib positions (0-based line, UTF-8 byte column) into wire positions in the
// negotiated encoding, and back. Built per file from its content; ASCII-only files skip the
// table since every encoding counts their columns alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "protocol/LspTypes.h"
#include "support/Text.h"

namespace nib {

class PositionEncoder {
 public:
  // `content` may be empty when the file is ASCII-only; it must outlive the encoder.
  PositionEncoder(std::string_view content, bool ascii, Encoding encoding);

  lsp::Position toWire(Position p) const;
  lsp::Range toWire(const ByteRange& r) const;
  Position fromWire(lsp::Position p) const;

 private:
  Encoding encoding_;
  std::optional<LineTable> lines_;
};

}  // namespace nib
