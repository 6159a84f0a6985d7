// SPDX-License-Identifier: Apache-2.0
// exec, attach and port-forward at their edges, through the real apiserver to testenv's
// simulated kubelet (tools/testenv/simkubelet): `yes-bytes N` writes N bytes of the pattern
// 'a' + i % 26 as fast as it may, `sleep` never reads its stdin, and a pod annotated
// sim.kubex.dev/attach=echo echoes what an attached client writes. A reader slower than the
// process and a writer faster than it cost kubex bounded memory (ProcessStats, and peak RSS);
// exec, attach and port-forward go through real proxies (tinyproxy, microsocks); cancel()
// from another thread ends a session in the middle of its output, and a cancellation slot ends
// an async_run.
//
// The long form (KUBEX_TEST_LONG=1, kubex/testing/long_form.hpp) moves 10 MB instead of 4 MB
// through the attached echo (the exec reader takes 10 MB either way): 10 s instead of 4 at the
// reader's 1 MB/s.

#include <kubex/client/api.hpp>
#include <kubex/client/blocking_api.hpp>
#include <kubex/client/exec.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/testing/long_form.hpp>
#include <kubex/testing/proxy_process.hpp>
#include <kubex/testing/sockets.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

namespace asio = boost::asio;
namespace corev1 = kubex::k8s::v1_35::core::v1;
using kubex::ExecParams;
using kubex::Failure;
using kubex::client::Api;
using kubex::client::BlockingApi;
using kubex::client::BlockingClient;
using kubex::client::Client;
using kubex::client::ClientOptions;
using kubex::client::OutputStream;
using kubex::client::process_output_piece;
using kubex::client::ProcessStats;
using kubex::client::RemoteProcess;
using kubex::testing::sockets_to;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr std::uint16_t echo_port = 7000;
// Writes of this size: what a program copying a pipe would hand over at a time.
constexpr std::size_t write_size = std::size_t{64} << 10U;

corev1::Pod shell_pod(const std::string& name, bool attach_echo = false) {
  corev1::Pod pod;
  pod.metadata.name = name;
  if (attach_echo) {
    pod.metadata.annotations["sim.kubex.dev/attach"] = "echo";
  }
  auto& c = pod.spec.ensure().containers.emplace_back();
  c.name = "main";
  c.image = "registry.k8s.io/pause:3.10";
  c.stdin = attach_echo;
  auto& echo = c.ports.emplace_back();
  echo.name = "echo";
  echo.container_port = echo_port;
  return pod;
}

ExecParams command(std::vector<std::string> words, bool with_stdin = false) {
  ExecParams params;
  params.command = std::move(words);
  params.with_stdin = with_stdin;
  return params;
}

// The simulated kubelet's pattern, from byte `offset` on.
std::string pattern(std::size_t offset, std::size_t size) {
  std::string out(size, '\0');
  for (std::size_t i = 0; i < size; ++i) {
    out[i] = static_cast<char>('a' + (offset + i) % 26);
  }
  return out;
}

// Peak resident memory of this process so far (VmHWM), in bytes.
std::size_t peak_rss() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmHWM:")) {
      return std::stoul(line.substr(6)) * 1024;
    }
  }
  return 0;
}

// Checks that peak RSS grew by less than `limit` since `before`.
void expect_rss_growth_below(std::size_t before, std::size_t limit, std::string_view what) {
  const std::size_t grown = peak_rss() - before;
#if defined(__SANITIZE_ADDRESS__)
  // ASan's quarantine keeps freed memory resident: the bound is checked in the other builds.
  (void)grown;
  (void)limit;
#else
  EXPECT_LT(grown, limit) << what << ": peak RSS grew by " << grown << " bytes";
#endif
  std::cout << what << ": peak RSS grew by " << (grown >> 10U) << " KiB\n";
}

// The Failure an awaitable ended with; none if it succeeded.
template <class T>
Failure failure_of(std::future<T>& future) {
  try {
    (void)future.get();
  } catch (...) {
    return Failure(std::current_exception());
  }
  return {};
}

