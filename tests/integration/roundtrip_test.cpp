// SPDX-License-Identifier: Apache-2.0
// Lossless round trip of real objects of every built-in kind the testenv kube-apiserver serves.
//
// The test creates one or more objects of every kind from the manifests in
// tests/integration/manifests (kubectl is the independent client), reads each back as JSON
// through kubex's HTTPS connection at the path the resource traits give, and then, typed per
// kind through for_each_resource:
//
//   * decodes it into the model and requires that no field the server sent was unknown to the
//     model -- not just at the top level: every field at every depth is probed (see FieldProbe);
//   * encodes it and compares the result with the server's JSON: everything the server sent is
//     there and equal, a null, [] or {} may be left out, and nothing is added but
//     apiVersion/kind; decoding the result again gives an equal object;
//   * injects unknown fields at several depths (top level, metadata, spec and an array element
//     below spec) and requires them to survive decode -> encode unchanged, at the same paths;
//   * sends the re-encoded object back to the server (a PUT through `kubectl replace`, server
//     side dry run, strict field validation), which must accept it.
//
// Kinds that can only be created (reviews, Binding) are created from their manifests with the
// object kubex re-encoded, and the server's answer is round-tripped and sent again. APIService
// is created with a server-side dry run only (see its manifest). Finally every object the
// server lists of every listable kind (ours and the cluster's own: bootstrap roles, flow
// schemas, nodes, leases, events, ...) is round-tripped as well, list type included.
//
// Every served kind must be covered by a manifest or be in `not_created` with a reason; a new
// kind without either fails manifests_cover_every_served_kind. Exceptions to the steps above
// are listed with their reasons (answered_with_status, answer_not_resendable). Known model bugs are
// listed in `known_bugs`, which the test checks in both directions: a listed bug that no longer
// reproduces fails too, so the list cannot go stale.

#include <kubex/client/blocking.hpp>
#include <kubex/client/stream_items.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/path.hpp>
#include <kubex/core/protobuf.hpp>
#include <kubex/core/protobuf_envelope.hpp>
#include <kubex/core/protobuf_object.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/k8s/v1_35/resources.hpp>
#include <kubex/testing/temp_dir.hpp>
#include <kubex/testing/testenv.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include "json_tree.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace v1_35 = kubex::k8s::v1_35;
namespace fs = std::filesystem;
using kubex::client::BlockingClient;
using kubex::testing::shell_quote;
using kubex_test::Compare;
using kubex_test::compare_json;
using kubex_test::Json;
using kubex_test::parse_json;
using kubex_test::to_json;

// Kinds the test does not create from a manifest, and why. Everything else the server serves
// needs a manifest.
const std::map<std::string, std::string> not_created = {
    {"v1 ComponentStatus",
     "read-only: the apiserver computes component statuses when asked; the test round-trips "
     "the ones it lists"},
};

// Create-only kinds whose create the server answers with a Status rather than the object.
const std::map<std::string, std::string> answered_with_status = {
    {"v1 Binding",
     "binds a pod: the server answers with a Status; the test checks the pod's "
     "spec.nodeName instead"},
};

// Create-only kinds whose answer is not a request that could be sent again, and why.
const std::map<std::string, std::string> answer_not_resendable = {
    {"authorization.k8s.io/v1 SelfSubjectRulesReview",
     "the server answers with the status only: spec.namespace, which a request needs, is not "
     "echoed"},
};

// Model or codec bugs this test found and that are not fixed yet: kind -> a text that one of
// the kind's problems contains. Each entry must reproduce (or the test fails, so that a fix
// is noticed) and the kind must show no other problem.
const std::map<std::string, std::string> known_bugs = {};

// Apply order: what other objects need at creation comes first (pods name the priority class
// and service account, volumes the config map and secret, claims the storage class); the
// quota comes last so that nothing waits for the quota controller to compute its usage.
const std::vector<std::string> apply_first = {
    "scheduling.k8s.io_v1_priorityclasses.yaml", "core_v1_serviceaccounts.yaml",
    "core_v1_configmaps.yaml", "core_v1_secrets.yaml", "storage.k8s.io_v1_storageclasses.yaml"};
const std::vector<std::string> apply_last = {"core_v1_resourcequotas.yaml"};

// What survives decode -> encode as an unknown field, at several depths.
constexpr std::string_view injected_value =
    R"({"a":[1,2,{"b":null}],"s":"kubex \"injected\" \u00e9\n","n":-0.125,"t":true,"e":{}})";

// At most this many listed objects per kind get the per-field probe, which decodes an object
// about twice per object or array in it (the others get the other checks); only a few under
// the sanitizers, which make decoding some 40 times slower.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t probed_list_items = 2;
#else
constexpr std::size_t probed_list_items = 20;
#endif

fs::path manifests_dir() {
  return KUBEX_INTEGRATION_MANIFESTS_DIR;
}

