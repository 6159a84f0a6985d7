// SPDX-License-Identifier: Apache-2.0
// FaultServer: a loopback server that only exists for faults the real kube-apiserver cannot be
// made to produce (see fault_server.hpp). Ordinary behaviour is tested against tools/testenv.

#include <kubex/testing/fault_server.hpp>

#include "loopback_acceptor.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace kubex::testing {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using boost_error = boost::system::error_code;

// The close_after_reply answer: the target as body, and the announcement of the close.
std::string reply_for(const std::string& target) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
         "Content-Length: " +
         std::to_string(target.size()) + "\r\n\r\n" + target;
}

std::string keep_alive_reply(unsigned status, std::string_view reason, std::string_view extra,
                             const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
         "\r\nContent-Type: application/json\r\n" + std::string(extra) +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace

struct FaultServer::State {
  State(Fault f, const KeyPair& certificate) : fault(f) {
    if (fault != Fault::plain_http) {
      tls.use_certificate_chain(asio::buffer(certificate.certificate_pem));
      tls.use_private_key(asio::buffer(certificate.key_pem), ssl::context::pem);
    }
    if (fault == Fault::h2_silent) {
      SSL_CTX_set_alpn_select_cb(tls.native_handle(), &select_h2, nullptr);
    }
    loop.start([this](tcp::socket& socket) { serve(socket); });
  }

  void serve(tcp::socket& socket) {
    if (fault == Fault::silent_handshake) {
      count_connection();
      std::array<char, 4096> ignored{};
      boost_error ec;
      while (!loop.stopping() && !ec) {
        (void)socket.read_some(asio::buffer(ignored), ec);
      }
    } else if (fault == Fault::plain_http) {
      serve_plain(socket);
    } else {
      serve_tls(socket);
    }
  }

  void serve_plain(tcp::socket& socket) {
    count_connection();
    std::array<char, 4096> ignored{};
    boost_error ec;
    (void)socket.read_some(asio::buffer(ignored), ec);
    if (ec) {
      return;
    }
    constexpr std::string_view reply =
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n"
        "Content-Length: 48\r\n\r\nClient sent an HTTP request to an HTTPS server.\n";
    asio::write(socket, asio::buffer(reply), ec);
  }

  // Picks "h2" when the client offers it; otherwise no protocol is selected.
  static int select_h2(SSL* /*ssl*/, const unsigned char** out, unsigned char* outlen,
                       const unsigned char* in, unsigned int inlen, void* /*arg*/) {
    for (unsigned int i = 0; i < inlen; i += 1U + in[i]) {
      if (in[i] == 2 && i + 2 < inlen && in[i + 1] == 'h' && in[i + 2] == '2') {
        *out = in + i + 1;
        *outlen = 2;
        return SSL_TLSEXT_ERR_OK;
      }
    }
    return SSL_TLSEXT_ERR_NOACK;
  }

  void serve_tls(tcp::socket& socket) {
    ssl::stream<tcp::socket&> stream(socket, tls);
    boost_error ec;
    stream.handshake(ssl::stream_base::server, ec);
    if (ec) {
      return;
    }
    count_connection();
    if (fault == Fault::h2_silent) {
      std::array<char, 4096> ignored{};
      while (!loop.stopping() && !ec) {
        (void)stream.read_some(asio::buffer(ignored), ec);
      }
      return;
    }

    boost::beast::flat_buffer buffer;
    while (!loop.stopping()) {
      http::request<http::string_body> request;
      http::read(stream, buffer, request, ec);
      if (ec) {
        return;
      }
      const std::string target(request.target());
      {
        const std::lock_guard lock(mutex);
        targets.push_back(target);
        authorization_values.emplace_back(request[http::field::authorization]);
      }
      if (fault == Fault::stall) {
        continue;  // the next read returns once the client gives up and closes
      }
      if (fault == Fault::busy_twice || fault == Fault::unavailable || fault == Fault::redirect ||
          fault == Fault::corrupt_gzip) {
        std::string reply;
        if (fault == Fault::corrupt_gzip) {
          reply = keep_alive_reply(200, "OK", "Content-Encoding: gzip\r\n", "not gzip at all");
        } else if (fault == Fault::redirect) {
          reply = keep_alive_reply(302, "Found",
                                   "Location: https://other.example" + target + "\r\n", "");
        } else if (fault == Fault::unavailable) {
          reply = keep_alive_reply(503, "Service Unavailable", "", "upstream overloaded");
        } else if (++answered <= 2) {
          reply = keep_alive_reply(
              429, "Too Many Requests", "Retry-After: 1\r\n",
              R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"too many )"
              R"(requests, please try again later","reason":"TooManyRequests",)"
              R"("details":{"retryAfterSeconds":1},"code":429})");
        } else {
          reply = keep_alive_reply(200, "OK", "", target);
        }
        asio::write(stream, asio::buffer(reply), ec);
        if (ec) {
          return;
        }
        continue;
      }
      asio::write(stream, asio::buffer(reply_for(target)), ec);
      socket.shutdown(tcp::socket::shutdown_both, ec);  // as announced by Connection: close
      return;
    }
  }

  void count_connection() {
    const std::lock_guard lock(mutex);
    ++accepted;
  }

  Fault fault;
  ssl::context tls{ssl::context::tls_server};
  mutable std::mutex mutex;
  std::vector<std::string> targets;
  std::vector<std::string> authorization_values;
  std::size_t accepted = 0;
  std::size_t answered = 0;       // busy_twice: requests answered so far
  detail::LoopbackAcceptor loop;  // last: its thread uses the members above
};

FaultServer::FaultServer(Fault fault, const KeyPair& certificate)
    : state_(std::make_unique<State>(fault, certificate)) {}

FaultServer::~FaultServer() {
  state_->loop.stop();
}

std::uint16_t FaultServer::port() const noexcept {
  return state_->loop.port();
}

std::vector<std::string> FaultServer::request_targets() const {
  const std::lock_guard lock(state_->mutex);
  return state_->targets;
}

std::vector<std::string> FaultServer::authorizations() const {
  const std::lock_guard lock(state_->mutex);
  return state_->authorization_values;
}

std::size_t FaultServer::connections() const {
  const std::lock_guard lock(state_->mutex);
  return state_->accepted;
}

}  // namespace kubex::testing
