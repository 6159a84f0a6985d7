// SPDX-License-Identifier: Apache-2.0
#pragma once

// Status conditions, as apimachinery's meta.SetStatusCondition keeps them: one entry per type,
// whose lastTransitionTime moves only when its status changes, so that readers can tell how
// long a condition has held. Generic over the condition type (meta/v1 Condition, or a custom
// resource's own with the same fields).

#include <kubex/core/time.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex::runtime {

/// The condition of type `type` in `conditions`, or null.
template <class Condition>
[[nodiscard]] const Condition* find_condition(const std::vector<Condition>& conditions,
                                              std::string_view type) {
  const auto it = std::find_if(conditions.begin(), conditions.end(),
                               [type](const Condition& c) { return c.type == type; });
  return it == conditions.end() ? nullptr : &*it;
}

/// True when the condition of type `type` has status "True".
template <class Condition>
[[nodiscard]] bool condition_true(const std::vector<Condition>& conditions, std::string_view type) {
  const Condition* c = find_condition(conditions, type);
  return c != nullptr && c->status == "True";
}

/// Sets `condition` in `conditions` (by its type): a new one gets lastTransitionTime `now`
/// unless set; an existing one keeps its lastTransitionTime unless its status changes.
/// Reason, message and observedGeneration are always taken. Returns whether anything changed,
/// so a reconcile writes the status only when it must.
template <class Condition>
bool set_condition(std::vector<Condition>& conditions, Condition condition,
                   Time now = Time::now()) {
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const Condition& c) { return c.type == condition.type; });
  if (it == conditions.end()) {
    if (!condition.last_transition_time) {
      condition.last_transition_time = now;
    }
    conditions.push_back(std::move(condition));
    return true;
  }
  bool changed = false;
  if (it->status != condition.status) {
    it->status = condition.status;
    it->last_transition_time =
        condition.last_transition_time ? condition.last_transition_time : std::optional<Time>(now);
    changed = true;
  }
  const auto take = [&changed](auto& field, auto& value) {
    if (field != value) {
      field = std::move(value);
      changed = true;
    }
  };
  take(it->reason, condition.reason);
  take(it->message, condition.message);
  take(it->observed_generation, condition.observed_generation);
  return changed;
}

/// Removes the condition of type `type`; returns whether there was one.
template <class Condition>
bool remove_condition(std::vector<Condition>& conditions, std::string_view type) {
  return std::erase_if(conditions, [type](const Condition& c) { return c.type == type; }) > 0;
}

}  // namespace kubex::runtime
