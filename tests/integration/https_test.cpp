// SPDX-License-Identifier: Apache-2.0
// BlockingClient against the real kube-apiserver of tools/testenv: authentication,
// keep-alive, chunked bodies, error statuses, base path, TLS verification and limits.
// See kubex/testing/testenv_fixture.hpp for what the testenv provides.

#include <kubex/client/blocking.hpp>
#include <kubex/client/exec_credential.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/path.hpp>
#include <kubex/core/time.hpp>
#include <kubex/core/url.hpp>
#include <kubex/testing/pki.hpp>
#include <kubex/testing/sockets.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>
#include <kubex/testing/whoami.hpp>
#include <kubex/testing/wire_check.hpp>

#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

namespace {

using kubex::client::BlockingClient;
using kubex::client::ClientConfig;
using kubex::client::ClientOptions;
using kubex::client::HttpResponse;
using kubex::testing::shell_quote;
using kubex::testing::whoami;

using kubex::testing::sockets_to;
using kubex::testing::tcp_close_wait;
using kubex::testing::tcp_established;

// A parsed JSON response body; simdjson needs padding after the text.
class Json {
 public:
  explicit Json(const HttpResponse& response) : text_(response.body) {}

  [[nodiscard]] std::string string_at(std::string_view pointer) {
    std::string_view value;
    if (parser_.iterate(text_).at_pointer(pointer).get_string().get(value) != simdjson::SUCCESS) {
      return "<missing " + std::string(pointer) + ">";
    }
    return std::string(value);
  }

  [[nodiscard]] std::set<std::string> item_names() {
    std::set<std::string> names;
    auto doc = parser_.iterate(text_);
    for (auto item : doc["items"].get_array()) {
      names.emplace(std::string_view(item["metadata"]["name"].get_string()));
    }
    return names;
  }

