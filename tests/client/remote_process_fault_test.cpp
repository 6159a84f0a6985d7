// SPDX-License-Identifier: Apache-2.0
// exec sessions against ScriptedWebSocketServer, a loopback WebSocket server that exists ONLY
// for what the real kube-apiserver never sends: a frame on an unknown channel, a text frame, a
// 100 MiB frame, no pong, a malformed Status, a subprotocol the client did not offer. exec,
// attach and their errors are tested against the real control plane in
// tests/integration/exec_test.cpp. Label `fault`; no testenv needed.

#include <kubex/client/blocking.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/client/port_forward.hpp>
#include <kubex/client/remote_process.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/request.hpp>
#include <kubex/core/url.hpp>
#include <kubex/testing/pki.hpp>
#include <kubex/testing/websocket_server.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <system_error>
#include <thread>

namespace {

using kubex::client::BlockingClient;
using kubex::client::BlockingProcess;
using kubex::client::ClientConfig;
using kubex::client::OutputStream;
using kubex::client::ProcessOptions;
using kubex::testing::ScriptedWebSocketServer;
using Socket = ScriptedWebSocketServer::Socket;
using namespace std::chrono_literals;

struct Pki {
  kubex::testing::TestCa ca{"kubex-websocket-ca"};
  kubex::testing::KeyPair server =
      ca.issue({.common_name = "websocket-server", .ip_addresses = {"127.0.0.1"}});
};

void send_binary(Socket& ws, const std::string& message) {
  ws.binary(true);
  ws.write(boost::asio::buffer(message));
}

std::string on(char channel, const std::string& data) {
  return std::string(1, channel) + data;
}

class remote_process_fault_test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pki_ = std::make_unique<Pki>(); }
  static void TearDownTestSuite() { pki_.reset(); }

  static std::unique_ptr<ScriptedWebSocketServer> serve(const std::string& subprotocol,
                                                        std::function<void(Socket&)> script) {
    return std::make_unique<ScriptedWebSocketServer>(pki_->server, subprotocol, std::move(script));
  }

  static BlockingClient client_for(const ScriptedWebSocketServer& server) {
    ClientConfig config;
    config.source = "test";
    config.cluster_name = "scripted";
    config.server = kubex::parse_server_url("https://127.0.0.1:" + std::to_string(server.port()));
    config.certificate_authority_pem = pki_->ca.certificate_pem();
    config.token = "s3cr3t-exec-token";
    return BlockingClient(config, {.timeout = 5s});
  }

  static kubex::ApiRequest exec_request() {
    kubex::ExecParams params;
    params.command = {"sh", "-c", "echo hi"};
    return kubex::RequestBuilder("", "v1", "pods", "default").exec("web", params);
  }

  // Reads until the end; returns the error code of the failure, or none.
  static std::error_code read_to_end(BlockingProcess& process, std::string& what) {
    try {
      while (process.read()) {
      }
    } catch (const kubex::Error& e) {
      what = e.what();
      return e.code();
    }
    return {};
  }

 private:
  static std::unique_ptr<Pki> pki_;
};

std::unique_ptr<Pki> remote_process_fault_test::pki_;

// The reader's state machine over what the real server sends, split and merged at will: the
// channels apart, and the exit code from the error channel's Status.
TEST_F(remote_process_fault_test, output_channels_and_exit_code) {
  const auto server = serve("v5.channel.k8s.io", [](Socket& ws) {
    send_binary(ws, on(1, "out-1 "));
    send_binary(ws, on(2, "err-1"));
    send_binary(ws, on(1, ""));  // empty data: nothing to deliver
    send_binary(ws, on(1, "out-2"));
    send_binary(ws, on(3, R"({"metadata":{},"status":"Failure","message":"command terminated)"
                          R"( with non-zero exit code: 3","reason":"NonZeroExitCode","details":)"
                          R"({"causes":[{"reason":"ExitCode","message":"3"}]}})"));
    ws.close(boost::beast::websocket::close_code::normal);
  });
  auto client = client_for(*server);
  auto process = client.open_process(exec_request(), false);
  std::string out;
  std::string err;
  while (auto piece = process.read()) {
    (piece->stream == OutputStream::err ? err : out) += piece->data;
  }
  EXPECT_EQ(out, "out-1 out-2");
  EXPECT_EQ(err, "err-1");
  EXPECT_EQ(process.exit_code(), 3);
  EXPECT_EQ(server->offered(), "v5.channel.k8s.io, v4.channel.k8s.io");
}

