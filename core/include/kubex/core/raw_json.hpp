// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <kubex/core/box.hpp>
#include <kubex/core/string.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex {

/// A JSON value kept verbatim: RawExtension, FieldsV1, CRD `JSON` and fields marked
/// x-kubernetes-preserve-unknown-fields, whose shape the schema does not fix.
struct RawJson {
  /// The value's JSON text, without surrounding whitespace; empty for null or unset (written as
  /// null). A decoded value's text is in its object's arena, as its strings are.
  String text{};

  /// True when no value is held (null or unset).
  [[nodiscard]] bool empty() const noexcept { return text.empty(); }
  /// Text equality; JSON with different spacing or key order compares unequal.
  friend bool operator==(const RawJson&, const RawJson&) = default;
};

/// Fields of an object that its model does not know, kept so that an object read from a newer
/// server is written back without losing them: from JSON, each field's name and raw value;
/// from protobuf, the fields' encoded bytes (key and value), which only a protobuf body can
/// carry back. Null (one pointer) when there are none, which is the normal case.
class UnknownFields {
 public:
  /// One unknown JSON field: its name (unescaped) and raw JSON value.
  using Field = std::pair<std::string, RawJson>;

  /// True when there are no unknown fields.
  [[nodiscard]] bool empty() const noexcept {
    return !held_ || (held_->json.empty() && held_->protobuf.empty());
  }
  /// The unknown JSON fields in the order they were read.
  [[nodiscard]] const std::vector<Field>& fields() const noexcept {
    static const std::vector<Field> none;
    return held_ ? held_->json : none;
  }
  /// The unknown protobuf fields, encoded, in the order they were read.
  [[nodiscard]] std::string_view protobuf() const noexcept {
    return held_ ? std::string_view(held_->protobuf) : std::string_view();
  }
  /// Adds a JSON field; `raw` must be one valid JSON value.
  void add(std::string name, std::string_view raw) {
    held_.ensure().json.emplace_back(std::move(name), RawJson{String(raw)});
  }
  /// Adds a protobuf field: its key and value as read (protobuf::Reader::field_bytes).
  void add_protobuf(std::string_view encoded) { held_.ensure().protobuf.append(encoded); }
  /// Removes all unknown fields.
  void clear() noexcept { held_.reset(); }
  /// Equal when both hold the same fields in the same order.
  friend bool operator==(const UnknownFields& a, const UnknownFields& b) {
    return a.fields() == b.fields() && a.protobuf() == b.protobuf();
  }

 private:
  struct Held {
    std::vector<Field> json;
    std::string protobuf;
  };
  Box<Held> held_{};
};

}  // namespace kubex
