#include "protocol/PositionEncoder.h"

namespace nib {

PositionEncoder::PositionEncoder(std::string_view content, bool ascii, Encoding encoding) : encoding_(encoding) {
  if (!ascii && encoding != Encoding::Utf8) lines_.emplace(content);
}

lsp::Position PositionEncoder::toWire(Position p) const {
  if (!lines_) return {p.line, p.column};
  return {p.line, lines_->toUnits(p.line, p.column, encoding_)};
}

lsp::Range PositionEncoder::toWire(const ByteRange& r) const { return {toWire(r.start), toWire(r.end)}; }

Position PositionEncoder::fromWire(lsp::Position p) const {
  if (!lines_) return {p.line, p.character};
  return {p.line, lines_->fromUnits(p.line, p.character, encoding_)};
}

}  // namespace nib