TEST_F(remote_process_fault_test, a_frame_on_an_unknown_channel_fails_the_read) {
  const auto server = serve("v5.channel.k8s.io", [](Socket& ws) {
    send_binary(ws, on(1, "fine"));
    send_binary(ws, on(7, "what"));
    std::this_thread::sleep_for(1s);
  });
  auto client = client_for(*server);
  auto process = client.open_process(exec_request(), false);
  std::string what;
  EXPECT_EQ(read_to_end(process, what), std::errc::protocol_error);
  EXPECT_NE(what.find("channel 7"), std::string::npos) << what;
  EXPECT_EQ(what.find("echo"), std::string::npos) << "the command line stays out of messages";
}

TEST_F(remote_process_fault_test, a_text_frame_fails_the_read) {
  const auto server = serve("v5.channel.k8s.io", [](Socket& ws) {
    ws.text(true);
    ws.write(boost::asio::buffer(on(1, "text")));
    std::this_thread::sleep_for(1s);
  });
  auto client = client_for(*server);
  auto process = client.open_process(exec_request(), false);
  std::string what;
  EXPECT_EQ(read_to_end(process, what), std::errc::protocol_error);
  EXPECT_NE(what.find("text message"), std::string::npos) << what;
}

// The frame header announces 100 MiB; the client refuses it from the header, before
// buffering anything.
TEST_F(remote_process_fault_test, a_100_mib_frame_is_refused_from_its_header) {
  const auto server = serve("v5.channel.k8s.io", [](Socket& ws) {
    const std::uint64_t size = std::uint64_t{100} << 20U;
    std::string header = {'\x82', '\x7f'};  // FIN, binary; 64-bit length follows
    for (int shift = 56; shift >= 0; shift -= 8) {
      header += static_cast<char>((size >> static_cast<unsigned>(shift)) & 0xffU);
    }
    header += on(1, std::string(4096, 'x'));
    boost::asio::write(ws.next_layer(), boost::asio::buffer(header));
    std::this_thread::sleep_for(1s);
  });
  auto client = client_for(*server);
  auto process = client.open_process(exec_request(), false, ProcessOptions{});
  std::string what;
  EXPECT_EQ(read_to_end(process, what), std::errc::message_size);
  EXPECT_NE(what.find("16777216"), std::string::npos) << what;
}

// A server that has gone quiet and answers no ping: the read fails after ping_timeout.
TEST_F(remote_process_fault_test, a_server_that_sends_no_pong_times_out) {
  const auto server = serve("v5.channel.k8s.io", [](Socket& /*ws*/) {
    std::this_thread::sleep_for(3s);  // reads nothing, so no pong goes back
  });
  auto client = client_for(*server);
  auto process = client.open_process(exec_request(), false, ProcessOptions{.ping_timeout = 600ms});
  const auto start = std::chrono::steady_clock::now();
  std::string what;
  EXPECT_EQ(read_to_end(process, what), std::errc::timed_out);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 500ms);
  EXPECT_LT(waited, 2500ms);
  EXPECT_NE(what.find("pong"), std::string::npos) << what;
}

TEST_F(remote_process_fault_test, a_malformed_status_fails_with_invalid_json) {
  const auto server = serve("v5.channel.k8s.io", [](Socket& ws) {
    send_binary(ws, on(3, "{\"status\":"));
    ws.close(boost::beast::websocket::close_code::normal);
  });
  auto client = client_for(*server);
  auto process = client.open_process(exec_request(), false);
  std::string what;
  EXPECT_EQ(read_to_end(process, what), kubex::errc::invalid_json);
  EXPECT_NE(what.find("error channel"), std::string::npos) << what;
}

TEST_F(remote_process_fault_test, a_failure_status_is_an_api_error) {
  const auto server = serve("v5.channel.k8s.io", [](Socket& ws) {
    send_binary(ws, on(3, R"({"metadata":{},"status":"Failure","message":"container not found:)"
                          R"( nope","reason":"InternalError","code":500})"));
    ws.close(boost::beast::websocket::close_code::normal);
  });
  auto client = client_for(*server);
  auto process = client.open_process(exec_request(), false);
  try {
    (void)process.read();
    FAIL() << "expected an ApiError";
  } catch (const kubex::ApiError& e) {
    EXPECT_EQ(e.http_status(), 500U);
    EXPECT_TRUE(kubex::is_internal_error(e));
    EXPECT_NE(std::string(e.what()).find("container not found"), std::string::npos) << e.what();
  }
}

