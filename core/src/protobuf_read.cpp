// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/protobuf_read.hpp>

#include <simdjson.h>

#include <chrono>
#include <string>
#include <utility>

namespace kubex::protobuf {

namespace {

[[noreturn]] void refuse(const Reader& r, const std::string& what) {
  throw DecodeError(what + " at byte " + std::to_string(r.offset()));
}

// seconds = 1, nanos = 2 (metav1.Time and MicroTime).
std::pair<std::int64_t, std::int32_t> read_timestamp(Reader m) {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;
  while (m.next()) {
    if (m.field() == 1) {
      seconds = m.int64();
    } else if (m.field() == 2) {
      nanos = m.int32();
    } else {
      m.skip();
    }
  }
  if (nanos < 0 || nanos > 999'999'999) {
    refuse(m, "timestamp nanos " + std::to_string(nanos) + " out of range");
  }
  return {seconds, nanos};
}

Time to_time(std::pair<std::int64_t, std::int32_t> t) {
  return Time(Time::time_point_type(std::chrono::seconds(t.first)));
}

MicroTime to_micro_time(std::pair<std::int64_t, std::int32_t> t) {
  return MicroTime(MicroTime::time_point_type(std::chrono::seconds(t.first)) +
                   std::chrono::microseconds(t.second / 1000));
}

// The JSON text of a raw value, checked: it is written back verbatim.
void assign_json(Reader& r, std::string_view raw, RawJson& out) {
  const auto first = raw.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    out.text.clear();
    return;
  }
  raw = raw.substr(first, raw.find_last_not_of(" \t\r\n") - first + 1);
  // Checked where it is kept: the text's own allocation, with simdjson's padding reserved
  // behind it, spares a padded copy per value (several per object: managedFields).
  out.text.reserve(raw.size() + simdjson::SIMDJSON_PADDING);
  out.text.assign(raw);
  thread_local simdjson::dom::parser parser;
  if (parser.parse(out.text.data(), out.text.size(), false).error() != simdjson::SUCCESS) {
    out.text.clear();
    refuse(r, "a raw JSON field of " + std::to_string(raw.size()) + " bytes that is not JSON");
  }
}

}  // namespace

void read(Reader& r, std::string& out) {
  out.assign(r.string());
}

void read(Reader& r, bool& out) {
  out = r.boolean();
}

void read(Reader& r, std::int32_t& out) {
  out = r.int32();
}

void read(Reader& r, std::int64_t& out) {
  out = r.int64();
}

void read(Reader& r, double& out) {
  out = r.float64();
}

void read(Reader& r, Bytes& out) {
  out = Bytes(r.bytes());
}

void read(Reader& r, Quantity& out) {
  Reader m = r.message();
  std::string_view text;
  while (m.next()) {
    if (m.field() == 1) {
      text = m.string();
    } else {
      m.skip();
    }
  }
  auto q = Quantity::parse(text);
  if (!q) {
    refuse(m, "a quantity of " + std::to_string(text.size()) + " bytes that does not parse");
  }
  out = std::move(*q);
}

void read(Reader& r, IntOrString& out) {
  Reader m = r.message();
  std::int64_t type = 0;
  std::int32_t int_value = 0;
  String str_value;
  while (m.next()) {
    switch (m.field()) {
      case 1:
        type = m.int64();
        break;
      case 2:
        int_value = m.int32();
        break;
      case 3:
        str_value.assign(m.string());
        break;
      default:
        m.skip();
        break;
    }
  }
  if (type == 0) {
    out = IntOrString(int_value);
  } else if (type == 1) {
    out = IntOrString(std::move(str_value));
  } else {
    refuse(m, "IntOrString type " + std::to_string(type) + " (0 is int, 1 string)");
  }
}

void read(Reader& r, Time& out) {
  out = to_time(read_timestamp(r.message()));
}

void read(Reader& r, MicroTime& out) {
  out = to_micro_time(read_timestamp(r.message()));
}

namespace {
// Go writes a zero time as an empty message, which JSON shows as null: absent.
template <class T>
void read_optional_timestamp(Reader& r, std::optional<T>& out,
                             T (*convert)(std::pair<std::int64_t, std::int32_t>)) {
  const Reader m = r.message();
  if (m.data().empty()) {
    out.reset();
  } else {
    out = convert(read_timestamp(m));
  }
}
}  // namespace

void read(Reader& r, std::optional<Time>& out) {
  read_optional_timestamp(r, out, to_time);
}

void read(Reader& r, std::optional<MicroTime>& out) {
  read_optional_timestamp(r, out, to_micro_time);
}

void read(Reader& r, RawJson& out) {
  Reader m = r.message();
  std::string_view raw;
  while (m.next()) {
    if (m.field() == 1) {
      raw = m.bytes();
    } else {
      m.skip();
    }
  }
  assign_json(m, raw, out);
}

void read_empty_object(Reader& r, RawJson& out) {
  Reader m = r.message();
  if (m.next()) {
    refuse(m, "field " + std::to_string(m.field()) + " in a message that has none");
  }
  out.text = "{}";
}

}  // namespace kubex::protobuf