class stream_edges_test : public kubex::testing::TestenvTest {
 protected:
  void SetUp() override {
    TestenvTest::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    cfg_ = config();
    client_.emplace(ioc_.get_executor(), cfg_, options_);
    for (int i = 0; i < threads_; ++i) {
      runners_.emplace_back([this] { ioc_.run(); });
    }
  }
  void TearDown() override {
    work_.reset();
    ioc_.stop();
    for (auto& runner : runners_) {
      runner.join();
    }
  }

  Api<corev1::Pod> pods() { return Api<corev1::Pod>::namespaced(*client_, own_namespace()); }

  // Creates `pod` and waits until it runs (through the same proxy as client_, if any).
  void start(const corev1::Pod& pod) {
    BlockingClient blocking(cfg_, options_);
    auto api = BlockingApi<corev1::Pod>::namespaced(blocking, own_namespace());
    api.create(pod);
    for (int i = 0; i < 600; ++i) {
      const auto current = api.get(*pod.metadata.name);
      if (current.status && current.status->phase == corev1::PodStatusPhase::Running) {
        return;
      }
      std::this_thread::sleep_for(100ms);
    }
    FAIL() << *pod.metadata.name << " did not start running";
  }

  // Runs `work` (an awaitable, or a function object returning one, kept alive meanwhile).
  template <class Work>
  auto spawn(Work work) {
    return asio::co_spawn(ioc_, std::move(work), asio::use_future);
  }

  template <class T>
  T run(asio::awaitable<T> work) {
    return spawn(std::move(work)).get();
  }

  int threads_ = 1;
  ClientOptions options_{};
  kubex::client::ClientConfig cfg_{};
  asio::io_context ioc_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{
      asio::make_work_guard(ioc_)};
  std::optional<Client> client_;
  std::vector<std::thread> runners_;
};

// Reads `process` to its end at about 1 MB/s, checking that the output is the pattern;
// returns the bytes read.
asio::awaitable<std::size_t> read_slowly(RemoteProcess& process) {
  asio::steady_timer pause(co_await asio::this_coro::executor);
  const auto started = Clock::now();
  std::size_t received = 0;
  while (auto piece = co_await process.async_read(asio::use_awaitable)) {
    if (piece->stream != OutputStream::out) {
      throw std::runtime_error("stderr: " + piece->data);
    }
    if (piece->data != pattern(received, piece->data.size())) {
      throw std::runtime_error("the output differs from the pattern at byte " +
                               std::to_string(received));
    }
    received += piece->data.size();
    // One byte per microsecond: 1 MB/s, far slower than the process writes.
    pause.expires_at(started + std::chrono::microseconds(received));
    co_await pause.async_wait(asio::use_awaitable);
  }
  co_return received;
}

// Writes `size` bytes of the pattern in pieces of write_size, each once the last completed, then
// closes stdin.
asio::awaitable<void> write_all(RemoteProcess& process, std::size_t size) {
  for (std::size_t sent = 0; sent < size; sent += write_size) {
    co_await process.async_write(pattern(sent, std::min(write_size, size - sent)),
                                 asio::use_awaitable);
  }
  co_await process.async_close_stdin(asio::use_awaitable);
}

// 10 MB of output to a reader that takes 1 MB/s: every byte arrives in order, and kubex holds
// at most one read's worth (process_output_piece) between the socket and the reader, because
// it takes nothing off the connection until a read asks; the process is slowed instead.
TEST_F(stream_edges_test, exec_output_to_a_slow_reader_costs_bounded_memory) {
  start(shell_pod("slow-reader"));
  const std::size_t size = 10'000'000;
  const std::size_t before = peak_rss();
  ProcessStats stats;
  // Built outside the coroutine: GCC 12 miscompiles a braced list of strings inside one.
  const ExecParams params = command({"yes-bytes", std::to_string(size)});
  const auto started = Clock::now();
  const std::size_t received = run([&]() -> asio::awaitable<std::size_t> {
    auto process = co_await pods().async_exec("slow-reader", params, asio::use_awaitable);
    const std::size_t n = co_await read_slowly(process);
    stats = process.stats();
    EXPECT_EQ(process.exit_code(), 0);
    co_return n;
  }());
  const auto took = Clock::now() - started;
  EXPECT_EQ(received, size);
  EXPECT_EQ(stats.output_bytes, size);
  EXPECT_GT(stats.peak_buffered_output, 0U);
  EXPECT_LE(stats.peak_buffered_output, process_output_piece);
  // About 1 MiB here; reading 600 pieces (some 6 MB) ahead of the reader, as a check of this
  // test, went past 5 MiB.
  expect_rss_growth_below(before, std::size_t{4} << 20U, "exec, 10 MB to a slow reader");
  std::cout << "10 MB at 1 MB/s in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
            << " ms; at most " << stats.peak_buffered_output << " bytes held\n";
}

