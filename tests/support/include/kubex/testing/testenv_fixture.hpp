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

#include <kubex/client/http.hpp>
#include <kubex/client/kubeconfig.hpp>
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

  /// Client options for suites that run over either protocol: HTTP/2 when the environment
  /// sets KUBEX_TEST_HTTP2=1 (ctest's h2. copies of the Api<T> tests), else the defaults.
  [[nodiscard]] static client::ClientOptions client_options() {
    client::ClientOptions options;
    const char* h2 = std::getenv("KUBEX_TEST_HTTP2");
    options.http2 = h2 != nullptr && std::string_view(h2) == "1";
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
