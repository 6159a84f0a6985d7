// SPDX-License-Identifier: Apache-2.0
// The kubex adapter of the controller benchmark (benchmarks/suite/controller.py): a
// Controller<Echo> that owns ConfigMaps, reconciling each Echo into a ConfigMap by server-side
// apply. Speaks the protocol in benchmarks/suite/controller/README.md: "converged" after N
// distinct Echoes reconciled, "latency" after M sampled changes, "done" on SIGTERM.
//
//   kubex-bench-kubex-controller --kubeconfig FILE --namespace NS --count N --workers W
//       --samples M

#include <kubex/bench/echo.hpp>
#include <kubex/client/api.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/runtime/controller.hpp>
#include <kubex/runtime/ownership.hpp>

#include "../../common/measure.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace core = kubex::k8s::v1_35::core::v1;
using Echo = kubex_bench_crd::v1::Echo;
using kubex::client::Api;
using kubex::runtime::Action;

struct Options {
  std::string kubeconfig;
  std::string namespace_name;
  std::size_t count = 0;
  std::size_t workers = 4;
  std::size_t samples = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--kubeconfig") {
      o.kubeconfig = value;
    } else if (flag == "--namespace") {
      o.namespace_name = value;
    } else if (flag == "--count") {
      o.count = std::stoul(value);
    } else if (flag == "--workers") {
      o.workers = std::stoul(value);
    } else if (flag == "--samples") {
      o.samples = std::stoul(value);
    } else {
      throw std::invalid_argument("unknown option " + std::string(flag));
    }
  }
  if (o.kubeconfig.empty() || o.namespace_name.empty() || o.count == 0) {
    throw std::invalid_argument("--kubeconfig, --namespace and --count are required");
  }
  return o;
}

std::int64_t realtime_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What the reconciles have seen; only the controller's strand touches it.
struct Progress {
  std::set<std::string> converged;
  bool announced = false;
  std::set<std::pair<std::string, std::string>> sampled;
  std::vector<std::int64_t> latencies_us;
  std::size_t reconciles = 0;
};

void print_latencies(const std::vector<std::int64_t>& us) {
  std::string line = R"({"phase":"latency","us":[)";
  for (std::size_t i = 0; i < us.size(); ++i) {
    line += (i == 0 ? "" : ",") + std::to_string(us[i]);
  }
  line += "]}";
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

boost::asio::awaitable<Action> reconcile(const Options& o, Progress& p,
                                         const Api<core::ConfigMap>& config_maps,
                                         std::shared_ptr<const Echo> echo) {
  ++p.reconciles;
  const std::string name = echo->metadata.name.value_or("");
  const auto sent = echo->metadata.annotations.find("bench.kubex.dev/sent");
  if (sent != echo->metadata.annotations.end() && p.latencies_us.size() < o.samples &&
      p.sampled.emplace(name, sent->second).second) {
    p.latencies_us.push_back((realtime_ns() - std::stoll(sent->second)) / 1000);
    if (p.latencies_us.size() == o.samples) {
      print_latencies(p.latencies_us);
    }
  }
  core::ConfigMap cm;
  cm.metadata.name = name;
  cm.metadata.labels = {{"bench.kubex.dev/echo", "true"}};
  cm.data = {{"value", echo->spec ? echo->spec->value : std::string()}};
  kubex::runtime::set_owner(cm, *echo);
  co_await config_maps.async_apply(cm, "bench", true, boost::asio::use_awaitable);
  if (p.converged.insert(name).second && p.converged.size() == o.count && !p.announced) {
    p.announced = true;
    std::printf("{\"phase\":\"converged\"}\n");
    std::fflush(stdout);
  }
  co_return Action::await_change();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    boost::asio::io_context ioc;
    kubex::client::Client client(ioc.get_executor(),
                                 kubex::client::load_kubeconfig(o.kubeconfig, {}));
    const auto echoes = Api<Echo>::namespaced(client, o.namespace_name);
    const auto config_maps = Api<core::ConfigMap>::namespaced(client, o.namespace_name);
    kubex::runtime::ControllerConfig<Echo> config;
    config.concurrency = o.workers;
    kubex::runtime::Controller<Echo> controller(echoes, config);
    kubex::runtime::ReflectorConfig<kubex::PartialObjectMeta<core::ConfigMap>> owned;
    owned.watcher.label_selector = "bench.kubex.dev/echo=true";
    controller.owns(config_maps, owned);

    Progress progress;
    std::exception_ptr failure;
    std::function<void()> controller_done;
    controller.async_run(
        [&](std::shared_ptr<const Echo> echo) {
          return reconcile(o, progress, config_maps, std::move(echo));
        },
        [&](std::exception_ptr e) {
          failure = std::move(e);
          if (controller_done) {
            controller_done();
          }
        });
    bool finished = false;
    // Measured before anything shuts down, as the peers do; on SIGTERM or stdin's end.
    const auto finish = [&] {
      if (std::exchange(finished, true)) {
        return;
      }
      rusage usage{};
      getrusage(RUSAGE_SELF, &usage);
      const auto ms = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) * 1000.0 + static_cast<double>(t.tv_usec) / 1000.0;
      };
      std::printf(R"({"phase":"done","cpu_ms":%.1f,"rss_kb":%ld,"hwm_kb":%ld,"reconciles":%zu})"
                  "\n",
                  ms(usage.ru_utime) + ms(usage.ru_stime), kubex_bench::proc_status_kb("VmRSS"),
                  kubex_bench::proc_status_kb("VmHWM"), progress.reconciles);
      std::fflush(stdout);
      controller.shutdown();
    };
    boost::asio::signal_set signals(ioc, SIGTERM, SIGINT);
    signals.async_wait([&](const boost::system::error_code& error, int) {
      if (!error) {
        finish();
      }
    });
    boost::asio::posix::stream_descriptor input(ioc, ::dup(STDIN_FILENO));
    std::array<char, 256> scratch{};
    std::function<void(const boost::system::error_code&, std::size_t)> read_input =
        [&](const boost::system::error_code& error, std::size_t) {
          if (error) {
            finish();  // EOF: the driver is gone
            return;
          }
          input.async_read_some(boost::asio::buffer(scratch), read_input);
        };
    input.async_read_some(boost::asio::buffer(scratch), read_input);
    // Once the controller ended, nothing else may keep the loop alive.
    controller_done = [&] {
      signals.cancel();
      input.close();
    };
    ioc.run();
    if (failure) {
      std::rethrow_exception(failure);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-bench-kubex-controller: %s\n", e.what());
    return 1;
  }
}
