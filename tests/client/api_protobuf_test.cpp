// SPDX-License-Identifier: Apache-2.0
// ClientOptions::encoding = protobuf through kubex::testing::ScriptedTransport: built-in kinds
// ask for protobuf with JSON as the fallback, each answer is read as its Content-Type says, and
// a watch answered in protobuf is cut into frames. The script is a test double, used for the
// malformed bodies and streams a real server does not send; against the real apiserver: the
// pb. copies of tests/integration/api_test.cpp and tests/integration/protobuf_api_test.cpp.

#include <kubex/client/api.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_object.hpp>
#include <kubex/core/quantity.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/testing/scripted_transport.hpp>

#include "api_scripted_fixture.hpp"

#include <boost/asio/use_future.hpp>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace {

namespace core = kubex::k8s::v1_35::core::v1;
namespace pb = kubex::protobuf;
using kubex::client::Api;
using kubex::testing::Step;
using kubex::testing::StreamPiece;
using kubex_test::api_scripted_test;
using kubex_test::ns_pods;
using kubex_test::pod_json;

// A Pod message: metadata (name 1, namespace 3, resourceVersion 6).
std::string pod_message(const std::string& name, const std::string& rv) {
  std::string raw;
  pb::Writer w(raw);
  w.message(1, [&](pb::Writer& m) {
    m.bytes(1, name);
    m.bytes(3, "ns");
    m.bytes(6, rv);
  });
  return raw;
}

kubex::client::HttpResponse protobuf_response(unsigned status, std::string body) {
  return {.status = status, .content_type = std::string(pb::media_type), .body = std::move(body)};
}

class api_protobuf_test : public api_scripted_test {
 protected:
  api_protobuf_test() {
    transport_->encoding(kubex::client::Encoding::protobuf);
    pods_ = Api<core::Pod>::namespaced(client_, "ns");
  }
  void answer(const std::string& method, const std::string& target,
              kubex::client::HttpResponse response, std::size_t piece_size = 0) {
    Step step;
    step.method = method;
    step.target = target;
    step.response = std::move(response);
    step.piece_size = piece_size;
    step.check = [](const kubex::client::HttpRequest& r) {
      return r.accept == kubex::client::accept_protobuf;
    };
    transport_->expect(std::move(step));
  }
};

TEST_F(api_protobuf_test, objects_and_lists_are_read_from_protobuf) {
  answer("GET", ns_pods + "/web-0",
         protobuf_response(200, pb::seal_envelope("v1", "Pod", pod_message("web-0", "42"))));
  std::string list;
  pb::Writer w(list);
  w.message(1, [](pb::Writer& m) { m.bytes(2, "100"); });  // ListMeta.resourceVersion
  for (int i = 0; i < 3000; ++i) {
    w.bytes(2, pod_message("pod-" + std::to_string(i), "1"));
  }
  // About 50 KB in 7-byte pieces: past the 16 KiB where the list's reader starts decoding
  // items as they arrive.
  answer("GET", ns_pods, protobuf_response(200, pb::seal_envelope("v1", "PodList", list)), 7);
  // A JSON answer (what the server sends where it has no protobuf) is read as JSON.
  answer("GET", ns_pods + "/web-1",
         {.status = 200, .content_type = "application/json", .body = pod_json("web-1", "7")});

  const core::Pod pod = wait(pods_.async_get("web-0", boost::asio::use_future));
  EXPECT_EQ(pod.metadata.name, "web-0");
  EXPECT_EQ(pod.metadata.resource_version, "42");
  const core::PodList pods = wait(pods_.async_list(boost::asio::use_future));
  ASSERT_EQ(pods.items.size(), 3000U);
  EXPECT_EQ(pods.items[2999].metadata.name, "pod-2999");
  EXPECT_EQ(pods.metadata.resource_version, "100");
  EXPECT_EQ(wait(pods_.async_get("web-1", boost::asio::use_future)).metadata.resource_version, "7");
}

// What a create or replace sent, decoded as the server would.
struct Sent {
  std::string content_type;
  std::string body;
};

