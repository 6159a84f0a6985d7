// SPDX-License-Identifier: Apache-2.0
// Decoding lists while they arrive (json::ListDecoder): whatever the pieces the body comes in,
// the result is json::decode's, the bytes of decoded items are dropped, and malformed lists
// fail naming where.

#include <kubex/core/json_list.hpp>
#include <kubex/core/json_object.hpp>
#include <kubex/core/raw_json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

struct Item {
  std::optional<std::string> name;
  std::optional<std::int64_t> n;
  std::optional<kubex::RawJson> x;  // read verbatim, nesting limit and all
  bool operator==(const Item&) const = default;
};
KUBEX_JSON_OBJECT(Item, name, n, x)

struct Meta {
  std::optional<std::string> resourceVersion;
  std::vector<std::string> items;  // a nested "items" that is not the list's
  bool operator==(const Meta&) const = default;
};
KUBEX_JSON_OBJECT(Meta, resourceVersion, items)

struct List {
  std::string kind;
  Meta metadata;
  std::vector<Item> items;
  bool operator==(const List&) const = default;
};
KUBEX_JSON_OBJECT(List, kind, metadata, items)

using kubex::json::DecodeError;
using kubex::json::ListDecoder;

// Feeds `json` in pieces of `piece` bytes, as a transport would, and finishes.
List feed_in_pieces(const std::string& json, std::size_t piece, std::size_t* largest = nullptr) {
  ListDecoder<List> decoder(0);  // splits from the first byte
  decoder.restart();
  std::string body;
  for (std::size_t at = 0; at < json.size(); at += piece) {
    body.append(json, at, piece);
    decoder.feed(body);
    if (largest != nullptr && body.size() > *largest) {
      *largest = body.size();
    }
  }
  return decoder.finish(body);
}

// What json::decode makes of `json`, or its error.
std::string decode_whole(const std::string& json, List& out) {
  try {
    kubex::json::decode(json, out);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return {};
}

std::string decode_fed(const std::string& json, std::size_t piece, List& out) {
  try {
    out = feed_in_pieces(json, piece);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return {};
}

// Every piece size from 1 byte to the whole document agrees with json::decode.
void expect_same_as_decode(const std::string& json) {
  List whole;
  const std::string whole_error = decode_whole(json, whole);
  for (std::size_t piece = 1; piece <= json.size(); ++piece) {
    List fed;
    const std::string fed_error = decode_fed(json, piece, fed);
    ASSERT_EQ(fed_error.empty(), whole_error.empty())
        << "piece " << piece << ": " << fed_error << " / " << whole_error << "\n"
        << json;
    if (whole_error.empty()) {
      ASSERT_EQ(fed, whole) << "piece " << piece << "\n" << json;
    }
  }
}

TEST(ListDecoder, AgreesWithDecodeWhateverThePieces) {
  const std::vector<std::string> documents = {
      R"({"kind":"List","metadata":{"resourceVersion":"7"},"items":[{"name":"a","n":1},{"name":"b"}]})",
      R"({"kind":"List","items":[],"metadata":{"resourceVersion":"8"}})",
      R"({ "items" : [ { "name" : "x\"]}{[" , "n" : -3 } , {} ] , "kind" : "L" })",
      R"({"metadata":{"items":["not","these"]},"items":[{"name":"\\"},{"name":"\u005d"}]})",
      R"({"kind":"List","items":null})",
      R"({"kind":"List"})",
      R"({"it\u0065ms":[{"name":"escaped key"}],"kind":"L"})",
      "\t{\"items\"\n:\r[{\"n\":1}\n,\n{\"n\":2}\t]}\n",
      R"({"items":[{"name":"a","unknown":{"deep":[[[{"x":"]"}]]]}}]})",
      R"({"items":[{"x":{"deep":[[[{"x":"]"}]]]}}]})",
  };
  for (const auto& json : documents) {
    expect_same_as_decode(json);
  }
}

