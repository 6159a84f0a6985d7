// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/json.hpp>
#include <kubex/core/kind_check.hpp>

#include <string>
#include <string_view>

namespace kubex::detail {

void kind_mismatch(std::string_view got, std::string_view got_version, std::string_view want,
                   std::string_view want_version) {
  std::string message = "the response is ";
  if (got.empty()) {
    message.append("of apiVersion ").append(got_version);
  } else {
    message.append("a ").append(got);
    if (!got_version.empty()) {
      message.append(" (").append(got_version).append(")");
    }
  }
  message.append(", not a ").append(want).append(" (").append(want_version).append(")");
  throw json::DecodeError(message);
}

}  // namespace kubex::detail
