// SPDX-License-Identifier: Apache-2.0
#pragma once
// Sets or clears an environment variable for one scope and restores it afterwards. Tests that
// use it must not run threads that read the environment meanwhile.

#include <cstdlib>
#include <optional>
#include <string>

namespace kubex::testing {

class ScopedEnv {
 public:
  /// Sets `name` to `value`, or unsets it for std::nullopt.
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      old_ = old;
    }
    set(value);
  }
  ~ScopedEnv() { set(old_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void set(const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name_, value->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace kubex::testing
