// Watch events in protobuf: each frame of a `watch=true` response asked for in protobuf is a
// metav1.WatchEvent whose object is a whole body again, envelope included (protobuf_envelope.hpp).
// The object is read straight into the typed model, as the JSON watch reads a line.
#pragma once

#include <kubex/core/api_error.hpp>
#include <kubex/core/kind_check.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_status.hpp>
#include <kubex/core/watch.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace kubex::protobuf {

/// Decodes one watch frame (without its length prefix) into `event`, replacing its contents.
/// T needs a generated reader (kubex_read_proto). The object's apiVersion and kind come from
/// its envelope and are checked against T's, as a JSON event's are.
/// @throws DecodeError for malformed protobuf or an unknown event type, json::DecodeError for an
///         object of another kind.
template <class T>
void decode_watch_frame(std::string_view frame, WatchEvent<T>& event) {
  const WatchEventFrame wire = read_watch_event(frame);
  if (!kubex::detail::parse_watch_event_type(wire.type, event.type)) {
    throw DecodeError("unknown watch event type \"" + std::string(wire.type) + "\"");
  }
  const Envelope envelope = open_envelope(wire.object);
  const auto origin = static_cast<std::size_t>(envelope.raw.data() - frame.data());
  event.status = Status{};
  event.object = T{};
  if (event.type == WatchEventType::error) {
    event.status = read_status(envelope.raw, origin);
    return;
  }
  Reader reader(envelope.raw, origin);
  kubex_read_proto(reader, event.object);
  if constexpr (requires {
                  event.object.api_version;
                  event.object.kind;
                }) {
    event.object.api_version = std::string(envelope.api_version);
    event.object.kind = std::string(envelope.kind);
  }
  check_decoded_kind(event.object);
}

}  // namespace kubex::protobuf
