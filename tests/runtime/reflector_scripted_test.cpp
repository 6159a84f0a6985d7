// SPDX-License-Identifier: Apache-2.0
// The reflector's last synced resourceVersion and its counters through
// kubex::testing::ScriptedTransport: the order of a list, changes, a bookmark and a relist on
// cue, and a reader thread racing the I/O thread, which the real apiserver cannot be made to
// show deterministically. The same against testenv: tests/integration/reflector_test.cpp.

#include <kubex/client/api.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/runtime/counter.hpp>
#include <kubex/runtime/reflector.hpp>
#include <kubex/runtime/resource_version.hpp>
#include <kubex/testing/scripted_transport.hpp>

#include "pod_script.hpp"

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <compare>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace core = kubex::k8s::v1_35::core::v1;
using kubex::client::Api;
using kubex::client::Client;
using kubex::runtime::compare_resource_versions;
using kubex::runtime::Reflector;
using kubex::runtime::ReflectorConfig;
using kubex::runtime::resource_version_reached;
using kubex::runtime::WatcherConfig;
using kubex::testing::ScriptedTransport;
using namespace std::chrono_literals;
using namespace kubex::test_pods;

std::string bookmark(const std::string& rv) {
  return event("BOOKMARK", R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" +
                               rv + R"("}})");
}

std::string status_json(int code, const std::string& reason) {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m",)"
         R"("reason":")" +
         reason + R"(","code":)" + std::to_string(code) + "}";
}

TEST(resource_version, compares_positive_integers_by_value_and_nothing_else) {
  EXPECT_EQ(compare_resource_versions("9", "10"), std::strong_ordering::less);
  EXPECT_EQ(compare_resource_versions("10", "9"), std::strong_ordering::greater);
  EXPECT_EQ(compare_resource_versions("123", "123"), std::strong_ordering::equal);
  EXPECT_EQ(compare_resource_versions("124", "123"), std::strong_ordering::greater);
  // Longer than any integer type: still by value.
  EXPECT_EQ(compare_resource_versions("99999999999999999999999", "100000000000000000000000"),
            std::strong_ordering::less);
  for (const char* bad : {"", "0", "012", "12a", "-1", "+1", " 1", "abc"}) {
    EXPECT_EQ(compare_resource_versions(bad, "5"), std::nullopt) << bad;
    EXPECT_EQ(compare_resource_versions("5", bad), std::nullopt) << bad;
  }
  EXPECT_TRUE(resource_version_reached("10", "9"));
  EXPECT_TRUE(resource_version_reached("10", "10"));
  EXPECT_FALSE(resource_version_reached("9", "10"));
  EXPECT_FALSE(resource_version_reached("", "10"));
  EXPECT_TRUE(resource_version_reached("x7", "x7"));   // opaque: equality only
  EXPECT_FALSE(resource_version_reached("x8", "x7"));  // not known to be newer
  EXPECT_TRUE(resource_version_reached("", ""));
}

TEST(counter, is_a_copyable_integer_any_thread_may_read) {
  kubex::runtime::Counter c = 0;
  ++c;
  c += 2;
  const kubex::runtime::Counter copy = c;
  ++c;
  EXPECT_EQ(copy, 3U);
  EXPECT_EQ(c.load(), 4U);
  const std::uint64_t plain = c;
  EXPECT_EQ(plain, 4U);
}

class reflector_scripted_test : public ::testing::Test {
 protected:
  reflector_scripted_test()
      : transport_(std::make_shared<ScriptedTransport>(ioc_.get_executor())), client_(transport_) {}

  void TearDown() override { EXPECT_EQ(transport_->verify(), ""); }

  static ReflectorConfig<core::Pod> config() {
    ReflectorConfig<core::Pod> c;
    c.watcher.page_size = 2;
    c.watcher.jitter_watch_timeout = false;
    c.watcher.backoff = {.initial = 1ms, .max = 2ms, .factor = 2.0, .jitter = 0.0};
    return c;
  }

