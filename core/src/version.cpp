// SPDX-License-Identifier: Apache-2.0
#include <kubex/version.hpp>

namespace kubex {

// Compiled into the library, so it names the library's version, not the caller's headers'.
std::string_view version() noexcept {
  return KUBEX_VERSION_STRING;
}

}  // namespace kubex
