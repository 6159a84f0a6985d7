// SPDX-License-Identifier: Apache-2.0
// The kubex adapter of the benchmark suite: every scenario through the typed Api<T>, with
// C++20 coroutines on one io_context in one thread (as the Python peers use one event loop
// and kube-rs a current-thread runtime). The watch burst runs as a sibling coroutine.
//
//   kubex-bench-kubex --kubeconfig FILE --scenario S --namespace NS [--warmup W --iters N
//                     --list-size L --stream-count C ...]    (see common/measure.hpp)
//
// Prints one JSON line (benchmarks/suite/run.py reads it).

#include <kubex/client/api.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include "../../common/measure.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <exception>
#include <map>
#include <random>
#include <stdexcept>
#include <string>

namespace {

namespace core = kubex::k8s::v1_35::core::v1;
using boost::asio::awaitable;
using boost::asio::use_awaitable;
using kubex_bench::now_ns;

// A pod like the seed's, with a name of its own (Kubex's create_pod).
core::Pod bench_pod(const std::string& name, const std::string& label = {}) {
  core::Pod pod;
  pod.metadata.name = name;
  if (!label.empty()) {
    pod.metadata.labels["bench"] = label;
  }
  auto& c = pod.spec.ensure().containers.emplace_back();
  c.name = "c";
  c.image = "registry.k8s.io/pause:3.9";
  return pod;
}

std::string random_hex(std::size_t n) {
  static std::mt19937_64 rng{std::random_device{}()};
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(n, '0');
  for (auto& c : s) {
    c = digits[rng() % 16];
  }
  return s;
}

class Adapter {
 public:
  Adapter(kubex::client::Client client, kubex_bench::Plan plan, kubex_bench::Recorder& rec)
      : client_(std::move(client)),
        pods_(kubex::client::Api<core::Pod>::namespaced(client_, plan.namespace_name)),
        namespaces_(kubex::client::Api<core::Namespace>::all(client_)),
        plan_(std::move(plan)),
        rec_(rec) {}

  awaitable<void> run() {
    while (rec_.warming()) {
      (void)co_await iteration(false);
    }
    const auto before = client_.stats();
    rec_.begin();
    while (rec_.measuring()) {
      const auto start = now_ns();
      const long items = co_await iteration(true);
      rec_.sample(now_ns() - start, items);
    }
    rec_.end();
    const auto after = client_.stats();
    rec_.number("connections_opened",
                static_cast<double>(after.connections_opened - before.connections_opened));
    rec_.number("retries", static_cast<double>(after.retries - before.retries));
    // Protobuf asked for but never received would measure JSON under the protobuf label
    // (a log is text in either encoding).
    if (client_.encoding() == kubex::client::Encoding::protobuf &&
        plan_.scenario != "stream_logs_n_lines" &&
        after.protobuf_responses == before.protobuf_responses) {
      throw std::runtime_error("--encoding protobuf, but no answer came as protobuf");
    }
    rec_.number("protobuf_responses",
                static_cast<double>(after.protobuf_responses - before.protobuf_responses));
  }

