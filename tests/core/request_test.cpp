// SPDX-License-Identifier: Apache-2.0
// The requests RequestBuilder makes, byte for byte: paths, query strings, bodies and media
// types for every verb, and the checks that fail before anything is sent.

#include <kubex/core/error.hpp>
#include <kubex/core/json_object.hpp>
#include <kubex/core/request.hpp>
#include <kubex/core/selector.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using kubex::ApiRequest;
using kubex::Patch;
using kubex::RequestBuilder;

kubex::errc code_of(const auto& f) {
  try {
    f();
  } catch (const kubex::Error& e) {
    return static_cast<kubex::errc>(e.code().value());
  }
  return kubex::errc{};
}

TEST(request_test, paths_for_namespaced_cluster_and_all_namespaces) {
  EXPECT_EQ(RequestBuilder("", "v1", "pods", "default").get("web-0").target,
            "/api/v1/namespaces/default/pods/web-0");
  EXPECT_EQ(RequestBuilder("apps", "v1", "deployments", "team-a").list().target,
            "/apis/apps/v1/namespaces/team-a/deployments");
  EXPECT_EQ(RequestBuilder("", "v1", "pods").list().target, "/api/v1/pods");
  EXPECT_EQ(RequestBuilder("", "v1", "nodes").get("n1").target, "/api/v1/nodes/n1");
  EXPECT_EQ(RequestBuilder("", "v1", "pods", "default").get_subresource("status", "p").target,
            "/api/v1/namespaces/default/pods/p/status");
}

TEST(request_test, names_are_escaped_and_invalid_names_rejected) {
  const RequestBuilder pods("", "v1", "pods", "default");
  EXPECT_EQ(pods.get("a b").target, "/api/v1/namespaces/default/pods/a%20b");
  EXPECT_EQ(code_of([&] { (void)pods.get("a/b"); }), kubex::errc::invalid_path);
  EXPECT_EQ(code_of([&] { (void)pods.get(".."); }), kubex::errc::invalid_path);
  EXPECT_EQ(code_of([&] { (void)pods.get(""); }), kubex::errc::invalid_path);
  EXPECT_EQ(code_of([&] { (void)RequestBuilder("", "v1", "pods", "a%2F"); }),
            kubex::errc::invalid_path);
}

TEST(request_test, list_query_encodes_every_option) {
  const RequestBuilder pods("", "v1", "pods", "default");
  const ApiRequest r = pods.list({.label_selector = "app in (a,b),!x",
                                  .field_selector = "status.phase=Running",
                                  .limit = 100,
                                  .continue_token = "eyJ2Ijoi+/=",
                                  .resource_version = "42",
                                  .resource_version_match = kubex::ResourceVersionMatch::exact,
                                  .timeout_seconds = 5});
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.target,
            "/api/v1/namespaces/default/pods?labelSelector=app%20in%20%28a%2Cb%29%2C%21x"
            "&fieldSelector=status.phase%3DRunning&limit=100&continue=eyJ2Ijoi%2B%2F%3D"
            "&resourceVersion=42&resourceVersionMatch=Exact&timeoutSeconds=5");
  EXPECT_EQ(
      code_of([&] {
        (void)pods.list({.resource_version_match = kubex::ResourceVersionMatch::not_older_than});
      }),
      kubex::errc::invalid_argument);
  EXPECT_EQ(code_of([&] { (void)pods.list({.limit = -1}); }), kubex::errc::invalid_argument);
}

