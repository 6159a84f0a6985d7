// SPDX-License-Identifier: Apache-2.0
// The controller over kubex::testing::ScriptedTransport: the timing of its promises (a change
// during a reconcile reconciled once more afterwards and never concurrently, growing delays
// after failures, requeues, the concurrency limit, a graceful shutdown) needs changes that
// arrive at chosen moments, which the real apiserver cannot be made to do deterministically.
// The same controller runs against the real control plane in tests/integration/controller_test.cpp.

#include <kubex/client/api.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/runtime/controller.hpp>
#include <kubex/testing/scripted_transport.hpp>

#include "pod_script.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace core = kubex::k8s::v1_35::core::v1;
namespace apps = kubex::k8s::v1_35::apps::v1;
using kubex::client::Api;
using kubex::client::Client;
using kubex::runtime::Action;
using kubex::runtime::Controller;
using kubex::runtime::ControllerConfig;
using kubex::testing::ScriptedTransport;
using kubex::testing::Step;
using kubex::testing::StreamPiece;
using namespace std::chrono_literals;
using namespace kubex::test_pods;
using PodPtr = std::shared_ptr<const core::Pod>;

// Waits `d` inside a reconcile, as a reconcile waiting for the server does.
boost::asio::awaitable<void> pause(std::chrono::milliseconds d) {
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, d);
  co_await timer.async_wait(boost::asio::use_awaitable);
}

std::string name_at(const core::Pod& pod) {
  return pod.metadata.name.value_or("?") + "@" + pod.metadata.resource_version.value_or("?");
}

class controller_scripted_test : public ::testing::Test {
 protected:
  controller_scripted_test()
      : transport_(std::make_shared<ScriptedTransport>(ioc_.get_executor())), client_(transport_) {}

  void TearDown() override { EXPECT_EQ(transport_->verify(), ""); }

  static ControllerConfig<core::Pod> config() {
    ControllerConfig<core::Pod> c;
    c.reflector.watcher.page_size = 0;
    c.reflector.watcher.jitter_watch_timeout = false;
    return c;
  }

  // The initial list of `names` at version 10, then a watch answering with `pieces`.
  void serve(const std::vector<std::string>& names, std::vector<StreamPiece> pieces = {}) {
    transport_->respond("GET", ns_pods, 200, pod_list(names, "10"));
    auto step = watch_step("10", {}, true);
    step.stream = std::move(pieces);
    transport_->expect(std::move(step));
  }

  std::unique_ptr<Controller<core::Pod>> controller(ControllerConfig<core::Pod> c = config()) {
    return std::make_unique<Controller<core::Pod>>(Api<core::Pod>::namespaced(client_, "ns"),
                                                   std::move(c));
  }

  // Starts `c` with `reconcile`; the result lands in result_.
  void run(Controller<core::Pod>& c, Controller<core::Pod>::Reconciler reconcile) {
    c.async_run(std::move(reconcile), [this](std::exception_ptr e) { result_ = std::move(e); });
  }

  bool run_until(const std::function<bool()>& ready, std::chrono::milliseconds limit = 5s) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!ready()) {
      if (std::chrono::steady_clock::now() > until) {
        return false;
      }
      ioc_.restart();
      ioc_.run_for(5ms);
    }
    return true;
  }
  void run_for(std::chrono::milliseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    run_until([&] { return std::chrono::steady_clock::now() >= until; }, d + 1s);
  }

  // Shuts `c` down and waits for async_run's completion.
  void stop(Controller<core::Pod>& c) {
    c.shutdown();
    ASSERT_TRUE(run_until([this] { return result_.has_value(); }));
    EXPECT_EQ(*result_, nullptr);
  }

  boost::asio::io_context ioc_;
  std::shared_ptr<ScriptedTransport> transport_;
  Client client_;
  std::optional<std::exception_ptr> result_;
};

TEST_F(controller_scripted_test, reconciles_each_object_then_each_change_and_skips_the_deleted) {
  serve({"a", "b"}, {{.bytes = event("MODIFIED", pod_json("a", "11")), .delay = 100ms},
                     {.bytes = event("DELETED", pod_json("b", "12")), .delay = 50ms}});
  std::vector<std::string> seen;
  auto c = controller();
  run(*c, [&seen](PodPtr pod) -> boost::asio::awaitable<Action> {
    seen.push_back(name_at(*pod));
    co_return Action::await_change();
  });
  ASSERT_TRUE(run_until([&] { return seen.size() >= 3 && c->stats().skipped >= 1; }));
  run_for(50ms);
  std::sort(seen.begin(), seen.begin() + 2);  // the initial state comes in no set order
  EXPECT_EQ(seen, (std::vector<std::string>{"a@1", "b@1", "a@11"}));
  EXPECT_EQ(c->stats().reconciles, 3U);
  EXPECT_EQ(c->stats().skipped, 1U);  // b: deleted, nothing left to reconcile
  stop(*c);
}

