// SPDX-License-Identifier: Apache-2.0
// Example operator: reconciles Websites (website-crd.yaml) into a ConfigMap holding the page,
// a Deployment of web servers mounting it and a Service in front, all owned by the Website;
// reports readiness as a status condition; keeps a finalizer until its cleanup ran; records
// events; and runs in several replicas, of which only the leader (a Lease) reconciles.
//
//   kubex-website-operator [--namespace NS] [--identity ID] [--lease-duration-ms N]
//                          [--renew-deadline-ms N] [--retry-period-ms N]
//
// Uses the kubeconfig as kubectl does (KUBECONFIG, or in-cluster). Prints one line per
// leadership change and reconcile. SIGTERM or SIGINT: stops reconciling, then hands the lease
// over at once. Exits 1 if it loses the leadership, as client-go's operators do, to be
// restarted as a candidate.

#include <kubex/client/api.hpp>
#include <kubex/client/client.hpp>
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/example/website.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/k8s/v1_35/coordination/v1.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/k8s/v1_35/events/v1.hpp>
#include <kubex/runtime/conditions.hpp>
#include <kubex/runtime/controller.hpp>
#include <kubex/runtime/event_recorder.hpp>
#include <kubex/runtime/finalizer.hpp>
#include <kubex/runtime/leader_election.hpp>
#include <kubex/runtime/ownership.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace {

namespace apps = kubex::k8s::v1_35::apps::v1;
namespace core = kubex::k8s::v1_35::core::v1;
using kubex::client::Api;
using kubex::runtime::Action;
using Website = kubex_example::v1::Website;
using WebsitePtr = std::shared_ptr<const Website>;

constexpr std::string_view manager = "kubex-website-operator";
const std::string finalizer = "kubex.example.com/cleanup";

// What every reconcile uses.
struct Context {
  Api<Website> websites;
  Api<apps::Deployment> deployments;
  Api<core::ConfigMap> config_maps;
  Api<core::Service> services;
  kubex::runtime::EventRecorder<kubex::k8s::v1_35::events::v1::Event>& events;
};

std::map<std::string, std::string> labels_of(const std::string& name) {
  return {{"app.kubernetes.io/name", "website"},
          {"app.kubernetes.io/instance", name},
          {"app.kubernetes.io/managed-by", std::string(manager)}};
}

// Read a Website's owned objects as this operator applies them (server-side apply, partial
// objects: only what it sets is claimed).
core::ConfigMap content_of(const Website& site) {
  core::ConfigMap cm;
  cm.metadata.name = site.metadata.name.value_or("") + "-content";
  cm.metadata.labels = labels_of(site.metadata.name.value_or(""));
  cm.data = {{"index.html", site.spec ? site.spec->content : std::string()}};
  kubex::runtime::set_owner(cm, site);
  return cm;
}

apps::Deployment servers_of(const Website& site) {
  const std::string name = site.metadata.name.value_or("");
  apps::Deployment d;
  d.metadata.name = name;
  d.metadata.labels = labels_of(name);
  auto& spec = d.spec.emplace();
  spec.replicas = site.spec ? site.spec->replicas.value_or(1) : 1;
  spec.selector.match_labels = {{"app.kubernetes.io/instance", name}};
  auto& pod = spec.template_;
  pod.metadata.labels = labels_of(name);
  // A new page rolls the servers.
  pod.metadata.annotations = {
      {"kubex.example.com/content-hash",
       std::to_string(std::hash<std::string>{}(site.spec ? site.spec->content : ""))}};
  core::Container web;
  web.name = "web";
  web.image = site.spec ? site.spec->image.value_or("nginx:1.27") : "nginx:1.27";
  web.ports.emplace_back().container_port = 80;
  auto& mount = web.volume_mounts.emplace_back();
  mount.name = "content";
  mount.mount_path = "/usr/share/nginx/html";
  auto& pod_spec = pod.spec.emplace();
  pod_spec.containers = {web};
  auto& volume = pod_spec.volumes.emplace_back();
  volume.name = "content";
  volume.config_map.emplace().name = name + "-content";
  kubex::runtime::set_owner(d, site);
  return d;
}