TEST(ListDecoder, AgreesWithDecodeForLongItemsAtEveryAlignment) {
  // Items longer than the 64-byte blocks scanned at once, with quotes, escapes and brackets
  // inside strings at every offset from a block's start.
  for (std::size_t offset = 0; offset < 70; ++offset) {
    const std::string name = std::string(offset, 'x') + R"(\"]}{[\\)" + std::string(64, 'y') +
                             R"(\\\"[[)" + std::string(offset % 7, 'z');
    const std::string json = R"({"kind":"L","items":[{"name":")" + name +
                             R"(","x":{"a":[[{"b":"]"}],{}]}},{"n":)" + std::to_string(offset) +
                             R"(,"x":[)" + std::string(offset, ' ') + "]}]}";
    expect_same_as_decode(json);
    List list = feed_in_pieces(json, 5);
    ASSERT_EQ(list.items.size(), 2U);
    EXPECT_EQ(list.items[1].n, static_cast<std::int64_t>(offset));
  }
}

TEST(ListDecoder, FailsWhereDecodeFails) {
  const std::vector<std::string> documents = {
      R"({"items":[{"n":"one"}]})",         // an item that does not fit
      R"({"items":[{"n":1}{"n":2}]})",      // a missing comma between items
      R"({"items":[{"n":1},]})",            // a trailing comma
      R"({"items":[,{"n":1}]})",            // a leading comma
      R"({"items":[{"n":1}],"kind":5})",    // the list's own field after the items
      R"({"kind":5,"items":[{"n":1}]})",    // and before them
      R"({"items":[{"n":1}]} trailing)",    // content after the document
      R"({"items":[{"n":1},2]})",           // an item that is no object
      R"({"items":[{"n":1}])",              // the list never closed
      R"({"items":[{"n":1})",               // nor its items
      R"([{"n":1}])",                       // not an object
      "{\"items\":[{\"name\":\"\x01\"}]}",  // a control character in an item
      "{\"items\":[{\"name\":\"\xff\"}]}",  // invalid UTF-8 in an item
      "{\"kind\":\"\xff\",\"items\":[]}",   // and in the list's own fields
      "{\"items\":[{\"n\":1}\x01]}",        // a control character between items
  };
  for (const auto& json : documents) {
    List whole;
    EXPECT_FALSE(decode_whole(json, whole).empty()) << "json::decode accepted " << json;
    List fed;
    EXPECT_FALSE(decode_fed(json, json.size(), fed).empty()) << "ListDecoder accepted " << json;
    expect_same_as_decode(json);
  }
}

TEST(ListDecoder, NamesTheItemThatDoesNotFit) {
  const std::string json = R"({"items":[{"n":1},{"n":"two"}]})";
  for (std::size_t piece : {std::size_t{1}, std::size_t{7}, json.size()}) {
    List out;
    EXPECT_EQ(decode_fed(json, piece, out), "items[1].n: expected an integer, got a string")
        << piece;
  }
}

TEST(ListDecoder, ReportsMalformedSeparatorsAtItems) {
  List out;
  EXPECT_EQ(decode_fed(R"({"items":[{}{}]})", 3, out),
            "items: invalid JSON: expected ',' or ']' after an item");
  EXPECT_EQ(decode_fed(R"({"items":[{},]})", 3, out), "items: invalid JSON: expected an item");
  EXPECT_EQ(decode_fed(R"({"items":[{},{})", 3, out),
            "items: invalid JSON: unexpected end of the document");
}

TEST(ListDecoder, RejectsASecondItemsKey) {
  List out;
  EXPECT_EQ(decode_fed(R"({"items":[{"n":1}],"items":[]})", 4, out),
            "items: the key appears twice in the list");
  EXPECT_EQ(decode_fed(R"({"items":[{"n":1}],"it\u0065ms":[]})", 4, out),
            "items: the key appears twice in the list");
}

TEST(ListDecoder, DropsTheBytesOfDecodedItems) {
  std::string json = R"({"kind":"List","metadata":{"resourceVersion":"1"},"items":[)";
  for (int i = 0; i < 20000; ++i) {
    json += (i == 0 ? "" : ",") + std::string(R"({"name":"item-)") + std::to_string(i) +
            R"(","n":)" + std::to_string(i) + "}";
  }
  json += "]}";
  std::size_t largest = 0;
  const List list = feed_in_pieces(json, 1000, &largest);
  ASSERT_EQ(list.items.size(), 20000U);
  EXPECT_EQ(list.items[19999].name, "item-19999");
  EXPECT_EQ(list.metadata.resourceVersion, "1");
  // Decoded items are dropped once 64 KiB of them have piled up, against ~600 KB in all.
  EXPECT_LT(largest, 66U * 1024U + 1000U);
  List whole;
  kubex::json::decode(json, whole);
  EXPECT_EQ(list, whole);
}

