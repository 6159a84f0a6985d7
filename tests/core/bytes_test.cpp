// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/base64.hpp>
#include <kubex/core/bytes.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace {

using kubex::base64_decode_padded;
using kubex::base64_encode;
using kubex::Bytes;

TEST(base64_encode_test, encodes_rfc4648_vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode(std::string("\x00\xff\x3e\xff", 4)), "AP8+/w==");
  EXPECT_EQ(base64_encode(std::string("\xfb\xff\xbf", 3)), "+/+/");
  EXPECT_EQ(base64_encode(std::string(3, '\0')), "AAAA");
}

TEST(base64_decode_padded_test, decodes_like_go_std_encoding) {
  EXPECT_EQ(base64_decode_padded(""), "");
  EXPECT_EQ(base64_decode_padded("Zg=="), "f");
  EXPECT_EQ(base64_decode_padded("Zm8="), "fo");
  EXPECT_EQ(base64_decode_padded("Zm9v"), "foo");
  EXPECT_EQ(base64_decode_padded("Zm9vYmFy"), "foobar");
  EXPECT_EQ(base64_decode_padded("AP8+/w=="), std::string("\x00\xff\x3e\xff", 4));
  // Line breaks are skipped anywhere, even inside the padding.
  EXPECT_EQ(base64_decode_padded("Zm9v\nYmFy"), "foobar");
  EXPECT_EQ(base64_decode_padded("Zm9v\r\nYmFy\r\n"), "foobar");
  EXPECT_EQ(base64_decode_padded("\nZ\rg=\n=\n"), "f");
  EXPECT_EQ(base64_decode_padded("\r\n"), "");
  // Unused low bits are ignored (Go's default, non-Strict mode).
  EXPECT_EQ(base64_decode_padded("Zh=="), "f");
  EXPECT_EQ(base64_decode_padded("Zm9="), "fo");
}

TEST(base64_decode_padded_test, rejects_what_go_rejects) {
  constexpr std::string_view invalid[] = {
      "Zg",          // padding is required
      "Zm8",         //
      "Zm9vYg",      //
      "Zg=",         // incomplete padding
      "Zg===",       // too much padding
      "Zm9v=",       // padding after a complete group
      "=",           //
      "==",          //
      "====",        //
      "Z===",        // padding cannot replace two-thirds of a group
      "Zg=a",        // data after padding
      "Zg==Zg==",    //
      "Zg==\nx",     //
      "Zm9v YmFy",   // whitespace other than line breaks
      "Zm9v\tYmFy",  //
      " Zm9v",       //
      "Zm9v ",       //
      "Zm9-",        // URL alphabet
      "Zm9_",        //
      "Zm9v!",       // other characters
      "Z",           // truncated group
      "Zm9vY",       //
      "\xc3\xa9\xc3\xa9",
  };
  for (const auto text : invalid) {
    SCOPED_TRACE(text);
    EXPECT_EQ(base64_decode_padded(text), std::nullopt);
    EXPECT_EQ(Bytes::from_base64(text), std::nullopt);
  }
}

TEST(bytes_test, holds_binary_data) {
  const Bytes empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.size(), 0U);
  EXPECT_EQ(empty.to_base64(), "");
  EXPECT_EQ(Bytes::from_base64(""), empty);

  const Bytes zeros(std::string("\0a\0", 3));
  EXPECT_EQ(zeros.size(), 3U);
  EXPECT_EQ(zeros.view(), std::string_view("\0a\0", 3));
  EXPECT_EQ(zeros.str(), std::string("\0a\0", 3));
  EXPECT_EQ(zeros.to_base64(), "AGEA");
  EXPECT_EQ(Bytes::from_base64("AGEA"), zeros);
  ASSERT_EQ(zeros.bytes().size(), 3U);
  EXPECT_EQ(zeros.bytes()[0], std::byte{0});
  EXPECT_EQ(zeros.bytes()[1], std::byte{'a'});

  const std::array<std::byte, 3> raw = {std::byte{0xff}, std::byte{0x00}, std::byte{0x80}};
  const Bytes from_span{std::span<const std::byte>(raw)};
  EXPECT_EQ(from_span.view(), std::string_view("\xff\x00\x80", 3));
  EXPECT_EQ(from_span.to_base64(), "/wCA");

  EXPECT_EQ(Bytes("hello").view(), "hello");
  EXPECT_EQ(Bytes(std::string_view("hello")), Bytes("hello"));
  EXPECT_NE(Bytes("hello"), Bytes("hellO"));
  EXPECT_NE(Bytes(std::string("a\0", 2)), Bytes("a"));
}

TEST(bytes_test, round_trips_every_byte_value_and_length) {
  std::string all;
  for (int i = 0; i < 256; ++i) {
    all.push_back(static_cast<char>(i));
  }
  for (std::size_t length = 0; length <= all.size(); ++length) {
    const Bytes data(all.substr(all.size() - length));
    const std::string encoded = data.to_base64();
    EXPECT_EQ(encoded.size(), (length + 2) / 3 * 4);
    const auto decoded = Bytes::from_base64(encoded);
    ASSERT_TRUE(decoded.has_value()) << length;
    EXPECT_EQ(*decoded, data) << length;
    // The lenient decoder agrees with the strict one on well-formed input.
    EXPECT_EQ(kubex::base64_decode(encoded), data.str()) << length;
  }
}

TEST(bytes_test, decodes_secret_data) {
  // `kubectl create secret generic s --from-literal=password='p@ss w0rd!'`
  const auto password = Bytes::from_base64("cEBzcyB3MHJkIQ==");
  ASSERT_TRUE(password.has_value());
  EXPECT_EQ(password->view(), "p@ss w0rd!");
  // PEM data as some tools wrap it at 76 characters.
  const auto wrapped = Bytes::from_base64(
      "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENCKzZnQXdJQkFnSUJBVEFLQmdncWhr\n"
      "ak9QUVFEQWpBUE1RMD0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=\n");
  ASSERT_TRUE(wrapped.has_value());
  EXPECT_EQ(wrapped->view().substr(0, 27), "-----BEGIN CERTIFICATE-----");
}

}  // namespace
