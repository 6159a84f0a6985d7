// SPDX-License-Identifier: Apache-2.0
#include "detail/headers.hpp"

#include <kubex/core/percent.hpp>

namespace kubex::client::detail {

bool is_valid_target(std::string_view target) noexcept {
  if (target.empty() || target.front() != '/') {
    return false;
  }
  for (const char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return false;
    }
  }
  return true;
}

bool is_valid_header(std::string_view name, std::string_view value) noexcept {
  if (name.empty()) {
    return false;
  }
  for (const char c : name) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f || c == ':') {
      return false;
    }
  }
  for (const char c : value) {
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
      return false;
    }
  }
  return true;
}

std::string extra_header_name(std::string_view key) {
  std::string name = "Impersonate-Extra-";
  append_percent_encoded(name, key, [](char c) {
    static constexpr std::string_view token_chars = "!#$&'*+-.^_`|~";
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           token_chars.find(c) != std::string_view::npos;
  });
  return name;
}

std::vector<std::pair<std::string, std::string>> impersonation_headers(const Impersonation& as) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (as.user.empty()) {
    return headers;
  }
  headers.emplace_back("Impersonate-User", as.user);
  if (!as.uid.empty()) {
    headers.emplace_back("Impersonate-Uid", as.uid);
  }
  for (const auto& group : as.groups) {
    headers.emplace_back("Impersonate-Group", group);
  }
  for (const auto& [key, values] : as.extra) {
    const std::string name = extra_header_name(key);
    for (const auto& value : values) {
      headers.emplace_back(name, value);
    }
  }
  return headers;
}

}  // namespace kubex::client::detail
