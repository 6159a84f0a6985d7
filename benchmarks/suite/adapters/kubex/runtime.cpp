// SPDX-License-Identifier: Apache-2.0
// The kubex adapter of the runtime benchmark (benchmarks/suite/runtime.py): a reflector of a
// namespace's pods synced and held, or a typed watch read through a stream of modifications.
// The client's io_context runs on one thread; the main thread waits on the store, as an
// application's would.
//
//   kubex-bench-kubex-runtime --kubeconfig FILE --namespace NS --scenario reflector
//       --expect N [--initial list|watch_list] [--variant full|no_managed_fields|metadata]
//       [--settle-seconds S]
//   kubex-bench-kubex-runtime --kubeconfig FILE --namespace NS --scenario watch_throughput
//       --resource-version RV --expect N
//   (either with [--http default|1.1] [--name ROW])
//
// Prints one JSON line (runtime.py documents the fields).

#include <kubex/client/api.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/runtime/reflector.hpp>

#include "../../common/measure.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

namespace core = kubex::k8s::v1_35::core::v1;
using kubex_bench::cpu_ns;
using kubex_bench::now_ns;
using kubex_bench::proc_status_kb;

// Bytes malloc holds for the program: every arena's chunks in use plus mmapped blocks. Rust's
// peer uses the same glibc malloc and measures the same way.
long long heap_bytes() {
  const auto m = mallinfo2();
  return static_cast<long long>(m.uordblks + m.hblkhd);
}

// Where the process stands before the measured part: RSS and heap.
struct Baseline {
  long rss_kb = proc_status_kb("VmRSS");
  long long heap = heap_bytes();
};

// A reflector of the namespace's pods, synced, then held for `settle` seconds.
template <class Reflector>
void reflect(kubex_bench::Recorder& rec, Reflector& reflector, long expect,
             std::chrono::seconds settle) {
  const Baseline base;
  kubex_bench::announce_phase("loop");
  const auto t0 = now_ns();
  const auto c0 = cpu_ns();
  auto done = reflector.async_run(boost::asio::use_future);
  auto& store = reflector.store();
  // Polled like the peers (client-go's HasSynced, kube-rs's wait_until_ready are both waits on
  // a flag); 1 ms adds at most that to the sync time.
  while (!(store.ready() && static_cast<long>(store.size()) >= expect)) {
    if (done.wait_for(std::chrono::milliseconds(1)) == std::future_status::ready) {
      done.get();
      throw std::runtime_error("the reflector stopped before it synced");
    }
  }
  const auto t1 = now_ns();
  const auto c1 = cpu_ns();
  kubex_bench::announce_phase("done");
  std::this_thread::sleep_for(settle);
  rec.number("sync_ms", static_cast<double>(t1 - t0) / 1e6);
  rec.number("sync_cpu_ms", static_cast<double>(c1 - c0) / 1e6);
  rec.number("objects", static_cast<double>(store.size()));
  rec.number("rss_baseline_kb", static_cast<double>(base.rss_kb));
  rec.number("rss_delta_kb", static_cast<double>(proc_status_kb("VmRSS") - base.rss_kb));
  rec.number("heap_delta_bytes", static_cast<double>(heap_bytes() - base.heap));
  rec.number("list_requests", static_cast<double>(reflector.stats().list_requests));
  rec.number("watch_requests", static_cast<double>(reflector.stats().watch_requests));
  reflector.cancel();
  done.wait();
}