 private:
  simdjson::padded_string text_;
  simdjson::ondemand::parser parser_;
};

// Calls get() and returns the kubex::Error it must throw.
kubex::Error get_error(BlockingClient& connection, std::string_view target) {
  try {
    const auto response = connection.get(target);
    ADD_FAILURE() << "GET " << target << " did not throw but returned HTTP " << response.status;
  } catch (const kubex::Error& e) {
    return e;
  }
  return kubex::Error(std::error_code(), "no error");
}

class https_testenv_test : public kubex::testing::TestenvTest {};

TEST_F(https_testenv_test, bearer_token_authenticates) {
  auto cfg = config("admin");
  ASSERT_FALSE(cfg.token.empty());
  ASSERT_TRUE(cfg.client_certificate_pem.empty());
  {
    BlockingClient connection(cfg);
    const auto response = connection.get("/api/v1/namespaces");
    ASSERT_EQ(response.status, 200U) << response.body;
    EXPECT_EQ(response.content_type.rfind("application/json", 0), 0U) << response.content_type;
    EXPECT_EQ(Json(response).string_at("/kind"), "NamespaceList");
  }
  // The same request without the token is anonymous, which proves the token was sent and used.
  cfg.token.clear();
  BlockingClient anonymous(cfg);
  const auto response = anonymous.get("/api/v1/namespaces");
  ASSERT_EQ(response.status, 403U) << response.body;
  EXPECT_NE(Json(response).string_at("/message").find(R"(User "system:anonymous")"),
            std::string::npos)
      << response.body;
}

TEST_F(https_testenv_test, client_certificate_authenticates) {
  auto cfg = config("admin-cert");
  ASSERT_TRUE(cfg.token.empty()) << "admin-cert must authenticate with its certificate only";
  ASSERT_FALSE(cfg.client_certificate_pem.empty());
  {
    BlockingClient connection(cfg);
    const auto response = connection.get("/api/v1/namespaces");
    ASSERT_EQ(response.status, 200U) << response.body;
    const auto names = Json(response).item_names();
    EXPECT_TRUE(names.contains("default"));
    EXPECT_TRUE(names.contains("kube-system"));
  }
  cfg.client_certificate_pem.clear();
  cfg.client_key_pem.clear();
  BlockingClient anonymous(cfg);
  EXPECT_EQ(anonymous.get("/api/v1/namespaces").status, 403U);
}

TEST_F(https_testenv_test, keep_alive_reuses_one_tls_connection) {
  const auto cfg = config();
  const auto port = cfg.server.port;
  BlockingClient connection(cfg);
  EXPECT_TRUE(sockets_to(port).empty());
  ASSERT_EQ(connection.get("/version").status, 200U);
  const auto first = sockets_to(port);
  ASSERT_EQ(first.size(), 1U);
  EXPECT_EQ(first.begin()->second, tcp_established);

  ASSERT_EQ(connection.get("/api/v1/namespaces/default").status, 200U);
  ASSERT_EQ(connection.get("/api/v1/namespaces?limit=1").status, 200U);
  EXPECT_EQ(sockets_to(port), first) << "a second TCP connection was opened";
  EXPECT_EQ(connection.stats().connections_opened, 1U);
  EXPECT_EQ(connection.stats().connections_open, 1U);

  connection.close();
  EXPECT_EQ(connection.stats().connections_open, 0U);
  EXPECT_TRUE(sockets_to(port).empty());
  ASSERT_EQ(connection.get("/version").status, 200U);
  EXPECT_EQ(connection.stats().connections_opened, 2U);
  const auto second = sockets_to(port);
  ASSERT_EQ(second.size(), 1U);
  EXPECT_NE(second.begin()->first, first.begin()->first);
}

TEST_F(https_testenv_test, chunked_list_is_reassembled) {
  const std::string& ns = own_namespace();
  // 50 ConfigMaps of about 1 KiB each, created by kubectl.
  std::string manifests;
  for (int i = 0; i < 50; ++i) {
    manifests += "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-" +
                 std::to_string(i) +
                 "\ndata:\n  value: " + std::string(1000, static_cast<char>('a' + i % 26)) +
                 std::to_string(i) + "\n";
  }
  const kubex::testing::TempDir dir;
  const auto file = dir.write("configmaps.yaml", manifests);
  testenv().kubectl("create --namespace " + shell_quote(ns) + " -f " + shell_quote(file.string()) +
                    " >/dev/null");

  const auto cfg = config();
  const auto path =
      kubex::resource_path({.version = "v1", .resource = "configmaps", .namespace_name = ns});
  // The premise, checked with a client other than kubex's: the real server chunks this list.
  const auto wire = kubex::testing::wire_get(cfg.server.host, cfg.server.port,
                                             cfg.certificate_authority_pem, cfg.token, path);
  ASSERT_EQ(wire.status, 200U);
  ASSERT_TRUE(wire.chunked) << "the apiserver no longer sends this list chunked";
  ASSERT_GT(wire.body_size, 50000U);

  BlockingClient connection(cfg);
  const auto response = connection.get(path);
  ASSERT_EQ(response.status, 200U) << response.body;
  // Byte for byte what kubectl receives for the same list at the same revision (a plain list
  // carries the store's latest revision, which other tests running in parallel move on).
  Json first(response);
  const auto exact = path + "?resourceVersion=" + first.string_at("/metadata/resourceVersion") +
                     "&resourceVersionMatch=Exact";
  const auto at_revision = connection.get(exact);
  ASSERT_EQ(at_revision.status, 200U) << at_revision.body;
  const auto from_kubectl = testenv().kubectl("get --raw " + shell_quote(exact));
  EXPECT_EQ(at_revision.body.size(), from_kubectl.size());
  EXPECT_TRUE(at_revision.body == from_kubectl);
  EXPECT_EQ(at_revision.body.size(), response.body.size());

  Json json(response);
  const auto names = json.item_names();
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(names.contains("cm-" + std::to_string(i))) << "cm-" << i;
  }
  // The connection stays usable after chunked responses.
  EXPECT_EQ(connection.stats().connections_opened, 1U);
}