TEST_F(api_protobuf_test, writes_send_protobuf_unless_only_json_keeps_every_field) {
  std::vector<Sent> sent;
  const auto record = [&sent](const kubex::client::HttpRequest& r) {
    sent.push_back({r.content_type, r.body});
    return r.accept == kubex::client::accept_protobuf;
  };
  const auto created =
      protobuf_response(201, pb::seal_envelope("v1", "Pod", pod_message("web-0", "5")));
  for (const auto* method : {"POST", "PUT", "PUT"}) {
    Step step;
    step.method = method;
    step.target = std::string(method) == "POST" ? ns_pods : ns_pods + "/web-0";
    step.check = record;
    step.response = created;
    transport_->expect(std::move(step));
  }

  core::Pod pod;
  pod.metadata.name = "web-0";
  pod.metadata.labels["app"] = "web";
  auto& c = pod.spec.ensure().containers.emplace_back();
  c.name = "main";
  c.image = "registry.k8s.io/pause:3.10";
  c.resources.ensure().limits["cpu"] = kubex::Quantity::must_parse("250m");
  c.ports.emplace_back().container_port = 8080;
  // Fields of a newer server the model does not know, read from protobuf: written back.
  std::string future;
  pb::Writer(future).bytes(9999, "from a newer server");
  pod.unknown_fields.add_protobuf(future);
  (void)wait(pods_.async_create(pod, boost::asio::use_future));
  (void)wait(pods_.async_replace(pod, boost::asio::use_future));
  // One read from JSON: only JSON can write it back, so JSON is sent.
  pod.spec->containers[0].unknown_fields.add("futureField", "{\"a\":1}");
  (void)wait(pods_.async_replace(pod, boost::asio::use_future));

  ASSERT_EQ(sent.size(), 3U);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(sent[i].content_type, pb::media_type);
    const pb::Envelope e = pb::open_envelope(sent[i].body);
    EXPECT_EQ(e.api_version, "v1");
    EXPECT_EQ(e.kind, "Pod");
    core::Pod back;
    pb::decode_object(sent[i].body, back);
    core::Pod expected = pod;
    expected.spec->containers[0].unknown_fields.clear();
    EXPECT_EQ(back, expected);
    EXPECT_EQ(back.unknown_fields.protobuf(), future);
  }
  EXPECT_EQ(sent[2].content_type, "application/json");
  EXPECT_NE(sent[2].body.find(R"("futureField":{"a":1})"), std::string::npos) << sent[2].body;
}

TEST_F(api_protobuf_test, a_protobuf_body_of_another_kind_is_refused) {
  answer("GET", ns_pods + "/web-0",
         protobuf_response(200, pb::seal_envelope("apps/v1", "Deployment", pod_message("x", "1"))));
  try {
    (void)wait(pods_.async_get("web-0", boost::asio::use_future));
    FAIL() << "a Deployment was read as a Pod";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_EQ(std::string(e.what()), "the response is a Deployment (apps/v1), not a Pod (v1)");
  }
}

TEST_F(api_protobuf_test, errors_and_deletes_answer_with_a_protobuf_status) {
  std::string status;
  pb::Writer w(status);
  w.bytes(2, "Failure");
  w.bytes(3, R"(pods "gone" not found)");
  w.bytes(4, "NotFound");
  w.int64(6, 404);
  answer("GET", ns_pods + "/gone",
         protobuf_response(404, pb::seal_envelope("v1", "Status", status)));
  std::string success;
  pb::Writer ws(success);
  ws.bytes(2, "Success");
  answer("DELETE", ns_pods + "/web-0",
         protobuf_response(200, pb::seal_envelope("v1", "Status", success)));

  try {
    (void)wait(pods_.async_get("gone", boost::asio::use_future));
    FAIL() << "a 404 decoded as a pod";
  } catch (const kubex::ApiError& e) {
    EXPECT_TRUE(kubex::is_not_found(e));
    EXPECT_EQ(e.status().message, R"(pods "gone" not found)");
  }
  const auto deleted = wait(pods_.async_delete("web-0", boost::asio::use_future));
  ASSERT_TRUE(std::holds_alternative<kubex::Status>(deleted));
  EXPECT_EQ(std::get<kubex::Status>(deleted).status, "Success");
}

// A watch frame: the 4-byte big-endian length and a metav1.WatchEvent (type 1, object 2 as a
// RawExtension whose raw 1 is a whole body).
std::string watch_frame(std::string_view type, std::string_view object_body) {
  std::string event;
  pb::Writer w(event);
  w.bytes(1, type);
  w.message(2, [&](pb::Writer& m) { m.bytes(1, object_body); });
  std::string frame;
  for (int shift = 24; shift >= 0; shift -= 8) {
    frame.push_back(static_cast<char>((event.size() >> static_cast<unsigned>(shift)) & 0xFFU));
  }
  return frame + event;
}

std::string status_message(std::int64_t code, std::string_view reason) {
  std::string status;
  pb::Writer w(status);
  w.bytes(2, "Failure");
  w.bytes(3, "too old resource version");
  w.bytes(4, reason);
  w.int64(6, code);
  return status;
}

const std::string watch_media_type = std::string(pb::media_type) + ";stream=watch";

