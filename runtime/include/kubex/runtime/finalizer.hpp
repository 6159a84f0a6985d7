#pragma once

// Finalizers for reconcilers: an object is not deleted before its controller has cleaned up
// what lives outside it. finalize() adds the controller's finalizer before the first apply,
// runs the cleanup once the object is being deleted, and then removes the finalizer. Each
// change of the finalizer list is a JSON patch that first tests the list (or the entry) it
// read, so a write based on a stale object fails instead of dropping another controller's
// finalizer; the failure goes to the controller's error policy, which retries with the
// latest object.

#include <kubex/client/api.hpp>
#include <kubex/core/patch.hpp>
#include <kubex/core/raw_json.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/runtime/controller.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubex::runtime {

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
  const auto found = std::find(finalizers.begin(), finalizers.end(), name);
  const bool has = found != finalizers.end();
  const std::string object_name = meta.name.value_or("");
  if (meta.deletion_timestamp) {
    if (!has) {
      co_return Action::await_change();  // cleaned up already; the object is on its way out
    }
    Action action = co_await reconcile(FinalizerEvent::cleanup, object);
    const std::string at = "/metadata/finalizers/" +
                           std::to_string(static_cast<std::size_t>(found - finalizers.begin()));
    const Patch remove = Patch::json(JsonPatch{}.test(at, name).remove(at));
    co_await api.async_patch(object_name, remove, boost::asio::use_awaitable);
    co_return action;
  }
  if (!has) {
    JsonPatch add;
    if (finalizers.empty()) {
      // Absent and null test equal: the list must still be empty when the patch applies.
      add.test("/metadata/finalizers", RawJson{"null"})
          .add("/metadata/finalizers", std::vector<std::string>{name});
    } else {
      add.test("/metadata/finalizers", finalizers).add("/metadata/finalizers/-", name);
    }
    const Patch patch = Patch::json(add);
    co_await api.async_patch(object_name, patch, boost::asio::use_awaitable);
    co_return Action::await_change();
  }
  co_return co_await reconcile(FinalizerEvent::apply, object);
}

}  // namespace kubex::runtime
