// SPDX-License-Identifier: Apache-2.0
// Kubernetes protobuf as the real apiserver sends it, read with kubex::protobuf and compared
// field by field with the same objects read as JSON: one object, a list, metadata only, and a
// watch stream's frames. Each body's envelope, sealed again, must equal the server's bytes.
// Field numbers are those of k8s.io/api core/v1 and apimachinery meta/v1 generated.proto.

#include <kubex/client/blocking.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace core = kubex::k8s::v1_35::core::v1;
namespace pb = kubex::protobuf;
using kubex::client::BlockingClient;
using kubex::client::HttpRequest;
using kubex::client::HttpResponse;
using kubex::testing::shell_quote;

// What the test reads of an ObjectMeta (meta/v1 ObjectMeta: name 1, namespace 3, uid 5,
// resourceVersion 6, labels 11).
struct Meta {
  std::string name, ns, uid, resource_version;
  std::map<std::string, std::string> labels;
};

// A map<string, V> field's entry: key 1, value 2.
std::pair<std::string, std::string> map_entry(pb::Reader entry) {
  std::pair<std::string, std::string> kv;
  while (entry.next()) {
    if (entry.field() == 1) {
      kv.first = entry.string();
    } else if (entry.field() == 2) {
      kv.second = entry.bytes();
    }
  }
  return kv;
}

Meta read_meta(pb::Reader r) {
  Meta m;
  while (r.next()) {
    switch (r.field()) {
      case 1:
        m.name = r.string();
        break;
      case 3:
        m.ns = r.string();
        break;
      case 5:
        m.uid = r.string();
        break;
      case 6:
        m.resource_version = r.string();
        break;
      case 11:
        m.labels.insert(map_entry(r.message()));
        break;
      default:
        break;
    }
  }
  return m;
}

// A ConfigMap (core/v1: metadata 1, data 2, binaryData 3).
struct ConfigMap {
  Meta meta;
  std::map<std::string, std::string> data, binary_data;
};

ConfigMap read_config_map(std::string_view raw, std::size_t origin) {
  ConfigMap c;
  pb::Reader r(raw, origin);
  while (r.next()) {
    if (r.field() == 1) {
      c.meta = read_meta(r.message());
    } else if (r.field() == 2) {
      c.data.insert(map_entry(r.message()));
    } else if (r.field() == 3) {
      c.binary_data.insert(map_entry(r.message()));
    }
  }
  return c;
}

// Where `part` starts in `whole` (a view into it).
std::size_t origin_of(std::string_view part, std::string_view whole) {
  return static_cast<std::size_t>(part.data() - whole.data());
}

void expect_same(const ConfigMap& p, const core::ConfigMap& j) {
  EXPECT_EQ(p.meta.name, j.metadata.name.value_or(""));
  EXPECT_EQ(p.meta.ns, j.metadata.namespace_.value_or(""));
  EXPECT_EQ(p.meta.uid, j.metadata.uid.value_or(""));
  EXPECT_EQ(p.meta.resource_version, j.metadata.resource_version.value_or(""));
  EXPECT_EQ(p.meta.labels, j.metadata.labels);
  EXPECT_EQ(p.data, j.data);
  std::map<std::string, std::string> binary;
  for (const auto& [k, v] : j.binary_data) {
    binary.emplace(k, v.str());
  }
  EXPECT_EQ(p.binary_data, binary);
}

class protobuf_test : public kubex::testing::TestenvTest {
 protected:
  // Creates config maps cm-0 .. cm-{n-1} with a label, data and binary data (every byte
  // value, so bytes are bytes) in the test's namespace.
  void create_config_maps(int n) {
    kubex::testing::TempDir dir;
    std::string items;
    for (int i = 0; i < n; ++i) {
      items += std::string(i == 0 ? "" : ",") +
               R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-)" +
               std::to_string(i) + R"(","labels":{"app":"pb","i":")" + std::to_string(i) +
               R"("}},"data":{"k":"v)" + std::to_string(i) +
               R"(","text":"héllo"},"binaryData":{"b":"AAEC/f7/"}})";
    }
    const auto file =
        dir.write("list.json", R"({"apiVersion":"v1","kind":"List","items":[)" + items + "]}");
    (void)testenv().kubectl("apply -n " + shell_quote(own_namespace()) + " -f " +
                            shell_quote(file.string()));
  }

  HttpResponse get(BlockingClient& client, const std::string& target, std::string accept) {
    HttpRequest request;
    request.target = target;
    request.accept = std::move(accept);
    return client.send(std::move(request));
  }

  // The body opened, after checking the answer and that sealing it again gives its bytes.
  static pb::Envelope open(const HttpResponse& response, std::string_view kind) {
    EXPECT_EQ(response.status, 200U) << response.body.substr(0, 300);
    EXPECT_EQ(response.content_type, pb::media_type);
    const pb::Envelope e = pb::open_envelope(response.body);
    EXPECT_EQ(e.kind, kind);
    EXPECT_EQ(pb::seal_envelope(e.api_version, e.kind, e.raw), response.body)
        << "the envelope is not written as the apiserver writes it";
    return e;
  }
};