  // Runs the loop until `ready()`, one completion at a time; false after `limit` (a script
  // whose end the reflector never reaches fails instead of hanging).
  bool run_until(const std::function<bool()>& ready, std::chrono::seconds limit = 10s) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!ready()) {
      if (std::chrono::steady_clock::now() > until) {
        return false;
      }
      if (ioc_.run_one_for(20ms) == 0) {
        ioc_.restart();
      }
    }
    return true;
  }

  void stop(Reflector<core::Pod>& reflector, std::optional<std::exception_ptr>& done) {
    reflector.cancel();
    EXPECT_TRUE(run_until([&] { return done.has_value(); }));
  }

  boost::asio::io_context ioc_;
  std::shared_ptr<ScriptedTransport> transport_;
  Client client_;
};

// The synced version moves only once the store holds what it stands for: the list's at
// init_done (not while its objects come in), each change's once applied, a bookmark's, and a
// relist's only when its state is swapped in.
TEST_F(reflector_scripted_test, the_last_synced_version_follows_the_store_never_ahead_of_it) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a", "b"}, "10"));
  transport_->expect(watch_step("10",
                                {event("MODIFIED", pod_json("a", "11")), bookmark("15"),
                                 event("ERROR", status_json(410, "Expired"))},
                                false));
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a", "c"}, "20", "t"));
  transport_->respond("GET", ns_pods + "?limit=2&continue=t", 200, pod_list({"d"}, "20"));
  transport_->expect(watch_step("20", {event("ADDED", pod_json("e", "21"))}, true));
  // The transform runs as each object is about to be stored: the version must not be its yet.
  ReflectorConfig<core::Pod> rc = config();
  const Reflector<core::Pod>* self = nullptr;
  std::vector<std::string> during;
  rc.transform = [&self, &during](core::Pod& pod) {
    during.push_back(pod.metadata.name.value_or("?") + "@" +
                     pod.metadata.resource_version.value_or("?") + " while " +
                     self->last_synced_resource_version());
  };
  Reflector<core::Pod> reflector(Api<core::Pod>::namespaced(client_, "ns"), rc);
  self = &reflector;
  EXPECT_EQ(reflector.last_synced_resource_version(), "");
  std::optional<std::exception_ptr> done;
  reflector.async_run([&done](std::exception_ptr e) { done = std::move(e); });

  // Each version the reflector showed, with what its store held at that moment.
  const auto& store = reflector.store();
  const auto holding = [&store] {
    std::string out;
    for (const char* name : {"a", "b", "c", "d", "e"}) {
      if (const auto o = store.get(std::string("ns/") + name)) {
        out += std::string(name) + "@" + o->metadata.resource_version.value_or("?") + " ";
      }
    }
    return out;
  };
  std::vector<std::string> seen;
  std::string last;
  ASSERT_TRUE(run_until([&] {
    if (const auto now = reflector.last_synced_resource_version(); now != last) {
      last = now;
      seen.push_back(now + ": " + holding());
    }
    return last == "21";
  })) << "reached "
      << last;
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "10: a@1 b@1 ",
                      "11: a@11 b@1 ",
                      "15: a@11 b@1 ",  // a bookmark: nothing changed up to 15
                      "20: a@1 c@1 d@1 ",
                      "21: a@1 c@1 d@1 e@21 ",
                  }));
  EXPECT_EQ(during,
            (std::vector<std::string>{"a@1 while ", "b@1 while ", "a@11 while 10", "a@1 while 15",
                                      "c@1 while 15", "d@1 while 15", "e@21 while 20"}));
  EXPECT_EQ(reflector.stats().relists, 1U);
  stop(reflector, done);
  EXPECT_EQ(reflector.last_synced_resource_version(), "21");  // kept after the end
}

