// SPDX-License-Identifier: Apache-2.0
// The physical limits of the benchmark suite, measured in the same run as the clients:
//   L1 (--decode off): the same requests as the adapters (same URL, Accept and body; no
//       Accept-Encoding) over one persistent TLS connection with OpenSSL and blocking sockets;
//       status, headers and the whole body are read (chunked handled) and nothing is decoded.
//       Streams (watch, log follow) need a connection each; those resume the TLS session.
//   L2 (--decode on): L1 plus a full simdjson On-Demand walk of every body or event line.
// No kubex code is involved, so kubex's time over L1 is what kubex adds.
//
//   kubex-bench-raw --server https://127.0.0.1:PORT --ca-file CA --token-file F
//                   --scenario S --namespace NS [--decode on] [plan options]
//
// The token is read from a file so that it never appears on a command line.

#include "../../common/measure.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <simdjson.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>

namespace {

using kubex_bench::now_ns;

[[noreturn]] void fail(const std::string& what) {
  std::string detail;
  if (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    detail = std::string(": ") + buf;
  }
  throw std::runtime_error(what + detail);
}

struct Target {
  std::string host;  // numeric IPv4 or IPv6 address, as testenv serves
  int port = 443;
  std::string token;
  std::string ca_file;
};

Target parse_target(const kubex_bench::Args& args) {
  Target t;
  std::string server = args.required("server");
  if (!server.starts_with("https://")) {
    throw std::invalid_argument("--server must be https://ADDRESS:PORT");
  }
  server = server.substr(8);
  const auto colon = server.rfind(':');
  if (colon == std::string::npos) {
    throw std::invalid_argument("--server needs a port");
  }
  t.host = server.substr(0, colon);
  if (t.host.starts_with('[')) {
    t.host = t.host.substr(1, t.host.size() - 2);
  }
  t.port = std::stoi(server.substr(colon + 1));
  std::ifstream token(args.required("token-file"));
  std::getline(token, t.token);
  if (t.token.empty()) {
    throw std::invalid_argument("--token-file is empty or unreadable");
  }
  t.ca_file = args.required("ca-file");
  return t;
}

// One HTTP/1.1 connection over TLS, with a read buffer.
class Conn {
 public:
  Conn(SSL_CTX* ctx, const Target& t) : target_(&t) {
    sockaddr_storage addr{};
    socklen_t len = 0;
    const bool v6 = t.host.find(':') != std::string::npos;
    if (v6) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
      a->sin6_family = AF_INET6;
      a->sin6_port = htons(static_cast<std::uint16_t>(t.port));
      inet_pton(AF_INET6, t.host.c_str(), &a->sin6_addr);
      len = sizeof *a;
    } else {
      auto* a = reinterpret_cast<sockaddr_in*>(&addr);
      a->sin_family = AF_INET;
      a->sin_port = htons(static_cast<std::uint16_t>(t.port));
      if (inet_pton(AF_INET, t.host.c_str(), &a->sin_addr) != 1) {
        throw std::invalid_argument("--server must name a numeric address");
      }
      len = sizeof *a;
    }
    fd_ = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
      throw std::runtime_error("connect to " + t.host + ":" + std::to_string(t.port) + ": " +
                               std::strerror(errno));
    }
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ssl_ = SSL_new(ctx);
    SSL_set_fd(ssl_, fd_);
    SSL_set1_host(ssl_, t.host.c_str());  // an IP address is checked against the IP SANs
    if (latest_session != nullptr) {
      SSL_set_session(ssl_, latest_session);  // the limit resumes sessions, as kubex does
    }
    if (SSL_connect(ssl_) != 1) {
      fail("TLS handshake");
    }
    buf_.resize(1 << 16);
  }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  ~Conn() {
    // Closed without close_notify but marked done, so OpenSSL keeps the session resumable.
    SSL_set_shutdown(ssl_, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
    SSL_free(ssl_);
    ::close(fd_);
  }

  // The latest session ticket (TLS 1.3 sends it after the handshake), for the next connection.
  static int on_new_session(SSL* /*ssl*/, SSL_SESSION* session) {
    if (latest_session != nullptr) {
      SSL_SESSION_free(latest_session);
    }
    latest_session = session;
    return 1;
  }
  static inline SSL_SESSION* latest_session = nullptr;

  void send(std::string_view method, std::string_view target, std::string_view accept,
            std::string_view body = {}) {
    out_.clear();
    out_.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: ");
    out_.append(target_->host).append(":").append(std::to_string(target_->port));
    out_.append("\r\nUser-Agent: bench-raw/1\r\nAccept: ").append(accept);
    out_.append("\r\nAuthorization: Bearer ").append(target_->token).append("\r\n");
    if (!body.empty()) {
      out_.append("Content-Type: application/json\r\nContent-Length: ")
          .append(std::to_string(body.size()))
          .append("\r\n");
    }
    out_.append("\r\n").append(body);
    std::size_t done = 0;
    while (done < out_.size()) {
      const int n = SSL_write(ssl_, out_.data() + done, static_cast<int>(out_.size() - done));
      if (n <= 0) {
        fail("TLS write");
      }
      done += static_cast<std::size_t>(n);
    }
  }

  // Reads the status line and headers; returns the status.
  int read_head() {
    chunked_ = false;
    length_ = -1;
    const auto status_line = line();
    if (status_line.size() < 12) {
      throw std::runtime_error("malformed status line");
    }
    const int status = std::stoi(std::string(status_line.substr(9, 3)));
    for (;;) {
      const auto h = line();
      if (h.empty()) {
        break;
      }
      if (starts_with_ci(h, "transfer-encoding:") && h.find("chunked") != std::string::npos) {
        chunked_ = true;
      } else if (starts_with_ci(h, "content-length:")) {
        length_ = std::stoll(std::string(h.substr(15)));
      }
    }
    chunk_left_ = 0;
    body_done_ = false;
    return status;
  }

  // Appends the next piece of the body to `out`; false at its end.
  bool read_body_piece(std::string& out) {
    if (body_done_) {
      return false;
    }
    if (!chunked_) {
      if (length_ == 0) {
        body_done_ = true;
        return false;
      }
      if (begin_ == end_) {
        fill();
      }
      const auto n = static_cast<std::size_t>(
          std::min<long long>(length_, static_cast<long long>(end_ - begin_)));
      out.append(buf_.data() + begin_, n);
      begin_ += n;
      length_ -= static_cast<long long>(n);
      return true;
    }
    if (chunk_left_ == 0) {
      const auto size_line = line();
      chunk_left_ = std::stoull(std::string(size_line), nullptr, 16);
      if (chunk_left_ == 0) {
        while (!line().empty()) {  // trailers
        }
        body_done_ = true;
        return false;
      }
    }
    if (begin_ == end_) {
      fill();
    }
    const auto n = std::min(chunk_left_, end_ - begin_);
    out.append(buf_.data() + begin_, n);
    begin_ += n;
    chunk_left_ -= n;
    if (chunk_left_ == 0) {
      (void)line();  // the CRLF after the chunk
    }
    return true;
  }

  // A whole response: its status, and the body in `body` (replaced).
  int exchange(std::string_view method, std::string_view target, std::string_view accept,
               std::string& body, std::string_view request_body = {}) {
    send(method, target, accept, request_body);
    const int status = read_head();
    body.clear();
    while (read_body_piece(body)) {
    }
    return status;
  }

 private:
  static bool starts_with_ci(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size()) {
      return false;
    }
    for (std::size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) {
        return false;
      }
    }
    return true;
  }
  void fill() {
    if (begin_ == end_) {
      begin_ = end_ = 0;
    } else if (end_ == buf_.size()) {
      std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    const int n = SSL_read(ssl_, buf_.data() + end_, static_cast<int>(buf_.size() - end_));
    if (n <= 0) {
      fail("connection closed or TLS read failed");
    }
    end_ += static_cast<std::size_t>(n);
  }
  // The next CRLF-terminated line of the head or of chunk framing (valid until the next read).
  std::string_view line() {
    for (;;) {
      const auto* start = buf_.data() + begin_;
      const auto* nl = static_cast<const char*>(std::memchr(start, '\n', end_ - begin_));
      if (nl) {
        std::string_view l(start, static_cast<std::size_t>(nl - start));
        begin_ += l.size() + 1;
        if (!l.empty() && l.back() == '\r') {
          l.remove_suffix(1);
        }
        return l;
      }
      if (begin_ > 0) {
        std::memmove(buf_.data(), start, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
      }
      if (end_ == buf_.size()) {
        buf_.resize(buf_.size() * 2);
      }
      fill();
    }
  }

  const Target* target_;
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  std::vector<char> buf_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::string out_;
  bool chunked_ = false;
  long long length_ = -1;
  std::size_t chunk_left_ = 0;
  bool body_done_ = false;
};

// L2: visits every value of a document (the work any full decoder must at least do).
class Walker {
 public:
  // Walks `json` (its capacity must leave SIMDJSON_PADDING bytes); returns the length of the
  // top-level "items" array, or 1 for a single object.
  long walk(std::string& json) {
    if (json.capacity() < json.size() + simdjson::SIMDJSON_PADDING) {
      json.reserve(json.size() + simdjson::SIMDJSON_PADDING);
    }
    auto doc = parser_.iterate(json.data(), json.size(), json.capacity());
    long items = 1;
    simdjson::ondemand::object top = doc.get_object();
    for (auto field : top) {
      const std::string_view key = field.unescaped_key();
      simdjson::ondemand::value v = field.value();
      if (key == "items") {
        items = 0;
        for (auto item : v.get_array()) {
          simdjson::ondemand::value element = item.value();
          value(element);
          ++items;
        }
      } else {
        value(v);
      }
    }
    return items;
  }

 private:
  void value(simdjson::ondemand::value v) {
    switch (v.type()) {
      case simdjson::ondemand::json_type::object:
        for (auto field : v.get_object()) {
          sink_ += field.unescaped_key().value().size();
          value(field.value());
        }
        break;
      case simdjson::ondemand::json_type::array:
        for (auto element : v.get_array()) {
          value(element.value());
        }
        break;
      case simdjson::ondemand::json_type::string:
        sink_ += v.get_string().value().size();
        break;
      case simdjson::ondemand::json_type::number:
        sink_ += static_cast<std::size_t>(v.get_number().value().get_double() != 0);
        break;
      case simdjson::ondemand::json_type::boolean:
        sink_ += static_cast<std::size_t>(v.get_bool().value());
        break;
      case simdjson::ondemand::json_type::null:
        sink_ += static_cast<std::size_t>(v.is_null().value());
        break;
    }
  }
  simdjson::ondemand::parser parser_;
  std::size_t sink_ = 0;  // keeps the walk from being optimised away
};

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kMetadataList =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
constexpr std::string_view kMetadata =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

std::string pod_body(const std::string& name, const std::string& label = {}) {
  std::string labels = label.empty() ? "" : R"(,"labels":{"bench":")" + label + "\"}";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + "\"" + labels +
         R"(},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.9"}]}})";
}