TEST(request_test, watch_query_and_its_rules) {
  const RequestBuilder pods("", "v1", "pods", "default");
  EXPECT_EQ(
      pods.watch({.resource_version = "7", .allow_bookmarks = true, .timeout_seconds = 30}).target,
      "/api/v1/namespaces/default/pods?watch=true&resourceVersion=7"
      "&allowWatchBookmarks=true&timeoutSeconds=30");
  EXPECT_EQ(pods.watch({.resource_version_match = kubex::ResourceVersionMatch::not_older_than,
                        .allow_bookmarks = true,
                        .send_initial_events = true})
                .target,
            "/api/v1/namespaces/default/pods?watch=true&sendInitialEvents=true"
            "&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true");
  // The server requires both for sendInitialEvents; say so before sending.
  EXPECT_EQ(code_of([&] { (void)pods.watch({.send_initial_events = true}); }),
            kubex::errc::invalid_argument);
  EXPECT_EQ(code_of([&] {
              (void)pods.watch({.resource_version = "1",
                                .resource_version_match = kubex::ResourceVersionMatch::exact});
            }),
            kubex::errc::invalid_argument);
}

TEST(request_test, writes_carry_dry_run_field_manager_and_validation) {
  const RequestBuilder cms("", "v1", "configmaps", "default");
  const ApiRequest c = cms.create("{}", {.dry_run = true,
                                         .field_manager = "kubex test",
                                         .field_validation = kubex::FieldValidation::strict});
  EXPECT_EQ(c.method, "POST");
  EXPECT_EQ(c.target,
            "/api/v1/namespaces/default/configmaps?dryRun=All&fieldManager=kubex%20test"
            "&fieldValidation=Strict");
  EXPECT_EQ(c.body, "{}");
  EXPECT_EQ(c.content_type, "application/json");
  const ApiRequest u = cms.replace("c", "{}", {.field_validation = kubex::FieldValidation::warn});
  EXPECT_EQ(u.method, "PUT");
  EXPECT_EQ(u.target, "/api/v1/namespaces/default/configmaps/c?fieldValidation=Warn");
}

TEST(request_test, patch_types_and_apply_rules) {
  const RequestBuilder cms("", "v1", "configmaps", "default");
  const ApiRequest m = cms.patch("c", Patch::merge(R"({"data":{"k":null}})"));
  EXPECT_EQ(m.method, "PATCH");
  EXPECT_EQ(m.content_type, "application/merge-patch+json");
  EXPECT_EQ(m.body, R"({"data":{"k":null}})");
  EXPECT_EQ(cms.patch("c", Patch::strategic("{}")).content_type,
            "application/strategic-merge-patch+json");
  EXPECT_EQ(cms.patch("c", Patch::json("[]")).content_type, "application/json-patch+json");
  const ApiRequest a = cms.patch("c", Patch::apply("{}"), {.field_manager = "mgr", .force = true});
  EXPECT_EQ(a.content_type, "application/apply-patch+yaml");
  EXPECT_EQ(a.target, "/api/v1/namespaces/default/configmaps/c?fieldManager=mgr&force=true");
  EXPECT_EQ(code_of([&] { (void)cms.patch("c", Patch::apply("{}")); }),
            kubex::errc::invalid_argument);
  EXPECT_EQ(code_of([&] { (void)cms.patch("c", Patch::merge("{}"), {.force = true}); }),
            kubex::errc::invalid_argument);
}

TEST(request_test, delete_options_body) {
  const RequestBuilder pods("", "v1", "pods", "default");
  const ApiRequest d =
      pods.delete_("p", {.dry_run = true,
                         .grace_period_seconds = 0,
                         .propagation_policy = kubex::PropagationPolicy::foreground,
                         .preconditions = {.uid = "u-1", .resource_version = "9"}});
  EXPECT_EQ(d.method, "DELETE");
  EXPECT_EQ(d.target, "/api/v1/namespaces/default/pods/p");
  // dryRun is a list in DeleteOptions (Kubex sends a string, which the server rejects).
  EXPECT_EQ(d.body, R"({"apiVersion":"v1","kind":"DeleteOptions","gracePeriodSeconds":0,)"
                    R"("propagationPolicy":"Foreground","preconditions":{"uid":"u-1",)"
                    R"("resourceVersion":"9"},"dryRun":["All"]})");
  EXPECT_EQ(pods.delete_("p").body, R"({"apiVersion":"v1","kind":"DeleteOptions"})");
  const ApiRequest dc = pods.delete_collection({}, {.label_selector = "app=x"});
  EXPECT_EQ(dc.target, "/api/v1/namespaces/default/pods?labelSelector=app%3Dx");
  EXPECT_EQ(code_of([&] { (void)pods.delete_("p", {.grace_period_seconds = -1}); }),
            kubex::errc::invalid_argument);
}