TEST_F(https_testenv_test, error_status_is_returned_not_thrown) {
  BlockingClient admin(config("admin"));
  const auto missing = admin.get("/api/v1/namespaces/default/pods/kubex-no-such-pod");
  ASSERT_EQ(missing.status, 404U) << missing.body;
  Json not_found(missing);
  EXPECT_EQ(not_found.string_at("/kind"), "Status");
  EXPECT_EQ(not_found.string_at("/reason"), "NotFound");
  EXPECT_EQ(not_found.string_at("/message"), R"(pods "kubex-no-such-pod" not found)");
  // The connection stays usable after an error status.
  EXPECT_EQ(admin.get("/version").status, 200U);
  EXPECT_EQ(admin.stats().connections_opened, 1U);

  BlockingClient user(config("user"));
  const auto forbidden = user.get("/api/v1/namespaces/default/pods");
  ASSERT_EQ(forbidden.status, 403U) << forbidden.body;
  Json status(forbidden);
  EXPECT_EQ(status.string_at("/reason"), "Forbidden");
  EXPECT_NE(status.string_at("/message").find(R"(User "kubex-user" cannot list resource "pods")"),
            std::string::npos)
      << forbidden.body;
  // RBAC allows the same user its own namespace.
  EXPECT_EQ(user.get("/api/v1/namespaces/kubex-user/pods").status, 200U);
}

// ApiError built from what the real apiserver answers: the Status is read, the predicates
// and the message hold, and no credential leaks into the message.
TEST_F(https_testenv_test, failures_become_api_errors) {
  const auto api_error = [](BlockingClient& c, const std::string& target) {
    const auto response = c.get(target);
    EXPECT_GE(response.status, 400U) << target << ": " << response.body;
    return kubex::ApiError::from_response("GET", target, response.status, response.body);
  };
  BlockingClient admin(config("admin"));
  const auto missing = api_error(admin, "/api/v1/namespaces/default/configmaps/kubex-no-such");
  EXPECT_TRUE(kubex::is_not_found(missing));
  EXPECT_EQ(missing.code(), kubex::http_status::not_found);
  EXPECT_STREQ(missing.what(),
               "GET /api/v1/namespaces/default/configmaps/kubex-no-such: 404 Not Found: "
               "configmaps \"kubex-no-such\" not found (NotFound)");
  ASSERT_TRUE(missing.status().details.has_value());
  EXPECT_EQ(missing.status().details->name, "kubex-no-such");
  EXPECT_EQ(missing.status().details->kind, "configmaps");
  EXPECT_EQ(missing.status().code, 404);

  const auto bad = api_error(admin, "/api/v1/namespaces/default/pods?labelSelector=a%20in%20(");
  EXPECT_TRUE(kubex::is_bad_request(bad)) << bad.what();
  EXPECT_EQ(bad.reason(), "BadRequest");

  // Create-only kinds cannot be read.
  const auto verb = api_error(admin, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews");
  EXPECT_TRUE(kubex::is_method_not_allowed(verb)) << verb.what();

  BlockingClient user(config("user"));
  const auto forbidden = api_error(user, "/api/v1/namespaces/default/secrets");
  EXPECT_TRUE(kubex::is_forbidden(forbidden));
  EXPECT_NE(
      std::string(forbidden.what()).find(R"(User "kubex-user" cannot list resource "secrets")"),
      std::string::npos)
      << forbidden.what();

  auto wrong = config("admin");
  const std::string token = "kubex-wrong-token-0123456789";
  wrong.token = token;
  BlockingClient stranger(wrong);
  const auto unauthorized = api_error(stranger, "/api/v1/namespaces");
  EXPECT_TRUE(kubex::is_unauthorized(unauthorized)) << unauthorized.what();
  EXPECT_EQ(std::string(unauthorized.what()).find(token), std::string::npos);
}

// The server itself says who it thinks we are (SelfSubjectReview): the admin credentials
// authenticate, and every Impersonate-* setting of the kubeconfig reaches the server.
TEST_F(https_testenv_test, impersonation_reaches_the_server) {
  auto cfg = config("admin");
  cfg.impersonate.user = "kubex-jane";
  cfg.impersonate.uid = "uid-42";
  cfg.impersonate.groups = {"kubex-devs", "system:masters"};
  cfg.impersonate.extra = {{"scopes.example.com/team name", {"blue", "green"}}};
  BlockingClient jane(cfg);
  const auto review =
      jane.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                   R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})");
  ASSERT_EQ(review.status, 201U) << review.body;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(review.body).get(doc), simdjson::SUCCESS) << review.body;
  simdjson::dom::element user;
  ASSERT_EQ(doc.at_pointer("/status/userInfo").get(user), simdjson::SUCCESS) << review.body;
  std::string_view name, uid;
  EXPECT_EQ(user.at_pointer("/username").get(name), simdjson::SUCCESS);
  EXPECT_EQ(user.at_pointer("/uid").get(uid), simdjson::SUCCESS);
  EXPECT_EQ(name, "kubex-jane");
  EXPECT_EQ(uid, "uid-42");
  std::set<std::string> groups;
  simdjson::dom::array list;
  ASSERT_EQ(user.at_pointer("/groups").get(list), simdjson::SUCCESS) << review.body;
  for (simdjson::dom::element g : list) {
    groups.emplace(std::string_view(g));
  }
  EXPECT_TRUE(groups.contains("kubex-devs")) << review.body;
  EXPECT_TRUE(groups.contains("system:masters")) << review.body;
  std::vector<std::string> team;
  ASSERT_EQ(user.at_pointer("/extra/scopes.example.com~1team name").get(list), simdjson::SUCCESS)
      << review.body;
  for (simdjson::dom::element v : list) {
    team.emplace_back(std::string_view(v));
  }
  EXPECT_EQ(team, (std::vector<std::string>{"blue", "green"})) << review.body;

  // Acting as the unprivileged user gives that user's rights, not the admin's.
  auto as_user = config("admin");
  as_user.impersonate.user = "kubex-user";
  BlockingClient restricted(as_user);
  const auto denied = restricted.get("/api/v1/namespaces/default/secrets");
  ASSERT_EQ(denied.status, 403U) << denied.body;
  EXPECT_NE(denied.body.find(R"(User \"kubex-user\" cannot list resource \"secrets\")"),
            std::string::npos)
      << denied.body;
  EXPECT_EQ(restricted.get("/api/v1/namespaces/kubex-user/configmaps").status, 200U);

  // The unprivileged user may not impersonate anyone.
  auto escalate = config("user");
  escalate.impersonate.user = "kubex-admin";
  BlockingClient refused(escalate);
  const auto response = refused.get("/api/v1/namespaces");
  ASSERT_EQ(response.status, 403U) << response.body;
  EXPECT_NE(response.body.find("cannot impersonate"), std::string::npos) << response.body;
}