// attach: a writer as fast as the socket takes it, the attached echo read back at 1 MB/s.
// Both directions stay within a write's and a read's worth in kubex.
TEST_F(stream_edges_test, attach_echo_to_a_slow_reader_costs_bounded_memory) {
  start(shell_pod("slow-attach", true));
  const std::size_t size = kubex::testing::long_form() ? 10'000'000 : 4'000'000;
  const std::size_t before = peak_rss();
  ProcessStats stats;
  const std::size_t received = run([&]() -> asio::awaitable<std::size_t> {
    kubex::AttachParams params;
    params.container = "main";
    params.with_stdin = true;
    auto process = co_await pods().async_attach("slow-attach", params, asio::use_awaitable);
    using namespace asio::experimental::awaitable_operators;
    const std::size_t n = co_await (read_slowly(process) && write_all(process, size));
    stats = process.stats();
    co_return n;
  }());
  EXPECT_EQ(received, size);
  EXPECT_EQ(stats.input_bytes, size);
  EXPECT_EQ(stats.output_bytes, size);
  EXPECT_LE(stats.peak_buffered_output, process_output_piece);
  EXPECT_GT(stats.peak_buffered_input, 0U);
  EXPECT_LE(stats.peak_buffered_input, write_size);
  expect_rss_growth_below(before, std::size_t{4} << 20U, "attach, echo to a slow reader");
}

// A writer faster than the process (`sleep`, which never reads its stdin): writes complete only
// as the socket takes their data, so once TCP and the servers on the way are full, the writer
// waits instead of kubex buffering what it writes. Without that, all 64 MB would be "written".
TEST_F(stream_edges_test, stdin_faster_than_the_process_holds_the_writer_back) {
  start(shell_pod("slow-stdin"));
  const std::size_t limit = std::size_t{64} << 20U;
  const ExecParams params = command({"sleep", "600"}, true);
  auto process = std::make_shared<RemoteProcess>(
      run(pods().async_exec("slow-stdin", params, asio::use_awaitable)));
  std::atomic<std::size_t> written{0};
  auto writer = spawn([&]() -> asio::awaitable<void> {
    const std::string block = pattern(0, write_size);
    while (written < limit) {
      co_await process->async_write(block, asio::use_awaitable);
      written += block.size();
    }
  });
  // Held back: no write completes for a while. The pause is how "no progress" shows; it
  // orders nothing.
  std::size_t last = 0;
  auto last_change = Clock::now();
  const auto deadline = Clock::now() + 60s;
  while (written < limit && Clock::now() < deadline && Clock::now() - last_change < 1500ms) {
    std::this_thread::sleep_for(100ms);
    if (written != last) {
      last = written;
      last_change = Clock::now();
    }
  }
  const std::size_t held_at = written;
  const ProcessStats stats = process->stats();
  EXPECT_LT(held_at, limit) << "64 MB of writes to a process that reads nothing all completed";
  EXPECT_NE(writer.wait_for(0s), std::future_status::ready) << "the writer was not held back";
  EXPECT_LE(stats.peak_buffered_input, write_size);
  EXPECT_GE(stats.input_bytes, held_at);
  EXPECT_LE(stats.input_bytes, held_at + write_size);
  std::cout << "the writer was held back after " << (held_at >> 10U) << " KiB\n";
  // The pending write ends with the session.
  process->cancel();
  ASSERT_EQ(writer.wait_for(10s), std::future_status::ready);
  EXPECT_TRUE(failure_of(writer).canceled());
}