TEST(request_test, log_query) {
  const RequestBuilder pods("", "v1", "pods", "default");
  const ApiRequest r = pods.logs("p",
                                 {.container = "c",
                                  .previous = true,
                                  .since_seconds = 10,
                                  .tail_lines = 5,
                                  .limit_bytes = 1000,
                                  .timestamps = true},
                                 true);
  EXPECT_EQ(r.target,
            "/api/v1/namespaces/default/pods/p/log?container=c&follow=true&previous=true"
            "&sinceSeconds=10&tailLines=5&limitBytes=1000&timestamps=true");
  EXPECT_EQ(code_of([&] {
              (void)pods.logs("p", {.since_seconds = 1, .since_time = "2026-01-01T00:00:00Z"},
                              false);
            }),
            kubex::errc::invalid_argument);
}

TEST(json_patch_test, builder_writes_rfc6902_operations) {
  const auto p = kubex::JsonPatch{}
                     .test("/metadata/resourceVersion", "12")
                     .replace("/spec/replicas", 3)
                     .add("/metadata/labels/x", kubex::RawJson{R"("y")"})
                     .remove(kubex::json_pointer({"metadata", "labels", "app.kubernetes.io/name"}))
                     .move("/a", "/b")
                     .copy("/c", "/d");
  EXPECT_EQ(p.str(),
            R"([{"op":"test","path":"/metadata/resourceVersion","value":"12"},)"
            R"({"op":"replace","path":"/spec/replicas","value":3},)"
            R"({"op":"add","path":"/metadata/labels/x","value":"y"},)"
            R"({"op":"remove","path":"/metadata/labels/app.kubernetes.io~1name"},)"
            R"({"op":"move","from":"/a","path":"/b"},{"op":"copy","from":"/c","path":"/d"}])");
  EXPECT_EQ(kubex::JsonPatch{}.str(), "[]");
  EXPECT_TRUE(kubex::JsonPatch{}.empty());
}

TEST(json_patch_test, pointer_escaping_and_checks) {
  EXPECT_EQ(kubex::escape_pointer_token("a/b~c"), "a~1b~0c");
  EXPECT_EQ(kubex::json_pointer({"x", "", "~/"}), "/x//~0~1");
  EXPECT_EQ(code_of([] { kubex::JsonPatch{}.remove("metadata"); }), kubex::errc::invalid_argument);
  EXPECT_EQ(code_of([] { kubex::JsonPatch{}.remove("/a~2"); }), kubex::errc::invalid_argument);
  EXPECT_EQ(code_of([] { kubex::JsonPatch{}.move("a", "/b"); }), kubex::errc::invalid_argument);
}

struct Labels {
  std::map<std::string, std::string> labels;
};
KUBEX_JSON_OBJECT(Labels, labels)

TEST(json_patch_test, typed_values_use_their_codec) {
  EXPECT_EQ(kubex::JsonPatch{}.add("/metadata", Labels{{{"a", "b"}}}).str(),
            R"([{"op":"add","path":"/metadata","value":{"labels":{"a":"b"}}}])");
  EXPECT_EQ(Patch::from(kubex::PatchType::merge, Labels{{{"a", "b"}}}).body(),
            R"({"labels":{"a":"b"}})");
}

