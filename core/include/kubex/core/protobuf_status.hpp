// SPDX-License-Identifier: Apache-2.0
// meta/v1 Status in protobuf: what the apiserver sends for a failed request, a delete's
// success, and a watch's ERROR event when the client asked for protobuf.
#pragma once

#include <kubex/core/api_error.hpp>
#include <kubex/core/export.hpp>

#include <cstddef>
#include <optional>
#include <string_view>

namespace kubex::protobuf {

/// Reads a meta/v1 Status message (the object inside the envelope): metadata 1, status 2,
/// message 3, reason 4, details 5 (name 1, group 2, kind 3, causes 4 (type 1, message 2,
/// field 3), retryAfterSeconds 5, uid 6), code 6. `origin` is where `raw` starts in the body.
/// @throws DecodeError for malformed protobuf.
[[nodiscard]] KUBEX_API Status read_status(std::string_view raw, std::size_t origin = 0);

/// The Status a whole protobuf body holds (envelope included), or std::nullopt when the body
/// is not a protobuf envelope of kind Status.
[[nodiscard]] KUBEX_API std::optional<Status> status_of_body(std::string_view body) noexcept;

}  // namespace kubex::protobuf
