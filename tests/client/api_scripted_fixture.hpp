// SPDX-License-Identifier: Apache-2.0
// The fixture of the Api<T> tests over kubex::testing::ScriptedTransport: a client on a
// script, an Api<core::Pod> in namespace "ns", and helpers that run the io_context.
#pragma once

#include <kubex/client/api.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/testing/scripted_transport.hpp>

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <string>

namespace kubex_test {

namespace core = kubex::k8s::v1_35::core::v1;

/// The pods collection of namespace "ns".
inline const std::string ns_pods = "/api/v1/namespaces/ns/pods";

/// A Pod named `name` in namespace "ns", as JSON.
inline std::string pod_json(const std::string& name, const std::string& rv = "1") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"ns","resourceVersion":")" + rv +
         R"("},"spec":{"containers":[{"name":"c","image":"busybox:1.36"}]}})";
}

/// Api<core::Pod> on a ScriptedTransport; TearDown checks that the whole script was played.
class api_scripted_test : public ::testing::Test {
 protected:
  api_scripted_test()
      : transport_(std::make_shared<kubex::testing::ScriptedTransport>(ioc_.get_executor())),
        client_(transport_),
        pods_(kubex::client::Api<core::Pod>::namespaced(client_, "ns")) {}

  void TearDown() override {
    if (check_script_) {
      EXPECT_EQ(transport_->verify(), "");
    }
  }

  // Runs the io_context until `future` is ready and returns its value.
  template <class R>
  R wait(std::future<R> future) {
    while (future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      if (ioc_.run_one() == 0) {
        ioc_.restart();  // it ran out of work earlier and stopped
      }
    }
    return future.get();
  }

  // The exception pointer an operation completes with, through a plain callback that
  // `start` passes as the token (Boost 1.81's as_tuple does not compose with use_future).
  template <class Start>
  std::exception_ptr error_of(Start&& start) {
    std::optional<std::exception_ptr> error;
    start([&error](std::exception_ptr e, auto&&... /*result*/) { error = std::move(e); });
    while (!error) {
      if (ioc_.run_one() == 0) {
        ioc_.restart();
      }
    }
    return *error;
  }

  boost::asio::io_context ioc_;
  bool check_script_ = true;  // TearDown: every step played, every request matched
  std::shared_ptr<kubex::testing::ScriptedTransport> transport_;
  kubex::client::Client client_;
  kubex::client::Api<core::Pod> pods_;
};

}  // namespace kubex_test
