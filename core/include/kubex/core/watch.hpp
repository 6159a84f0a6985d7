// SPDX-License-Identifier: Apache-2.0
#pragma once

// Watch events: one JSON object per line of a `watch=true` response, `{"type": ..., "object":
// ...}`. The object is decoded straight into the typed model (no intermediate tree); an ERROR
// event carries the server's Status (e.g. 410 Gone when the resourceVersion is too old).

#include <kubex/core/api_error.hpp>
#include <kubex/core/export.hpp>
#include <kubex/core/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace kubex {

/// The type of a watch event.
enum class WatchEventType : std::uint8_t {
  added,     ///< An object appeared (or is part of the initial state).
  modified,  ///< An object changed.
  deleted,   ///< An object was deleted; `object` is its last state.
  bookmark,  ///< No change: `object` carries only metadata.resourceVersion (and annotations).
  error,     ///< The watch failed; `status` says why. The server closes the stream after it.
};

/// The wire name of an event type ("ADDED", ...).
[[nodiscard]] constexpr std::string_view to_string(WatchEventType t) noexcept {
  switch (t) {
    case WatchEventType::added:
      return "ADDED";
    case WatchEventType::modified:
      return "MODIFIED";
    case WatchEventType::deleted:
      return "DELETED";
    case WatchEventType::bookmark:
      return "BOOKMARK";
    case WatchEventType::error:
      return "ERROR";
  }
  return "ERROR";
}

/// One event of a watch on objects of type T.
template <class T>
struct WatchEvent {
  /// What happened.
  WatchEventType type = WatchEventType::added;
  /// The object (for ADDED, MODIFIED, DELETED, BOOKMARK); default-constructed for ERROR.
  T object{};
  /// For ERROR: the Status the server sent (code 410 and reason Expired for a resourceVersion
  /// that is too old). Empty otherwise.
  Status status{};
};

namespace detail {

/// Parses an event type name; false if it is none of the five.
KUBEX_API bool parse_watch_event_type(std::string_view name, WatchEventType& out) noexcept;

// Reads the event's fields in one pass: when "type" comes first (as the apiserver writes it)
// the object is decoded in place; otherwise its raw text is kept and decoded afterwards.
template <class T>
struct WatchEventSink {
  WatchEvent<T>* event;
  bool typed = false;
  bool has_object = false;
  std::string deferred{};
};

template <class T>
void read_event_object(json::Reader& r, WatchEvent<T>& e) {
  if (e.type == WatchEventType::error) {
    json::read(r, e.status);
  } else {
    json::read(r, e.object);
  }
}

template <class T>
void kubex_read(json::Reader& r, WatchEventSink<T>& sink) {
  r.for_each_field([&sink](std::string_view key, json::Reader& v) {
    if (key == "type") {
      if (sink.typed) {
        // Last-wins would give an object already read as one type the other's meaning.
        json::Reader::fail("watch event with a second \"type\"");
      }
      const std::string_view name = v.get_string();
      if (!parse_watch_event_type(name, sink.event->type)) {
        std::string reason = "unknown watch event type \"";
        reason.append(name).append("\"");
        json::Reader::fail(std::move(reason));
      }
      sink.typed = true;
    } else if (key == "object") {
      sink.has_object = true;
      if (sink.typed) {
        read_event_object(v, *sink.event);  // the reader adds "object." to error paths
        sink.deferred.clear();              // a second "object" replaces the first, as elsewhere
      } else {
        sink.deferred = v.get_raw();
      }
    }
  });
}

}  // namespace detail

/// Decodes one line of a watch response into `event`, replacing its contents.
/// @throws json::DecodeError naming the offending field (e.g. `object.spec.replicas: ...`), or
///         saying that the type or the object is missing.
template <class T>
void decode_watch_event(std::string_view line, WatchEvent<T>& event) {
  event.status = Status{};
  detail::WatchEventSink<T> sink{&event};
  json::decode(line, sink);
  if (!sink.typed) {
    throw json::DecodeError("watch event without a \"type\"");
  }
  if (!sink.has_object) {
    throw json::DecodeError("watch event without an \"object\"");
  }
  if (!sink.deferred.empty()) {
    try {
      if (event.type == WatchEventType::error) {
        json::decode(sink.deferred, event.status);
      } else {
        json::decode(sink.deferred, event.object);
      }
    } catch (json::DecodeError& e) {
      e.prepend_field("object");
      throw;
    }
  }
}

}  // namespace kubex
