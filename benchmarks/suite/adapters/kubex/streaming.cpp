// SPDX-License-Identifier: Apache-2.0
// The kubex adapter of the streaming benchmark (benchmarks/suite/streaming.py): exec and
// port-forward through the apiserver, one process per scenario doing its iterations.
//
//   kubex-bench-kubex-streaming --kubeconfig FILE --namespace NS --pod NAME --scenario S
//       --iters N --warmup W [--port P] [--bytes B] [--warmup-bytes B] [--line-bytes L]
//
// Scenarios (streaming.py's docstring has the protocol and what each one measures):
//   exec_echo         each iteration runs `echo hi` to its exit in a new exec session
//                     (Api::async_run: WebSocket v5.channel.k8s.io)
//   exec_interactive  one `cat` session (Api::async_exec with stdin); each iteration writes a
//                     line of L bytes and reads it back
//   pf_download       each iteration opens a port-forward tunnel (Api::async_port_forward), one
//                     stream to port P, sends GET /bytes/B and reads the B bytes of the body
//   pf_echo           one tunnel, one stream to the echo port P; each iteration writes L bytes
//                     and reads them back
//   local_forward     Api::forward_local_port to P: prints kubectl's "Forwarding from
//                     127.0.0.1:LOCAL -> P" and serves until stdin ends (the driver then
//                     reads through it, as through kubectl port-forward)
//
// Around the measured loop it prints {"phase":"loop"} and {"phase":"done"}, each followed by a
// wait for one line on stdin (the driver reads this process's /proc figures meanwhile), then
// one result line {"samples_ns":[...],"bytes":..,"cpu_ns":..,"hwm_kb":..,"rss_kb":..}.

#include <kubex/client/api.hpp>
#include <kubex/client/exec.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include "../../common/measure.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace asio = boost::asio;
namespace core = kubex::k8s::v1_35::core::v1;
using kubex::client::Api;

struct Options {
  std::string kubeconfig;
  std::string namespace_name;
  std::string pod;
  std::string scenario;
  std::size_t iters = 10;
  std::size_t warmup = 1;
  std::uint16_t port = 0;
  std::size_t bytes = 200'000'000;
  std::size_t warmup_bytes = 1'000'000;
  std::size_t line_bytes = 64;
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
    } else if (flag == "--pod") {
      o.pod = value;
    } else if (flag == "--scenario") {
      o.scenario = value;
    } else if (flag == "--iters") {
      o.iters = std::stoul(value);
    } else if (flag == "--warmup") {
      o.warmup = std::stoul(value);
    } else if (flag == "--port") {
      o.port = static_cast<std::uint16_t>(std::stoul(value));
    } else if (flag == "--bytes") {
      o.bytes = std::stoul(value);
    } else if (flag == "--warmup-bytes") {
      o.warmup_bytes = std::stoul(value);
    } else if (flag == "--line-bytes") {
      o.line_bytes = std::stoul(value);
    } else {
      throw std::invalid_argument("unknown option " + std::string(flag));
    }
  }
  if (o.kubeconfig.empty() || o.namespace_name.empty() || o.pod.empty() || o.scenario.empty() ||
      o.line_bytes < 2) {
    throw std::invalid_argument("--kubeconfig, --namespace, --pod and --scenario are required");
  }
  return o;
}

// Tells the driver where the loop is and waits for its go-ahead (one line on stdin), so that
// what it reads from /proc meanwhile covers the loop exactly.
void phase(const char* name) {
  kubex_bench::announce_phase(name);
  std::string ack;
  if (!std::getline(std::cin, ack)) {
    throw std::runtime_error("stdin ended before the driver's go-ahead");
  }
}

// A line of `size` bytes ending in a newline, different in each iteration.
std::string make_line(std::size_t size, std::size_t i) {
  std::string line(size - 1, static_cast<char>('a' + i % 26));
  line += '\n';
  return line;
}

struct Measured {
  std::vector<std::int64_t> samples_ns;
  std::size_t bytes = 0;
  std::int64_t cpu_ns = 0;  // getrusage over the loop (the driver's /proc figure is reported)
  long hwm_kb = -1;         // VmHWM at the loop's end (the driver reset it at its start)
};