// A watch answered in protobuf, whose body is `stream` cut into pieces of `piece` bytes.
Step protobuf_watch(const std::string& stream, std::size_t piece) {
  Step step;
  step.target = ns_pods + "?watch=true";
  step.response.content_type = watch_media_type;
  step.check = [](const kubex::client::HttpRequest& r) {
    return r.accept == kubex::client::accept_protobuf;
  };
  for (std::size_t at = 0; at < stream.size(); at += piece) {
    step.stream.push_back(StreamPiece{.bytes = stream.substr(at, piece)});
  }
  return step;
}

TEST_F(api_protobuf_test, a_watch_reads_protobuf_frames_in_any_pieces) {
  const std::string stream =
      watch_frame("ADDED", pb::seal_envelope("v1", "Pod", pod_message("a", "5"))) +
      watch_frame("BOOKMARK", pb::seal_envelope("v1", "Pod", pod_message("", "8"))) +
      watch_frame("ERROR", pb::seal_envelope("v1", "Status", status_message(410, "Expired")));
  for (const std::size_t piece : {std::size_t{1}, std::size_t{5}, stream.size()}) {
    SCOPED_TRACE(piece);
    transport_->expect(protobuf_watch(stream, piece));
    auto watch = wait(pods_.async_watch({}, boost::asio::use_future));
    EXPECT_EQ(watch.head().content_type, watch_media_type);
    auto added = wait(watch.async_next(boost::asio::use_future));
    ASSERT_TRUE(added);
    EXPECT_EQ(added->type, kubex::WatchEventType::added);
    EXPECT_EQ(added->object.metadata.name, "a");
    EXPECT_EQ(added->object.metadata.resource_version, "5");
    EXPECT_EQ(added->object.kind, "Pod");
    auto bookmark = wait(watch.async_next(boost::asio::use_future));
    ASSERT_TRUE(bookmark);
    EXPECT_EQ(bookmark->type, kubex::WatchEventType::bookmark);
    EXPECT_EQ(bookmark->object.metadata.resource_version, "8");
    auto error = wait(watch.async_next(boost::asio::use_future));
    ASSERT_TRUE(error);
    EXPECT_EQ(error->type, kubex::WatchEventType::error);
    EXPECT_EQ(error->status.code, 410);
    EXPECT_EQ(error->status.reason, "Expired");
    EXPECT_FALSE(wait(watch.async_next(boost::asio::use_future)));  // the server ended it
  }
}

TEST_F(api_protobuf_test, a_malformed_frame_fails_alone_and_the_watch_goes_on) {
  const std::string stream =
      watch_frame("ADDED", "not an envelope") +
      watch_frame("ADDED", pb::seal_envelope("apps/v1", "Deployment", pod_message("d", "6"))) +
      watch_frame("RENAMED", pb::seal_envelope("v1", "Pod", pod_message("r", "6"))) +
      watch_frame("MODIFIED", pb::seal_envelope("v1", "Pod", pod_message("a", "7")));
  transport_->expect(protobuf_watch(stream, 3));
  auto watch = wait(pods_.async_watch({}, boost::asio::use_future));
  EXPECT_THROW((void)wait(watch.async_next(boost::asio::use_future)), pb::DecodeError);
  try {
    (void)wait(watch.async_next(boost::asio::use_future));
    FAIL() << "a Deployment was read as a Pod";
  } catch (const kubex::json::DecodeError& e) {
    EXPECT_EQ(std::string(e.what()), "the response is a Deployment (apps/v1), not a Pod (v1)");
  }
  try {
    (void)wait(watch.async_next(boost::asio::use_future));
    FAIL() << "an unknown event type was read";
  } catch (const pb::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("RENAMED"), std::string::npos) << e.what();
  }
  auto modified = wait(watch.async_next(boost::asio::use_future));
  ASSERT_TRUE(modified);
  EXPECT_EQ(modified->type, kubex::WatchEventType::modified);
  EXPECT_EQ(modified->object.metadata.resource_version, "7");
  EXPECT_FALSE(wait(watch.async_next(boost::asio::use_future)));
}

TEST_F(api_protobuf_test, a_frame_over_the_limit_ends_the_watch_before_it_arrives) {
  const std::string big(300, 'x');
  // Only the big frame's length prefix is sent: it is refused from that alone.
  const std::string stream =
      watch_frame("ADDED", pb::seal_envelope("v1", "Pod", pod_message("a", "5"))) +
      watch_frame("ADDED", pb::seal_envelope("v1", "Pod", pod_message(big, "6"))).substr(0, 4);
  Step step = protobuf_watch(stream, stream.size());
  step.hold_open = true;
  transport_->expect(step);
  auto watch = wait(pods_.async_watch({}, boost::asio::use_future));
  watch.set_max_item_size(200);
  EXPECT_TRUE(wait(watch.async_next(boost::asio::use_future)));
  for (int i = 0; i < 2; ++i) {  // and for good: what follows cannot be framed
    try {
      (void)wait(watch.async_next(boost::asio::use_future));
      FAIL() << "a frame over the limit was read";
    } catch (const kubex::Error& e) {
      EXPECT_TRUE(kubex::Failure(std::current_exception()).too_large()) << e.what();
      EXPECT_NE(std::string(e.what()).find("exceeds the limit of 200 bytes"), std::string::npos)
          << e.what();
    }
  }
  watch.cancel();
}