TEST_F(protobuf_test, an_object_reads_as_its_json_does) {
  create_config_maps(1);
  BlockingClient client(config());
  const std::string target = "/api/v1/namespaces/" + own_namespace() + "/configmaps/cm-0";
  const HttpResponse proto = get(client, target, std::string(pb::media_type));
  const pb::Envelope e = open(proto, "ConfigMap");
  EXPECT_EQ(e.api_version, "v1");
  EXPECT_TRUE(e.content_encoding.empty());
  EXPECT_TRUE(e.content_type.empty());
  const ConfigMap p = read_config_map(e.raw, origin_of(e.raw, proto.body));
  EXPECT_EQ(p.meta.labels.at("app"), "pb");
  EXPECT_EQ(p.binary_data.at("b"), std::string("\x00\x01\x02\xfd\xfe\xff", 6));
  EXPECT_EQ(p.data.at("text"), "héllo");
  expect_same(p, kubex::json::decode<core::ConfigMap>(client.get(target).body));
}

TEST_F(protobuf_test, a_list_holds_every_item_in_order) {
  create_config_maps(20);
  BlockingClient client(config());
  const std::string target =
      "/api/v1/namespaces/" + own_namespace() + "/configmaps?labelSelector=app%3Dpb";
  const HttpResponse proto = get(client, target, std::string(pb::media_type));
  const pb::Envelope e = open(proto, "ConfigMapList");
  // ConfigMapList: metadata 1 (ListMeta: resourceVersion 2), items 2.
  std::string list_rv;
  std::vector<ConfigMap> items;
  pb::Reader r(e.raw, origin_of(e.raw, proto.body));
  while (r.next()) {
    if (r.field() == 1) {
      pb::Reader list_meta = r.message();
      while (list_meta.next()) {
        if (list_meta.field() == 2) {
          list_rv = list_meta.string();
        }
      }
    } else if (r.field() == 2) {
      const std::string_view item = r.bytes();
      items.push_back(read_config_map(item, origin_of(item, proto.body)));
    }
  }
  const auto json = kubex::json::decode<core::ConfigMapList>(client.get(target).body);
  ASSERT_EQ(items.size(), 20U);
  ASSERT_EQ(json.items.size(), items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    expect_same(items[i], json.items[i]);
  }
  EXPECT_FALSE(list_rv.empty());
}

// Metadata only, as client-go's metadata client asks for it: the server converts to
// meta.k8s.io/v1 PartialObjectMetadataList (items 2, each metadata 1).
TEST_F(protobuf_test, metadata_only_lists_come_as_partial_object_metadata) {
  create_config_maps(3);
  BlockingClient client(config());
  const std::string target =
      "/api/v1/namespaces/" + own_namespace() + "/configmaps?labelSelector=app%3Dpb";
  const HttpResponse proto =
      get(client, target,
          std::string(pb::media_type) + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
  const pb::Envelope e = open(proto, "PartialObjectMetadataList");
  EXPECT_EQ(e.api_version, "meta.k8s.io/v1");
  std::set<std::string> names;
  pb::Reader r(e.raw);
  while (r.next()) {
    if (r.field() == 2) {
      pb::Reader item = r.message();
      while (item.next()) {
        if (item.field() == 1) {
          const Meta m = read_meta(item.message());
          EXPECT_EQ(m.labels.at("app"), "pb");
          names.insert(m.name);
        } else {
          ADD_FAILURE() << "field " << item.field() << " in metadata only";
        }
      }
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"cm-0", "cm-1", "cm-2"}));
}

// A watch is a stream of length-prefixed WatchEvent frames whose objects are whole protobuf
// bodies (envelope included). Changes made by kubectl arrive in order.
TEST_F(protobuf_test, a_watch_streams_frames_of_events) {
  BlockingClient client(config());
  const std::string ns = own_namespace();
  const auto list = get(client, "/api/v1/namespaces/" + ns + "/configmaps", "application/json");
  const auto rv =
      kubex::json::decode<core::ConfigMapList>(list.body).metadata.resource_version.value();
  HttpRequest request;
  request.target = "/api/v1/namespaces/" + ns + "/configmaps?watch=true&resourceVersion=" + rv +
                   "&timeoutSeconds=60&fieldSelector=metadata.name%3Dcm-0";
  request.accept = std::string(pb::media_type) + ";stream=watch";
  auto stream = client.open(std::move(request));
  ASSERT_EQ(stream.head().status, 200U) << stream.head().body;
  EXPECT_EQ(stream.head().content_type, std::string(pb::media_type) + ";stream=watch");

  create_config_maps(1);
  (void)testenv().kubectl("label configmap cm-0 changed=yes -n " + shell_quote(ns));
  (void)testenv().kubectl("delete configmap cm-0 -n " + shell_quote(ns));

  pb::FrameSplitter frames(1U << 20U);
  std::vector<std::string> seen;
  std::string chunk;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (seen.size() < 3 && std::chrono::steady_clock::now() < deadline) {
    chunk.clear();
    if (stream.read_some(chunk) == 0) {
      break;
    }
    frames.append(chunk);
    while (const auto frame = frames.next()) {
      const pb::WatchEventFrame event = pb::read_watch_event(*frame);
      const pb::Envelope e = pb::open_envelope(event.object);
      EXPECT_EQ(e.kind, "ConfigMap");
      EXPECT_EQ(pb::seal_envelope(e.api_version, e.kind, e.raw), event.object);
      const ConfigMap c = read_config_map(e.raw, 0);
      seen.push_back(std::string(event.type) + " " + c.meta.name + " " +
                     (c.meta.labels.count("changed") != 0 ? "changed" : "-"));
    }
  }
  stream.cancel();
  EXPECT_EQ(seen, (std::vector<std::string>{"ADDED cm-0 -", "MODIFIED cm-0 changed",
                                            "DELETED cm-0 changed"}));
}

}  // namespace