// Methods other than GET: create, replace, patch and delete a config map.
TEST_F(https_testenv_test, request_sends_any_method_with_a_body) {
  BlockingClient admin(config("admin"));
  const std::string ns = own_namespace();
  const std::string collection = "/api/v1/namespaces/" + ns + "/configmaps";
  const std::string object = collection + "/kubex-https-methods";
  const auto created = admin.request(
      "POST", collection,
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kubex-https-methods"},)"
      R"("data":{"a":"1"}})");
  ASSERT_EQ(created.status, 201U) << created.body;
  const auto patched =
      admin.request("PATCH", object, R"({"data":{"b":"2"}})", "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200U) << patched.body;
  EXPECT_NE(patched.body.find(R"("b":"2")"), std::string::npos) << patched.body;
  EXPECT_EQ(testenv().kubectl("get configmap kubex-https-methods -n " + ns +
                              " -o jsonpath={.data.a}{.data.b}"),
            "12");
  const auto deleted = admin.request("DELETE", object, {});
  EXPECT_EQ(deleted.status, 200U) << deleted.body;
  EXPECT_EQ(admin.get(object).status, 404U);
  EXPECT_EQ(admin.stats().connections_opened, 1U);
  try {
    (void)admin.request("TRACE", object, {});
    ADD_FAILURE() << "TRACE accepted";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_path);
  }
}