// Where the time goes, for the summary.
class Stopwatch {
 public:
  void lap(const std::string& what) {
    const auto now = std::chrono::steady_clock::now();
    laps_ += " " + what + " " + format(now - last_) + ";";
    last_ = now;
  }
  [[nodiscard]] double total_seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  [[nodiscard]] const std::string& laps() const noexcept { return laps_; }
  static std::string format(std::chrono::steady_clock::duration d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f s", std::chrono::duration<double>(d).count());
    return buf;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = start_;
  std::string laps_;
};

// Time spent in FieldProbe, which decodes each object once per field.
std::chrono::steady_clock::duration probe_time{};

template <class T>
std::string label() {
  using R = kubex::resource_traits<T>;
  return std::string(R::api_version) + " " + std::string(R::kind);
}

template <class T>
std::string manifest_name() {
  using R = kubex::resource_traits<T>;
  return std::string(R::group.empty() ? std::string_view("core") : R::group) + "_" +
         std::string(R::version) + "_" + std::string(R::plural) + ".yaml";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot read " + path.string());
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Paths inside a Json tree.

struct Step {
  bool is_index = false;
  std::string key{};
  std::size_t index = 0;
};
using Path = std::vector<Step>;

std::string path_string(const Path& path) {
  std::string out;
  for (const Step& s : path) {
    if (s.is_index) {
      out += "[" + std::to_string(s.index) + "]";
    } else {
      out += (out.empty() ? "" : ".") + s.key;
    }
  }
  return out.empty() ? "<root>" : out;
}

Json* node_at(Json& root, const Path& path) {
  Json* node = &root;
  for (const Step& s : path) {
    if (s.is_index) {
      if (!node->is_array() || s.index >= node->array.size()) {
        return nullptr;
      }
      node = &node->array[s.index];
    } else {
      node = node->find(s.key);
      if (node == nullptr) {
        return nullptr;
      }
    }
  }
  return node;
}

// ---------------------------------------------------------------------------------------------
// The per-field probe: which fields of a server's JSON does the model not know?
//
// Unknown fields survive a round trip (that is their point), so comparing JSON cannot find
// them. Instead each field is sent twice in the same object: a known field is read twice into
// the same member and the decoded object stays equal to the original decode; an unknown one is
// kept twice in unknown_fields and the object differs. Objects and arrays the model keeps as
// raw JSON (RawExtension, FieldsV1, preserved unknown fields) are not typed, so the probe does
// not descend into them; they are recognised by writing the value's own punctuation with
// spaces, which a typed decode normalises away and raw JSON keeps.

template <class T>
class FieldProbe {
 public:
  FieldProbe(Json doc, T decoded) : doc_(std::move(doc)), decoded_(std::move(decoded)) {}

  void run() {
    const auto start = std::chrono::steady_clock::now();
    Path path;
    visit_children(doc_, path);
    probe_time += std::chrono::steady_clock::now() - start;
  }

  /// Paths of fields the model does not know.
  std::vector<std::string> unknown{};
  /// Paths of the objects the model decodes field by field (root included), in document
  /// order.
  std::vector<Path> typed_objects{};

 private:
  bool decodes_equal() {
    try {
      return kubex::json::decode<T>(to_json(doc_)) == decoded_;
    } catch (const std::exception&) {
      return false;
    }
  }

  bool held_raw(Json& node) {
    node.spaced = true;
    const bool same = decodes_equal();
    node.spaced = false;
    return !same;
  }

  static Json& child(Json& node, std::size_t i) {
    return node.is_object() ? node.object[i].second : node.array[i];
  }

  // Those of the children `candidates` of `node` that are objects or arrays the model decodes
  // field by field (rather than keeping them raw): one probe for all, one per child only when
  // some child is raw.
  std::vector<std::size_t> typed_containers(Json& node,
                                            const std::vector<std::size_t>& candidates) {
    std::vector<std::size_t> containers;
    for (const std::size_t i : candidates) {
      if (child(node, i).is_object() || child(node, i).is_array()) {
        containers.push_back(i);
      }
    }
    if (containers.empty()) {
      return containers;
    }
    for (const std::size_t i : containers) {
      child(node, i).spaced = true;
    }
    const bool none_raw = decodes_equal();
    for (const std::size_t i : containers) {
      child(node, i).spaced = false;
    }
    if (none_raw) {
      return containers;
    }
    std::vector<std::size_t> typed;
    if (containers.size() > 1) {
      for (const std::size_t i : containers) {
        if (!held_raw(child(node, i))) {
          typed.push_back(i);
        }
      }
    }
    return typed;
  }

  // Probes the fields of `node`, an object or array the model decodes field by field, and
  // descends into its typed children.
  void visit_children(Json& node, Path& path) {
    std::vector<std::size_t> candidates;
    if (node.is_object()) {
      typed_objects.push_back(path);
      // Every field twice at once; field by field only when that changes the decoded object.
      const std::size_t n = node.object.size();
      node.object.reserve(2 * n);
      for (std::size_t k = 0; k < n; ++k) {
        node.object.push_back(node.object[k]);
      }
      const bool all_known = decodes_equal();
      node.object.resize(n);
      for (std::size_t k = 0; k < n; ++k) {
        bool known = all_known;
        if (!known) {
          auto twin = node.object[k];
          node.object.insert(node.object.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                             std::move(twin));
          known = decodes_equal();
          node.object.erase(node.object.begin() + static_cast<std::ptrdiff_t>(k) + 1);
        }
        if (known) {
          candidates.push_back(k);
        } else {
          path.push_back(Step{.key = node.object[k].first});
          unknown.push_back(path_string(path));
          path.pop_back();
        }
      }
    } else {
      for (std::size_t i = 0; i < node.array.size(); ++i) {
        candidates.push_back(i);
      }
    }
    for (const std::size_t i : typed_containers(node, candidates)) {
      path.push_back(node.is_object() ? Step{.key = node.object[i].first}
                                      : Step{.is_index = true, .index = i});
      visit_children(child(node, i), path);
      path.pop_back();
    }
  }

  Json doc_;
  T decoded_;
};

// ---------------------------------------------------------------------------------------------
// The checks on one object.

template <class F>
auto present(const F& field) {
  if constexpr (requires { field.has_value(); }) {
    using X = std::remove_cvref_t<decltype(*field)>;
    return field.has_value() ? &*field : static_cast<const X*>(nullptr);
  } else {
    return &field;
  }
}

template <class X>
void expect_no_unknown_fields(const X* x, const std::string& where,
                              std::vector<std::string>& problems) {
  if constexpr (requires { x->unknown_fields; }) {
    if (x != nullptr) {
      for (const auto& [name, value] : x->unknown_fields.fields()) {
        problems.push_back(where + name + ": unknown to the model, kept raw (" +
                           value.text.substr(0, 120) + ")");
      }
      if (!x->unknown_fields.protobuf().empty()) {
        problems.push_back(where + ": " + std::to_string(x->unknown_fields.protobuf().size()) +
                           " bytes of protobuf fields unknown to the model");
      }
    }
  }
}

// The unknown fields collected at the top level of an object and in its metadata, spec and
// status: the direct check (the probe finds them at every depth).
template <class T>
void expect_no_top_level_unknown_fields(const T& object, const std::string& prefix,
                                        std::vector<std::string>& problems) {
  expect_no_unknown_fields(&object, prefix, problems);
  if constexpr (requires { object.metadata; }) {
    expect_no_unknown_fields(present(object.metadata), prefix + "metadata.", problems);
  }
  if constexpr (requires { object.spec; }) {
    expect_no_unknown_fields(present(object.spec), prefix + "spec.", problems);
  }
  if constexpr (requires { object.status; }) {
    expect_no_unknown_fields(present(object.status), prefix + "status.", problems);
  }
}

// Where unknown fields are injected: the root, metadata, spec (or status) and an element of
// an array below spec (or below status, or anywhere).
std::vector<std::pair<Path, std::string>> injection_targets(const std::vector<Path>& typed) {
  auto has = [&](const Path& p) {
    return std::find_if(typed.begin(), typed.end(), [&](const Path& t) {
             return path_string(t) == path_string(p);
           }) != typed.end();
  };
  std::vector<std::pair<Path, std::string>> targets = {{Path{}, "kubexInjectedTop"}};
  if (has({Step{.key = "metadata"}})) {
    targets.emplace_back(Path{Step{.key = "metadata"}}, "kubexInjectedMetadata");
  }
  std::string body;
  for (const char* candidate : {"spec", "status"}) {
    if (has({Step{.key = candidate}})) {
      body = candidate;
      targets.emplace_back(Path{Step{.key = body}}, "kubexInjectedSpec");
      break;
    }
  }
  const Path* element = nullptr;
  for (const Path& p : typed) {
    if (p.empty() || !p.back().is_index) {
      continue;
    }
    if (!body.empty() && p.front().key == body) {
      element = &p;
      break;
    }
    if (element == nullptr || (element->front().key == "metadata" && p.front().key != "metadata")) {
      element = &p;
    }
  }
  if (element != nullptr) {
    targets.emplace_back(*element, "kubexInjectedElement");
  }
  return targets;
}

// Injects unknown fields into `original` and checks that they survive decode -> encode.
template <class T>
void check_injected_fields(const Json& original, const std::vector<Path>& typed,
                           const std::string& what, std::vector<std::string>& problems) {
  const Json value = parse_json(injected_value, "the injected value");
  const auto targets = injection_targets(typed);
  Json doc = original;
  for (const auto& [path, key] : targets) {
    Json* node = node_at(doc, path);
    if (node == nullptr || !node->is_object()) {
      problems.push_back(what + ": cannot inject at " + path_string(path));
      return;
    }
    node->object.emplace_back(key, value);
  }
  T decoded;
  try {
    decoded = kubex::json::decode<T>(to_json(doc));
  } catch (const std::exception& e) {
    problems.push_back(what + ": with injected fields: decode failed: " + e.what());
    return;
  }
  const auto& top = decoded.unknown_fields.fields();
  if (std::none_of(top.begin(), top.end(),
                   [](const auto& f) { return f.first == "kubexInjectedTop"; })) {
    problems.push_back(what + ": the injected top-level field is not in unknown_fields");
  }
  const std::string encoded = kubex::json::encode(decoded);
  Json out = parse_json(encoded, what + " re-encoded with injected fields");
  for (const auto& [path, key] : targets) {
    const std::string where = path_string(path) + "." + key;
    Json* node = node_at(out, path);
    const Json* survived = node != nullptr ? node->find(key) : nullptr;
    if (survived == nullptr) {
      problems.push_back(what + ": injected field " + where + " lost");
      continue;
    }
    std::vector<std::string> diffs;
    compare_json(value, *survived, where, Compare::exact, diffs);
    for (const auto& d : diffs) {
      problems.push_back(what + ": injected field changed: " + d);
    }
  }
  std::vector<std::string> diffs;
  compare_json(doc, out, "", Compare::lossless, diffs);
  for (const auto& d : diffs) {
    problems.push_back(what + ": with injected fields: " + d);
  }
  try {
    if (!(kubex::json::decode<T>(encoded) == decoded)) {
      problems.push_back(what + ": with injected fields: decode(encode(x)) != x");
    }
  } catch (const std::exception& e) {
    problems.push_back(what + ": with injected fields: re-decode failed: " + e.what());
  }
}

// Which of the costlier checks check_round_trip makes.
struct Checks {
  /// Probe every field at every depth (FieldProbe).
  bool probe = true;
  /// Inject unknown fields and require them to survive.
  bool inject = true;
};

// All checks on one object of kind T as JSON `text`; returns kubex's encoding of it (empty if
// it could not be decoded).
template <class T>
std::string check_round_trip(const std::string& text, const std::string& what, Checks checks,
                             std::vector<std::string>& problems) {
  const Json original = parse_json(text, what);
  T first;
  try {
    first = kubex::json::decode<T>(text);
  } catch (const std::exception& e) {
    problems.push_back(what + ": decode failed: " + e.what());
    return {};
  }
  expect_no_top_level_unknown_fields(first, what + ": ", problems);

  FieldProbe<T> probe(original, first);
  if (checks.probe) {
    probe.run();
    for (const auto& p : probe.unknown) {
      problems.push_back(what + ": " + p + ": field unknown to the model");
    }
  }

  const std::string encoded = kubex::json::encode(first);
  std::vector<std::string> diffs;
  compare_json(original, parse_json(encoded, what + " re-encoded"), "", Compare::lossless, diffs);
  for (const auto& d : diffs) {
    problems.push_back(what + ": " + d);
  }
  try {
    if (!(kubex::json::decode<T>(encoded) == first)) {
      problems.push_back(what + ": decode(encode(x)) != x");
    }
  } catch (const std::exception& e) {
    problems.push_back(what + ": re-decoding kubex's encoding failed: " + e.what());
  }
  if (checks.inject && checks.probe) {
    check_injected_fields<T>(original, probe.typed_objects, what, problems);
  }
  return encoded;
}

// ---------------------------------------------------------------------------------------------
// The cluster side.

struct KubectlResult {
  int exit_code = -1;
  std::string out{};
  std::string err{};
};

struct ObjectRef {
  std::string api_version;
  std::string kind;
  std::string namespace_name;
  std::string name;
};

// Outcome per kind, for the verdict and the summary.
struct KindReport {
  std::string how = "not served";
  std::size_t objects = 0;
  std::size_t listed = 0;
  std::size_t put_back = 0;
  std::size_t put_back_protobuf = 0;  // objects the server took back as kubex's protobuf
  std::size_t from_protobuf = 0;      // listed objects read from protobuf, equal to their JSON
  std::vector<std::string> problems{};
};

class roundtrip_test : public kubex::testing::TestenvTest {
 protected:
  KubectlResult run_kubectl(const std::string& arguments) {
    const fs::path err = temp_.path() / ("stderr-" + std::to_string(++commands_));
    auto r =
        kubex::testing::run_command("kubectl --kubeconfig " + shell_quote(testenv().kubeconfig()) +
                                    " " + arguments + " 2>" + shell_quote(err.string()));
    KubectlResult result{r.exit_code, std::move(r.output), {}};
    std::error_code ignored;
    if (fs::exists(err, ignored)) {
      result.err = read_file(err);
    }
    return result;
  }

  fs::path write_temp(const std::string& name, const std::string& contents) {
    return temp_.write(std::to_string(++commands_) + "-" + name, contents);
  }

  // Which group-versions of the traits the server serves.
  std::set<std::string> served_group_versions(BlockingClient& connection) {
    std::set<std::string> gvs;
    v1_35::for_each_resource(
        [&]<class T>() { gvs.emplace(kubex::resource_traits<T>::api_version); });
    std::set<std::string> served;
    for (const auto& gv : gvs) {
      const auto response =
          connection.get(gv.find('/') == std::string::npos ? "/api/" + gv : "/apis/" + gv);
      if (response.status == 200) {
        served.insert(gv);
      } else if (response.status != 404) {
        throw std::runtime_error("discovery of " + gv + ": HTTP " +
                                 std::to_string(response.status) + ": " + response.body);
      }
    }
    return served;
  }

  // The JSON text with every object's keys sorted.
  static std::string sorted_keys(std::string_view text) {
    Json doc = parse_json(text);
    auto sort = [](auto& self, Json& j) -> void {
      std::stable_sort(j.object.begin(), j.object.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      for (auto& [k, v] : j.object) {
        self(self, v);
      }
      for (auto& v : j.array) {
        self(self, v);
      }
    };
    sort(sort, doc);
    return to_json(doc);
  }

  template <class Items>
  static void sort_by_name(Items& items) {
    using T = typename Items::value_type;
    std::stable_sort(items.begin(), items.end(), [](const T& a, const T& b) {
      return std::tie(a.metadata.namespace_, a.metadata.name) <
             std::tie(b.metadata.namespace_, b.metadata.name);
    });
  }

  // The same list read as protobuf into the models must equal its JSON read: both encoded to
  // JSON give the same text (the list's resourceVersion aside). Objects change between two
  // reads (leases renew, events come), so a pair that differs is read again, three times.
  // The protobuf read must hold no field the model does not know, and the generated writer
  // must write it back as protobuf that reads the same.
  template <class T>
  void compare_protobuf(BlockingClient& connection, const std::string& what, KindReport& report) {
    using R = kubex::resource_traits<T>;
    using L = typename R::list_type;
    const std::string path =
        kubex::resource_path({.group = R::group, .version = R::version, .resource = R::plural});
    std::string problem;
    for (int attempt = 0; attempt < 3; ++attempt) {
      kubex::client::HttpRequest request;
      request.target = path;
      request.accept = std::string(kubex::protobuf::media_type);
      const auto response = connection.send(std::move(request));
      if (response.status != 200 || response.content_type != kubex::protobuf::media_type) {
        report.problems.push_back(what + ": protobuf: HTTP " + std::to_string(response.status) +
                                  " " + response.content_type);
        return;
      }
      L from_proto;
      try {
        const auto envelope = kubex::protobuf::open_envelope(response.body);
        if (envelope.kind != std::string(R::kind) + "List") {
          report.problems.push_back(what + ": protobuf: the envelope holds a " +
                                    std::string(envelope.kind));
          return;
        }
        kubex::protobuf::Reader reader(envelope.raw);
        kubex_read_proto(reader, from_proto);
        L written_back;
        kubex::protobuf::decode_object(
            kubex::protobuf::encode_object(from_proto, envelope.api_version, envelope.kind),
            written_back);
        written_back.api_version = from_proto.api_version;  // the envelope's, as it was read
        written_back.kind = from_proto.kind;
        if (!(written_back == from_proto)) {
          report.problems.push_back(what + ": protobuf: written back, reads as another list");
        }
      } catch (const std::exception& e) {
        report.problems.push_back(what + ": protobuf: decode failed: " + e.what());
        return;
      }
      for (const auto& item : from_proto.items) {
        expect_no_top_level_unknown_fields(item, what + ": protobuf: ", report.problems);
      }
      auto from_json = kubex::json::decode<L>(connection.get(path).body);
      from_json.metadata.resource_version = from_proto.metadata.resource_version;
      // Some lists come in no fixed order (ComponentStatus probes its components at once).
      sort_by_name(from_json.items);
      sort_by_name(from_proto.items);
      const std::string a = kubex::json::encode(from_json);
      const std::string b = kubex::json::encode(from_proto);
      // A free-form value (a CRD's schema) is JSON the decoder wrote from protobuf, with the
      // model's key order rather than the server's: key order aside, it must be equal.
      if (a == b || sorted_keys(a) == sorted_keys(b)) {
        report.from_protobuf += from_proto.items.size();
        return;
      }
      const std::size_t n = std::min(a.size(), b.size());
      std::size_t at = 0;
      while (at < n && a[at] == b[at]) {
        ++at;
      }
      const std::size_t from = at > 60 ? at - 60 : 0;
      // A Secret's values are never printed.
      const bool secret = R::kind == std::string_view("Secret");
      problem = what + ": protobuf: differs from JSON at byte " + std::to_string(at) +
                (secret ? std::string()
                        : "\n    json:     ..." + a.substr(from, 160) + "\n    protobuf: ..." +
                              b.substr(from, 160));
    }
    report.problems.push_back(problem);
  }

  std::string substitute(const std::string& text) const {
    return replace_all(replace_all(text, "KUBEX_NAMESPACE", namespace_), "KUBEX_NODE", node_);
  }

  // GET of one object at the path its traits give.
  template <class T>
  kubex::client::HttpResponse get_object(BlockingClient& connection, const ObjectRef& ref) {
    return connection.get(object_path<T>(ref));
  }

  template <class T>
  static std::string object_path(const ObjectRef& ref) {
    using R = kubex::resource_traits<T>;
    return kubex::resource_path({.group = R::group,
                                 .version = R::version,
                                 .resource = R::plural,
                                 .namespace_name = R::scope == kubex::Scope::namespaced
                                                       ? std::string_view(ref.namespace_name)
                                                       : std::string_view(),
                                 .name = ref.name});
  }

  // The object as the server has it, written by the generated protobuf writer and sent back
  // as a server-side dry-run PUT: the server must read kubex's protobuf as that object. A
  // conflict (the object changed meanwhile) is read again, up to three times.
  template <class T>
  void put_back_in_protobuf(BlockingClient& connection, const ObjectRef& ref,
                            const std::string& what, KindReport& report) {
    using R = kubex::resource_traits<T>;
    std::string last;
    for (int attempt = 0; attempt < 3; ++attempt) {
      const auto current = get_object<T>(connection, ref);
      if (current.status != 200) {
        last = "GET: HTTP " + std::to_string(current.status);
        break;
      }
      kubex::client::HttpRequest put;
      put.method = "PUT";
      put.target = object_path<T>(ref) + "?dryRun=All";
      put.content_type = std::string(kubex::protobuf::media_type);
      put.body = kubex::protobuf::encode_object(kubex::json::decode<T>(current.body),
                                                R::api_version, R::kind);
      const auto answer = connection.send(std::move(put));
      if (answer.status == 200 || answer.status == 201) {
        ++report.put_back_protobuf;
        return;
      }
      last = "HTTP " + std::to_string(answer.status) + ": " + answer.body.substr(0, 400);
      if (answer.status != 409) {
        break;
      }
    }
    report.problems.push_back(what + ": the server rejects kubex's protobuf (PUT): " + last);
  }

  kubex::testing::TempDir temp_;
  std::size_t commands_ = 0;
  std::string namespace_;
  std::string node_;
};

std::vector<ObjectRef> applied_objects(const std::string& output) {
  const Json doc = parse_json(output, "kubectl apply -o json");
  std::vector<const Json*> items;
  if (doc.string_at("kind") == "List") {
    if (const Json* list = doc.find("items"); list != nullptr) {
      for (const Json& item : list->array) {
        items.push_back(&item);
      }
    }
  } else {
    items.push_back(&doc);
  }
  std::vector<ObjectRef> out;
  for (const Json* item : items) {
    const Json* metadata = item->find("metadata");
    out.push_back({item->string_at("apiVersion"), item->string_at("kind"),
                   metadata != nullptr ? metadata->string_at("namespace") : std::string(),
                   metadata != nullptr ? metadata->string_at("name") : std::string()});
  }
  return out;
}

// "deployment.apps/web", as `kubectl -o name` prints an object.
std::string kubectl_name(std::string_view group, std::string_view kind, const std::string& name) {
  std::string out;
  for (const char c : kind) {
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!group.empty()) {
    out += "." + std::string(group);
  }
  return out + "/" + name;
}

// The checks themselves, on a Pod with unknown fields at several depths and raw JSON
// (managedFields' fieldsV1) holding keys no model knows: no server needed.
TEST(roundtrip_checks, find_unknown_fields_and_differences) {
  using Pod = v1_35::core::v1::Pod;
  const std::string json = R"({"apiVersion":"v1","kind":"Pod","futureTop":null,
    "metadata":{"name":"p","futureMeta":1,"managedFields":[{"manager":"m","operation":"Update",
      "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:odd":{}}}}]},
    "spec":{"containers":[{"name":"c","image":"i","futureContainer":{"a":[1]}}],
      "futureSpec":true,"nodeSelector":{"k":"v"}}})";
  std::vector<std::string> problems;
  const std::string encoded = check_round_trip<Pod>(json, "pod", {}, problems);
  EXPECT_FALSE(encoded.empty());
  const std::set<std::string> found(problems.begin(), problems.end());
  EXPECT_EQ(found, (std::set<std::string>{
                       R"(pod: futureTop: unknown to the model, kept raw (null))",
                       R"(pod: metadata.futureMeta: unknown to the model, kept raw (1))",
                       R"(pod: spec.futureSpec: unknown to the model, kept raw (true))",
                       "pod: futureTop: field unknown to the model",
                       "pod: metadata.futureMeta: field unknown to the model",
                       "pod: spec.containers[0].futureContainer: field unknown to the model",
                       "pod: spec.futureSpec: field unknown to the model",
                   }));

  const Json doc = parse_json(json);
  const Pod pod = kubex::json::decode<Pod>(json);
  FieldProbe<Pod> probe(doc, pod);
  probe.run();
  std::vector<std::string> targets;
  for (const auto& [path, key] : injection_targets(probe.typed_objects)) {
    targets.push_back(path_string(path) + "." + key);
  }
  EXPECT_EQ(targets, (std::vector<std::string>{
                         "<root>.kubexInjectedTop", "metadata.kubexInjectedMetadata",
                         "spec.kubexInjectedSpec", "spec.containers[0].kubexInjectedElement"}));

  std::vector<std::string> diffs;
  compare_json(parse_json(R"({"a":1,"b":[1,{"c":"x"}],"d":null,"e":[],"f":{},"g":2.5,"h":1})"),
               parse_json(R"({"a":1,"b":[1,{"c":"y"}],"g":2.5,"h":1.5,"kind":"K","i":0})"), "",
               Compare::lossless, diffs);
  EXPECT_EQ(diffs, (std::vector<std::string>{R"(b[1].c: "x" became "y")", "h: number 1 became 1.5",
                                             "i: added (0)"}));
}

