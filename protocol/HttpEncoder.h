// The dense view's external encoder over HTTP: POST {model, input: [texts]} to an
// OpenAI-compatible /v1/embeddings endpoint, read data[i].embedding. Batches, a timeout per
// request, and errors that name the endpoint and the cause (unreachable, an HTTP status, a
// reply that is not an embeddings response).
#pragma once

namespace nib {

// Installs the HTTP encoder as views/' TextEncoder factory; each binary calls it once at start.
void installHttpEncoder();

}  // namespace nib