// A token file is re-read: periodically (every request here), and at once on a 401.
TEST_F(https_testenv_test, token_file_rotation) {
  const auto admin = config("admin");
  const auto user = config("user");
  kubex::testing::TempDir dir;
  const auto file = dir.write("token", user.token + "\n");
  auto cfg = admin;
  cfg.token = user.token;
  cfg.token_file = file;
  ClientOptions eager;
  eager.token_file_refresh = std::chrono::milliseconds(0);
  BlockingClient rotating(cfg, eager);
  EXPECT_EQ(whoami(rotating), "kubex-user");
  dir.write("token", admin.token + "\n");
  EXPECT_EQ(whoami(rotating), "kubex-admin");
  dir.write("token", "\n");  // an unusable file keeps the current token
  EXPECT_EQ(whoami(rotating), "kubex-admin");

  // With the default refresh (a minute) the token is cached, until the server says 401.
  dir.write("token", "kubex-not-a-valid-token\n");
  cfg.token = "kubex-not-a-valid-token";
  BlockingClient cached(cfg);
  EXPECT_EQ(whoami(cached), "<401>");  // re-read at once, but the file holds the same token
  dir.write("token", user.token + "\n");
  EXPECT_EQ(whoami(cached), "kubex-user");  // 401, re-read, sent once more
  dir.write("token", admin.token + "\n");
  EXPECT_EQ(whoami(cached), "kubex-user");  // still valid: not re-read before a minute
  EXPECT_EQ(cached.stats().connections_opened, 1U);
}

// JSON string contents for `text` (PEM has newlines).
std::string json_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

// An exec plugin (a shell script that prints the ExecCredential the test left in a file and
// counts its runs) supplies tokens and client certificates the real apiserver accepts: run
// once, again when the credential expires, and again on a 401.
TEST_F(https_testenv_test, exec_plugin_credentials) {
  const auto admin = config("admin");
  const auto cert = config("admin-cert");
  kubex::testing::TempDir dir;
  const auto plugin = dir.write(
      "plugin.sh",
      "#!/bin/sh\nd=$(dirname \"$0\")\necho run >> \"$d/runs\"\ncat \"$d/credential.json\"\n");
  ::chmod(plugin.c_str(), 0700);
  const auto credential = [&](const std::string& status) {
    dir.write("credential.json",
              R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)"
              R"("status":)" +
                  status + "}");
  };
  const auto expires_in = [](std::chrono::seconds s) {
    return kubex::Time(std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) +
                       s)
        .format();
  };
  auto cfg = admin;
  cfg.token.clear();
  cfg.exec = kubex::client::ExecConfig{.command = plugin.string(),
                                       .api_version = "client.authentication.k8s.io/v1",
                                       .interactive_mode = "Never"};
  credential(R"({"token":")" + admin.token + R"(","expirationTimestamp":")" +
             expires_in(std::chrono::hours(1)) + R"("})");
  BlockingClient c(cfg);
  EXPECT_EQ(c.stats().exec_plugin_runs, 0U);  // nothing runs before the first request
  EXPECT_EQ(whoami(c), "kubex-admin");
  EXPECT_EQ(whoami(c), "kubex-admin");
  EXPECT_EQ(c.stats().exec_plugin_runs, 1U);  // cached until it expires

  // Expiry: a credential valid for 2 s is replaced after it lapses.
  credential(R"({"token":")" + admin.token + R"(","expirationTimestamp":")" +
             expires_in(std::chrono::seconds(2)) + R"("})");
  BlockingClient expiring(cfg);
  EXPECT_EQ(whoami(expiring), "kubex-admin");
  EXPECT_EQ(whoami(expiring), "kubex-admin");
  EXPECT_EQ(expiring.stats().exec_plugin_runs, 1U);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(whoami(expiring), "kubex-admin");
  EXPECT_EQ(expiring.stats().exec_plugin_runs, 2U);

  // 401: the server refuses the cached token (revoked, say); the plugin runs again at once.
  credential(R"({"token":"kubex-revoked-token"})");
  BlockingClient revoked(cfg);
  EXPECT_EQ(whoami(revoked), "<401>");  // ran, refused, ran again: the same bad token
  EXPECT_EQ(revoked.stats().exec_plugin_runs, 2U);
  credential(R"({"token":")" + admin.token + R"("})");
  EXPECT_EQ(whoami(revoked), "kubex-admin");  // 401, run, retried with the new token
  EXPECT_EQ(revoked.stats().exec_plugin_runs, 3U);

  // A client certificate from the plugin is presented in the TLS handshake.
  credential(R"({"clientCertificateData":")" + json_escape(cert.client_certificate_pem) +
             R"(","clientKeyData":")" + json_escape(cert.client_key_pem) + R"("})");
  BlockingClient with_cert(cfg);
  EXPECT_EQ(whoami(with_cert), "kubex-admin-cert");
  EXPECT_EQ(with_cert.stats().exec_plugin_runs, 1U);

  // Credentials written in the kubeconfig win over the plugin, as in client-go.
  auto both = cfg;
  both.token = config("user").token;
  BlockingClient static_token(both);
  EXPECT_EQ(whoami(static_token), "kubex-user");
  EXPECT_EQ(static_token.stats().exec_plugin_runs, 0U);

  std::ifstream runs(dir.path() / "runs");
  std::string line;
  int count = 0;
  while (std::getline(runs, line)) {
    ++count;
  }
  EXPECT_EQ(count, 1 + 2 + 3 + 1);  // the plugin's own count agrees
}

