#pragma once

#include <kubex/core/box.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex {

/// A JSON value kept verbatim: RawExtension, FieldsV1, CRD `JSON` and fields marked
/// x-kubernetes-preserve-unknown-fields, whose shape the schema does not fix.
struct RawJson {
  /// The value's JSON text, without surrounding whitespace; empty for null or unset (written as
  /// null).
  std::string text{};

  /// True when no value is held (null or unset).
  [[nodiscard]] bool empty() const noexcept { return text.empty(); }
  /// Text equality; JSON with different spacing or key order compares unequal.
  friend bool operator==(const RawJson&, const RawJson&) = default;
};

/// Fields of an object that its model does not know, kept with their raw JSON so that an
/// object read from a newer server is written back without losing them. Null (one pointer)
/// when there are none, which is the normal case.
class UnknownFields {
 public:
  /// One unknown field: its name (unescaped) and raw JSON value.
  using Field = std::pair<std::string, RawJson>;

  /// True when there are no unknown fields.
  [[nodiscard]] bool empty() const noexcept { return !fields_ || fields_->empty(); }
  /// The unknown fields in the order they were read.
  [[nodiscard]] const std::vector<Field>& fields() const noexcept {
    static const std::vector<Field> none;
    return fields_ ? *fields_ : none;
  }
  /// Adds a field; `raw` must be one valid JSON value.
  void add(std::string name, std::string raw) {
    fields_.ensure().emplace_back(std::move(name), RawJson{std::move(raw)});
  }
  /// Removes all unknown fields.
  void clear() noexcept { fields_.reset(); }
  /// Equal when both hold the same fields in the same order.
  friend bool operator==(const UnknownFields& a, const UnknownFields& b) {
    return a.fields() == b.fields();
  }

 private:
  Box<std::vector<Field>> fields_{};
};

}  // namespace kubex
