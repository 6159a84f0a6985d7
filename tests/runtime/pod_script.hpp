// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pieces of a scripted pod server (kubex::testing::ScriptedTransport) that the runtime's
// scripted tests share: pods, pages of them, watch events and the watch a watcher opens.

#include <kubex/testing/scripted_transport.hpp>

#include <string>
#include <utility>
#include <vector>

namespace kubex::test_pods {

/// The pods of namespace "ns".
inline const std::string ns_pods = "/api/v1/namespaces/ns/pods";

/// A pod of namespace "ns" at resourceVersion `rv`.
inline std::string pod_json(const std::string& name, const std::string& rv) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"ns","resourceVersion":")" + rv + R"("}})";
}

/// A page of pods (each at version 1), the list at `rv`, continued by `continue_token`.
inline std::string pod_list(const std::vector<std::string>& names, const std::string& rv,
                            const std::string& continue_token = "") {
  std::string items;
  for (const auto& name : names) {
    items += (items.empty() ? "" : ",") + pod_json(name, "1");
  }
  std::string meta = R"({"resourceVersion":")" + rv + "\"";
  if (!continue_token.empty()) {
    meta += R"(,"continue":")" + continue_token + "\"";
  }
  return R"({"apiVersion":"v1","kind":"PodList","metadata":)" + meta + R"(},"items":[)" + items +
         "]}";
}

/// A watch event line.
inline std::string event(const std::string& type, const std::string& object) {
  return R"({"type":")" + type + R"(","object":)" + object + "}\n";
}

/// The watch a watcher opens after version `rv` (with the tests' fixed 300 s timeout).
inline std::string watch_target(const std::string& rv) {
  return ns_pods + "?watch=true&resourceVersion=" + rv +
         "&allowWatchBookmarks=true&timeoutSeconds=300";
}

/// That watch, answering with `lines`, then ending or (hold_open) staying open.
inline testing::Step watch_step(const std::string& rv, std::vector<std::string> lines,
                                bool hold_open) {
  testing::Step step;
  step.target = watch_target(rv);
  for (auto& line : lines) {
    step.stream.push_back(testing::StreamPiece{.bytes = std::move(line)});
  }
  step.hold_open = hold_open;
  return step;
}

}  // namespace kubex::test_pods