TEST_F(controller_scripted_test, a_change_during_a_reconcile_is_reconciled_after_it_never_beside) {
  serve({"a"}, {{.bytes = event("MODIFIED", pod_json("a", "11")), .delay = 50ms},
                {.bytes = event("MODIFIED", pod_json("a", "12")), .delay = 10ms}});
  std::vector<std::string> seen;
  int running = 0;
  int overlapped = 0;
  auto c = controller();
  run(*c, [&](PodPtr pod) -> boost::asio::awaitable<Action> {
    overlapped += running > 0 ? 1 : 0;
    ++running;
    co_await pause(150ms);  // both changes arrive meanwhile
    --running;
    seen.push_back(name_at(*pod));
    co_return Action::await_change();
  });
  ASSERT_TRUE(run_until([&] { return seen.size() >= 2; }));
  run_for(300ms);
  // Once for the list, once more for both changes, with the latest state.
  EXPECT_EQ(seen, (std::vector<std::string>{"a@1", "a@12"}));
  EXPECT_EQ(overlapped, 0);
  stop(*c);
}

TEST_F(controller_scripted_test, a_failing_reconcile_comes_back_after_growing_delays) {
  serve({"a"});
  auto conf = config();
  conf.queue.failure_backoff = {.initial = 20ms, .max = 1s, .factor = 2.0, .jitter = 0.0};
  std::vector<std::chrono::steady_clock::time_point> calls;
  std::vector<std::chrono::steady_clock::duration> failed_durations;
  conf.on_reconcile = [&](const kubex::runtime::ReconcileRecord& r) {
    if (r.error) {
      failed_durations.push_back(r.duration);
    }
  };
  auto c = controller(conf);
  run(*c, [&calls](PodPtr) -> boost::asio::awaitable<Action> {
    calls.push_back(std::chrono::steady_clock::now());
    if (calls.size() <= 3) {
      throw std::runtime_error("the outside system is down");
    }
    co_return Action::await_change();
  });
  ASSERT_TRUE(run_until([&] { return calls.size() >= 4; }));
  run_for(200ms);
  ASSERT_EQ(calls.size(), 4U);  // no more once it succeeded
  EXPECT_GE(calls[1] - calls[0], 20ms);
  EXPECT_GE(calls[2] - calls[1], 40ms);
  EXPECT_GE(calls[3] - calls[2], 80ms);
  EXPECT_EQ(c->stats().failures, 3U);
  EXPECT_EQ(failed_durations.size(), 3U);
  stop(*c);
}

TEST_F(controller_scripted_test, an_error_policy_decides_what_follows_a_failure) {
  serve({"a"});
  auto conf = config();
  std::vector<std::string> policy_saw;
  conf.error_policy = [&policy_saw](const core::Pod& pod, const std::exception_ptr& error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      policy_saw.push_back(pod.metadata.name.value_or("") + ": " + e.what());
    }
    return Action::await_change();  // give up until the object changes
  };
  int calls = 0;
  auto c = controller(conf);
  run(*c, [&calls](PodPtr) -> boost::asio::awaitable<Action> {
    ++calls;
    throw std::runtime_error("bad spec");
    co_return Action::await_change();
  });
  ASSERT_TRUE(run_until([&] { return !policy_saw.empty(); }));
  run_for(200ms);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(policy_saw, std::vector<std::string>{"a: bad spec"});
  stop(*c);
}

TEST_F(controller_scripted_test, a_requeue_reconciles_again_without_a_change) {
  serve({"a"});
  std::vector<std::chrono::steady_clock::time_point> calls;
  auto c = controller();
  run(*c, [&calls](PodPtr) -> boost::asio::awaitable<Action> {
    calls.push_back(std::chrono::steady_clock::now());
    co_return calls.size() < 3 ? Action::requeue(30ms) : Action::await_change();
  });
  ASSERT_TRUE(run_until([&] { return calls.size() >= 3; }));
  run_for(200ms);
  ASSERT_EQ(calls.size(), 3U);
  EXPECT_GE(calls[1] - calls[0], 30ms);
  EXPECT_GE(calls[2] - calls[1], 30ms);
  stop(*c);
}

TEST_F(controller_scripted_test, no_more_reconciles_run_at_once_than_its_concurrency) {
  serve({"a", "b", "c", "d", "e", "f"});
  auto conf = config();
  conf.concurrency = 2;
  int running = 0;
  int most = 0;
  int finished = 0;
  auto c = controller(conf);
  run(*c, [&](PodPtr) -> boost::asio::awaitable<Action> {
    most = std::max(most, ++running);
    co_await pause(40ms);
    --running;
    ++finished;
    co_return Action::await_change();
  });
  ASSERT_TRUE(run_until([&] { return finished == 6; }));
  EXPECT_EQ(most, 2);
  stop(*c);
}

