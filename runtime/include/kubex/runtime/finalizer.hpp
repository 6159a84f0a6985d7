// SPDX-License-Identifier: Apache-2.0
#pragma once

// Finalizers for reconcilers: an object is not deleted before its controller has cleaned up
// what lives outside it. finalize() adds the controller's finalizer before the first apply,
// runs the cleanup once the object is being deleted, and then removes the finalizer. Each
// change of the finalizer list is a JSON patch that first tests the list (or the entry) it
// read, so a write based on a stale object fails (422) instead of dropping another
// controller's finalizer. finalize() then reads the object again and redoes the change on what
// it read, a few times; a failure that the fresh object does not explain (nothing changed) goes
// to the controller's error policy.

#include <kubex/client/api.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/patch.hpp>
#include <kubex/core/raw_json.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/runtime/controller.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex::runtime {

namespace detail {

/// How many times finalize() sends one change of the finalizer list: the first try and the
/// retries after reading the object again.
inline constexpr int finalizer_patch_attempts = 5;

/// An object's finalizers as plain strings.
template <class List>
std::vector<std::string> finalizer_list(const List& list) {
  return {list.begin(), list.end()};
}

/// Sends the JSON patch `change(finalizers, deleting)` makes of the finalizer list (nullopt:
/// nothing left to do). When the server refuses it (409, or 422 from a failed test) and the
/// object read again has another list or deletion state, makes the patch anew from that.
template <resource T, class Change>
boost::asio::awaitable<void> patch_finalizers(const client::Api<T>& api, std::string object_name,
                                              std::vector<std::string> finalizers, bool deleting,
                                              Change change) {
  using boost::asio::as_tuple;
  using boost::asio::use_awaitable;
  for (int attempt = 1;; ++attempt) {
    const std::optional<JsonPatch> patch = change(finalizers, deleting);
    if (!patch) {
      co_return;
    }
    auto [error, patched] =
        co_await api.async_patch(object_name, Patch::json(*patch), as_tuple(use_awaitable));
    if (!error) {
      co_return;
    }
    const unsigned status = Failure(error).http_status();
    if ((status != 409 && status != 422) || attempt >= finalizer_patch_attempts) {
      std::rethrow_exception(error);
    }
    auto [get_error, latest] = co_await api.async_get(object_name, as_tuple(use_awaitable));
    if (get_error) {
      if (Failure(get_error).http_status() == 404) {
        co_return;  // gone: no finalizer left to change
      }
      std::rethrow_exception(get_error);
    }
    std::vector<std::string> latest_finalizers = finalizer_list(latest.metadata.finalizers);
    const bool latest_deleting = latest.metadata.deletion_timestamp.has_value();
    if (latest_finalizers == finalizers && latest_deleting == deleting) {
      std::rethrow_exception(error);  // not stale: the patch itself is refused
    }
    finalizers = std::move(latest_finalizers);
    deleting = latest_deleting;
  }
}

}  // namespace detail

/// What a reconcile under a finalizer is asked to do.
enum class FinalizerEvent {
  apply,    ///< The object lives and carries the finalizer: make the world match it.
  cleanup,  ///< The object is being deleted: undo what apply did outside it.
};

/// Reconciles `object` under finalizer `name` (e.g. "example.com/cleanup"): calls
/// `reconcile(FinalizerEvent, object)`, an awaitable<Action>, as the file comment says. A
/// reconcile that adds the finalizer returns await_change: the patch itself brings the object
/// back. A cleanup that throws leaves the finalizer, so the cleanup is retried; one that
/// succeeded may still run again (a reconcile may see the object before the finalizer's
/// removal reached the cache), so a cleanup must be idempotent.
template <resource T, class Reconcile>
boost::asio::awaitable<Action> finalize(client::Api<T> api, std::string name,
                                        std::shared_ptr<const T> object, Reconcile reconcile) {
  const auto& meta = object->metadata;
  const auto& finalizers = meta.finalizers;
  const bool has = std::find(finalizers.begin(), finalizers.end(), name) != finalizers.end();
  const std::string object_name = meta.name.value_or("");
  if (meta.deletion_timestamp) {
    if (!has) {
      co_return Action::await_change();  // cleaned up already; the object is on its way out
    }
    Action action = co_await reconcile(FinalizerEvent::cleanup, object);
    // Removes our entry where the list read has it, testing that it is still there.
    co_await detail::patch_finalizers(
        api, object_name, detail::finalizer_list(finalizers), true,
        [&name](const std::vector<std::string>& list, bool) -> std::optional<JsonPatch> {
          const auto at = std::find(list.begin(), list.end(), name);
          if (at == list.end()) {
            return std::nullopt;
          }
          const std::string path =
              "/metadata/finalizers/" + std::to_string(static_cast<std::size_t>(at - list.begin()));
          return JsonPatch{}.test(path, name).remove(path);
        });
    co_return action;
  }
  if (!has) {
    // Adds our entry to the list read, testing that the list is still what was read.
    co_await detail::patch_finalizers(
        api, object_name, detail::finalizer_list(finalizers), false,
        [&name](const std::vector<std::string>& list, bool deleting) -> std::optional<JsonPatch> {
          if (deleting || std::find(list.begin(), list.end(), name) != list.end()) {
            return std::nullopt;  // no finalizer may be added now, or it is there already
          }
          JsonPatch add;
          if (list.empty()) {
            // Absent and null test equal: the list must still be empty when the patch applies.
            add.test("/metadata/finalizers", RawJson{"null"})
                .add("/metadata/finalizers", std::vector<std::string>{name});
          } else {
            add.test("/metadata/finalizers", list).add("/metadata/finalizers/-", name);
          }
          return add;
        });
    co_return Action::await_change();
  }
  co_return co_await reconcile(FinalizerEvent::apply, object);
}

}  // namespace kubex::runtime