TEST_F(api_protobuf_test, a_watch_that_ends_inside_a_frame_is_an_error_not_an_end) {
  const std::string frame =
      watch_frame("ADDED", pb::seal_envelope("v1", "Pod", pod_message("a", "5")));
  transport_->expect(protobuf_watch(frame + frame.substr(0, frame.size() - 2), 7));
  auto watch = wait(pods_.async_watch({}, boost::asio::use_future));
  EXPECT_TRUE(wait(watch.async_next(boost::asio::use_future)));
  try {
    (void)wait(watch.async_next(boost::asio::use_future));
    FAIL() << "a truncated frame ended the watch cleanly";
  } catch (const pb::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("ended inside a frame"), std::string::npos) << e.what();
  }
}

TEST_F(api_protobuf_test, a_watch_answered_in_json_is_read_as_lines) {
  Step step;
  step.target = ns_pods + "?watch=true";
  step.stream = {StreamPiece{.bytes = R"({"type":"ADDED","object":)" + pod_json("a") + "}\n"}};
  transport_->expect(step);
  auto watch = wait(pods_.async_watch({}, boost::asio::use_future));
  auto added = wait(watch.async_next(boost::asio::use_future));
  ASSERT_TRUE(added);
  EXPECT_EQ(added->object.metadata.name, "a");
  EXPECT_FALSE(wait(watch.async_next(boost::asio::use_future)));
}

TEST_F(api_protobuf_test, metadata_only_calls_ask_for_and_read_protobuf) {
  const auto asks_metadata = [](std::string_view accept) {
    return [accept](const kubex::client::HttpRequest& r) {
      return r.accept == accept;
    };
  };
  // A PartialObjectMetadataList (metadata 1: resourceVersion 2, continue 3; items 2) whose
  // items are PartialObjectMetadata (metadata 1), as the apiserver sends it.
  std::string list;
  pb::Writer w(list);
  w.message(1, [](pb::Writer& m) {
    m.bytes(2, "100");
    m.bytes(3, "");  // Go writes the empty continue: it reads as absent, as in JSON
  });
  for (int i = 0; i < 3; ++i) {
    w.bytes(2, pod_message("pod-" + std::to_string(i), "9"));
  }
  Step listed;
  listed.target = ns_pods;
  listed.response = protobuf_response(
      200, pb::seal_envelope("meta.k8s.io/v1", "PartialObjectMetadataList", list));
  listed.check = asks_metadata(kubex::accept_metadata_list_protobuf);
  transport_->expect(listed);
  Step got;
  got.target = ns_pods + "/pod-0";
  got.response = protobuf_response(
      200, pb::seal_envelope("meta.k8s.io/v1", "PartialObjectMetadata", pod_message("pod-0", "9")));
  got.check = asks_metadata(kubex::accept_metadata_protobuf);
  transport_->expect(got);
  Step watched = protobuf_watch(
      watch_frame("MODIFIED", pb::seal_envelope("meta.k8s.io/v1", "PartialObjectMetadata",
                                                pod_message("pod-1", "10"))),
      4);
  watched.check = asks_metadata(kubex::accept_metadata_protobuf);
  transport_->expect(watched);

  const auto metas = wait(pods_.async_list_metadata({}, boost::asio::use_future));
  ASSERT_EQ(metas.items.size(), 3U);
  EXPECT_EQ(metas.kind, "PartialObjectMetadataList");
  EXPECT_EQ(metas.metadata.resource_version, "100");
  EXPECT_FALSE(metas.metadata.continue_.has_value());
  EXPECT_EQ(metas.items[2].metadata.name, "pod-2");
  const auto meta = wait(pods_.async_get_metadata("pod-0", boost::asio::use_future));
  EXPECT_EQ(meta.kind, "PartialObjectMetadata");
  EXPECT_EQ(meta.metadata.resource_version, "9");
  auto watch = wait(pods_.async_watch_metadata({}, boost::asio::use_future));
  auto event = wait(watch.async_next(boost::asio::use_future));
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, kubex::WatchEventType::modified);
  EXPECT_EQ(event->object.metadata.name, "pod-1");
  EXPECT_EQ(event->object.metadata.resource_version, "10");
  EXPECT_FALSE(wait(watch.async_next(boost::asio::use_future)));
}

}  // namespace
