// SPDX-License-Identifier: Apache-2.0
#pragma once
// What config_sync.cpp and config_sync_async.cpp share: the tool's view of a pod and of the
// snapshot it writes, with no I/O. Part of both measured translation units.

#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace config_sync {

namespace core = kubex::api::core::v1;

constexpr std::string_view snapshot_name = "config-sync-snapshot";
constexpr std::string_view manager = "config-sync";

// What the tool knows of one pod.
struct PodSummary {
  std::string name;
  std::string phase;
  std::string node;
  int restarts = 0;
  bool ready = false;
};

inline std::string phase_text(const core::Pod& pod) {
  if (!pod.status || !pod.status->phase) {
    return "Unknown";
  }
  const auto& phase = *pod.status->phase;
  if (phase == core::PodStatusPhase::Running || phase == core::PodStatusPhase::Pending ||
      phase == core::PodStatusPhase::Succeeded || phase == core::PodStatusPhase::Failed) {
    return phase.value();
  }
  return "Unknown (" + phase.value() + ")";
}

inline PodSummary summarize(const core::Pod& pod) {
  PodSummary s;
  s.name = pod.metadata.name.value_or("");
  s.phase = phase_text(pod);
  if (pod.spec && pod.spec->node_name) {
    s.node = *pod.spec->node_name;
  }
  if (pod.status) {
    for (const auto& c : pod.status->container_statuses) {
      s.restarts += c.restart_count;
    }
    for (const auto& c : pod.status->conditions) {
      if (c.type == "Ready") {
        s.ready = c.status == "True";
      }
    }
  }
  return s;
}

inline std::map<std::string, std::string> snapshot_data(const std::vector<PodSummary>& pods) {
  std::map<std::string, std::string> data;
  int ready = 0;
  for (const auto& p : pods) {
    data[p.name] = p.phase + " node=" + (p.node.empty() ? "-" : p.node) +
                   " restarts=" + std::to_string(p.restarts) + (p.ready ? " ready" : "");
    ready += p.ready ? 1 : 0;
  }
  data["_summary"] = std::to_string(ready) + "/" + std::to_string(pods.size()) + " ready";
  return data;
}

}  // namespace config_sync