TEST_F(remote_process_fault_test, a_connection_closed_before_the_status_is_an_error) {
  const auto server = serve("v5.channel.k8s.io", [](Socket& ws) {
    send_binary(ws, on(1, "partial"));
    ws.close(boost::beast::websocket::close_code::going_away);
  });
  auto client = client_for(*server);
  auto process = client.open_process(exec_request(), false);
  std::string what;
  EXPECT_EQ(read_to_end(process, what), std::errc::connection_reset);
  EXPECT_NE(what.find("1001"), std::string::npos) << what;
}

TEST_F(remote_process_fault_test, a_subprotocol_not_offered_fails_the_upgrade) {
  const auto server = serve("v9.channel.k8s.io", [](Socket& /*ws*/) {});
  auto client = client_for(*server);
  try {
    (void)client.open_process(exec_request(), false);
    FAIL() << "expected the upgrade to fail";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), std::errc::protocol_error);
    EXPECT_NE(std::string(e.what()).find("v9.channel.k8s.io"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("s3cr3t"), std::string::npos);
  }
}

TEST_F(remote_process_fault_test, no_subprotocol_fails_the_upgrade) {
  const auto server = serve("", [](Socket& /*ws*/) {});
  auto client = client_for(*server);
  try {
    (void)client.open_process(exec_request(), false);
    FAIL() << "expected the upgrade to fail";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), std::errc::protocol_error);
    EXPECT_NE(std::string(e.what()).find("no subprotocol"), std::string::npos) << e.what();
  }
}

// v4 has no close signal: closing stdin says so instead of hanging a `cat` forever.
TEST_F(remote_process_fault_test, closing_stdin_over_v4_is_refused) {
  const auto server = serve("v4.channel.k8s.io", [](Socket& ws) {
    boost::beast::flat_buffer buffer;
    ws.read(buffer);  // waits for the client to go
  });
  auto client = client_for(*server);
  auto process = client.open_process(exec_request(), false);
  try {
    process.close_stdin();
    FAIL() << "expected closing stdin to be refused";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("v5.channel.k8s.io"), std::string::npos) << e.what();
  }
}

// cancel() from another thread while a read waits, in the middle of output that never ends (as
// `yes` writes it): the read fails with operation_canceled at once. The same runs against the
// real apiserver in tests/integration/stream_edges_test.cpp; it is here as well because this
// suite runs under ASan and LeakSanitizer, and the integration suites do not.
TEST_F(remote_process_fault_test, cancel_from_another_thread_ends_a_read_mid_output) {
  const auto server = serve("v5.channel.k8s.io", [](Socket& ws) {
    const std::string block = on(1, std::string(std::size_t{16} << 10U, 'y'));
    ws.binary(true);
    boost::system::error_code ec;
    while (!ec) {  // until the client has gone
      ws.write(boost::asio::buffer(block), ec);
    }
  });
  auto client = client_for(*server);
  auto process = client.open_process(exec_request(), false);
  std::atomic<std::size_t> received{0};
  std::thread canceller([&] {
    while (received < (std::size_t{1} << 20U)) {
      std::this_thread::sleep_for(1ms);
    }
    process.cancel();
  });
  std::error_code code;
  try {
    while (auto piece = process.read()) {
      received += piece->data.size();
    }
  } catch (const kubex::Error& e) {
    code = e.code();
  }
  canceller.join();
  EXPECT_EQ(code, std::errc::operation_canceled);
  EXPECT_GE(received.load(), std::size_t{1} << 20U);
  EXPECT_LE(process.stats().peak_buffered_output, kubex::client::process_output_piece);
}

// Empty handles (default-constructed or moved from) fail their operations through the handler,
// never by throwing from the call or crashing.
TEST(remote_process_empty_test, empty_handles_fail_through_the_handler) {
  boost::asio::io_context ioc;
  kubex::client::RemoteProcess process;
  kubex::client::PortStream stream;
  kubex::client::PortForwarder forwarder;
  auto read = process.async_read(boost::asio::use_future);
  auto write = stream.async_write("x", boost::asio::use_future);
  auto open = forwarder.async_open(80, boost::asio::use_future);
  EXPECT_THROW((void)read.get(), kubex::Error);
  EXPECT_THROW(write.get(), kubex::Error);
  EXPECT_THROW((void)open.get(), kubex::Error);
  EXPECT_EQ(process.exit_code(), std::nullopt);
  EXPECT_EQ(stream.port(), 0);
}

}  // namespace
