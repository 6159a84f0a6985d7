// SPDX-License-Identifier: Apache-2.0
// The SPDY/3.1 framing inside the port-forward tunnel, byte for byte: what the client writes
// (checked against the SPDY/3 layout and inflated with zlib, as the kubelet's reader does),
// and frames read back from any split of the byte stream.

#include <kubex/core/error.hpp>

#include "detail/spdy.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <string>
#include <system_error>

namespace {

namespace spdy = kubex::client::detail::spdy;

std::uint32_t u32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    v = (v << 8U) | static_cast<unsigned char>(s[at + i]);
  }
  return v;
}

// Inflates consecutive header blocks of one zlib stream, as the peer does.
class Inflater {
 public:
  Inflater() { EXPECT_EQ(inflateInit(&z_), Z_OK); }
  ~Inflater() { inflateEnd(&z_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  std::string inflate_block(const std::string& in) {
    std::string out;
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z_.avail_in = static_cast<uInt>(in.size());
    unsigned char chunk[1024];
    do {
      z_.next_out = chunk;
      z_.avail_out = sizeof chunk;
      const int rc = inflate(&z_, Z_SYNC_FLUSH);
      EXPECT_TRUE(rc == Z_OK || rc == Z_BUF_ERROR) << rc;
      out.append(reinterpret_cast<const char*>(chunk), sizeof chunk - z_.avail_out);
    } while (z_.avail_out == 0);
    return out;
  }

 private:
  z_stream z_{};
};

std::string block(std::initializer_list<std::pair<std::string, std::string>> headers) {
  std::string out;
  const auto put = [&](std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      out += static_cast<char>((v >> static_cast<unsigned>(shift)) & 0xffU);
    }
  };
  put(static_cast<std::uint32_t>(headers.size()));
  for (const auto& [name, value] : headers) {
    put(static_cast<std::uint32_t>(name.size()));
    out += name;
    put(static_cast<std::uint32_t>(value.size()));
    out += value;
  }
  return out;
}

TEST(spdy_test, syn_streams_share_one_compression_stream) {
  spdy::Writer writer;
  Inflater peer;
  const auto first = writer.syn_stream(1, {{"streamtype", "error"}, {"port", "80"}}, true);
  const auto second = writer.syn_stream(3, {{"streamtype", "data"}, {"port", "80"}}, false);
  for (const auto* frame : {&first, &second}) {
    ASSERT_GE(frame->size(), 18U);
    EXPECT_EQ(static_cast<unsigned char>((*frame)[0]), 0x80U);  // control, version 3
    EXPECT_EQ((*frame)[1], 3);
    EXPECT_EQ((*frame)[3], 1);  // SYN_STREAM
    EXPECT_EQ(u32(*frame, 4) & 0xffffffU, frame->size() - 8);
  }
  EXPECT_EQ(first[4], spdy::flag_fin);
  EXPECT_EQ(second[4], 0);
  EXPECT_EQ(u32(first, 8), 1U);
  EXPECT_EQ(u32(second, 8), 3U);
  EXPECT_EQ(peer.inflate_block(first.substr(18)), block({{"streamtype", "error"}, {"port", "80"}}));
  EXPECT_EQ(peer.inflate_block(second.substr(18)), block({{"streamtype", "data"}, {"port", "80"}}));
}

TEST(spdy_test, frames_are_read_from_any_split_of_the_stream) {
  std::string wire = spdy::data_frame(2, "hello", false);
  wire += spdy::rst_stream(4, spdy::status_cancel);
  wire += spdy::ping(7);
  wire += spdy::data_frame(2, "", true);
  for (std::size_t step : {1U, 3U, 64U}) {
    spdy::Reader reader;
    std::vector<spdy::Frame> frames;
    for (std::size_t at = 0; at < wire.size(); at += step) {
      reader.feed(std::string_view(wire).substr(at, step));
      while (auto frame = reader.next()) {
        frames.push_back(std::move(*frame));
      }
    }
    ASSERT_EQ(frames.size(), 4U) << "step " << step;
    EXPECT_EQ(frames[0].type, spdy::FrameType::data);
    EXPECT_EQ(frames[0].stream_id, 2U);
    EXPECT_EQ(frames[0].data, "hello");
    EXPECT_EQ(frames[1].type, spdy::FrameType::rst_stream);
    EXPECT_EQ(frames[1].stream_id, 4U);
    EXPECT_EQ(frames[1].status, spdy::status_cancel);
    EXPECT_EQ(frames[2].type, spdy::FrameType::ping);
    EXPECT_EQ(frames[2].ping_id, 7U);
    EXPECT_EQ(frames[3].flags & spdy::flag_fin, spdy::flag_fin);
    EXPECT_EQ(reader.pending(), 0U);
  }
}

TEST(spdy_test, a_control_frame_of_another_version_is_a_protocol_error) {
  spdy::Reader reader;
  reader.feed(std::string("\x80\x02\x00\x06\x00\x00\x00\x04\x00\x00\x00\x01", 12));
  try {
    (void)reader.next();
    FAIL() << "expected a protocol error";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), std::errc::protocol_error);
  }
}

TEST(spdy_test, a_truncated_rst_stream_is_a_protocol_error) {
  spdy::Reader reader;
  reader.feed(std::string("\x80\x03\x00\x03\x00\x00\x00\x02\x00\x01", 10));
  EXPECT_THROW((void)reader.next(), kubex::Error);
}

}  // namespace