// The blocking facade: one thread reads a command that never stops writing, another cancels
// it mid-output; the read in progress (or the next) fails with a canceled Failure, promptly.
TEST_F(stream_edges_test, blocking_cancel_from_another_thread_ends_the_exec_mid_output) {
  start(shell_pod("cancel-blocking"));
  BlockingClient blocking(cfg_);
  auto api = BlockingApi<corev1::Pod>::namespaced(blocking, own_namespace());
  auto process = api.exec("cancel-blocking", command({"yes-bytes", "1000000000000"}));
  std::atomic<std::size_t> received{0};
  std::atomic<bool> cancelled{false};
  std::atomic<Clock::rep> cancelled_at{0};
  std::thread canceller([&] {
    while (received < (std::size_t{1} << 20U)) {  // wait for output to flow
      std::this_thread::sleep_for(1ms);
    }
    cancelled_at = Clock::now().time_since_epoch().count();
    cancelled = true;
    process.cancel();
  });
  Failure failure;
  try {
    for (;;) {
      auto piece = process.read();
      if (!piece) {
        break;
      }
      received += piece->data.size();
    }
  } catch (...) {
    failure = Failure(std::current_exception());
  }
  const auto ended = Clock::now();
  canceller.join();
  ASSERT_TRUE(cancelled) << "the command ended by itself";
  EXPECT_TRUE(failure.canceled()) << to_string(failure.kind()) << ": " << failure.message();
  EXPECT_LT(ended - Clock::time_point(Clock::duration(cancelled_at.load())), 5s);
  // Later calls fail the same way; nothing is left running.
  try {
    (void)process.read();
    ADD_FAILURE() << "a read after cancel() succeeded";
  } catch (...) {
    EXPECT_TRUE(Failure(std::current_exception()).canceled());
  }
}

// async_run, which hands out no session to cancel, ends through its completion token's
// cancellation slot (emitted on the client's thread, as Asio asks): a command that would write
// forever ends with a canceled Failure instead of collecting output without end.
TEST_F(stream_edges_test, a_run_ends_through_its_cancellation_slot) {
  start(shell_pod("cancel-run"));
  const ExecParams params = command({"yes-bytes", "1000000000000"});
  asio::cancellation_signal signal;
  auto result = pods().async_run("cancel-run", params, "",
                                 asio::bind_cancellation_slot(signal.slot(), asio::use_future));
  // Output flows by now; whenever it comes, the cancel must end the run.
  std::this_thread::sleep_for(500ms);
  const auto cancelled = Clock::now();
  asio::post(ioc_, [&signal] { signal.emit(asio::cancellation_type::terminal); });
  ASSERT_EQ(result.wait_for(10s), std::future_status::ready);
  EXPECT_LT(Clock::now() - cancelled, 5s);
  const Failure failure = failure_of(result);
  EXPECT_TRUE(failure.canceled()) << to_string(failure.kind()) << ": " << failure.message();
}

class stream_edges_pool_test : public stream_edges_test {
 protected:
  stream_edges_pool_test() { threads_ = 2; }
};

// The asynchronous API on a pool of two threads: a third thread cancels the session while a
// read and a write are pending; both end with a canceled Failure.
TEST_F(stream_edges_pool_test, cancel_from_another_thread_ends_pending_reads_and_writes) {
  start(shell_pod("cancel-async"));
  const ExecParams params = command({"yes-bytes", "1000000000000"}, true);
  auto process = std::make_shared<RemoteProcess>(
      run(pods().async_exec("cancel-async", params, asio::use_awaitable)));
  std::atomic<std::size_t> received{0};
  auto reader = spawn([&]() -> asio::awaitable<void> {
    while (auto piece = co_await process->async_read(asio::use_awaitable)) {
      received += piece->data.size();
    }
  });
  // yes-bytes never reads its stdin: this write stays pending once the path is full.
  auto writer =
      spawn(process->async_write(std::string(std::size_t{64} << 20U, 'x'), asio::use_awaitable));
  while (received < (std::size_t{1} << 20U) && reader.wait_for(1ms) != std::future_status::ready) {
  }
  ASSERT_NE(reader.wait_for(0s), std::future_status::ready) << "the read ended by itself";
  const auto cancelled = Clock::now();
  process->cancel();
  ASSERT_EQ(reader.wait_for(10s), std::future_status::ready);
  EXPECT_LT(Clock::now() - cancelled, 5s);
  const Failure read_failure = failure_of(reader);
  EXPECT_TRUE(read_failure.canceled()) << read_failure.message();
  ASSERT_EQ(writer.wait_for(10s), std::future_status::ready);
  const Failure write_failure = failure_of(writer);
  EXPECT_TRUE(write_failure.canceled()) << write_failure.message();
  process.reset();  // destroyed from this thread while the pool runs: nothing crashes
}