// Runs `once(i, measured)` warmup times, then iters times between the phase lines, timing each.
template <class Once>
asio::awaitable<Measured> loop(const Options& o, Once once) {
  for (std::size_t i = 0; i < o.warmup; ++i) {
    co_await once(i, true);
  }
  Measured m;
  m.samples_ns.reserve(o.iters);
  phase("loop");
  const auto cpu0 = kubex_bench::cpu_ns();
  for (std::size_t i = 0; i < o.iters; ++i) {
    const auto t0 = kubex_bench::now_ns();
    m.bytes += co_await once(i, false);
    m.samples_ns.push_back(kubex_bench::now_ns() - t0);
  }
  m.cpu_ns = kubex_bench::cpu_ns() - cpu0;
  m.hwm_kb = kubex_bench::proc_status_kb("VmHWM");
  phase("done");
  co_return m;
}

asio::awaitable<Measured> exec_echo(const Options& o, const Api<core::Pod>& pods) {
  kubex::ExecParams params;
  params.command = {"echo", "hi"};
  co_return co_await loop(o, [&](std::size_t, bool) -> asio::awaitable<std::size_t> {
    const auto r = co_await pods.async_run(o.pod, params, std::string(), asio::use_awaitable);
    if (r.exit_code != 0 || r.out != "hi\n" || !r.err.empty()) {
      throw std::runtime_error("echo hi gave exit " + std::to_string(r.exit_code) + " and '" +
                               r.out + "'");
    }
    co_return r.out.size();
  });
}

asio::awaitable<Measured> exec_interactive(const Options& o, const Api<core::Pod>& pods) {
  kubex::ExecParams params;
  params.command = {"cat"};
  params.with_stdin = true;
  auto process = co_await pods.async_exec(o.pod, params, asio::use_awaitable);
  std::string back;
  auto m = co_await loop(o, [&](std::size_t i, bool) -> asio::awaitable<std::size_t> {
    const std::string line = make_line(o.line_bytes, i);
    co_await process.async_write(line, asio::use_awaitable);
    back.clear();
    while (back.size() < line.size()) {
      auto out = co_await process.async_read(asio::use_awaitable);
      if (!out) {
        throw std::runtime_error("cat ended early");
      }
      back += out->data;
    }
    if (back != line) {
      throw std::runtime_error("cat gave back something else");
    }
    co_return line.size();
  });
  co_await process.async_close_stdin(asio::use_awaitable);
  while (co_await process.async_read(asio::use_awaitable)) {
  }
  if (process.exit_code() != 0) {
    throw std::runtime_error("cat exited with " + std::to_string(process.exit_code().value_or(-1)));
  }
  co_return m;
}

// GET /bytes/size through a new tunnel: the body's bytes once all have arrived (checked
// against the pattern when `check`).
asio::awaitable<std::size_t> download(const Options& o, const Api<core::Pod>& pods,
                                      std::size_t size, bool check) {
  auto forwarder = co_await pods.async_port_forward(o.pod, asio::use_awaitable);
  auto stream = co_await forwarder.async_open(o.port, asio::use_awaitable);
  co_await stream.async_write(
      "GET /bytes/" + std::to_string(size) + " HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n",
      asio::use_awaitable);
  std::string head;
  std::string piece;
  std::size_t body = 0;
  const auto take = [&](std::string_view data) {
    if (check) {
      for (std::size_t k = 0; k < data.size(); ++k) {
        if (data[k] != static_cast<char>('a' + (body + k) % 26)) {
          throw std::runtime_error("body byte " + std::to_string(body + k) + " differs");
        }
      }
    }
    body += data.size();
  };
  for (;;) {
    const auto n = co_await stream.async_read_some(head, asio::use_awaitable);
    if (n == 0) {
      throw std::runtime_error("the response ended in its head");
    }
    const auto end = head.find("\r\n\r\n");
    if (end != std::string::npos) {
      if (!head.starts_with("HTTP/1.1 200") ||
          head.find("Content-Length: " + std::to_string(size) + "\r\n") == std::string::npos) {
        throw std::runtime_error("unexpected response head: " + head.substr(0, end));
      }
      take(std::string_view(head).substr(end + 4));
      break;
    }
  }
  while (body < size) {
    piece.clear();
    if (co_await stream.async_read_some(piece, asio::use_awaitable) == 0) {
      throw std::runtime_error("the body ended after " + std::to_string(body) + " bytes");
    }
    take(piece);
  }
  if (body != size) {
    throw std::runtime_error("the body has " + std::to_string(body) + " bytes");
  }
  co_return body;
}

