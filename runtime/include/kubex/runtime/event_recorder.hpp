// SPDX-License-Identifier: Apache-2.0
#pragma once

// An events.k8s.io/v1 event recorder, with client-go's aggregation (tools/events): an event
// like one recorded shortly before (same object, reason, action, controller and related
// object) does not create a new Event but counts in the first one's series, so a controller
// that fails the same way every few seconds leaves one Event with a count, not thousands.
// Generic over the Event model, as the runtime is over every kind.

#include <kubex/client/api.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/patch.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/core/time.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

namespace kubex::runtime {

/// Who records events, and how long a repeat counts in the earlier event's series.
struct EventRecorderConfig {
  /// reportingController, e.g. "example.com/website-operator" (required by the API).
  std::string reporting_controller{};
  /// reportingInstance, e.g. the pod's name (required by the API).
  std::string reporting_instance{};
  /// A repeat within this time of the last one joins its series (client-go: 6 minutes).
  std::chrono::steady_clock::duration series_window = std::chrono::minutes(6);
};

/// The two types of events the API accepts.
enum class EventType { normal, warning };

/// Records events about objects; thread-safe. Event is the events.k8s.io/v1 Event model.
template <resource Event>
class EventRecorder {
 public:
  /// Completion signature of async_record.
  using Signature = void(std::exception_ptr);

  /// Records through `client` (events go to the regarding object's namespace).
  EventRecorder(client::Client client, EventRecorderConfig config)
      : client_(std::move(client)), config_(std::move(config)) {}

  /// Records that `action` on `regarding` happened for `reason` ("Created", "FailedSync" ...),
  /// with a human-readable `note` (cut to the API's 1 kB). A repeat within the series window
  /// raises the earlier Event's series count instead of creating one.
  template <class K, class CompletionToken>
  auto async_record(const K& regarding, EventType type, std::string reason, std::string action,
                    std::string note, CompletionToken&& token) {
    return boost::asio::co_spawn(client_.get_executor(),
                                 record(reference_to(regarding), type, std::move(reason),
                                        std::move(action), std::move(note)),
                                 std::forward<CompletionToken>(token));
  }

  /// Events created so far (series updates not counted).
  [[nodiscard]] std::size_t created() const {
    const std::lock_guard lock(mutex_);
    return created_;
  }

 private:
  using Reference = std::remove_cvref_t<decltype(*std::declval<Event&>().regarding)>;
  // What makes two events the same (client-go's eventKey).
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string,
                         std::string, std::string>;
  struct Series {
    std::string namespace_;
    std::string name;
    std::int32_t count = 1;
    std::chrono::steady_clock::time_point last;
  };

  template <class K>
  static Reference reference_to(const K& object) {
    Reference r{};
    r.api_version = std::string(resource_traits<K>::api_version);
    r.kind = std::string(resource_traits<K>::kind);
    r.name = object.metadata.name.value_or("");
    if (object.metadata.namespace_) {
      r.namespace_ = *object.metadata.namespace_;
    }
    if (object.metadata.uid) {
      r.uid = *object.metadata.uid;
    }
    if (object.metadata.resource_version) {
      r.resource_version = *object.metadata.resource_version;
    }
    return r;
  }

  static std::string cut_note(std::string note) {
    constexpr std::size_t limit = 1024;
    if (note.size() > limit) {
      std::size_t end = limit;
      while (end > 0 && (static_cast<unsigned char>(note[end]) & 0xC0U) == 0x80U) {
        --end;  // not inside a UTF-8 sequence
      }
      note.resize(end);
    }
    return note;
  }

  boost::asio::awaitable<void> record(Reference regarding, EventType type, std::string reason,
                                      std::string action, std::string note) {
    const std::string ns = regarding.namespace_.value_or("").empty()
                               ? std::string("default")
                               : std::string(*regarding.namespace_);
    const Key key{ns,
                  regarding.kind.value_or(""),
                  regarding.name.value_or(""),
                  regarding.uid.value_or(""),
                  reason,
                  action,
                  config_.reporting_controller};
    const auto now = std::chrono::steady_clock::now();
    auto api = client::Api<Event>::namespaced(client_, ns);
    std::string existing;
    std::int32_t count = 0;
    {
      const std::lock_guard lock(mutex_);
      const auto it = series_.find(key);
      if (it != series_.end() && now - it->second.last < config_.series_window) {
        existing = it->second.name;
        count = ++it->second.count;
        it->second.last = now;
      }
    }
    if (!existing.empty()) {
      std::string patch = R"({"series":{"count":)" + std::to_string(count) +
                          R"(,"lastObservedTime":)" + json::encode(MicroTime::now()) + "}}";
      auto [error, patched] =
          co_await api.async_patch(existing, Patch::merge(std::move(patch)),
                                   boost::asio::as_tuple(boost::asio::use_awaitable));
      if (!error) {
        co_return;
      }
      if (Failure(error).http_status() != 404) {
        std::rethrow_exception(error);
      }
      // The Event expired (the apiserver keeps them an hour): start a new one.
    }
    Event event{};
    const MicroTime time = MicroTime::now();
    event.metadata.name =
        regarding.name.value_or("object") + "." +
        to_hex(static_cast<std::uint64_t>(time.time_point().time_since_epoch().count()));
    event.metadata.namespace_ = ns;
    event.event_time = time;
    event.type = type == EventType::warning ? "Warning" : "Normal";
    event.reason = reason;
    event.action = action;
    event.note = cut_note(std::move(note));
    event.reporting_controller = config_.reporting_controller;
    event.reporting_instance = config_.reporting_instance;
    event.regarding = std::move(regarding);
    const Event created = co_await api.async_create(event, boost::asio::use_awaitable);
    const std::lock_guard lock(mutex_);
    ++created_;
    series_[key] = Series{ns, created.metadata.name.value_or(""), 1, now};
    // Forget series long over, so the cache does not grow with every object ever seen.
    std::erase_if(series_, [&](const auto& entry) {
      return now - entry.second.last > config_.series_window;
    });
  }

  static std::string to_hex(std::uint64_t value) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    do {
      out.insert(out.begin(), digits[value & 0xFU]);
      value >>= 4U;
    } while (value != 0);
    return out;
  }

  client::Client client_;
  EventRecorderConfig config_;
  mutable std::mutex mutex_;
  std::map<Key, Series> series_;
  std::size_t created_ = 0;
};

}  // namespace kubex::runtime