// The promise to another thread: once wait_until_synced_to(V) returns true, the store it reads
// holds the change of V.
TEST_F(reflector_scripted_test, a_thread_that_waits_for_a_version_finds_its_change_stored) {
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "10"));
  transport_->expect(watch_step("10",
                                {event("MODIFIED", pod_json("a", "11")),
                                 event("MODIFIED", pod_json("a", "12")), bookmark("30")},
                                true));
  Reflector<core::Pod> reflector(Api<core::Pod>::namespaced(client_, "ns"), config());
  auto waiter = std::async(std::launch::async, [&reflector] {
    const bool reached = reflector.wait_until_synced_to("12", 10s);
    const auto a = reflector.store().get("ns/a");
    return std::string(reached ? "reached " : "timed out ") +
           (a ? a->metadata.resource_version.value_or("?") : "none");
  });
  std::optional<std::exception_ptr> done;
  reflector.async_run([&done](std::exception_ptr e) { done = std::move(e); });
  ASSERT_TRUE(run_until([&] { return waiter.wait_for(0s) == std::future_status::ready; }));
  const std::string got = waiter.get();
  // "12" or newer: a@12, never a@11 (the store behind what was reported).
  EXPECT_EQ(got, "reached 12");
  EXPECT_FALSE(reflector.wait_until_synced_to("31", 10ms));  // not there: times out
  stop(reflector, done);
}

// Counters and the synced version are read on another thread while the I/O thread writes them
// (ASan cannot see a data race; a -fsanitize=thread build of this test does).
TEST_F(reflector_scripted_test, counters_and_the_synced_version_are_read_from_another_thread) {
  constexpr int rounds = 20;
  transport_->respond("GET", ns_pods + "?limit=2", 200, pod_list({"a"}, "100"));
  int rv = 100;
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::string> lines;
    const std::string from = std::to_string(rv);
    for (int i = 0; i < 10; ++i) {
      lines.push_back(event("MODIFIED", pod_json("a", std::to_string(++rv))));
    }
    lines.push_back(event("ERROR", status_json(500, "InternalError")));
    transport_->expect(watch_step(from, std::move(lines), false));
  }
  transport_->expect(watch_step(std::to_string(rv), {}, true));
  const std::string last = std::to_string(rv);
  ReflectorConfig<core::Pod> rc = config();
  std::atomic<int> reported{0};
  rc.on_error = [&reported](std::exception_ptr) {
    ++reported;
  };
  Reflector<core::Pod> reflector(Api<core::Pod>::namespaced(client_, "ns"), rc);

  std::atomic<bool> over{false};
  std::uint64_t reads = 0;
  std::string problem;
  std::thread reader([&] {
    std::uint64_t errors = 0;
    std::string synced;
    while (!over.load()) {
      const kubex::runtime::WatcherStats s = reflector.stats();
      const std::string now = reflector.last_synced_resource_version();
      if (s.errors < errors) {
        problem = "errors went back";
      }
      if (!synced.empty() && !resource_version_reached(now, synced)) {
        problem = "the synced version went back from " + synced + " to " + now;
      }
      errors = s.errors;
      synced = now;
      ++reads;
    }
  });
  std::optional<std::exception_ptr> done;
  reflector.async_run([&done](std::exception_ptr e) { done = std::move(e); });
  // Past the last round's error, into the watch that stays open.
  const bool reached = run_until([&] {
    return reflector.last_synced_resource_version() == last &&
           reflector.stats().watch_requests == static_cast<std::uint64_t>(rounds + 1);
  });
  over = true;
  reader.join();
  ASSERT_TRUE(reached) << reflector.last_synced_resource_version();
  EXPECT_EQ(problem, "");
  EXPECT_GT(reads, 0U);
  EXPECT_EQ(reflector.stats().errors, static_cast<std::uint64_t>(rounds));
  EXPECT_EQ(reflector.stats().watch_requests, static_cast<std::uint64_t>(rounds + 1));
  EXPECT_EQ(reported.load(), rounds);
  stop(reflector, done);
}

}  // namespace
