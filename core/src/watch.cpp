// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/watch.hpp>

#include <string_view>

namespace kubex::detail {

bool parse_watch_event_type(std::string_view name, WatchEventType& out) noexcept {
  for (const auto t : {WatchEventType::added, WatchEventType::modified, WatchEventType::deleted,
                       WatchEventType::bookmark, WatchEventType::error}) {
    if (name == to_string(t)) {
      out = t;
      return true;
    }
  }
  return false;
}

}  // namespace kubex::detail
