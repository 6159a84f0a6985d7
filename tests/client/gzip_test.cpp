// SPDX-License-Identifier: Apache-2.0
// gzip bodies, whole and as they arrive (client/src/detail/gzip.hpp, observed_body.hpp), against
// zlib's own compressor.

#include "detail/gzip.hpp"
#include "detail/observed_body.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace {

using kubex::client::detail::gunzip;
using kubex::client::detail::Inflater;
using kubex::client::detail::ObservedBody;
using kubex::client::detail::SpareBodies;

std::string gzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
            Z_OK);
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(gunzip, RoundTripsAcrossItsOutputSteps) {
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{65536},
                                 std::size_t{65537}, std::size_t{1} << 20U}) {
    std::string data(size, '\0');
    for (std::size_t i = 0; i < size; ++i) {
      data[i] = static_cast<char>('a' + (i * 7 + i / 3) % 26);
    }
    std::string problem;
    const auto out = gunzip(gzip(data), std::size_t{16} << 20U, problem);
    ASSERT_TRUE(out) << size << ": " << problem;
    EXPECT_EQ(*out, data) << size;
  }
}

TEST(gunzip, StopsABombAtTheLimit) {
  const std::string bomb = gzip(std::string(std::size_t{64} << 20U, 'x'));  // 64 MiB of 'x'
  ASSERT_LT(bomb.size(), std::size_t{1} << 20U);
  std::string problem;
  EXPECT_FALSE(gunzip(bomb, std::size_t{1} << 20U, problem));
  EXPECT_EQ(problem, "decompressed body exceeds the limit of 1048576 bytes");
}

TEST(gunzip, RefusesCorruptTruncatedAndTrailingInput) {
  const std::string good = gzip("hello, kubernetes");
  std::string problem;
  EXPECT_FALSE(gunzip("not gzip at all", 1024, problem));
  EXPECT_EQ(problem, "corrupt gzip body");
  for (std::size_t cut = 0; cut < good.size(); ++cut) {
    problem.clear();
    EXPECT_FALSE(gunzip(good.substr(0, cut), 1024, problem)) << "cut at " << cut;
    EXPECT_EQ(problem, "corrupt gzip body") << "cut at " << cut;
  }
  EXPECT_FALSE(gunzip(good + "x", 1024, problem));
  std::string flipped = good;
  flipped[flipped.size() - 5] ^= 0x01;  // the CRC no longer matches
  EXPECT_FALSE(gunzip(flipped, 1024, problem));
}

std::string sample(std::size_t size) {
  std::string data(size, '\0');
  for (std::size_t i = 0; i < size; ++i) {
    data[i] = static_cast<char>('a' + (i * 7 + i / 3) % 26);
  }
  return data;
}

TEST(inflater, InflatesAMemberFedInAnySplit) {
  const std::string data = sample(300000);
  const std::string packed = gzip(data);
  Inflater inflater(std::size_t{1} << 20U);
  for (const std::size_t piece :
       {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{16384}, packed.size()}) {
    inflater.reset();
    std::string out;
    std::string problem;
    for (std::size_t at = 0; at < packed.size(); at += piece) {
      EXPECT_FALSE(inflater.ended());
      ASSERT_TRUE(inflater.feed(std::string_view(packed).substr(at, piece), out, problem))
          << "pieces of " << piece << " at " << at << ": " << problem;
    }
    EXPECT_TRUE(inflater.ended()) << piece;
    EXPECT_EQ(out, data) << "pieces of " << piece;
  }
}

TEST(inflater, CountsTheLimitOverEveryPiece) {
  const std::string packed = gzip(std::string(std::size_t{8} << 20U, 'x'));
  Inflater inflater(std::size_t{1} << 20U);
  std::string problem;
  std::size_t at = 0;
  for (; at < packed.size(); at += 512) {
    std::string out;  // each piece alone is far below the limit
    if (!inflater.feed(std::string_view(packed).substr(at, 512), out, problem)) {
      break;
    }
    EXPECT_LE(out.size(), std::size_t{1} << 20U);
  }
  EXPECT_LT(at, packed.size());
  EXPECT_EQ(problem, "decompressed body exceeds the limit of 1048576 bytes");
}

TEST(inflater, RefusesBytesAfterTheTrailer) {
  const std::string packed = gzip("hello");
  Inflater inflater(1024);
  std::string out;
  std::string problem;
  ASSERT_TRUE(inflater.feed(packed, out, problem)) << problem;
  EXPECT_TRUE(inflater.ended());
  EXPECT_FALSE(inflater.feed("x", out, problem));
  EXPECT_EQ(problem, "corrupt gzip body");
  EXPECT_EQ(out, "hello");
}