 private:
  // One iteration; returns what the validity check counts.
  awaitable<long> iteration(bool measured) {
    const auto& s = plan_.scenario;
    if (s == "single_get") {
      (void)co_await pods_.async_get("seed-0", use_awaitable);
      co_return 1;
    }
    if (s == "single_get_metadata") {
      (void)co_await pods_.async_get_metadata("seed-0", use_awaitable);
      co_return 1;
    }
    if (s == "list_small" || s == "list_medium" || s == "list_large") {
      const kubex::ListParams params{.limit = plan_.list_size};
      const auto list = co_await pods_.async_list(params, use_awaitable);
      co_return static_cast<long>(list.items.size());
    }
    if (s == "list_metadata_only") {
      const kubex::ListParams params{.limit = plan_.list_size};
      const auto list = co_await pods_.async_list_metadata(params, use_awaitable);
      co_return static_cast<long>(list.items.size());
    }
    if (s == "list_namespaces") {
      const auto list = co_await namespaces_.async_list(use_awaitable);
      co_return static_cast<long>(list.items.size());
    }
    if (s == "single_create_delete") {
      const auto pod = bench_pod("bench-" + random_hex(10));
      const auto created = co_await pods_.async_create(pod, use_awaitable);
      const kubex::DeleteParams now{.grace_period_seconds = 0};
      (void)co_await pods_.async_delete(*created.metadata.name, now, use_awaitable);
      co_return 1;
    }
    if (s == "watch_n_events") {
      co_return co_await watch_n_events(measured);
    }
    if (s == "watch_live") {
      co_return co_await watch_live(measured);
    }
    if (s == "stream_logs_n_lines") {
      co_return co_await stream_logs(measured);
    }
    throw std::invalid_argument("unknown scenario '" + s + "'");
  }

  // Kubex's semantics: a watch without resourceVersion (so the first events replay existing
  // pods) read until N events, while a sibling starts 25 create+delete pairs after 50 ms; the
  // iteration ends when both are done. Events are timed as inter-arrival gaps.
  awaitable<long> watch_n_events(bool measured) {
    using namespace boost::asio::experimental::awaitable_operators;
    const auto events = co_await (receive_n(measured) && burst("watch-bench-", {}, nullptr));
    co_return events;
  }

  awaitable<long> receive_n(bool measured) {
    const kubex::WatchParams params;
    auto watch = co_await pods_.async_watch(params, use_awaitable);
    long seen = 0;
    std::int64_t last = 0;
    while (seen < plan_.stream_count) {
      auto event = co_await watch.async_next(use_awaitable);
      if (!event) {
        break;
      }
      const auto t = now_ns();
      if (measured && seen > 0) {
        rec_.event(t - last);
      }
      last = t;
      ++seen;
    }
    watch.cancel();
    co_return seen;
  }

  // 25 sequential create+delete pairs; `sent` (when given) records when each request left.
  awaitable<void> burst(const std::string& prefix, const std::string& label,
                        std::map<std::string, std::pair<std::int64_t, std::int64_t>>* sent) {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
    if (label.empty()) {
      timer.expires_after(std::chrono::milliseconds(50));
      co_await timer.async_wait(use_awaitable);
    }
    const kubex::DeleteParams now{.grace_period_seconds = 0};
    for (int i = 0; i < 25; ++i) {
      const std::string name = prefix + std::to_string(i);
      const auto pod = bench_pod(name, label);
      if (sent) {
        (*sent)[name].first = now_ns();
      }
      (void)co_await pods_.async_create(pod, use_awaitable);
      if (sent) {
        (*sent)[name].second = now_ns();
      }
      (void)co_await pods_.async_delete(name, now, use_awaitable);
    }
  }

  // Our live watch: from a list's resourceVersion, only the burst's pods (by label); counts
  // their ADDED and DELETED events (the scheduler's and kubelet's MODIFIED ones are read, not
  // counted) and times each from the moment its create or delete request was sent.
  awaitable<long> watch_live(bool measured) {
    using namespace boost::asio::experimental::awaitable_operators;
    const std::string label = "live-" + random_hex(6);
    const kubex::ListParams one{.label_selector = "bench=" + label, .limit = 1};
    const auto list = co_await pods_.async_list(one, use_awaitable);
    const kubex::WatchParams params{.label_selector = "bench=" + label,
                                    .resource_version = *list.metadata.resource_version};
    auto watch = co_await pods_.async_watch(params, use_awaitable);
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> sent;
    const auto counted =
        co_await (receive_live(watch, sent, measured) && burst("watch-live-", label, &sent));
    co_return counted;
  }

