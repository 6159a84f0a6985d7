// SPDX-License-Identifier: Apache-2.0
// Watch event decoding: the object goes straight into its type whatever the field order, an
// ERROR event carries the Status, and malformed events fail naming what is wrong.

#include <kubex/core/json_object.hpp>
#include <kubex/core/metadata.hpp>
#include <kubex/core/watch.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace {

struct Meta {
  std::optional<std::string> name;
  std::optional<std::string> resourceVersion;
};
KUBEX_JSON_OBJECT(Meta, name, resourceVersion)

struct Thing {
  std::string kind;
  Meta metadata;
  std::optional<std::int32_t> size;
};
KUBEX_JSON_OBJECT(Thing, kind, metadata, size)

using kubex::WatchEvent;
using kubex::WatchEventType;

TEST(watch_event_test, decodes_object_in_place) {
  WatchEvent<Thing> e;
  kubex::decode_watch_event(
      R"({"type":"MODIFIED","object":{"kind":"Thing","metadata":{"name":"a","resourceVersion":"5"},"size":3}})",
      e);
  EXPECT_EQ(e.type, WatchEventType::modified);
  EXPECT_EQ(e.object.metadata.name, "a");
  EXPECT_EQ(e.object.size, 3);
}

TEST(watch_event_test, object_before_type_is_decoded_too) {
  WatchEvent<Thing> e;
  kubex::decode_watch_event(R"({"object":{"metadata":{"name":"b"}},"type":"DELETED"})", e);
  EXPECT_EQ(e.type, WatchEventType::deleted);
  EXPECT_EQ(e.object.metadata.name, "b");
}

TEST(watch_event_test, repeated_keys) {
  // The apiserver never repeats a key; a line that does is read as any document is (the last
  // "object" wins, wherever "type" is), except that a second "type" is an error: the object
  // may already have been read as the first one's kind of object.
  WatchEvent<Thing> e;
  kubex::decode_watch_event(
      R"({"object":{"metadata":{"name":"first"}},"type":"ADDED","object":{"metadata":{"name":"last"}}})",
      e);
  EXPECT_EQ(e.object.metadata.name, "last");
  kubex::decode_watch_event(
      R"({"type":"ADDED","object":{"metadata":{"name":"first"}},"object":{"metadata":{"name":"last"}}})",
      e);
  EXPECT_EQ(e.object.metadata.name, "last");
  try {
    kubex::decode_watch_event(R"({"type":"ADDED","object":{},"type":"ERROR"})", e);
    ADD_FAILURE() << "no error";
  } catch (const kubex::json::DecodeError& err) {
    EXPECT_STREQ(err.what(), "type: watch event with a second \"type\"");
  }
}

TEST(watch_event_test, bookmark_and_every_type_name) {
  WatchEvent<Thing> e;
  for (const auto t : {WatchEventType::added, WatchEventType::modified, WatchEventType::deleted,
                       WatchEventType::bookmark}) {
    std::string line = R"({"type":")";
    line.append(kubex::to_string(t)).append(R"(","object":{"metadata":{"resourceVersion":"9"}}})");
    kubex::decode_watch_event(line, e);
    EXPECT_EQ(e.type, t);
    EXPECT_EQ(e.object.metadata.resourceVersion, "9");
  }
}

TEST(watch_event_test, error_event_carries_status) {
  WatchEvent<Thing> e;
  kubex::decode_watch_event(
      R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (200)","reason":"Expired","code":410}})j",
      e);
  EXPECT_EQ(e.type, WatchEventType::error);
  EXPECT_EQ(e.status.code, 410);
  EXPECT_EQ(e.status.reason, "Expired");
  EXPECT_EQ(e.status.message, "too old resource version: 1 (200)");
  // in the other field order as well
  kubex::decode_watch_event(R"({"object":{"code":500,"reason":"InternalError"},"type":"ERROR"})",
                            e);
  EXPECT_EQ(e.status.code, 500);
}

TEST(watch_event_test, malformed_events_name_the_problem) {
  WatchEvent<Thing> e;
  const auto message = [&](std::string_view line) -> std::string {
    try {
      kubex::decode_watch_event(line, e);
    } catch (const kubex::json::DecodeError& err) {
      return err.what();
    }
    return "no error";
  };
  EXPECT_EQ(message(R"({"type":"RENAMED","object":{}})"),
            "type: unknown watch event type \"RENAMED\"");
  EXPECT_NE(message(R"({"object":{}})").find("without a \"type\""), std::string::npos);
  EXPECT_NE(message(R"({"type":"ADDED"})").find("without an \"object\""), std::string::npos);
  EXPECT_EQ(message(R"({"type":"ADDED","object":{"size":"big"}})"),
            "object.size: expected an integer, got a string");
  EXPECT_EQ(message(R"({"object":{"size":"big"},"type":"ADDED"})"),
            "object.size: expected an integer, got a string");
  EXPECT_NE(message(R"({"type":"ADDED","object":)"), "no error");
}

TEST(partial_metadata_test, keeps_metadata_and_skips_the_rest) {
  auto m = kubex::json::decode<kubex::PartialObjectMeta<Thing>>(
      R"({"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"x"}})");
  EXPECT_EQ(m.metadata.name, "x");
  EXPECT_EQ(m.kind, "PartialObjectMetadata");
  auto list = kubex::json::decode<kubex::PartialObjectMetaList<Thing>>(
      R"({"kind":"PartialObjectMetadataList","metadata":{"resourceVersion":"3","continue":"c"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})");
  ASSERT_EQ(list.items.size(), 2U);
  EXPECT_EQ(list.items[1].metadata.name, "b");
  EXPECT_EQ(list.metadata.continue_, "c");
  EXPECT_EQ(list.metadata.resource_version, "3");
}

}  // namespace
