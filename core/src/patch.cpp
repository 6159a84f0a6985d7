// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/core/patch.hpp>

#include <string>
#include <string_view>

namespace kubex {

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (const char c : token) {
    if (c == '~') {
      out.append("~0");
    } else if (c == '/') {
      out.append("~1");
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string json_pointer(std::initializer_list<std::string_view> tokens) {
  std::string out;
  for (const std::string_view token : tokens) {
    out.push_back('/');
    out.append(escape_pointer_token(token));
  }
  return out;
}

JsonPatch& JsonPatch::op(std::string_view name, std::string_view path, std::string_view from) {
  // RFC 6901: a pointer is empty (the whole document) or starts with '/'; '~' must be
  // followed by 0 or 1. Checked here so a bad pointer names itself instead of failing as 400.
  const auto check = [&](std::string_view what, std::string_view pointer) {
    bool ok = pointer.empty() || pointer.front() == '/';
    for (std::size_t i = 0; ok && i < pointer.size(); ++i) {
      if (pointer[i] == '~') {
        ok = i + 1 < pointer.size() && (pointer[i + 1] == '0' || pointer[i + 1] == '1');
      }
    }
    if (!ok) {
      std::string message = "JSON patch ";
      message.append(name).append(": ").append(what).append(" \"").append(pointer).append(
          "\" is not a JSON pointer (RFC 6901: starts with '/', '~' only as ~0 or ~1)");
      throw Error(errc::invalid_argument, message);
    }
  };
  check("path", path);
  if (name == "move" || name == "copy") {
    check("from", from);
  }
  if (count_ > 0) {
    body_.push_back(',');
  }
  json::Writer w(body_);
  w.begin_object();
  w.key_literal("\"op\":");
  w.string(name);
  if (name == "move" || name == "copy") {
    w.key_literal("\"from\":");
    w.string(from);
  }
  w.key_literal("\"path\":");
  w.string(path);
  w.end_object();
  ++count_;
  return *this;
}

}  // namespace kubex
