// A whole protobuf body (envelope included) read straight into the typed model its generated
// reader (kubex_read_proto) fills, with the kind the envelope names checked as a JSON body's is.
#pragma once

#include <kubex/core/kind_check.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace kubex::protobuf {

/// Decodes `body` into `out`, replacing its contents. `origin` is the body's offset in what
/// the caller received, so that errors name the byte where the whole response went wrong.
/// apiVersion and kind travel in the envelope; they are set on `out` and checked against T's.
/// @throws DecodeError for malformed protobuf, json::DecodeError for a body of another kind.
template <class T>
void decode_object(std::string_view body, T& out, std::size_t origin = 0) {
  const Envelope envelope = open_envelope(body);
  Reader reader(envelope.raw, origin + static_cast<std::size_t>(envelope.raw.data() - body.data()));
  kubex_read_proto(reader, out);  // the generated reader starts from T{}
  if constexpr (requires {
                  out.api_version;
                  out.kind;
                }) {
    out.api_version.assign(envelope.api_version);
    out.kind.assign(envelope.kind);
  }
  check_decoded_kind(out);
}

}  // namespace kubex::protobuf