asio::awaitable<Measured> pf_download(const Options& o, const Api<core::Pod>& pods) {
  co_return co_await loop(o, [&](std::size_t, bool warmup) -> asio::awaitable<std::size_t> {
    co_return co_await download(o, pods, warmup ? o.warmup_bytes : o.bytes, warmup);
  });
}

asio::awaitable<Measured> pf_echo(const Options& o, const Api<core::Pod>& pods) {
  auto forwarder = co_await pods.async_port_forward(o.pod, asio::use_awaitable);
  auto stream = co_await forwarder.async_open(o.port, asio::use_awaitable);
  std::string back;
  co_return co_await loop(o, [&](std::size_t i, bool) -> asio::awaitable<std::size_t> {
    const std::string line = make_line(o.line_bytes, i);
    co_await stream.async_write(line, asio::use_awaitable);
    back.clear();
    while (back.size() < line.size()) {
      if (co_await stream.async_read_some(back, asio::use_awaitable) == 0) {
        throw std::runtime_error("the echo ended early");
      }
    }
    if (back != line) {
      throw std::runtime_error("the echo gave back something else");
    }
    co_return line.size();
  });
}

// Like `kubectl port-forward pod/POD :PORT`, until stdin ends.
int local_forward(const Options& o, asio::io_context& ioc, const Api<core::Pod>& pods) {
  auto forward = pods.forward_local_port(o.pod, o.port, 0);
  std::printf("Forwarding from 127.0.0.1:%u -> %u\n", forward->local_port(), o.port);
  std::fflush(stdout);
  std::thread stdin_watch([&] {
    std::string line;
    while (std::getline(std::cin, line)) {
    }
    asio::post(ioc, [&] {
      forward->stop();
      ioc.stop();
    });
  });
  ioc.run();
  stdin_watch.join();
  const auto stats = forward->stats();
  std::fprintf(stderr, "local_forward: %zu connections, %zu failed, %zu bytes from the pod\n",
               stats.connections, stats.failed, stats.bytes_from_pod);
  return stats.failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    asio::io_context ioc;
    kubex::client::Client client(ioc.get_executor(),
                                 kubex::client::load_kubeconfig(o.kubeconfig, {}));
    const auto pods = Api<core::Pod>::namespaced(client, o.namespace_name);
    if (o.scenario == "local_forward") {
      return local_forward(o, ioc, pods);
    }
    auto run = [&]() -> asio::awaitable<Measured> {
      if (o.scenario == "exec_echo") {
        co_return co_await exec_echo(o, pods);
      }
      if (o.scenario == "exec_interactive") {
        co_return co_await exec_interactive(o, pods);
      }
      if (o.scenario == "pf_download") {
        co_return co_await pf_download(o, pods);
      }
      if (o.scenario == "pf_echo") {
        co_return co_await pf_echo(o, pods);
      }
      throw std::invalid_argument("unknown scenario " + o.scenario);
    };
    auto done = asio::co_spawn(ioc, run(), asio::use_future);
    ioc.run();
    const Measured m = done.get();
    std::string line = R"({"samples_ns":[)";
    for (std::size_t i = 0; i < m.samples_ns.size(); ++i) {
      line += (i == 0 ? "" : ",") + std::to_string(m.samples_ns[i]);
    }
    line += "],\"bytes\":" + std::to_string(m.bytes) + ",\"cpu_ns\":" + std::to_string(m.cpu_ns) +
            ",\"hwm_kb\":" + std::to_string(m.hwm_kb) +
            ",\"rss_kb\":" + std::to_string(kubex_bench::proc_status_kb("VmRSS")) + "}";
    std::printf("%s\n", line.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-bench-kubex-streaming: %s\n", e.what());
    return 1;
  }
}
