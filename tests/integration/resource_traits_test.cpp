// SPDX-License-Identifier: Apache-2.0
// The generated resource traits (kubex::resource_traits<T>, from the paths of the OpenAPI spec)
// against the discovery documents of the real kube-apiserver v1.35.4 of tools/testenv: for every
// kind the traits know, the group-version must be served when it is GA, and where it is served
// the plural, kind, scope, verbs and subresources must be what the server says. In reverse,
// every resource a served group-version lists must be a kind the traits know, so a generator
// that skipped paths would fail here too. tests/models/resource_traits_test.cpp pins a few
// kinds without a server.

#include <kubex/client/blocking.hpp>
#include <kubex/core/resource.hpp>
#include <kubex/k8s/v1_35/resources.hpp>
#include <kubex/testing/testenv_fixture.hpp>

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace v1_35 = kubex::k8s::v1_35;
using kubex::Verb;

// What the traits say about one kind, in the spelling of a discovery document.
struct ExpectedResource {
  std::string group;
  std::string version;
  std::string kind;
  std::string plural;
  bool namespaced = false;
  std::set<std::string> verbs;
  std::set<std::string> subresources;
};

// Discovery's names for the verbs; "connect" is never listed in discovery (connect
// subresources show up as create/get), so the traits' connect is left out.
std::set<std::string> discovery_verbs(kubex::Verbs verbs) {
  static const std::pair<Verb, const char*> names[] = {
      {Verb::get, "get"},        {Verb::list, "list"},
      {Verb::watch, "watch"},    {Verb::create, "create"},
      {Verb::update, "update"},  {Verb::patch, "patch"},
      {Verb::delete_, "delete"}, {Verb::delete_collection, "deletecollection"},
  };
  std::set<std::string> out;
  for (const auto& [verb, name] : names) {
    if (verbs.contains(verb)) {
      out.emplace(name);
    }
  }
  return out;
}

std::vector<ExpectedResource> expected_resources() {
  std::vector<ExpectedResource> out;
  v1_35::for_each_resource([&]<class T>() {
    using R = kubex::resource_traits<T>;
    ExpectedResource e;
    e.group = R::group;
    e.version = R::version;
    e.kind = R::kind;
    e.plural = R::plural;
    e.namespaced = R::scope == kubex::Scope::namespaced;
    e.verbs = discovery_verbs(R::verbs);
    for (const kubex::Subresource& s : R::subresources) {
      e.subresources.emplace(s.name);
    }
    out.push_back(std::move(e));
  });
  return out;
}

std::string api_version(const std::string& group, const std::string& version) {
  return group.empty() ? version : group + "/" + version;
}