TEST_F(controller_scripted_test, shutdown_lets_the_reconcile_in_flight_finish_and_starts_no_other) {
  serve({"a", "b"});
  auto conf = config();
  conf.concurrency = 1;
  int started = 0;
  int finished = 0;
  auto c = controller(conf);
  run(*c, [&](PodPtr) -> boost::asio::awaitable<Action> {
    ++started;
    co_await pause(100ms);
    ++finished;
    co_return Action::await_change();
  });
  ASSERT_TRUE(run_until([&] { return started == 1; }));
  c->shutdown();
  ASSERT_TRUE(run_until([this] { return result_.has_value(); }));
  EXPECT_EQ(*result_, nullptr);
  EXPECT_EQ(finished, 1);  // finished before async_run completed
  EXPECT_EQ(started, 1);
  EXPECT_EQ(c->stats().in_flight, 0U);
}

TEST_F(controller_scripted_test, ends_with_an_error_when_the_shared_reflector_of_t_is_stopped) {
  serve({"a"});
  auto reflector = std::make_shared<kubex::runtime::Reflector<core::Pod>>(
      Api<core::Pod>::namespaced(client_, "ns"), config().reflector);
  std::optional<std::exception_ptr> reflector_done;
  reflector->async_run([&](std::exception_ptr e) { reflector_done = std::move(e); });
  Controller<core::Pod> c(reflector);
  int calls = 0;
  run(c, [&calls](PodPtr) -> boost::asio::awaitable<Action> {
    ++calls;
    co_return Action::await_change();
  });
  ASSERT_TRUE(run_until([&] { return calls == 1; }));
  reflector->cancel();  // its owner stops it: the controller cannot go on
  ASSERT_TRUE(run_until([this] { return result_.has_value(); }));
  ASSERT_NE(*result_, nullptr);
  EXPECT_NE(kubex::Failure(*result_).message().find("reflector of Pod stopped"), std::string::npos)
      << kubex::Failure(*result_).message();
  EXPECT_TRUE(run_until([&] { return reflector_done.has_value(); }));
}

TEST_F(controller_scripted_test, waits_for_its_store_before_the_first_reconcile) {
  // The list answers late: no reconcile may run on an empty, not yet listed store.
  Step slow_list;
  slow_list.target = ns_pods;
  slow_list.response.body = pod_list({"a"}, "10");
  slow_list.delay = 150ms;
  transport_->expect(std::move(slow_list));
  transport_->expect(watch_step("10", {}, true));
  auto c = controller();
  std::size_t stored_at_first = 0;
  int calls = 0;
  run(*c, [&](PodPtr) -> boost::asio::awaitable<Action> {
    if (calls++ == 0) {
      stored_at_first = c->store().size();
    }
    co_return Action::await_change();
  });
  c->reconcile({"a", "ns"});  // asked for before the list came
  ASSERT_TRUE(run_until([&] { return calls >= 1; }));
  EXPECT_EQ(stored_at_first, 1U);
  EXPECT_EQ(c->stats().skipped, 0U);  // the early key waited for the store instead
  stop(*c);
}

TEST_F(controller_scripted_test, a_change_during_the_initial_sync_goes_before_the_rest_of_it) {
  serve({"a", "b", "c", "d"}, {{.bytes = event("ADDED", pod_json("z", "11")), .delay = 20ms}});
  auto conf = config();
  conf.concurrency = 1;
  std::vector<std::string> seen;
  auto c = controller(conf);
  run(*c, [&seen](PodPtr pod) -> boost::asio::awaitable<Action> {
    seen.push_back(name_at(*pod));
    co_await pause(60ms);  // z arrives during the first reconcile
    co_return Action::await_change();
  });
  ASSERT_TRUE(run_until([&] { return seen.size() >= 5; }));
  EXPECT_EQ(seen[1], "z@11");  // a change, before three objects of the initial state
  stop(*c);
}

TEST(owners_of, names_the_owners_of_the_kind_asked_for_in_the_objects_namespace) {
  core::Pod pod;
  pod.metadata.namespace_ = "ns";
  pod.metadata.owner_references = {
      {.api_version = "apps/v1", .kind = "ReplicaSet", .name = "web-1", .uid = "u1"},
      {.api_version = "v1", .kind = "ReplicaSet", .name = "not-apps", .uid = "u2"},
      {.api_version = "apps/v1", .kind = "Deployment", .name = "web", .uid = "u3"},
  };
  const auto owners = kubex::runtime::owners_of<apps::ReplicaSet>(pod);
  ASSERT_EQ(owners.size(), 1U);
  EXPECT_EQ(owners[0].key(), "ns/web-1");
  const auto nodes = kubex::runtime::owners_of<core::Node>(pod);
  EXPECT_TRUE(nodes.empty());
  EXPECT_EQ(kubex::runtime::api_group("apps/v1"), "apps");
  EXPECT_EQ(kubex::runtime::api_group("v1"), "");
}

}  // namespace