TEST_F(roundtrip_test, manifests_cover_every_served_kind) {
  BlockingClient connection(config());
  const auto served = served_group_versions(connection);
  std::set<std::string> expected_files;
  std::size_t covered = 0;
  v1_35::for_each_resource([&]<class T>() {
    using R = kubex::resource_traits<T>;
    if (!served.contains(std::string(R::api_version))) {
      return;
    }
    const std::string file = manifest_name<T>();
    std::vector<std::string> found;
    for (const char* dir : {"apply", "create", "dry-run"}) {
      if (fs::exists(manifests_dir() / dir / file)) {
        found.push_back(dir);
        expected_files.insert(std::string(dir) + "/" + file);
      }
    }
    if (not_created.contains(label<T>())) {
      EXPECT_TRUE(found.empty()) << label<T>() << " is in not_created but has a manifest";
      return;
    }
    EXPECT_EQ(found.size(), 1U) << label<T>() << ": served by the testenv apiserver, so it needs "
                                << "exactly one manifest tests/integration/manifests/"
                                << "{apply,create,dry-run}/" << file
                                << " (or an entry in not_created with the reason)";
    covered += found.size() == 1 ? 1 : 0;
  });
  for (const char* dir : {"apply", "create", "dry-run"}) {
    for (const auto& entry : fs::directory_iterator(manifests_dir() / dir)) {
      const std::string file = std::string(dir) + "/" + entry.path().filename().string();
      EXPECT_TRUE(expected_files.contains(file))
          << file << " is not named <group>_<version>_<plural>.yaml after a served kind";
    }
  }
  EXPECT_GT(covered, 60U);
}

