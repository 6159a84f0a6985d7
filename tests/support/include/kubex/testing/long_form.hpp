// SPDX-License-Identifier: Apache-2.0
#pragma once

// Fault and soak tests have two forms: the short one that CI runs on every change (2 cores, a
// time budget), and a long one, with more rounds and more bytes, selected by KUBEX_TEST_LONG=1.
// Their ctest entries carry the label integration-soak: KUBEX_TEST_LONG=1 ctest -L soak runs
// the long forms (README, "Long fault and soak tests").

#include <cstdlib>
#include <string_view>

namespace kubex::testing {

/// True when KUBEX_TEST_LONG is set to anything but "" or "0".
inline bool long_form() {
  const char* value = std::getenv("KUBEX_TEST_LONG");
  return value != nullptr && std::string_view(value) != "" && std::string_view(value) != "0";
}

/// `short_value` in the short form, `long_value` in the long one.
template <class T>
T short_or_long(T short_value, T long_value) {
  return long_form() ? long_value : short_value;
}

}  // namespace kubex::testing