  awaitable<long> receive_live(kubex::client::WatchStream<core::Pod>& watch,
                               std::map<std::string, std::pair<std::int64_t, std::int64_t>>& sent,
                               bool measured) {
    long counted = 0;
    while (counted < 50) {
      auto event = co_await watch.async_next(use_awaitable);
      if (!event) {
        break;
      }
      const auto t = now_ns();
      const bool added = event->type == kubex::WatchEventType::added;
      if (!added && event->type != kubex::WatchEventType::deleted) {
        continue;
      }
      ++counted;
      const auto it = sent.find(event->object.metadata.name.value_or(""));
      if (measured && it != sent.end()) {
        rec_.event(t - (added ? it->second.first : it->second.second));
      }
    }
    watch.cancel();
    co_return counted;
  }

  // Follow log-emitter's log (from its start, as Kubex does) until N lines.
  awaitable<long> stream_logs(bool measured) {
    const kubex::LogParams params{.container = "c"};
    auto stream = co_await pods_.async_log_stream("log-emitter", params, use_awaitable);
    long lines = 0;
    std::int64_t last = 0;
    while (lines < plan_.stream_count) {
      auto line = co_await stream.async_next(use_awaitable);
      if (!line) {
        break;
      }
      const auto t = now_ns();
      if (measured && lines > 0) {
        rec_.event(t - last);
      }
      last = t;
      ++lines;
    }
    stream.cancel();
    co_return lines;
  }

  kubex::client::Client client_;
  kubex::client::Api<core::Pod> pods_;
  kubex::client::Api<core::Namespace> namespaces_;
  kubex_bench::Plan plan_;
  kubex_bench::Recorder& rec_;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    const kubex_bench::Args args(argc, argv);
    const auto plan = kubex_bench::Plan::from(args);
    kubex_bench::Recorder rec(plan);
    rec.fact("adapter", "kubex");
    rec.fact("variant", "typed");
    kubex::client::ClientOptions options;
    // kubex's default sends watches and log follows over HTTP/2 and other requests over
    // HTTP/1.1; --http 1.1 keeps everything on HTTP/1.1, --http 2 sends everything over
    // HTTP/2 (the apiserver agrees), as client-go does by default.
    const auto http = args.get("http", "default");
    if (http != "default" && http != "1.1" && http != "2") {
      throw std::invalid_argument("--http must be default, 1.1 or 2, not \"" + http + "\"");
    }
    options.http2 = http == "2";
    options.http2_for_streams = http != "1.1";
    rec.fact("http", http == "default" ? "1.1, streams 2" : http);
    // Off for the primary pass (every client gets the same bytes); the library-defaults pass
    // keeps kubex's default, gzip on.
    options.compression = args.get("library-defaults", "off") == "on";
    options.user_agent = "kubex-bench";
    rec.fact("accept_encoding", options.compression ? "gzip" : "");
    // --encoding protobuf: built-in kinds and metadata in protobuf (as client-go-proto).
    const auto encoding = args.get("encoding", "json");
    if (encoding != "json" && encoding != "protobuf") {
      throw std::invalid_argument("--encoding must be json or protobuf, not \"" + encoding + "\"");
    }
    options.encoding =
        encoding == "protobuf" ? kubex::client::Encoding::protobuf : kubex::client::Encoding::json;
    rec.fact("encoding", encoding);
    boost::asio::io_context ioc(1);
    kubex::client::Client client(ioc.get_executor(),
                                 kubex::client::load_kubeconfig(args.required("kubeconfig"), {}),
                                 options);
    Adapter adapter(client, plan, rec);
    std::exception_ptr failure;
    boost::asio::co_spawn(ioc, adapter.run(),
                          [&failure](std::exception_ptr e) { failure = std::move(e); });
    ioc.run();
    if (failure) {
      std::rethrow_exception(failure);
    }
    rec.print();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-bench-kubex: %s\n", e.what());
    return 1;
  }
  return 0;
}