TEST(selector_test, label_selector_builder) {
  EXPECT_EQ(kubex::LabelSelector{}
                .eq("app", "web")
                .ne("tier", "db")
                .in("env", {"prod", "staging"})
                .not_in("zone", {"a"})
                .exists("example.com/team")
                .not_exists("legacy")
                .str(),
            "app=web,tier!=db,env in (prod,staging),zone notin (a),example.com/team,!legacy");
  EXPECT_EQ(kubex::LabelSelector{}.eq("empty", "").str(), "empty=");
  EXPECT_EQ(code_of([] { kubex::LabelSelector{}.eq("bad key", "x"); }),
            kubex::errc::invalid_argument);
  EXPECT_EQ(code_of([] { kubex::LabelSelector{}.eq("k", "a,b"); }), kubex::errc::invalid_argument);
  EXPECT_EQ(code_of([] { kubex::LabelSelector{}.in("k", {}); }), kubex::errc::invalid_argument);
  EXPECT_EQ(code_of([] { kubex::LabelSelector{}.exists("Upper.Case/x"); }),
            kubex::errc::invalid_argument);
  EXPECT_TRUE(kubex::is_valid_label_key("app.kubernetes.io/name"));
  EXPECT_FALSE(kubex::is_valid_label_key(std::string(64, 'a')));
  EXPECT_TRUE(kubex::is_valid_label_value(""));
  EXPECT_FALSE(kubex::is_valid_label_value("-x"));
}

TEST(selector_test, field_selector_escapes_values) {
  EXPECT_EQ(
      kubex::FieldSelector{}.eq("metadata.name", "a,b=c\\d").ne("status.phase", "Failed").str(),
      "metadata.name=a\\,b\\=c\\\\d,status.phase!=Failed");
  EXPECT_EQ(code_of([] { kubex::FieldSelector{}.eq("a=b", "x"); }), kubex::errc::invalid_argument);
}

TEST(query_test, values_are_percent_encoded) {
  std::string t = "/x";
  kubex::append_query(t, "a", "b c/é");
  kubex::append_query(t, "d", "");
  EXPECT_EQ(t, "/x?a=b%20c%2F%C3%A9&d=");
}

}  // namespace

TEST(request_test, exec_attach_and_port_forward_targets) {
  const RequestBuilder pods("", "v1", "pods", "default");
  kubex::ExecParams exec;
  exec.command = {"sh", "-c", "echo a&b"};
  exec.container = "app";
  exec.with_stdin = true;
  EXPECT_EQ(pods.exec("web", exec).target,
            "/api/v1/namespaces/default/pods/web/exec?command=sh&command=-c&command=echo%20a%26b"
            "&container=app&stdin=true&stdout=true&stderr=true");
  exec.tty = true;
  exec.with_stderr = false;
  EXPECT_EQ(pods.exec("web", exec).target,
            "/api/v1/namespaces/default/pods/web/exec?command=sh&command=-c&command=echo%20a%26b"
            "&container=app&stdin=true&stdout=true&tty=true");
  kubex::AttachParams attach;
  attach.with_stdin = true;
  attach.with_stderr = false;
  EXPECT_EQ(pods.attach("web", attach).target,
            "/api/v1/namespaces/default/pods/web/attach?stdin=true&stdout=true");
  EXPECT_EQ(pods.port_forward("web", {8080, 9090}).target,
            "/api/v1/namespaces/default/pods/web/portforward?ports=8080%2C9090");
}

TEST(request_test, exec_arguments_the_apiserver_would_refuse_are_refused_first) {
  const RequestBuilder pods("", "v1", "pods", "default");
  kubex::ExecParams no_command;
  EXPECT_THROW((void)pods.exec("web", no_command), kubex::Error);
  kubex::ExecParams tty_with_stderr;
  tty_with_stderr.command = {"true"};
  tty_with_stderr.tty = true;
  EXPECT_THROW((void)pods.exec("web", tty_with_stderr), kubex::Error);
  kubex::AttachParams nothing;
  nothing.with_stdout = false;
  nothing.with_stderr = false;
  EXPECT_THROW((void)pods.attach("web", nothing), kubex::Error);
  EXPECT_EQ(pods.port_forward("web", {}).target, "/api/v1/namespaces/default/pods/web/portforward");
  EXPECT_THROW((void)pods.port_forward("web", {0}), kubex::Error);
}
