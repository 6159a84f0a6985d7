// SPDX-License-Identifier: Apache-2.0
#include "detail/credentials.hpp"

#include <kubex/core/base64.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/time.hpp>

#include "detail/text.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/http/field.hpp>

#include <fstream>
#include <iterator>
#include <thread>
#include <utility>

namespace kubex::client::detail {

namespace http = boost::beast::http;

Credentials::Credentials(const Strand& strand, ClientConfig config,
                         std::chrono::milliseconds token_file_refresh,
                         std::chrono::milliseconds fetch_timeout, CertificateHook on_certificate)
    : strand_(strand),
      config_(std::move(config)),
      token_file_refresh_(token_file_refresh),
      fetch_timeout_(fetch_timeout),
      on_certificate_(std::move(on_certificate)) {
  // As in client-go, credentials written in the kubeconfig win over a plugin.
  uses_exec_ =
      config_.exec.has_value() && config_.token.empty() && config_.client_certificate_pem.empty();
  if (config_.oidc) {
    config_.token = config_.oidc->id_token;
    oidc_expiry_ = jwt_expiry(config_.oidc->id_token);
  }
  // The loader has just read the token file: the first refresh is due one period later.
  if (!config_.token_file.empty()) {
    token_read_at_ = Clock::now();
  }
  link_->owner = this;
}

Credentials::~Credentials() {
  const std::lock_guard lock(link_->mutex);  // waits for a fetch's answer being applied
  link_->owner = nullptr;
}

ClientConfig Credentials::config() const {
  const std::lock_guard lock(config_mutex_);
  return config_;
}

// A file that cannot be read keeps the current token: rotation replaces files atomically, so a
// failed read is transient, and the server will say 401 if the old token is really dead.
bool Credentials::refresh_token(bool force) {
  if (config_.token_file.empty()) {
    return false;
  }
  const auto now = Clock::now();
  if (!force && token_read_at_ && now - *token_read_at_ < token_file_refresh_) {
    return false;
  }
  token_read_at_ = now;
  std::ifstream in(config_.token_file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) {
    return false;
  }
  const auto token = trim_space(text);
  if (token.empty() || has_control_characters(token) || token == config_.token) {
    return false;  // a broken file would break the header; keep the token we have
  }
  const std::lock_guard lock(config_mutex_);
  config_.token.assign(token);
  return true;
}

// Due when there is no credential yet, it has expired, or `force` (a 401).
bool Credentials::exec_due(bool force) const {
  return uses_exec_ &&
         (force || !exec_credential_ ||
          (exec_credential_->expiration && Time::now() >= *exec_credential_->expiration));
}

// Due when the id-token is missing, within 10 s of its `exp`, or `force` (a 401). A token that
// is not a JWT is used as it is: the server decides.
bool Credentials::oidc_due(bool force) const {
  if (!config_.oidc) {
    return false;
  }
  const auto& oidc = *config_.oidc;
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (!force && !oidc.id_token.empty() && (!oidc_expiry_ || now + 10.0 < *oidc_expiry_)) {
    return false;
  }
  if (oidc.refresh_token.empty()) {
    if (force) {
      return false;  // nothing to try; the 401 stands
    }
    throw Error(std::make_error_code(std::errc::permission_denied),
                config_.source + ": users[" + config_.user_name + "]: the oidc id-token is " +
                    (oidc.id_token.empty() ? "missing" : "expired") +
                    " and there is no refresh-token");
  }
  return true;
}

// A new client certificate needs a new TLS context: connections made with the old one are not
// reused.
bool Credentials::apply_exec(ExecCredential fresh) {
  ++exec_runs_;
  const bool new_certificate = !fresh.client_certificate_pem.empty() &&
                               (!exec_credential_ || fresh.client_certificate_pem !=
                                                         exec_credential_->client_certificate_pem);
  const bool changed = !exec_credential_ || fresh.token != exec_credential_->token ||
                       fresh.client_certificate_pem != exec_credential_->client_certificate_pem;
  if (new_certificate) {
    on_certificate_(fresh.client_certificate_pem, fresh.client_key_pem);
  }
  {
    const std::lock_guard lock(config_mutex_);
    config_.token = fresh.token;
  }
  exec_credential_ = std::move(fresh);
  return changed;
}

bool Credentials::apply_oidc(OidcTokens tokens) {
  ++oidc_refreshes_;
  auto& oidc = *config_.oidc;
  const std::lock_guard lock(config_mutex_);
  oidc.id_token = std::move(tokens.id_token);
  if (!tokens.refresh_token.empty()) {
    oidc.refresh_token = std::move(tokens.refresh_token);
  }
  oidc_expiry_ = jwt_expiry(oidc.id_token);
  config_.token = oidc.id_token;
  return true;
}

awaitable<bool> Credentials::refresh(const Call& call, bool force) {
  bool changed = refresh_token(force);
  if (changed) {
    ++generation_;
  }
  if (exec_due(force) || oidc_due(force)) {
    if (!fetch_) {
      start_fetch();
    }
    const auto fetch = fetch_;
    auto waiter = std::make_shared<Waiter>(strand_);
    waiter->timer.expires_at(call.streaming ? Clock::time_point::max() : call.deadline);
    fetch->waiters.push_back(waiter);
    const auto [ec] = co_await waiter->timer.async_wait(use_tuple);
    if (!waiter->woken) {
      std::erase(fetch->waiters, waiter);
      if (!ec) {
        fail_timeout(call, "waiting for credentials", fetch_timeout_);
      }
      fail(call, "waiting for credentials", ec);
    }
    if (fetch->error) {
      std::rethrow_exception(fetch->error);
    }
    changed = changed || fetch->changed;
  }
  co_return changed;
}

// The thread holds no executor, timer or strong reference: it may outlive these credentials
// and the io_context (a plugin that is slow to answer when the client goes away). It posts
// through link_ under its mutex, which the destructor takes to cut the link, so the strand is
// alive while it posts; the posted answer checks the link again on the strand. Meanwhile the
// waiting requests' timers keep the io_context running.
void Credentials::start_fetch() {
  fetch_ = std::make_shared<Fetch>();
  const std::uint64_t id = ++fetches_started_;
  std::thread([link = link_, id, exec = uses_exec_, config = config_, timeout = fetch_timeout_] {
    std::optional<ExecCredential> credential;
    std::optional<OidcTokens> tokens;
    std::exception_ptr error;
    try {
      if (exec) {
        credential = run_exec_plugin(config);
      } else {
        tokens = refresh_oidc_tokens(*config.oidc, timeout);
      }
    } catch (...) {
      error = std::current_exception();
    }
    try {
      const std::lock_guard lock(link->mutex);
      if (link->owner != nullptr) {
        asio::post(link->owner->strand_, [link, id, credential = std::move(credential),
                                          tokens = std::move(tokens), error]() mutable {
          const std::lock_guard held(link->mutex);
          Credentials* self = link->owner;
          if (self != nullptr && self->fetch_ && self->fetches_started_ == id) {
            self->finish_fetch(std::move(credential), std::move(tokens), error);
          }
        });
      }
    } catch (...) {  // posting allocates; without memory the waiters time out
    }
  }).detach();
}

void Credentials::finish_fetch(std::optional<ExecCredential> credential,
                               std::optional<OidcTokens> tokens, std::exception_ptr error) {
  const auto fetch = std::move(fetch_);
  if (!error) {
    try {
      fetch->changed =
          credential ? apply_exec(std::move(*credential)) : apply_oidc(std::move(*tokens));
    } catch (...) {
      error = std::current_exception();  // an unusable client certificate, say
    }
  }
  if (fetch->changed) {
    ++generation_;
  }
  fetch->error = error;
  for (const auto& waiter : fetch->waiters) {
    waiter->wake();
  }
  fetch->waiters.clear();
}

void Credentials::authorize(Call& call) const {
  auto& message = call.message;
  if (!config_.token.empty()) {
    message.set(http::field::authorization, "Bearer " + config_.token);
  } else if (!config_.username.empty() || !config_.password.empty()) {
    message.set(http::field::authorization,
                "Basic " + base64_encode(config_.username + ":" + config_.password));
  } else {
    message.erase(http::field::authorization);
  }
}

}  // namespace kubex::client::detail