// What a list's reader does: takes complete lines from the front of what it is shown.
struct LineReader {
  int starts = 0;
  std::string lines;
  void operator()(std::string& body, bool start) {
    if (start) {
      ++starts;
      lines.clear();
      return;
    }
    const auto end = body.rfind('\n');
    if (end != std::string::npos) {
      lines.append(body, 0, end + 1);
      body.erase(0, end + 1);
    }
  }
};

TEST(observed_body, ShowsAGzipBodyInflatedWhileItArrives) {
  std::string data;
  for (int i = 0; i < 20000; ++i) {
    data += "{\"item\":" + std::to_string(i) + "}\n";
  }
  data += "tail";  // left to the response, as a list's closing bracket is
  const std::string packed = gzip(data);
  auto reader = std::make_shared<LineReader>();
  ObservedBody body([reader](std::string& b, bool start) { (*reader)(b, start); },
                    std::size_t{16} << 20U);
  SpareBodies spare(2, std::size_t{16} << 20U);
  std::string raw;
  ASSERT_TRUE(body.start(raw, 200, "gzip"));
  std::size_t seen_before_end = 0;
  for (std::size_t at = 0; at < packed.size(); at += 4096) {
    raw.append(packed, at, 4096);
    ASSERT_TRUE(body.grow(raw)) << body.problem();
    EXPECT_TRUE(raw.empty());  // the compressed bytes are never kept
    if (at + 4096 < packed.size()) {
      seen_before_end = reader->lines.size();
    }
  }
  EXPECT_GT(seen_before_end, data.size() / 2);  // decoded during the transfer, not after it
  ASSERT_TRUE(body.finish(raw, spare)) << body.problem();
  EXPECT_TRUE(body.inflated());
  EXPECT_EQ(raw, "tail");
  EXPECT_EQ(reader->lines + raw, data);
  EXPECT_EQ(reader->starts, 1);
}

TEST(observed_body, LeavesErrorsAndOtherEncodingsWhole) {
  auto reader = std::make_shared<LineReader>();
  ObservedBody body([reader](std::string& b, bool start) { (*reader)(b, start); }, 1024);
  std::string raw;
  EXPECT_FALSE(body.start(raw, 500, "gzip"));  // a Status, read whole and inflated after
  EXPECT_FALSE(body.start(raw, 200, "br"));    // not ours to decode
  EXPECT_TRUE(body.start(raw, 200, ""));       // identity: shown as it is
  EXPECT_TRUE(body.start(raw, 200, "identity"));
  raw = "a\nb";
  ASSERT_TRUE(body.grow(raw));
  EXPECT_EQ(raw, "b");
  EXPECT_FALSE(body.inflated());
  EXPECT_EQ(reader->starts, 4);  // every attempt's head restarts the reader
}

TEST(observed_body, RefusesATruncatedCorruptOrTooLargeBody) {
  const std::string packed = gzip(sample(100000));
  SpareBodies spare(2, std::size_t{16} << 20U);
  const auto noop = [](std::string& /*body*/, bool /*start*/) {
  };
  {
    ObservedBody body(noop, std::size_t{1} << 20U);
    std::string raw;
    ASSERT_TRUE(body.start(raw, 200, "gzip"));
    raw = packed.substr(0, packed.size() - 4);  // the trailer's length is missing
    ASSERT_TRUE(body.grow(raw));
    EXPECT_FALSE(body.finish(raw, spare));
    EXPECT_EQ(body.problem(), "corrupt gzip body");
    // The next attempt starts over.
    ASSERT_TRUE(body.start(raw, 200, "gzip"));
    raw = packed;
    EXPECT_TRUE(body.finish(raw, spare)) << body.problem();
  }
  {
    ObservedBody body(noop, std::size_t{1} << 20U);
    std::string raw = "not gzip at all";
    ASSERT_TRUE(body.start(raw, 200, "gzip"));
    EXPECT_FALSE(body.grow(raw));
    EXPECT_EQ(body.problem(), "corrupt gzip body");
    EXPECT_FALSE(body.finish(raw, spare));  // a refused body stays refused
  }
  {
    ObservedBody body(noop, 50000);
    std::string raw;
    ASSERT_TRUE(body.start(raw, 200, "gzip"));
    raw = packed;
    EXPECT_FALSE(body.grow(raw));
    EXPECT_EQ(body.problem(), "decompressed body exceeds the limit of 50000 bytes");
  }
}

}  // namespace
