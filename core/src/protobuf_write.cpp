// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/protobuf_write.hpp>

#include <chrono>
#include <string>

namespace kubex::protobuf {

namespace {

// seconds = 1, nanos = 2, both always written, as Go writes them. Split in the time's own
// unit: a MicroTime far from 1970 would overflow as nanoseconds.
template <class Duration>
void write_timestamp(Writer& w, std::uint32_t field, Duration since_epoch) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(since_epoch);
  const auto nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch - seconds).count();
  w.message(field, [&](Writer& m) {
    m.int64(1, seconds.count());
    m.int64(2, nanos);
  });
}

}  // namespace

Unrepresentable::Unrepresentable(const std::string& reason)
    : Error(errc::invalid_argument, "cannot write as protobuf: " + reason) {}

void write(Writer& w, std::uint32_t field, std::string_view value) {
  w.bytes(field, value);
}

void write(Writer& w, std::uint32_t field, bool value) {
  w.boolean(field, value);
}

void write(Writer& w, std::uint32_t field, std::int32_t value) {
  w.int64(field, value);
}

void write(Writer& w, std::uint32_t field, std::int64_t value) {
  w.int64(field, value);
}

void write(Writer& w, std::uint32_t field, double value) {
  w.float64(field, value);
}

void write(Writer& w, std::uint32_t field, const Bytes& value) {
  w.bytes(field, value.view());
}

void write(Writer& w, std::uint32_t field, const Quantity& value) {
  const std::string text = value.to_string();
  w.message(field, [&text](Writer& m) { m.bytes(1, text); });
}

void write(Writer& w, std::uint32_t field, const IntOrString& value) {
  w.message(field, [&value](Writer& m) {
    if (value.is_int()) {
      m.int64(1, 0);
      m.int64(2, value.int_value());
      m.bytes(3, "");
    } else {
      m.int64(1, 1);
      m.int64(2, 0);
      m.bytes(3, value.string_value().view());
    }
  });
}

void write(Writer& w, std::uint32_t field, const Time& value) {
  write_timestamp(w, field, value.time_point().time_since_epoch());
}

void write(Writer& w, std::uint32_t field, const MicroTime& value) {
  write_timestamp(w, field, value.time_point().time_since_epoch());
}

void write(Writer& w, std::uint32_t field, const RawJson& value) {
  if (!value.empty()) {
    w.message(field, [&value](Writer& m) { m.bytes(1, value.text.view()); });
  }
}

void write_empty_object(Writer& w, std::uint32_t field, const RawJson& value) {
  if (value.empty()) {
    return;
  }
  if (value.text != "{}") {
    throw Unrepresentable("field " + std::to_string(field) +
                          " holds a JSON value where its message has no fields");
  }
  w.message(field, [](Writer&) {});
}

void write_unknown(Writer& w, const UnknownFields& unknown, std::string_view type) {
  if (!unknown.fields().empty()) {
    throw Unrepresentable(std::string(type) + " holds " + std::to_string(unknown.fields().size()) +
                          " field(s) read from JSON that its model does not know (the first is \"" +
                          unknown.fields().front().first + "\"); only JSON can write them back");
  }
  w.raw(unknown.protobuf());
}

}  // namespace kubex::protobuf
