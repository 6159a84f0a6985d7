// SPDX-License-Identifier: Apache-2.0
// A whole protobuf body (envelope included) read straight into the typed model its generated
// reader (kubex_read_proto) fills, with the kind the envelope names checked as a JSON body's
// is; and the body a typed model's generated writer (kubex_write_proto) makes of it.
#pragma once

#include <kubex/core/arena.hpp>
#include <kubex/core/kind_check.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_write.hpp>

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
  Reader reader(envelope.raw, raw_origin(envelope, body, origin));
  // The compact containers of the object take their memory from one arena (arena.hpp).
  thread_local ArenaEstimate estimate;
  {
    Arena arena(estimate.first_block(envelope.raw.size()));
    const ArenaScope arena_scope(&arena);
    kubex_read_proto(reader, out);  // the generated reader starts from T{}
    estimate.learn(arena, envelope.raw.size());
  }
  if constexpr (requires {
                  out.api_version;
                  out.kind;
                }) {
    out.api_version.assign(envelope.api_version);
    out.kind.assign(envelope.kind);
  }
  check_decoded_kind(out);
}

/// The protobuf body of `object` as the apiserver reads it: the magic, then an envelope
/// naming `api_version` and `kind` (which the object's own message does not carry) around the
/// message kubex_write_proto writes.
/// @throws Unrepresentable for an object protobuf cannot carry (protobuf_write.hpp).
template <class T>
[[nodiscard]] std::string encode_object(const T& object, std::string_view api_version,
                                        std::string_view kind) {
  std::string body(magic);
  Writer unknown(body);
  unknown.message(1, [&](Writer& type_meta) {
    type_meta.bytes(1, api_version);
    type_meta.bytes(2, kind);
  });
  unknown.message(2, [&object](Writer& raw) { kubex_write_proto(raw, object); });
  unknown.bytes(3, {});
  unknown.bytes(4, {});
  return body;
}

}  // namespace kubex::protobuf