core::Service service_of(const Website& site) {
  const std::string name = site.metadata.name.value_or("");
  core::Service s;
  s.metadata.name = name;
  s.metadata.labels = labels_of(name);
  auto& spec = s.spec.emplace();
  spec.selector = {{"app.kubernetes.io/instance", name}};
  auto& port = spec.ports.emplace_back();
  port.name = "http";
  port.port = 80;
  kubex::runtime::set_owner(s, site);
  return s;
}

boost::asio::awaitable<Action> apply(Context& ctx, WebsitePtr site) {
  using boost::asio::use_awaitable;
  const core::ConfigMap cm = content_of(*site);
  co_await ctx.config_maps.async_apply(cm, manager, true, use_awaitable);
  const apps::Deployment wanted = servers_of(*site);
  const apps::Deployment servers =
      co_await ctx.deployments.async_apply(wanted, manager, true, use_awaitable);
  const core::Service service = service_of(*site);
  co_await ctx.services.async_apply(service, manager, true, use_awaitable);

  // The status: how many servers are ready, as a Ready condition.
  const std::int32_t want = wanted.spec->replicas.value_or(1);
  const std::int32_t ready =
      servers.status ? servers.status->ready_replicas.value_or(0) : std::int32_t{0};
  Website status;
  status.metadata.name = site->metadata.name;
  auto& st = status.status.emplace();
  if (site->status) {
    st.conditions = site->status->conditions;
  }
  st.observed_generation = site->metadata.generation;
  st.ready_replicas = ready;
  kubex_example::v1::WebsiteStatusConditionsItem condition;
  condition.type = "Ready";
  condition.status = ready >= want ? "True" : "False";
  condition.reason = ready >= want ? "ServersReady" : "ServersStarting";
  condition.message = std::to_string(ready) + " of " + std::to_string(want) + " servers ready";
  condition.observed_generation = site->metadata.generation;
  const auto* before = kubex::runtime::find_condition(st.conditions, "Ready");
  const bool was_ready = before != nullptr && before->status == "True";
  const bool changed = kubex::runtime::set_condition(st.conditions, condition);
  const bool same_counts = site->status && site->status->ready_replicas == st.ready_replicas &&
                           site->status->observed_generation == st.observed_generation;
  if (changed || !same_counts) {
    co_await ctx.websites.async_apply_status(status, manager, true, use_awaitable);
  }
  if (was_ready != (ready >= want)) {
    co_await ctx.events.async_record(*site, kubex::runtime::EventType::normal,
                                     ready >= want ? "Ready" : "NotReady", "Reconcile",
                                     *condition.message, use_awaitable);
  }
  std::printf("reconciled %s: %d/%d ready\n", site->metadata.name.value_or("").c_str(), ready,
              want);
  std::fflush(stdout);
  co_return Action::await_change();  // the owned Deployment's changes bring it back
}

boost::asio::awaitable<Action> reconcile(Context& ctx, WebsitePtr site) {
  co_return co_await kubex::runtime::finalize(
      ctx.websites, finalizer, std::move(site),
      [&ctx](kubex::runtime::FinalizerEvent event, WebsitePtr s) -> boost::asio::awaitable<Action> {
        if (event == kubex::runtime::FinalizerEvent::apply) {
          co_return co_await apply(ctx, std::move(s));
        }
        // The owned objects go with the Website (garbage collector); what lives outside the
        // cluster would be removed here.
        co_await ctx.events.async_record(*s, kubex::runtime::EventType::normal, "CleanedUp",
                                         "Delete", "the website's resources are released",
                                         boost::asio::use_awaitable);
        std::printf("cleaned up %s\n", s->metadata.name.value_or("").c_str());
        std::fflush(stdout);
        co_return Action::await_change();
      });
}

struct Options {
  std::string namespace_name;
  std::string identity;
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
};