// --- Through proxies -------------------------------------------------------------------------

enum class ProxyKind { http_connect, socks5 };

// How ctest and gtest name the parameter.
void PrintTo(ProxyKind kind, std::ostream* out) {
  *out << (kind == ProxyKind::http_connect ? "tinyproxy" : "microsocks");
}

class stream_edges_proxy_test : public stream_edges_test,
                                public ::testing::WithParamInterface<ProxyKind> {
 protected:
  void SetUp() override {
    if (GetParam() == ProxyKind::http_connect) {
      proxy_ = kubex::testing::start_tinyproxy(dir_, "kubex", "s3cret");
      options_.proxy = "http://kubex:s3cret@127.0.0.1:" + std::to_string(proxy_->port());
    } else {
      proxy_ = kubex::testing::start_microsocks("kubex", "s3cret");
      options_.proxy = "socks5://kubex:s3cret@127.0.0.1:" + std::to_string(proxy_->port());
    }
    stream_edges_test::SetUp();
  }

  // The session's connection goes to the proxy, none to the apiserver.
  void expect_only_proxied_connections() {
    EXPECT_GE(sockets_to(proxy_->port()).size(), 1U) << "no connection to the proxy";
    EXPECT_TRUE(sockets_to(cfg_.server.port).empty()) << "connected to the apiserver directly";
  }

  kubex::testing::TempDir dir_;
  std::unique_ptr<kubex::testing::ProxyProcess> proxy_;
};

TEST_P(stream_edges_proxy_test, exec) {
  start(shell_pod("proxied-exec"));
  const ExecParams params = command({"sh", "-c", "echo through; echo the proxy"});
  const std::string out = run([&]() -> asio::awaitable<std::string> {
    auto process = co_await pods().async_exec("proxied-exec", params, asio::use_awaitable);
    expect_only_proxied_connections();
    std::string all;
    while (auto piece = co_await process.async_read(asio::use_awaitable)) {
      all += piece->data;
    }
    EXPECT_EQ(process.exit_code(), 0);
    co_return all;
  }());
  EXPECT_EQ(out, "through\nthe proxy\n");
}

TEST_P(stream_edges_proxy_test, attach) {
  start(shell_pod("proxied-attach", true));
  const std::string echoed = run([&]() -> asio::awaitable<std::string> {
    kubex::AttachParams params;
    params.container = "main";
    params.with_stdin = true;
    auto process = co_await pods().async_attach("proxied-attach", params, asio::use_awaitable);
    expect_only_proxied_connections();
    co_await process.async_write("hello through the proxy\n", asio::use_awaitable);
    co_await process.async_close_stdin(asio::use_awaitable);
    std::string all;
    while (auto piece = co_await process.async_read(asio::use_awaitable)) {
      all += piece->data;
    }
    co_return all;
  }());
  EXPECT_EQ(echoed, "hello through the proxy\n");
}

TEST_P(stream_edges_proxy_test, port_forward) {
  start(shell_pod("proxied-forward"));
  const std::string sent(std::size_t{256} << 10U, 'p');
  const std::string echoed = run([&]() -> asio::awaitable<std::string> {
    auto forwarder = co_await pods().async_port_forward("proxied-forward", asio::use_awaitable);
    auto stream = co_await forwarder.async_open(echo_port, asio::use_awaitable);
    expect_only_proxied_connections();
    co_await stream.async_write(sent, asio::use_awaitable);
    co_await stream.async_close_write(asio::use_awaitable);
    std::string all;
    while (co_await stream.async_read_some(all, asio::use_awaitable) != 0) {
    }
    co_return all;
  }());
  EXPECT_EQ(echoed.size(), sent.size());
  EXPECT_TRUE(echoed == sent);
}

INSTANTIATE_TEST_SUITE_P(proxies, stream_edges_proxy_test,
                         ::testing::Values(ProxyKind::http_connect, ProxyKind::socks5),
                         [](const ::testing::TestParamInfo<ProxyKind>& param) {
                           return param.param == ProxyKind::http_connect ? "http_connect"
                                                                         : "socks5";
                         });

}  // namespace
