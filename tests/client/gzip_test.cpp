// gzip bodies (client/src/detail/gzip.hpp) against zlib's own compressor.

#include "detail/gzip.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace {

using kubex::client::detail::gunzip;

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

}  // namespace