// The server's warnings reach HttpResponse::warnings and the on_warning hook.
TEST_F(https_testenv_test, server_warnings_are_surfaced) {
  std::vector<std::string> seen;
  ClientOptions options;
  options.on_warning = [&seen](std::string_view w) {
    seen.emplace_back(w);
  };
  BlockingClient admin(config("admin"), options);
  const std::string ns = own_namespace();
  const auto created = admin.request(
      "POST", "/api/v1/namespaces/" + ns + "/configmaps?fieldValidation=Warn",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"warned"},"bogus":1,)"
      R"("data":{"a":"1"}})");
  ASSERT_EQ(created.status, 201U) << created.body;
  EXPECT_EQ(created.warnings, (std::vector<std::string>{R"(unknown field "bogus")"}));
  EXPECT_EQ(seen, created.warnings);
  EXPECT_TRUE(admin.get("/api/v1/namespaces/" + ns + "/configmaps/warned").warnings.empty());
  EXPECT_EQ(seen.size(), 1U);
}

// gzip: asked for by default, decoded, and off when the options or the kubeconfig say so. The
// apiserver compresses responses over 128 KiB, so the test lists 200 config maps of 1 KiB.
TEST_F(https_testenv_test, gzip_responses_are_decoded) {
  const std::string ns = own_namespace();
  wait_for_root_ca();  // counted below
  kubex::testing::TempDir dir;
  std::string items;
  for (int i = 0; i < 200; ++i) {
    items += std::string(i == 0 ? "" : ",") + R"({"apiVersion":"v1","kind":"ConfigMap",)" +
             R"("metadata":{"name":"cm-)" + std::to_string(i) + R"("},"data":{"k":")" +
             std::string(1024, static_cast<char>('a' + i % 26)) + R"("}})";
  }
  const auto file =
      dir.write("list.json", R"({"apiVersion":"v1","kind":"List","items":[)" + items + "]}");
  (void)testenv().kubectl("apply -n " + ns + " -f " + shell_quote(file.string()));
  const std::string target = "/api/v1/namespaces/" + ns + "/configmaps";

  BlockingClient gzip(config("admin"));
  const auto compressed = gzip.get(target);
  ASSERT_EQ(compressed.status, 200U);
  EXPECT_EQ(compressed.content_encoding, "gzip");
  Json a(compressed);
  EXPECT_EQ(a.item_names().size(), 201U);  // and the namespace's kube-root-ca.crt

  ClientOptions off;
  off.compression = false;
  BlockingClient plain(config("admin"), off);
  const auto uncompressed = plain.get(target);
  EXPECT_EQ(uncompressed.content_encoding, "");
  Json b(uncompressed);
  EXPECT_EQ(b.item_names(), a.item_names());
  EXPECT_EQ(uncompressed.body.size(), compressed.body.size());

  auto cfg = config("admin");
  cfg.disable_compression = true;
  BlockingClient disabled(cfg);
  EXPECT_EQ(disabled.get(target).content_encoding, "");

  // The limit applies to the decompressed size.
  ClientOptions small;
  small.max_body_size = 100 * 1024;
  BlockingClient limited(config("admin"), small);
  try {
    (void)limited.get(target);
    ADD_FAILURE() << "no error";
  } catch (const kubex::Error& e) {
    EXPECT_NE(std::string(e.what()).find("decompressed body exceeds the limit of 102400 bytes"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(https_testenv_test, base_path_is_prepended) {
  // The real apiserver has no path prefix, but /api is a prefix of its own paths: with the
  // server URL https://127.0.0.1:<port>/api, the target /v1/namespaces/default must reach
  // /api/v1/namespaces/default.
  auto cfg = config();
  const std::string origin = "https://" + cfg.server.authority();
  cfg.server = kubex::parse_server_url(origin + "/api");
  ASSERT_EQ(cfg.server.base_path, "/api");
  BlockingClient prefixed(cfg);
  const auto response = prefixed.get("/v1/namespaces/default");
  ASSERT_EQ(response.status, 200U) << response.body;
  Json json(response);
  EXPECT_EQ(json.string_at("/kind"), "Namespace");
  EXPECT_EQ(json.string_at("/metadata/name"), "default");

  // Without the base path the same target is no API path at all.
  BlockingClient plain(config());
  EXPECT_EQ(plain.get("/v1/namespaces/default").status, 404U);
}

TEST_F(https_testenv_test, tls_server_name_is_used_for_verification) {
  auto cfg = config();
  ASSERT_EQ(cfg.server.host, "127.0.0.1");
  for (const char* name : {"kubernetes.default", "kubernetes.default.svc.cluster.local", "::1"}) {
    cfg.tls_server_name = name;
    BlockingClient connection(cfg);
    EXPECT_EQ(connection.get("/version").status, 200U) << "tls-server-name " << name;
  }

  cfg.tls_server_name = "wrong.example";
  BlockingClient wrong_name(cfg);
  const auto name_error = get_error(wrong_name, "/version");
  EXPECT_EQ(name_error.code(), kubex::errc::tls_verification_failed) << name_error.what();
  EXPECT_NE(std::string(name_error.what()).find("\"wrong.example\""), std::string::npos)
      << name_error.what();
  EXPECT_NE(std::string(name_error.what()).find("hostname mismatch"), std::string::npos)
      << name_error.what();
  EXPECT_EQ(wrong_name.stats().connections_open, 0U);

  cfg.tls_server_name = "127.0.0.2";
  BlockingClient wrong_ip(cfg);
  const auto ip_error = get_error(wrong_ip, "/version");
  EXPECT_EQ(ip_error.code(), kubex::errc::tls_verification_failed) << ip_error.what();
  EXPECT_NE(std::string(ip_error.what()).find("IP address mismatch"), std::string::npos)
      << ip_error.what();
}

TEST_F(https_testenv_test, host_name_must_match_the_certificate) {
  // localhost is a DNS SAN of the serving certificate, so dialling it by that name verifies.
  // The apiserver listens on 127.0.0.1 only, so no name missing from the certificate reaches
  // it; that mismatch is tested through tls-server-name above.
  auto cfg = config();
  cfg.server = kubex::parse_server_url("https://localhost:" + std::to_string(cfg.server.port));
  BlockingClient connection(cfg);
  const auto response = connection.get("/version");
  EXPECT_EQ(response.status, 200U) << response.body;
}

TEST_F(https_testenv_test, unknown_ca_is_a_verification_error) {
  auto cfg = config();
  const kubex::testing::TestCa stranger("kubex-stranger-ca");
  cfg.certificate_authority_pem = stranger.certificate_pem();
  BlockingClient connection(cfg);
  const auto error = get_error(connection, "/version");
  EXPECT_EQ(error.code(), kubex::errc::tls_verification_failed) << error.what();
  EXPECT_NE(std::string(error.what()).find("TLS handshake"), std::string::npos) << error.what();
  EXPECT_EQ(std::string(error.what()).find(cfg.token), std::string::npos);
  EXPECT_EQ(connection.stats().connections_open, 0U);
  EXPECT_EQ(connection.stats().connections_opened, 0U);
}

TEST_F(https_testenv_test, no_ca_uses_the_system_store_not_trust_everything) {
  auto cfg = config();
  cfg.certificate_authority_pem.clear();
  BlockingClient connection(cfg);
  const auto error = get_error(connection, "/version");
  EXPECT_EQ(error.code(), kubex::errc::tls_verification_failed) << error.what();
}

TEST_F(https_testenv_test, insecure_skip_tls_verify_accepts_the_certificate) {
  auto cfg = config();
  cfg.certificate_authority_pem.clear();
  cfg.insecure_skip_tls_verify = true;
  cfg.tls_server_name = "wrong.example";  // not checked either
  BlockingClient connection(cfg);
  const auto response = connection.get("/api/v1/namespaces/default");
  ASSERT_EQ(response.status, 200U) << response.body;
  EXPECT_EQ(Json(response).string_at("/metadata/name"), "default");
}

TEST_F(https_testenv_test, body_limit_is_enforced) {
  const auto cfg = config();
  const std::string big_list = "/api/v1/namespaces/kube-system/configmaps";  // chunked
  const std::string status_404 = "/api/v1/namespaces/default/pods/kubex-no-such-pod";
  {
    BlockingClient unlimited(cfg);
    ASSERT_GT(unlimited.get(big_list).body.size(), 1024U);
    ASSERT_GT(unlimited.get(status_404).body.size(), 100U);
    ASSERT_LT(unlimited.get("/version").body.size(), 1024U);
  }
  BlockingClient limited(cfg, ClientOptions{.max_body_size = 1024});
  const auto error = get_error(limited, big_list);
  EXPECT_NE(std::string(error.what()).find("body limit exceeded"), std::string::npos)
      << error.what();
  EXPECT_EQ(limited.stats().connections_open, 0U);
  EXPECT_EQ(limited.get("/version").status, 200U);  // small bodies still pass

  // A body announced with Content-Length is limited too.
  BlockingClient tiny(cfg, ClientOptions{.max_body_size = 100});
  const auto length_error = get_error(tiny, status_404);
  EXPECT_NE(std::string(length_error.what()).find("body limit exceeded"), std::string::npos)
      << length_error.what();
}

// Restarts the shared apiserver, so ctest runs this suite serially (RUN_SERIAL).
class https_testenv_disruptive_test : public kubex::testing::TestenvTest {};

TEST_F(https_testenv_disruptive_test, idle_connection_closed_by_the_server_is_retried_once) {
  const auto cfg = config();
  const auto port = cfg.server.port;
  BlockingClient connection(cfg);
  ASSERT_EQ(connection.get("/version").status, 200U);
  const auto before = sockets_to(port);
  ASSERT_EQ(before.size(), 1U);

  // Killing the apiserver makes the kernel close the server's end of every connection: to the
  // client this is exactly a server closing an idle keep-alive connection (a FIN and nothing
  // else), which it does not notice until it uses the connection again. (KILL, not TERM:
  // kube-apiserver v1.35.4 in testenv does not exit on TERM within testenv's 30 s grace.)
  testenv().restart_apiserver("KILL");
  const auto closed = sockets_to(port);
  ASSERT_EQ(closed.size(), 1U);
  EXPECT_EQ(closed.begin()->first, before.begin()->first);
  EXPECT_EQ(closed.begin()->second, tcp_close_wait) << "the server did not close the connection";
  EXPECT_EQ(connection.stats().connections_open, 1U);

  const auto response = connection.get("/api/v1/namespaces/default");
  ASSERT_EQ(response.status, 200U) << response.body;
  EXPECT_EQ(connection.stats().connections_opened, 2U);
  const auto after = sockets_to(port);
  ASSERT_EQ(after.size(), 1U);
  EXPECT_NE(after.begin()->first, before.begin()->first);
  EXPECT_EQ(after.begin()->second, tcp_established);
}

}  // namespace
