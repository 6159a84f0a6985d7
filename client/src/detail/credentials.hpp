// SPDX-License-Identifier: Apache-2.0
// Internal: the transport's credentials. A static token, basic auth or client certificate is
// used as it is; a token file is re-read when due; an exec plugin and the OIDC issuer, which
// may take seconds, are asked on a thread of their own, one fetch at a time, while the strand
// serves other requests and open streams. Never installed.
#pragma once

#include <kubex/client/exec_credential.hpp>
#include <kubex/client/kubeconfig.hpp>

#include "detail/call.hpp"
#include "detail/io.hpp"
#include "detail/oidc.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kubex::client::detail {

/// The credentials of one transport, used on its strand (config() from any thread).
class Credentials {
 public:
  /// Makes the TLS context for a client certificate an exec plugin returned; throws a
  /// ConfigError for an unusable one, which fails the requests waiting for it.
  using CertificateHook =
      std::function<void(const std::string& certificate_pem, const std::string& key_pem)>;

  /// The credentials `config` names. `token_file_refresh` is how old a read token file may
  /// get; `fetch_timeout` bounds an OIDC refresh.
  Credentials(const Strand& strand, ClientConfig config,
              std::chrono::milliseconds token_file_refresh, std::chrono::milliseconds fetch_timeout,
              CertificateHook on_certificate);
  /// Cuts the link a fetch thread still running would post its answer through.
  ~Credentials();
  Credentials(const Credentials&) = delete;
  Credentials& operator=(const Credentials&) = delete;

  /// Brings the credentials up to date before `call` is sent, or, with `force`, after a 401.
  /// Concurrent callers share one fetch, and a failed fetch fails each of them with its error;
  /// a caller waits no longer than its call's deadline. Returns true if the credential changed.
  awaitable<bool> refresh(const Call& call, bool force);

  /// Sets (or removes) the Authorization header of `call`'s message.
  void authorize(Call& call) const;

  /// Bumped by each change of credential: a 401 to a request sent with an older one needs no
  /// new fetch.
  [[nodiscard]] std::uint64_t generation() const noexcept { return generation_; }
  /// The configuration with the credentials refreshed so far (any thread).
  [[nodiscard]] ClientConfig config() const;
  /// Times the exec plugin ran.
  [[nodiscard]] std::size_t exec_runs() const noexcept { return exec_runs_.load(); }
  /// Times the OIDC id-token was refreshed.
  [[nodiscard]] std::size_t oidc_refreshes() const noexcept { return oidc_refreshes_.load(); }

 private:
  // A credential being fetched off the strand and the requests waiting for it.
  struct Fetch {
    std::vector<std::shared_ptr<Waiter>> waiters;
    bool changed = false;
    std::exception_ptr error;
  };
  // How a fetch's thread reaches these credentials; cut by the destructor.
  struct Link {
    std::mutex mutex;
    Credentials* owner = nullptr;
  };

  bool refresh_token(bool force);
  [[nodiscard]] bool exec_due(bool force) const;
  [[nodiscard]] bool oidc_due(bool force) const;
  bool apply_exec(ExecCredential fresh);
  bool apply_oidc(OidcTokens tokens);
  void start_fetch();
  void finish_fetch(std::optional<ExecCredential> credential, std::optional<OidcTokens> tokens,
                    std::exception_ptr error);

  Strand strand_;
  mutable std::mutex config_mutex_;  // config_ changes on the strand; config() may copy it
  ClientConfig config_;
  std::chrono::milliseconds token_file_refresh_;
  std::chrono::milliseconds fetch_timeout_;
  CertificateHook on_certificate_;

  std::optional<Clock::time_point> token_read_at_;  // last read of config_.token_file
  bool uses_exec_ = false;                          // the exec plugin supplies credentials
  std::optional<ExecCredential> exec_credential_;   // its last answer
  std::optional<double> oidc_expiry_;               // `exp` of the OIDC id-token
  std::shared_ptr<Fetch> fetch_;                    // the credential being fetched, if any
  std::uint64_t fetches_started_ = 0;               // the id of fetch_
  std::shared_ptr<Link> link_ = std::make_shared<Link>();
  std::uint64_t generation_ = 0;
  std::atomic<std::size_t> exec_runs_{0};
  std::atomic<std::size_t> oidc_refreshes_{0};
};

}  // namespace kubex::client::detail
