// SPDX-License-Identifier: Apache-2.0
// A candidate process for tests/integration/leader_election_test.cpp: it campaigns for a Lease
// with short durations and prints a timeline, one line per callback, each stamped with the
// steady clock (CLOCK_MONOTONIC, which every process on the machine shares, so the test can
// line up the timelines of several candidates and its own kill times). SIGTERM or SIGINT
// cancels it: it stops leading, releases the Lease and exits 0.
//
//   kubex_leader_election_candidate LEASE NAMESPACE IDENTITY [LEASE_MS RENEW_MS RETRY_MS]
//
// Lines: "<ns> ready", "<ns> leader <identity>", "<ns> started", "<ns> stopped",
// "<ns> error <message>", and at the end "<ns> done" or "<ns> failed <message>". The server is
// the one of KUBECONFIG (scripts/with-testenv.sh sets it).

#include <kubex/client/api.hpp>
#include <kubex/client/client.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/k8s/v1_35/coordination/v1.hpp>
#include <kubex/runtime/leader_election.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>

namespace {

namespace coordination = kubex::k8s::v1_35::coordination::v1;

void line(const std::string& text) {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  std::printf(
      "%lld %s\n",
      static_cast<long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()),
      text.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 7) {
    std::fprintf(stderr, "usage: %s LEASE NAMESPACE IDENTITY [LEASE_MS RENEW_MS RETRY_MS]\n",
                 argv[0]);
    return 2;
  }
  try {
    boost::asio::io_context ioc;
    kubex::client::Client client(ioc.get_executor(), kubex::client::infer_config());
    kubex::runtime::LeaderElectionConfig config;
    config.lease_name = argv[1];
    config.identity = argv[3];
    if (argc == 7) {
      config.lease_duration = std::chrono::milliseconds(std::stol(argv[4]));
      config.renew_deadline = std::chrono::milliseconds(std::stol(argv[5]));
      config.retry_period = std::chrono::milliseconds(std::stol(argv[6]));
    }
    config.release_on_cancel = true;
    config.on_started_leading = [] {
      line("started");
    };
    config.on_stopped_leading = [] {
      line("stopped");
    };
    config.on_new_leader = [](const std::string& identity) {
      line("leader " + identity);
    };
    config.on_error = [](std::exception_ptr error) {
      line("error " + kubex::Failure(error).message());
    };
    kubex::runtime::LeaderElector<coordination::Lease> elector(
        kubex::client::Api<coordination::Lease>::namespaced(client, argv[2]), config);

    boost::asio::signal_set signals(ioc, SIGTERM, SIGINT);
    signals.async_wait([&elector](boost::system::error_code ec, int /*signal*/) {
      if (!ec) {
        elector.cancel();
      }
    });
    int status = 0;
    elector.async_run([&](std::exception_ptr error) {
      if (error) {
        line("failed " + kubex::Failure(error).message());
        status = 1;
      } else {
        line("done");
      }
      signals.cancel();
    });
    line("ready");
    ioc.run();
    return status;
  } catch (const std::exception& e) {
    line(std::string("failed ") + e.what());
    return 1;
  }
}
