// SPDX-License-Identifier: Apache-2.0
#pragma once

// Base fixture of the integration tests: they run against the real control plane that
// scripts/with-testenv.sh starts (tools/testenv) and FAIL -- never skip -- without it, because an
// integration run that silently skips everything would look green while testing nothing.
//
// KUBEX_TESTENV_KUBECONFIG names the kubeconfig testenv wrote. It has one cluster `testenv`
// (https://127.0.0.1:<port>; the serving certificate has IP SANs 127.0.0.1 and ::1 and DNS SANs
// localhost and kubernetes[.default[.svc[.cluster.local]]]) and the contexts `admin` (bearer
// token, system:masters; current-context), `admin-cert` (client certificate, CN
// kubex-admin-cert, O system:masters) and `user` (bearer token of kubex-user, which RBAC limits
// to namespace kubex-user). Tests that need data create their own namespace.
//
// Header-only: users link GTest and kubex::client themselves.

#include <kubex/client/kubeconfig.hpp>
#include <kubex/client/options.hpp>
#include <kubex/testing/testenv.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kubex::testing {

class TestenvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testenv_ = Testenv::from_environment();
    if (!testenv_) {
      FAIL() << "KUBEX_TESTENV_KUBECONFIG is not set. Run the integration tests through "
                "scripts/with-testenv.sh (or start tools/testenv and point this variable at the "
                "kubeconfig it writes); integration tests never skip.";
    }
  }

  [[nodiscard]] const Testenv& testenv() const { return *testenv_; }

  /// Loads `context` from the testenv kubeconfig; empty means current-context (admin).
  [[nodiscard]] client::ClientConfig config(const std::string& context = {}) const {
    return client::load_kubeconfig(testenv_->kubeconfig(), {.context = context});
  }

  /// Client options for suites that run over several protocols: KUBEX_TEST_PROTOCOL=http2
  /// sends everything over HTTP/2 (ctest's h2. copies of the Api<T> tests), =http1 nothing
  /// (the h1. copies of its streaming tests); otherwise the defaults: streams over HTTP/2,
  /// other requests over HTTP/1.1. KUBEX_TEST_ENCODING=protobuf asks for protobuf.
  [[nodiscard]] static client::ClientOptions client_options() {
    client::ClientOptions options;
    const char* protocol = std::getenv("KUBEX_TEST_PROTOCOL");
    const std::string_view chosen = protocol != nullptr ? protocol : "";
    if (chosen == "http2") {
      options.http2 = true;
    } else if (chosen == "http1") {
      options.http2 = false;
      options.http2_for_streams = false;
    }
    // KUBEX_TEST_ENCODING=protobuf: the pb. copies of the Api<T> tests ask for protobuf.
    const char* encoding = std::getenv("KUBEX_TEST_ENCODING");
    if (encoding != nullptr && std::string_view(encoding) == "protobuf") {
      options.encoding = client::Encoding::protobuf;
    }
    return options;
  }

  /// A fresh namespace for the running test, named after it; deleted when the test ends.
  const std::string& own_namespace() {
    if (!namespace_) {
      namespace_ = std::make_unique<ScopedNamespace>(
          *testenv_, ::testing::UnitTest::GetInstance()->current_test_info()->name());
    }
    return namespace_->name();
  }

  /// Waits until the controller-manager has published kube-root-ca.crt into the test's
  /// namespace, for tests that count every config map in it: it appears asynchronously. After
  /// a disruptive test restarted the apiserver, the controller-manager's informers re-list
  /// with client-go's backoff (up to 30 s, doubled by jitter), hence the long limit.
  void wait_for_root_ca() {
    (void)testenv_->kubectl("wait --for=create configmap/kube-root-ca.crt --timeout=120s -n " +
                            shell_quote(own_namespace()));
  }

 private:
  std::optional<Testenv> testenv_;
  std::unique_ptr<ScopedNamespace> namespace_;
};

}  // namespace kubex::testing