std::string random_hex(std::size_t n) {
  static std::mt19937_64 rng{std::random_device{}()};
  std::string s(n, '0');
  for (auto& c : s) {
    c = "0123456789abcdef"[rng() % 16];
  }
  return s;
}

class Raw {
 public:
  Raw(const Target& t, kubex_bench::Plan plan, bool decode, kubex_bench::Recorder& rec)
      : target_(t), plan_(std::move(plan)), decode_(decode), rec_(rec) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    SSL_CTX_set_session_cache_mode(ctx_, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx_, &Conn::on_new_session);
    if (SSL_CTX_load_verify_locations(ctx_, t.ca_file.c_str(), nullptr) != 1) {
      fail("loading --ca-file");
    }
    const std::string ns = "/api/v1/namespaces/" + plan_.namespace_name;
    pods_ = ns + "/pods";
  }
  ~Raw() { SSL_CTX_free(ctx_); }
  Raw(const Raw&) = delete;
  Raw& operator=(const Raw&) = delete;

  void run() {
    conn_ = std::make_unique<Conn>(ctx_, target_);
    while (rec_.warming()) {
      (void)iteration(false);
    }
    rec_.begin();
    long connections = 0;
    while (rec_.measuring()) {
      const auto start = now_ns();
      long items = iteration(true);
      const auto wall = now_ns() - start;
      if (items == kUncounted && !rec_.measuring()) {
        items = count_last();  // L1 validates its last response, outside the timed span
      }
      rec_.sample(wall, items);
      connections += streaming() ? 1 : 0;
    }
    rec_.end();
    rec_.number("connections_opened", static_cast<double>(connections));
    if (plan_.scenario.starts_with("single_get") || plan_.scenario.starts_with("list_")) {
      rec_.number("bytes_per_op", static_cast<double>(body_.size()));  // one response each
    }
  }

  static constexpr long kUncounted = -1;

 private:
  [[nodiscard]] bool streaming() const {
    return plan_.scenario.starts_with("watch") || plan_.scenario == "stream_logs_n_lines";
  }

  long counted(std::string& body) { return decode_ ? walker_.walk(body) : kUncounted; }
  long count_last() { return Walker().walk(body_); }

  void expect(int status, int want, std::string_view what) {
    if (status != want) {
      throw std::runtime_error(std::string(what) + ": HTTP " + std::to_string(status) + ": " +
                               body_.substr(0, 300));
    }
  }

  long iteration(bool measured) {
    const auto& s = plan_.scenario;
    const std::string limit = "?limit=" + std::to_string(plan_.list_size);
    if (s == "single_get") {
      expect(conn_->exchange("GET", pods_ + "/seed-0", kJson, body_), 200, s);
      return counted(body_);
    }
    if (s == "single_get_metadata") {
      expect(conn_->exchange("GET", pods_ + "/seed-0", kMetadata, body_), 200, s);
      return counted(body_);
    }
    if (s == "list_small" || s == "list_medium" || s == "list_large") {
      expect(conn_->exchange("GET", pods_ + limit, kJson, body_), 200, s);
      return counted(body_);
    }
    if (s == "list_metadata_only") {
      expect(conn_->exchange("GET", pods_ + limit, kMetadataList, body_), 200, s);
      return counted(body_);
    }
    if (s == "list_namespaces") {
      expect(conn_->exchange("GET", "/api/v1/namespaces", kJson, body_), 200, s);
      return counted(body_);
    }
    if (s == "single_create_delete") {
      const std::string name = "bench-" + random_hex(10);
      expect(conn_->exchange("POST", pods_, kJson, body_, pod_body(name)), 201, "create");
      if (decode_) {
        (void)walker_.walk(body_);
      }
      expect(conn_->exchange("DELETE", pods_ + "/" + name + "?gracePeriodSeconds=0", kJson, body_),
             200, "delete");
      if (decode_) {
        (void)walker_.walk(body_);
      }
      return 1;
    }
    if (s == "watch_n_events") {
      return watch_n_events(measured);
    }
    if (s == "watch_live") {
      return watch_live(measured);
    }
    if (s == "stream_logs_n_lines") {
      return stream_lines(pods_ + "/log-emitter/log?container=c&follow=true", "*/*",
                          plan_.stream_count, measured, nullptr);
    }
    throw std::invalid_argument("unknown scenario '" + s + "'");
  }

  // Reads newline-terminated lines of a streamed body on a fresh connection until `want`
  // lines (or `on_line` says stop); times inter-arrival gaps unless on_line records its own.
  long stream_lines(const std::string& target, std::string_view accept, long want, bool measured,
                    const std::function<bool(std::string&, std::int64_t)>& on_line) {
    Conn stream(ctx_, target_);
    stream.send("GET", target, accept);
    const int status = stream.read_head();
    if (status != 200) {
      std::string error;
      while (stream.read_body_piece(error)) {
      }
      throw std::runtime_error(target + ": HTTP " + std::to_string(status) + ": " + error);
    }
    std::string pending;
    std::string line;
    long lines = 0;
    std::int64_t last = 0;
    while (lines < want && stream.read_body_piece(pending)) {
      std::size_t at = 0;
      for (;;) {
        const auto nl = pending.find('\n', at);
        if (nl == std::string::npos) {
          break;
        }
        line.assign(pending, at, nl - at);
        at = nl + 1;
        const auto t = now_ns();
        if (decode_ && !line.empty() && line.front() == '{') {
          (void)walker_.walk(line);
        }
        if (on_line) {
          if (on_line(line, t)) {
            ++lines;
          }
        } else {
          if (measured && lines > 0) {
            rec_.event(t - last);
          }
          last = t;
          ++lines;
        }
        if (lines >= want) {
          break;
        }
      }
      pending.erase(0, at);
    }
    return lines;  // the stream connection closes here
  }

  // Kubex's watch semantics (see the kubex adapter), the burst on a thread with its own
  // connection.
  long watch_n_events(bool measured) {
    std::exception_ptr burst_failure;
    std::thread burster([&] {
      try {
        burst("watch-bench-", {}, nullptr);
      } catch (...) {
        burst_failure = std::current_exception();
      }
    });
    long events = 0;
    try {
      events = stream_lines(pods_ + "?watch=true", kJson, plan_.stream_count, measured, nullptr);
    } catch (...) {
      burster.join();
      throw;
    }
    burster.join();
    if (burst_failure) {
      std::rethrow_exception(burst_failure);
    }
    return events;
  }

  void burst(const std::string& prefix, const std::string& label,
             std::array<std::atomic<std::int64_t>, 50>* sent) {
    if (label.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    Conn writer(ctx_, target_);
    std::string body;
    for (int i = 0; i < 25; ++i) {
      const std::string name = prefix + std::to_string(i);
      if (sent) {
        (*sent)[static_cast<std::size_t>(2 * i)] = now_ns();
      }
      if (const int st = writer.exchange("POST", pods_, kJson, body, pod_body(name, label));
          st != 201) {
        throw std::runtime_error("burst create: HTTP " + std::to_string(st));
      }
      if (sent) {
        (*sent)[static_cast<std::size_t>(2 * i + 1)] = now_ns();
      }
      if (const int st =
              writer.exchange("DELETE", pods_ + "/" + name + "?gracePeriodSeconds=0", kJson, body);
          st != 200) {
        throw std::runtime_error("burst delete: HTTP " + std::to_string(st));
      }
    }
  }

  long watch_live(bool measured) {
    const std::string label = "live-" + random_hex(6);
    expect(conn_->exchange("GET", pods_ + "?limit=1&labelSelector=bench%3D" + label, kJson, body_),
           200, "list");
    const auto rv_at = body_.find("\"resourceVersion\":\"");
    if (rv_at == std::string::npos) {
      throw std::runtime_error("list without resourceVersion");
    }
    const auto rv_start = rv_at + 19;
    const std::string rv = body_.substr(rv_start, body_.find('"', rv_start) - rv_start);
    std::array<std::atomic<std::int64_t>, 50> sent{};
    std::exception_ptr burst_failure;
    std::thread burster([&] {
      try {
        burst("watch-live-", label, &sent);
      } catch (...) {
        burst_failure = std::current_exception();
      }
    });
    long counted = 0;
    try {
      counted = stream_lines(
          pods_ + "?watch=true&labelSelector=bench%3D" + label + "&resourceVersion=" + rv, kJson,
          50, measured, [&](std::string& line, std::int64_t t) {
            const bool added = line.starts_with(R"({"type":"ADDED")");
            if (!added && !line.starts_with(R"({"type":"DELETED")")) {
              return false;
            }
            const auto name_at = line.find("\"name\":\"watch-live-");
            if (measured && name_at != std::string::npos) {
              const int i = std::atoi(line.c_str() + name_at + 19);
              if (i >= 0 && i < 25) {
                rec_.event(t - sent[static_cast<std::size_t>(2 * i + (added ? 0 : 1))]);
              }
            }
            return true;
          });
    } catch (...) {
      burster.join();
      throw;
    }
    burster.join();
    if (burst_failure) {
      std::rethrow_exception(burst_failure);
    }
    return counted;
  }

  const Target& target_;
  kubex_bench::Plan plan_;
  bool decode_;
  kubex_bench::Recorder& rec_;
  SSL_CTX* ctx_ = nullptr;
  std::unique_ptr<Conn> conn_;
  std::string pods_;
  std::string body_;
  Walker walker_;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    const kubex_bench::Args args(argc, argv);
    const auto plan = kubex_bench::Plan::from(args);
    const bool decode = args.get("decode", "off") == "on";
    const auto target = parse_target(args);
    kubex_bench::Recorder rec(plan);
    rec.fact("adapter", decode ? "L2" : "L1");
    rec.fact("variant", decode ? "raw TLS + simdjson walk" : "raw TLS, no decoding");
    rec.fact("http", "1.1");
    rec.fact("accept_encoding", "");
    Raw raw(target, plan, decode, rec);
    raw.run();
    rec.print();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-bench-raw: %s\n", e.what());
    return 1;
  }
  return 0;
}
