// SPDX-License-Identifier: Apache-2.0
#include <kubex/client/http.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kubex::client {

void parse_warning_header(std::string_view value, std::vector<std::string>& out) {
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < value.size() && (value[i] == ' ' || value[i] == '\t')) {
      ++i;
    }
  };
  const auto skip_to_next = [&] {
    // Past the next comma outside a quoted string, to the next warning value.
    bool quoted = false;
    for (; i < value.size(); ++i) {
      if (quoted && value[i] == '\\') {
        ++i;
      } else if (value[i] == '"') {
        quoted = !quoted;
      } else if (!quoted && value[i] == ',') {
        ++i;
        return;
      }
    }
  };
  while (i < value.size()) {
    skip_space();
    // warn-code: three digits; warn-agent: a token (the apiserver writes "-").
    const std::size_t code = i;
    while (i < value.size() && value[i] >= '0' && value[i] <= '9') {
      ++i;
    }
    const bool code_ok = i - code == 3 && i < value.size() && value[i] == ' ';
    ++i;
    while (code_ok && i < value.size() && value[i] != ' ') {
      ++i;
    }
    ++i;
    if (!code_ok || i >= value.size() || value[i] != '"') {
      skip_to_next();
      continue;
    }
    std::string text;
    bool closed = false;
    for (++i; i < value.size(); ++i) {
      if (value[i] == '\\' && i + 1 < value.size()) {
        text += value[++i];
      } else if (value[i] == '"') {
        closed = true;
        ++i;
        break;
      } else {
        text += value[i];
      }
    }
    if (closed) {
      out.push_back(std::move(text));
    }
    skip_to_next();  // an optional warn-date, then the next value
  }
}

}  // namespace kubex::client
