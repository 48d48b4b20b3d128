// JSON values shared by the CLI's and the LSP server's encoders. Internal to protocol/: the
// only place (with its .cpp files) that includes the JSON library.
#pragma once

#include <nlohmann/json.hpp>

#include "protocol/LspTypes.h"

namespace nib::lsp {

nlohmann::json rangeValue(const Range& r);
nlohmann::json searchValue(const SearchAnswer& s);
nlohmann::json structuralValue(const StructuralAnswer& s);
nlohmann::json contextValue(const ContextAnswerWire& c);

}  // namespace nib::lsp