TEST_F(roundtrip_test, every_served_kind_round_trips_through_the_server) {
  Stopwatch stopwatch;
  BlockingClient connection(config());
  const auto served = served_group_versions(connection);
  kubex::testing::ScopedNamespace scoped(testenv(), "roundtrip");
  namespace_ = scoped.name();
  node_ = testenv().kubectl("get nodes -l type=simulated -o jsonpath='{.items[0].metadata.name}'");
  ASSERT_FALSE(node_.empty()) << "no simulated node";

  // All manifests to apply, in order, as one file.
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(manifests_dir() / "apply")) {
    files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> ordered = apply_first;
  for (const auto& f : files) {
    if (std::find(apply_first.begin(), apply_first.end(), f) == apply_first.end() &&
        std::find(apply_last.begin(), apply_last.end(), f) == apply_last.end()) {
      ordered.push_back(f);
    }
  }
  ordered.insert(ordered.end(), apply_last.begin(), apply_last.end());
  std::string all;
  for (const auto& f : ordered) {
    all += substitute(read_file(manifests_dir() / "apply" / f)) + "\n---\n";
  }
  const fs::path all_file = write_temp("all.yaml", all);
  const std::string ns = " -n " + shell_quote(namespace_);

  // Cluster-scoped objects outlive the namespace. Volume protection finalizers are removed by
  // controllers testenv does not run, so they are dropped by hand.
  const std::string drop_finalizers = " --type=merge -p '{\"metadata\":{\"finalizers\":null}}'";
  auto release_volumes = [&] {
    run_kubectl("patch pv kubex-rt-pv" + drop_finalizers);
    run_kubectl("patch volumeattributesclass kubex-rt-gold" + drop_finalizers);
    const auto claims = run_kubectl("get pvc" + ns + " -o name");
    std::istringstream names(claims.out);
    for (std::string name; names >> name;) {
      run_kubectl("patch" + ns + " " + shell_quote(name) + drop_finalizers);
    }
  };
  std::vector<ObjectRef> objects;
  struct Cleanup {
    std::function<void()> f;
    ~Cleanup() { f(); }
  } cleanup{[&] {
    run_kubectl("delete --ignore-not-found --wait=false" + ns + " -f " +
                shell_quote(all_file.string()));
    release_volumes();
    // A CRD changes the server's discovery and OpenAPI documents, which other tests read:
    // wait until it is gone.
    for (const ObjectRef& ref : objects) {
      if (ref.kind == "CustomResourceDefinition") {
        run_kubectl("wait --for=delete --timeout=60s customresourcedefinitions/" +
                    shell_quote(ref.name));
      }
    }
  }};
  // Cluster-scoped leftovers of an earlier run against the same testenv would make the apply
  // fail (kubectl waits slowly for deletions, so only when there are any).
  const auto leftovers =
      run_kubectl("get --ignore-not-found -o name" + ns + " -f " + shell_quote(all_file.string()));
  if (!leftovers.out.empty()) {
    release_volumes();
    const auto deleted = run_kubectl("delete --ignore-not-found --timeout=90s" + ns + " -f " +
                                     shell_quote(all_file.string()));
    ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  }
  stopwatch.lap("setup");

  const auto applied =
      run_kubectl("apply --server-side --force-conflicts --field-manager=kubex-roundtrip" + ns +
                  " -o json -f " + shell_quote(all_file.string()));
  if (!applied.out.empty()) {
    objects = applied_objects(applied.out);
  }
  ASSERT_EQ(applied.exit_code, 0) << "kubectl apply failed: " << applied.err;
  // Approved now, so that the signer has issued the certificate by the time it is read.
  const auto approved = run_kubectl("certificate approve kubex-rt-csr");
  EXPECT_EQ(approved.exit_code, 0) << approved.err;

  stopwatch.lap("kubectl apply");
  std::map<std::string, KindReport> reports;
  // Re-encoded objects to send back, with what identifies them.
  struct PutBack {
    std::string kind_label;
    std::string kubectl_name;
    std::string encoded;
    std::function<std::string()> refetch;  // GET again and re-encode, after a conflict
  };
  std::vector<PutBack> put_backs;

  v1_35::for_each_resource([&]<class T>() {
    using R = kubex::resource_traits<T>;
    KindReport& report = reports[label<T>()];
    if (!served.contains(std::string(R::api_version))) {
      return;
    }
    const std::string file = manifest_name<T>();
    const bool namespaced = R::scope == kubex::Scope::namespaced;

    if (fs::exists(manifests_dir() / "apply" / file)) {
      report.how = "apply";
      for (const ObjectRef& ref : objects) {
        if (ref.api_version != R::api_version || ref.kind != R::kind) {
          continue;
        }
        const std::string what = label<T>() + " " + ref.name;
        const auto response = get_object<T>(connection, ref);
        if (response.status != 200) {
          report.problems.push_back(what + ": GET at the traits' path: HTTP " +
                                    std::to_string(response.status) + ": " + response.body);
          continue;
        }
        ++report.objects;
        const std::string encoded = check_round_trip<T>(response.body, what, {}, report.problems);
        if (encoded.empty()) {
          continue;
        }
        if constexpr (kubex::client::protobuf_writable<T>) {
          put_back_in_protobuf<T>(connection, ref, what, report);
        }
        put_backs.push_back({label<T>(), kubectl_name(R::group, R::kind, ref.name), encoded,
                             [this, &connection, ref] {
                               const auto again = get_object<T>(connection, ref);
                               return again.status == 200
                                          ? kubex::json::encode(kubex::json::decode<T>(again.body))
                                          : std::string();
                             }});
      }
      if (report.objects == 0) {
        report.problems.push_back("apply/" + file + " created no " + label<T>());
      }
    } else if (fs::exists(manifests_dir() / "create" / file)) {
      // Create-only: kubectl reads the manifest, kubex re-encodes it, the server must take
      // kubex's encoding; its answer is round-tripped and must be accepted again.
      report.how = "create";
      const fs::path manifest =
          write_temp(file, substitute(read_file(manifests_dir() / "create" / file)));
      const std::string where = namespaced ? ns : std::string();
      const auto local = run_kubectl("create --dry-run=client -o json" + where + " -f " +
                                     shell_quote(manifest.string()));
      if (local.exit_code != 0) {
        report.problems.push_back(label<T>() + ": kubectl cannot read create/" + file + ": " +
                                  local.err);
        return;
      }
      // kubex, like Go, always writes ObjectMeta (a struct, not a pointer), so an object
      // without metadata gains "metadata":{}; the server always sends it anyway.
      Json request = parse_json(local.out, label<T>() + " as kubectl reads the manifest");
      if (request.find("metadata") == nullptr) {
        request.object.emplace_back("metadata", parse_json("{}"));
      }
      const std::string encoded =
          check_round_trip<T>(to_json(request), label<T>() + " as kubectl reads the manifest",
                              {.inject = false}, report.problems);
      if (encoded.empty()) {
        return;
      }
      const auto created = run_kubectl("create --validate=strict -o json" + where + " -f " +
                                       shell_quote(write_temp("encoded.json", encoded).string()));
      if (created.exit_code != 0) {
        report.problems.push_back(label<T>() + ": the server rejects kubex's encoding " + encoded +
                                  ": " + created.err);
        return;
      }
      ++report.put_back;
      const Json answer = parse_json(created.out, label<T>() + " create answer");
      if (answered_with_status.contains(label<T>())) {
        if (answer.string_at("kind") != "Status" || answer.string_at("status") != "Success") {
          report.problems.push_back(label<T>() + ": create answered " + created.out);
        }
        if constexpr (std::is_same_v<T, v1_35::core::v1::Binding>) {
          const Json binding = parse_json(encoded);
          const std::string pod = binding.find("metadata")->string_at("name");
          const std::string target = binding.find("target")->string_at("name");
          const std::string node = testenv().kubectl("get pod" + ns + " " + shell_quote(pod) +
                                                     " -o jsonpath='{.spec.nodeName}'");
          if (node != target || target.empty()) {
            report.problems.push_back(label<T>() + ": pod " + pod + " is bound to '" + node +
                                      "', not to '" + target + "'");
          }
        }
        return;
      }
      ++report.objects;
      const std::string reencoded = check_round_trip<T>(
          created.out, label<T>() + " as the server answers", {}, report.problems);
      if (reencoded.empty() || answer_not_resendable.contains(label<T>())) {
        return;
      }
      const auto again = run_kubectl("create --validate=strict -o json" + where + " -f " +
                                     shell_quote(write_temp("answer.json", reencoded).string()));
      if (again.exit_code != 0) {
        report.problems.push_back(label<T>() + ": the server rejects the re-encoded answer " +
                                  reencoded + ": " + again.err);
      } else {
        ++report.put_back;
      }
    } else if (fs::exists(manifests_dir() / "dry-run" / file)) {
      report.how = "server dry run";
      const fs::path manifest =
          write_temp(file, substitute(read_file(manifests_dir() / "dry-run" / file)));
      const std::string where = namespaced ? ns : std::string();
      const auto created = run_kubectl("create --dry-run=server --validate=strict -o json" + where +
                                       " -f " + shell_quote(manifest.string()));
      if (created.exit_code != 0) {
        report.problems.push_back(label<T>() + ": dry-run create of dry-run/" + file + ": " +
                                  created.err);
        return;
      }
      ++report.objects;
      const std::string encoded = check_round_trip<T>(
          created.out, label<T>() + " as the server would store it", {}, report.problems);
      if (encoded.empty()) {
        return;
      }
      const auto again =
          run_kubectl("create --dry-run=server --validate=strict -o json" + where + " -f " +
                      shell_quote(write_temp("encoded.json", encoded).string()));
      if (again.exit_code != 0) {
        report.problems.push_back(label<T>() + ": the server rejects kubex's encoding " + encoded +
                                  ": " + again.err);
      } else {
        ++report.put_back;
      }
    } else if (not_created.contains(label<T>())) {
      report.how = "list only";
    } else {
      report.how = "NOT COVERED";
      report.problems.push_back(label<T>() + ": served, but no manifest and not in not_created");
    }
  });

  stopwatch.lap("objects of each kind");
  // Send every re-encoded object back: one batched PUT (server-side dry run, strict field
  // validation); objects a controller changed meanwhile conflict and are read and tried again.
  {
    std::string list = R"({"apiVersion":"v1","kind":"List","items":[)";
    for (std::size_t i = 0; i < put_backs.size(); ++i) {
      list += (i > 0 ? "," : "") + put_backs[i].encoded;
    }
    list += "]}";
    const auto replaced = run_kubectl("replace --dry-run=server --validate=strict -o name" + ns +
                                      " -f " + shell_quote(write_temp("put.json", list).string()));
    std::set<std::string> accepted;
    std::istringstream lines(replaced.out);
    for (std::string line; std::getline(lines, line);) {
      accepted.insert(line);
    }
    for (auto& p : put_backs) {
      KindReport& report = reports[p.kind_label];
      bool ok = accepted.contains(p.kubectl_name);
      std::string last_error = replaced.err;
      for (int attempt = 0; !ok && attempt < 3; ++attempt) {
        const std::string fresh = p.refetch();
        if (fresh.empty()) {
          last_error = "cannot read it again";
          break;
        }
        const auto one =
            run_kubectl("replace --dry-run=server --validate=strict -o name" + ns + " -f " +
                        shell_quote(write_temp("put-one.json", fresh).string()));
        ok = one.exit_code == 0;
        last_error = one.err;
      }
      if (ok) {
        ++report.put_back;
      } else {
        report.problems.push_back(p.kind_label + " " + p.kubectl_name +
                                  ": the server rejects kubex's re-encoding (PUT): " + last_error);
      }
    }
  }

  stopwatch.lap("put back");
  // Everything the server lists, of every listable kind.
  v1_35::for_each_resource([&]<class T>() {
    using R = kubex::resource_traits<T>;
    using L = typename R::list_type;
    if constexpr (!std::is_void_v<L>) {
      if (!served.contains(std::string(R::api_version))) {
        return;
      }
      KindReport& report = reports[label<T>()];
      const std::string what = label<T>() + " list";
      const auto response = connection.get(
          kubex::resource_path({.group = R::group, .version = R::version, .resource = R::plural}));
      if (response.status != 200) {
        report.problems.push_back(what + ": HTTP " + std::to_string(response.status) + ": " +
                                  response.body);
        return;
      }
      const std::string encoded = check_round_trip<L>(
          response.body, what, {.probe = false, .inject = false}, report.problems);
      if (encoded.empty()) {
        return;
      }
      const auto list = kubex::json::decode<L>(response.body);
      for (std::size_t i = 0; i < list.items.size(); ++i) {
        expect_no_top_level_unknown_fields(
            list.items[i], what + ": items[" + std::to_string(i) + "].", report.problems);
      }
      compare_protobuf<T>(connection, what, report);
      // The probe decodes the whole document per probe, so it runs on the list without its
      // items and on each item on its own.
      const Json doc = parse_json(response.body, what);
      Json envelope = doc;
      if (Json* envelope_items = envelope.find("items"); envelope_items != nullptr) {
        envelope_items->array.clear();
      }
      FieldProbe<L> envelope_probe(envelope, kubex::json::decode<L>(to_json(envelope)));
      envelope_probe.run();
      for (const auto& p : envelope_probe.unknown) {
        report.problems.push_back(what + ": " + p + ": field unknown to the model");
      }
      const Json* items = doc.find("items");
      const std::size_t count = items != nullptr ? items->array.size() : 0;
      report.listed += count;
      for (std::size_t i = 0; i < std::min(count, probed_list_items); ++i) {
        const Json& item = items->array[i];
        const Json* metadata = item.find("metadata");
        const std::string item_what = what + " item " +
                                      (metadata != nullptr ? metadata->string_at("namespace") +
                                                                 "/" + metadata->string_at("name")
                                                           : std::to_string(i));
        T decoded;
        try {
          decoded = kubex::json::decode<T>(to_json(item));
        } catch (const std::exception& e) {
          report.problems.push_back(item_what + ": decode failed: " + e.what());
          continue;
        }
        FieldProbe<T> probe(item, decoded);
        probe.run();
        for (const auto& p : probe.unknown) {
          report.problems.push_back(item_what + ": " + p + ": field unknown to the model");
        }
      }
    }
  });

  stopwatch.lap("lists");
  // The verdict, with known bugs checked both ways, and the summary.
  std::size_t covered = 0;
  std::size_t objects_total = 0;
  std::size_t listed_total = 0;
  std::size_t put_total = 0;
  std::ostringstream summary;
  for (const auto& [kind, report] : reports) {
    if (report.how == "not served") {
      continue;
    }
    covered += report.how != "NOT COVERED" ? 1 : 0;
    objects_total += report.objects;
    listed_total += report.listed;
    put_total += report.put_back;
    summary << "  " << kind << ": " << report.how << ", " << report.objects << " created, "
            << report.put_back << " accepted back (" << report.put_back_protobuf
            << " in protobuf), " << report.listed << " listed, " << report.from_protobuf
            << " read from protobuf as from JSON"
            << (report.problems.empty()
                    ? ""
                    : ", " + std::to_string(report.problems.size()) + " problem(s)")
            << '\n';
    const auto bug = known_bugs.find(kind);
    if (bug == known_bugs.end()) {
      if (!report.problems.empty()) {
        std::string all_problems;
        for (const auto& p : report.problems) {
          all_problems += "\n  " + p;
        }
        ADD_FAILURE() << kind << ":" << all_problems;
      }
      continue;
    }
    bool reproduced = false;
    std::string others;
    for (const auto& p : report.problems) {
      if (p.find(bug->second) == std::string::npos) {
        others += "\n  " + p;
      } else if (!reproduced) {
        reproduced = true;
        summary << "    known bug, as expected: " << p << '\n';
      }
    }
    EXPECT_TRUE(reproduced) << kind << ": the known bug '" << bug->second
                            << "' no longer shows; remove it from known_bugs";
    EXPECT_TRUE(others.empty()) << kind << " (besides its known bug):" << others;
  }
  for (const auto& [kind, text] : known_bugs) {
    EXPECT_TRUE(reports.contains(kind)) << "known_bugs names " << kind << ", which is no kind";
  }
  std::cout << "[ roundtrip ] " << covered << " served kinds covered; " << objects_total
            << " objects created and round-tripped, " << put_total
            << " re-encodings accepted by the server, " << listed_total
            << " listed objects round-tripped; " << stopwatch.total_seconds()
            << " s:" << stopwatch.laps() << " of which per-field probes "
            << Stopwatch::format(probe_time) << "\n"
            << summary.str();
}

}  // namespace
