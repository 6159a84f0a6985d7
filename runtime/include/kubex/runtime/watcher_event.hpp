// SPDX-License-Identifier: Apache-2.0
#pragma once

// The events a watcher yields, apart from the watcher itself: the store (store.hpp) and its
// readers apply them without compiling the watcher's list, watch and backoff machinery.

#include <cstdint>

namespace kubex::runtime {

/// What a watcher event says.
enum class WatcherEventType : std::uint8_t {
  init,        ///< A (re)list starts: the init_apply events that follow are the whole state.
  init_apply,  ///< An object of the state being listed.
  init_done,   ///< The listed state is complete: replace what was known with it.
  apply,       ///< An object was added or changed.
  deleted,     ///< An object was deleted; `object` is its last state.
};

/// One event of a watcher.
template <class K>
struct WatcherEvent {
  /// What happened.
  WatcherEventType type = WatcherEventType::init;
  /// The object (init_apply, apply, deleted); default-constructed otherwise.
  K object{};
};

}  // namespace kubex::runtime