// GA versions are "v1", "v2", ...; alpha and beta versions carry a suffix.
bool is_ga(std::string_view version) {
  return version.size() >= 2 && version[0] == 'v' &&
         std::all_of(version.begin() + 1, version.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::string join(const std::set<std::string>& words) {
  std::string out = "{";
  for (const auto& w : words) {
    out += (out.size() > 1 ? ", " : "") + w;
  }
  return out + "}";
}

// Words in `a` but not in `b`.
std::set<std::string> minus(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::set<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

std::string describe_difference(const std::set<std::string>& traits,
                                const std::set<std::string>& server) {
  std::ostringstream s;
  s << "traits " << join(traits) << ", server " << join(server) << " (only in traits "
    << join(minus(traits, server)) << ", only on the server " << join(minus(server, traits)) << ")";
  return s.str();
}

// One entry of an APIResourceList.
struct DiscoveredResource {
  std::string kind;
  bool namespaced = false;
  std::set<std::string> verbs;
};

// The APIResourceList of one group-version: resources by name ("pods", "pods/status", ...).
struct DiscoveryDocument {
  std::map<std::string, DiscoveredResource> resources;
};

DiscoveryDocument parse_discovery(const std::string& body, const std::string& gv) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (const auto error = parser.parse(body).get(doc); error != simdjson::SUCCESS) {
    throw std::runtime_error(gv +
                             ": discovery document is not JSON: " + simdjson::error_message(error));
  }
  DiscoveryDocument out;
  std::string_view group_version;
  if (doc["groupVersion"].get(group_version) != simdjson::SUCCESS || group_version != gv) {
    throw std::runtime_error(gv + ": discovery document has groupVersion '" +
                             std::string(group_version) + "'");
  }
  simdjson::dom::array resources;
  if (doc["resources"].get(resources) != simdjson::SUCCESS) {
    throw std::runtime_error(gv + ": discovery document without resources");
  }
  for (simdjson::dom::element r : resources) {
    std::string_view name;
    std::string_view kind;
    bool namespaced = false;
    if (r["name"].get(name) != simdjson::SUCCESS || r["kind"].get(kind) != simdjson::SUCCESS ||
        r["namespaced"].get(namespaced) != simdjson::SUCCESS) {
      throw std::runtime_error(gv + ": discovery entry without name, kind or namespaced");
    }
    DiscoveredResource d;
    d.kind = kind;
    d.namespaced = namespaced;
    simdjson::dom::array verbs;
    if (r["verbs"].get(verbs) == simdjson::SUCCESS) {
      for (simdjson::dom::element v : verbs) {
        d.verbs.emplace(std::string_view(v.get_string().value()));
      }
    }
    out.resources.emplace(std::string(name), std::move(d));
  }
  return out;
}

class resource_traits_test : public kubex::testing::TestenvTest {};

TEST_F(resource_traits_test, traits_match_the_live_discovery_documents) {
  const auto expected = expected_resources();
  ASSERT_EQ(expected.size(), v1_35::resource_count);

  kubex::client::BlockingClient connection(config());

  // Fetch each group-version the traits name once; nullopt when the server does not serve it.
  std::map<std::string, std::optional<DiscoveryDocument>> documents;
  for (const auto& e : expected) {
    const std::string gv = api_version(e.group, e.version);
    if (documents.contains(gv)) {
      continue;
    }
    const std::string path = e.group.empty() ? "/api/" + e.version : "/apis/" + gv;
    const auto response = connection.get(path);
    if (response.status == 404) {
      documents.emplace(gv, std::nullopt);
      continue;
    }
    ASSERT_EQ(response.status, 200U) << "GET " << path << ": " << response.body;
    documents.emplace(gv, parse_discovery(response.body, gv));
  }

  std::size_t served_kinds = 0;
  std::set<std::string> unserved_kinds;
  // (group-version, plural) of every kind the traits know, for the reverse check.
  std::set<std::pair<std::string, std::string>> known;
  for (const auto& e : expected) {
    const std::string gv = api_version(e.group, e.version);
    const std::string what = gv + " " + e.kind + " (" + e.plural + ")";
    known.emplace(gv, e.plural);
    const auto& document = documents.at(gv);
    if (!document) {
      EXPECT_FALSE(is_ga(e.version))
          << what << ": the GA group-version " << gv << " is not served (404)";
      unserved_kinds.insert(gv + " " + e.kind);
      continue;
    }
    ++served_kinds;
    const auto found = document->resources.find(e.plural);
    if (found == document->resources.end()) {
      ADD_FAILURE() << what << ": discovery of " << gv << " has no resource '" << e.plural << "'";
      continue;
    }
    const DiscoveredResource& d = found->second;
    EXPECT_EQ(d.kind, e.kind) << what << ": kind differs";
    EXPECT_EQ(d.namespaced, e.namespaced)
        << what << ": traits scope is " << (e.namespaced ? "namespaced" : "cluster")
        << ", discovery says namespaced=" << d.namespaced;
    EXPECT_EQ(e.verbs, d.verbs) << what
                                << ": verbs differ: " << describe_difference(e.verbs, d.verbs);

    std::set<std::string> served_subresources;
    const std::string prefix = e.plural + "/";
    for (const auto& [name, entry] : document->resources) {
      if (name.starts_with(prefix)) {
        served_subresources.insert(name.substr(prefix.size()));
      }
    }
    EXPECT_EQ(e.subresources, served_subresources)
        << what
        << ": subresources differ: " << describe_difference(e.subresources, served_subresources);
  }

  // The reverse: nothing a served group-version offers is missing from the traits.
  std::size_t served_group_versions = 0;
  for (const auto& [gv, document] : documents) {
    if (!document) {
      continue;
    }
    ++served_group_versions;
    for (const auto& [name, d] : document->resources) {
      if (name.find('/') != std::string::npos) {
        continue;  // subresources were compared above
      }
      EXPECT_TRUE(known.contains({gv, name})) << gv << " serves resource '" << name << "' (kind "
                                              << d.kind << ") but the traits have no such kind";
    }
  }

  EXPECT_GT(served_kinds, 0U);
  std::cout << "[ discovery ] " << served_kinds << " kinds served in " << served_group_versions
            << " group-versions; " << unserved_kinds.size() << " kinds in "
            << (documents.size() - served_group_versions)
            << " group-versions not served (alpha/beta APIs are off by default):";
  for (const auto& k : unserved_kinds) {
    std::cout << ' ' << k << ';';
  }
  std::cout << '\n';
}

// True for the groups Kubernetes itself defines ("", "apps", "batch", "*.k8s.io"); custom
// resources other tests define live in other groups.
bool is_built_in_group(std::string_view group_version) {
  const auto slash = group_version.find('/');
  if (slash == std::string_view::npos) {
    return true;  // the core group, "v1"
  }
  const std::string_view group = group_version.substr(0, slash);
  return group.find('.') == std::string_view::npos || group.ends_with(".k8s.io");
}

// Every built-in group-version the server lists must be one the traits know, so a whole group
// the generator dropped fails here.
TEST_F(resource_traits_test, every_served_group_version_is_known_to_the_traits) {
  std::set<std::string> known;
  for (const auto& e : expected_resources()) {
    known.insert(api_version(e.group, e.version));
  }
  kubex::client::BlockingClient connection(config());
  const auto response = connection.get("/apis");
  ASSERT_EQ(response.status, 200U) << response.body;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(response.body).value();
  std::set<std::string> served{"v1"};
  simdjson::dom::array groups;
  ASSERT_EQ(doc["groups"].get(groups), simdjson::SUCCESS) << response.body;
  for (simdjson::dom::element g : groups) {
    simdjson::dom::array versions;
    ASSERT_EQ(g["versions"].get(versions), simdjson::SUCCESS) << response.body;
    for (simdjson::dom::element v : versions) {
      std::string_view gv;
      ASSERT_EQ(v["groupVersion"].get(gv), simdjson::SUCCESS) << response.body;
      served.emplace(gv);
    }
  }
  std::size_t built_in = 0;
  for (const auto& gv : served) {
    if (is_built_in_group(gv)) {
      ++built_in;
      EXPECT_TRUE(known.contains(gv))
          << "the server serves " << gv << ", the traits do not know it";
    }
  }
  EXPECT_GT(built_in, 20U);
}

}  // namespace
