// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_status.hpp>

#include <string>
#include <utility>

namespace kubex::protobuf {

namespace {

StatusCause read_cause(Reader m) {
  StatusCause c;
  while (m.next()) {
    switch (m.field()) {
      case 1:
        c.reason.assign(m.string());
        break;
      case 2:
        c.message.assign(m.string());
        break;
      case 3:
        c.field.assign(m.string());
        break;
      default:
        m.skip();
        break;
    }
  }
  return c;
}

StatusDetails read_details(Reader m) {
  StatusDetails d;
  while (m.next()) {
    switch (m.field()) {
      case 1:
        d.name.assign(m.string());
        break;
      case 2:
        d.group.assign(m.string());
        break;
      case 3:
        d.kind.assign(m.string());
        break;
      case 4:
        d.causes.push_back(read_cause(m.message()));
        break;
      case 5:
        d.retry_after_seconds = m.int32();
        break;
      case 6:
        d.uid.assign(m.string());
        break;
      default:
        m.skip();
        break;
    }
  }
  return d;
}

}  // namespace

Status read_status(std::string_view raw, std::size_t origin) {
  Reader r(raw, origin);
  Status s;
  while (r.next()) {
    switch (r.field()) {
      case 2:
        s.status.assign(r.string());
        break;
      case 3:
        s.message.assign(r.string());
        break;
      case 4:
        s.reason.assign(r.string());
        break;
      case 5:
        s.details = read_details(r.message());
        break;
      case 6:
        s.code = r.int32();
        break;
      default:
        r.skip();  // metadata (1): a Status's ListMeta carries nothing a client uses
        break;
    }
  }
  return s;
}

std::optional<Status> status_of_body(std::string_view body) noexcept {
  try {
    const Envelope e = open_envelope(body);
    if (e.kind != "Status") {
      return std::nullopt;
    }
    return read_status(e.raw, raw_origin(e, body));
  } catch (const DecodeError&) {
    return std::nullopt;
  }
}

}  // namespace kubex::protobuf