TEST(ListDecoder, RestartForgetsAnAbandonedAttempt) {
  const std::string json = R"({"kind":"List","items":[{"n":1},{"n":2}]})";
  ListDecoder<List> decoder(0);  // splits from the first byte
  std::string body = json.substr(0, 30);
  decoder.feed(body);  // the first attempt breaks off
  decoder.restart();
  body = json;
  decoder.feed(body);
  const List list = decoder.finish(body);
  ASSERT_EQ(list.items.size(), 2U);
  EXPECT_EQ(list.items[1].n, 2);
}

TEST(ListDecoder, LeavesASmallBodyWholeForFinish) {
  const std::string prefix = R"({"kind":"List","items":[{"n":1},{"n":2},)";
  const std::string json = prefix + R"({"n":3}]})";
  // A decoder that splits from the first byte drops the two complete items at once...
  ListDecoder<List> eager(0);
  std::string eager_body = prefix;
  eager.feed(eager_body);
  EXPECT_LT(eager_body.size(), prefix.size());
  // ...one with the default threshold leaves the small body whole for finish().
  ListDecoder<List> decoder;
  std::string body = prefix;
  decoder.feed(body);
  EXPECT_EQ(body, prefix);
  body = json;
  decoder.feed(body);
  EXPECT_EQ(body, json);
  EXPECT_EQ(decoder.finish(body), kubex::json::decode<List>(json));
}

TEST(ListDecoder, StartsSplittingAtTheThreshold) {
  std::string json = R"({"kind":"List","items":[)";
  for (int i = 0; i < 20000; ++i) {
    json += (i == 0 ? "" : ",") + std::string(R"({"name":"item-)") + std::to_string(i) + "\"}";
  }
  json += "]}";
  ListDecoder<List> decoder;
  std::string body;
  std::size_t largest = 0;
  std::size_t first_drop_at = 0;  // body size when decoded bytes were first dropped
  for (std::size_t at = 0; at < json.size(); at += 1000) {
    body.append(json, at, 1000);
    const std::size_t fed = body.size();
    decoder.feed(body);
    if (first_drop_at == 0 && body.size() < fed) {
      first_drop_at = fed;
    }
    largest = std::max(largest, body.size());
  }
  EXPECT_GE(first_drop_at, ListDecoder<List>::default_split_after);
  // Split from the threshold on, and dropped once 64 KiB are decoded: ~500 KB never pile up.
  EXPECT_LT(largest, ListDecoder<List>::default_split_after + 66U * 1024U + 1000U);
  EXPECT_EQ(decoder.finish(body), kubex::json::decode<List>(json));
}

TEST(ListDecoder, DecodesTheWholeBodyWhenNothingWasFed) {
  // A compressed answer is not shown to the decoder while it arrives.
  ListDecoder<List> decoder(0);  // splits from the first byte
  const List list = decoder.finish(R"({"kind":"List","items":[{"n":5}]})");
  ASSERT_EQ(list.items.size(), 1U);
  EXPECT_EQ(list.items[0].n, 5);
}

TEST(ListDecoder, LimitsNestingAsDecodeDoes) {
  // Within the limit both decode; past it both fail, whichever way the body arrives.
  for (const std::size_t levels : {std::size_t{1020}, std::size_t{1030}}) {
    std::string json = R"({"items":[{"name":"a","x":)";
    json += std::string(levels, '[') + std::string(levels, ']') + "}]}";
    const bool within = levels < 1024;
    List whole;
    const std::string whole_error = decode_whole(json, whole);
    EXPECT_EQ(whole_error.empty(), within) << levels << " levels: " << whole_error;
    List fed;
    const std::string fed_error = decode_fed(json, 7, fed);
    EXPECT_EQ(fed_error.empty(), within) << levels << " levels: " << fed_error;
    if (within) {
      ASSERT_EQ(fed.items.size(), 1U);
      EXPECT_EQ(fed.items[0].name, "a");
    } else {
      EXPECT_NE(whole_error.find("nesting deeper than 1024 levels"), std::string::npos)
          << whole_error;
      EXPECT_NE(fed_error.find("nesting deeper than 1024 levels"), std::string::npos) << fed_error;
    }
    expect_same_as_decode(json);
  }
}

}  // namespace