std::optional<Options> parse(int argc, char** argv, const kubex::client::ClientConfig& config) {
  Options o;
  o.namespace_name = config.namespace_name.empty() ? "default" : config.namespace_name;
  char host[256] = {};
  (void)gethostname(host, sizeof host - 1);
  o.identity = std::string(host) + "-" + std::to_string(getpid());
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--namespace") {
      o.namespace_name = value;
    } else if (flag == "--identity") {
      o.identity = value;
    } else if (flag == "--lease-duration-ms") {
      o.lease_duration = std::chrono::milliseconds(std::stoll(value));
    } else if (flag == "--renew-deadline-ms") {
      o.renew_deadline = std::chrono::milliseconds(std::stoll(value));
    } else if (flag == "--retry-period-ms") {
      o.retry_period = std::chrono::milliseconds(std::stoll(value));
    } else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return std::nullopt;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "option %s needs a value\n", argv[argc - 1]);
    return std::nullopt;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const kubex::client::ClientConfig config = kubex::client::infer_config();
    const auto options = parse(argc, argv, config);
    if (!options) {
      return 2;
    }
    boost::asio::io_context ioc;
    kubex::client::Client client(ioc.get_executor(), config);
    const std::string& ns = options->namespace_name;
    kubex::runtime::EventRecorder<kubex::k8s::v1_35::events::v1::Event> events(
        client,
        {.reporting_controller = std::string(manager), .reporting_instance = options->identity});
    Context ctx{Api<Website>::namespaced(client, ns), Api<apps::Deployment>::namespaced(client, ns),
                Api<core::ConfigMap>::namespaced(client, ns),
                Api<core::Service>::namespaced(client, ns), events};

    kubex::runtime::Controller<Website> controller(ctx.websites);
    const std::string owned = "app.kubernetes.io/managed-by=" + std::string(manager);
    kubex::runtime::ReflectorConfig<kubex::PartialObjectMeta<apps::Deployment>> deployments;
    deployments.watcher.label_selector = owned;
    kubex::runtime::ReflectorConfig<kubex::PartialObjectMeta<core::ConfigMap>> config_maps;
    config_maps.watcher.label_selector = owned;
    kubex::runtime::ReflectorConfig<kubex::PartialObjectMeta<core::Service>> services;
    services.watcher.label_selector = owned;
    controller.owns(ctx.deployments, deployments)
        .owns(ctx.config_maps, config_maps)
        .owns(ctx.services, services);

    int exit_code = 0;
    bool reconciling = false;
    bool terminating = false;
    std::optional<kubex::runtime::LeaderElector<kubex::k8s::v1_35::coordination::v1::Lease>>
        elector;
    const auto say = [&options](const char* what) {
      std::printf("%s %s\n", options->identity.c_str(), what);
      std::fflush(stdout);
    };
    kubex::runtime::LeaderElectionConfig election;
    election.lease_name = "kubex-website-operator";
    election.identity = options->identity;
    election.lease_duration = options->lease_duration;
    election.renew_deadline = options->renew_deadline;
    election.retry_period = options->retry_period;
    election.release_on_cancel = true;  // cancel() comes only after reconciling stopped
    election.on_started_leading = [&] {
      say("started leading");
      reconciling = true;
      controller.async_run([&ctx](WebsitePtr site) { return reconcile(ctx, std::move(site)); },
                           [&](std::exception_ptr error) {
                             reconciling = false;
                             if (error) {
                               std::fprintf(stderr, "controller: %s\n",
                                            kubex::Failure(error).message().c_str());
                               exit_code = 1;
                             }
                             elector->cancel();  // then the lease is released
                           });
    };
    election.on_new_leader = [&options](const std::string& holder) {
      std::printf("%s sees leader %s\n", options->identity.c_str(), holder.c_str());
      std::fflush(stdout);
    };
    election.on_stopped_leading = [&] {
      say("stopped leading");
      if (!terminating) {
        exit_code = 1;  // lost it: stop at once, another replica leads now
      }
      controller.shutdown();
    };
    elector.emplace(Api<kubex::k8s::v1_35::coordination::v1::Lease>::namespaced(client, ns),
                    election);

    boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& error, int) {
      if (error) {
        return;
      }
      say("terminating");
      terminating = true;
      if (reconciling) {
        controller.shutdown();  // its completion cancels the elector
      } else {
        elector->cancel();
      }
    });
    elector->async_run([&](std::exception_ptr error) {
      if (error) {
        std::fprintf(stderr, "leader election: %s\n", kubex::Failure(error).message().c_str());
      }
      say("released");
      signals.cancel();
      ioc.stop();
    });
    ioc.run();
    return exit_code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kubex-website-operator: %s\n", e.what());
    return 1;
  }
}