// A typed watch from `rv`, read until `expect` MODIFIED events.
void watch_throughput(kubex_bench::Recorder& rec, boost::asio::io_context& ioc,
                      kubex::client::Api<core::Pod>& pods, const std::string& rv, long expect) {
  auto run = [&]() -> boost::asio::awaitable<long> {
    const kubex::WatchParams params{.resource_version = rv};
    auto watch = co_await pods.async_watch(params, boost::asio::use_awaitable);
    long modified = 0;
    while (modified < expect) {
      auto event = co_await watch.async_next(boost::asio::use_awaitable);
      if (!event) {
        break;
      }
      if (event->type == kubex::WatchEventType::error) {
        throw std::runtime_error("the watch ended with an ERROR event");
      }
      modified += event->type == kubex::WatchEventType::modified ? 1 : 0;
    }
    watch.cancel();
    co_return modified;
  };
  kubex_bench::announce_phase("loop");
  const auto t0 = now_ns();
  const auto c0 = cpu_ns();
  auto result = boost::asio::co_spawn(ioc, run(), boost::asio::use_future);
  const long events = result.get();
  const auto t1 = now_ns();
  const auto c1 = cpu_ns();
  kubex_bench::announce_phase("done");
  rec.number("events", static_cast<double>(events));
  rec.number("wall_ms", static_cast<double>(t1 - t0) / 1e6);
  rec.number("cpu_ms", static_cast<double>(c1 - c0) / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const kubex_bench::Args args(argc, argv);
    kubex_bench::Plan plan;
    plan.scenario = args.required("scenario");
    plan.namespace_name = args.required("namespace");
    kubex_bench::Recorder rec(plan);
    rec.fact("adapter", args.get("name", "kubex"));
    const long expect = args.integer("expect", 0);

    kubex::client::ClientOptions options;
    options.compression = false;  // every client gets the same bytes
    // kubex's default sends watches over HTTP/2 and other requests over HTTP/1.1; --http 1.1
    // keeps everything on HTTP/1.1.
    const auto http = args.get("http", "default");
    if (http != "default" && http != "1.1") {
      throw std::invalid_argument("--http must be default or 1.1, not \"" + http + "\"");
    }
    options.http2_for_streams = http == "default";
    options.user_agent = "kubex-bench-runtime";
    boost::asio::io_context ioc(1);
    auto work = boost::asio::make_work_guard(ioc);
    std::thread io([&ioc] { ioc.run(); });
    struct Join {
      std::thread& t;
      decltype(work)& w;
      ~Join() {
        w.reset();
        t.join();
      }
    } join{io, work};

    kubex::client::Client client(ioc.get_executor(),
                                 kubex::client::load_kubeconfig(args.required("kubeconfig"), {}),
                                 options);
    auto pods = kubex::client::Api<core::Pod>::namespaced(client, plan.namespace_name);
    // The connection is up before the baseline, as in the peers.
    auto warm = boost::asio::co_spawn(
        ioc,
        [&]() -> boost::asio::awaitable<void> {
          (void)co_await kubex::client::Api<core::Namespace>::all(client).async_get(
              plan.namespace_name, boost::asio::use_awaitable);
        },
        boost::asio::use_future);
    warm.get();

    if (plan.scenario == "watch_throughput") {
      watch_throughput(rec, ioc, pods, args.required("resource-version"), expect);
    } else if (plan.scenario == "reflector") {
      const auto initial = args.get("initial", "list");
      const auto variant = args.get("variant", "full");
      const std::chrono::seconds settle(args.integer("settle-seconds", 2));
      kubex::runtime::WatcherConfig wc;
      if (initial == "watch_list") {
        wc.initial_state = kubex::runtime::InitialState::watch_list;
      } else if (initial != "list") {
        throw std::invalid_argument("--initial must be list or watch_list");
      }
      rec.fact("initial", initial);
      rec.fact("variant", variant);
      if (variant == "metadata") {
        kubex::runtime::MetadataReflector<core::Pod> reflector(pods, {.watcher = wc});
        reflect(rec, reflector, expect, settle);
      } else if (variant == "full" || variant == "no_managed_fields") {
        kubex::runtime::ReflectorConfig<core::Pod> config{.watcher = wc};
        if (variant == "no_managed_fields") {
          config.transform = kubex::runtime::drop_managed_fields<core::Pod>;
        }
        kubex::runtime::Reflector<core::Pod> reflector(pods, std::move(config));
        reflect(rec, reflector, expect, settle);
      } else {
        throw std::invalid_argument("--variant must be full, no_managed_fields or metadata");
      }
    } else {
      throw std::invalid_argument("unknown scenario '" + plan.scenario + "'");
    }
    rec.print();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-bench-kubex-runtime: %s\n", e.what());
    return 1;
  }
  return 0;
}
