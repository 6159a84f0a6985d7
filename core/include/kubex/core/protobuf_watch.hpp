// SPDX-License-Identifier: Apache-2.0
// Watch events in protobuf: each frame of a `watch=true` response asked for in protobuf is a
// metav1.WatchEvent whose object is a whole body again, envelope included (protobuf_envelope.hpp).
// The object is read straight into the typed model, as the JSON watch reads a line.
#pragma once

#include <kubex/core/api_error.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_object.hpp>
#include <kubex/core/protobuf_status.hpp>
#include <kubex/core/watch.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace kubex::protobuf {

/// Decodes one watch frame (without its length prefix) into `event`, which must be freshly
/// made: only the part the event's type fills is written. T needs a generated reader
/// (kubex_read_proto); the object's kind is checked as a JSON event's is.
/// @throws DecodeError for malformed protobuf or an unknown event type, json::DecodeError for an
///         object of another kind.
template <class T>
void decode_watch_frame(std::string_view frame, WatchEvent<T>& event) {
  const WatchEventFrame wire = read_watch_event(frame);
  if (!kubex::detail::parse_watch_event_type(wire.type, event.type)) {
    throw DecodeError("unknown watch event type \"" + std::string(wire.type) + "\"");
  }
  const auto origin = static_cast<std::size_t>(wire.object.data() - frame.data());
  if (event.type == WatchEventType::error) {
    const Envelope envelope = open_envelope(wire.object);
    event.status = read_status(envelope.raw, raw_origin(envelope, wire.object, origin));
    return;
  }
  decode_object(wire.object, event.object, origin);
}

}  // namespace kubex::protobuf
