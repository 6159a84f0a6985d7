// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/discovery.hpp>
#include <kubex/core/json_object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kubex {
namespace {

// apidiscovery.k8s.io/v2, only the fields kubex uses.
struct WireKind {
  std::string group;
  std::string version;
  std::string kind;
};
KUBEX_JSON_OBJECT(WireKind, group, version, kind)

struct WireSubresource {
  std::string subresource;
};
KUBEX_JSON_OBJECT(WireSubresource, subresource)

struct WireResource {
  std::string resource;
  std::optional<WireKind> responseKind;
  std::string scope;
  std::string singularResource;
  std::vector<std::string> verbs;
  std::vector<std::string> shortNames;
  std::vector<std::string> categories;
  std::vector<WireSubresource> subresources;
};
KUBEX_JSON_OBJECT(WireResource, resource, responseKind, scope, singularResource, verbs, shortNames,
                  categories, subresources)

struct WireVersion {
  std::string version;
  std::vector<WireResource> resources;
};
KUBEX_JSON_OBJECT(WireVersion, version, resources)

struct WireName {
  std::string name;
};
KUBEX_JSON_OBJECT(WireName, name)

struct WireGroup {
  WireName metadata;
  std::vector<WireVersion> versions;
};
KUBEX_JSON_OBJECT(WireGroup, metadata, versions)

struct WireDiscovery {
  std::string kind;
  std::vector<WireGroup> items;
};
KUBEX_JSON_OBJECT(WireDiscovery, kind, items)

struct KindOnly {
  std::string kind;
};
KUBEX_JSON_OBJECT(KindOnly, kind)

// Legacy documents.
struct WireApiVersions {
  std::vector<std::string> versions;
};
KUBEX_JSON_OBJECT(WireApiVersions, versions)

struct WireGroupVersion {
  std::string groupVersion;
  std::string version;
};
KUBEX_JSON_OBJECT(WireGroupVersion, groupVersion, version)

struct WireApiGroup {
  std::string name;
  std::vector<WireGroupVersion> versions;
  std::optional<WireGroupVersion> preferredVersion;
};
KUBEX_JSON_OBJECT(WireApiGroup, name, versions, preferredVersion)

struct WireApiGroupList {
  std::vector<WireApiGroup> groups;
};
KUBEX_JSON_OBJECT(WireApiGroupList, groups)

struct WireApiResource {
  std::string name;
  std::string singularName;
  bool namespaced = false;
  std::string group;
  std::string version;
  std::string kind;
  std::vector<std::string> verbs;
  std::vector<std::string> shortNames;
  std::vector<std::string> categories;
};
KUBEX_JSON_OBJECT(WireApiResource, name, singularName, namespaced, group, version, kind, verbs,
                  shortNames, categories)

struct WireApiResourceList {
  std::string groupVersion;
  std::vector<WireApiResource> resources;
};
KUBEX_JSON_OBJECT(WireApiResourceList, groupVersion, resources)

}  // namespace

Verbs parse_verbs(const std::vector<std::string>& names) noexcept {
  Verbs out;
  for (const auto& n : names) {
    Verb v{};
    if (n == "get") {
      v = Verb::get;
    } else if (n == "list") {
      v = Verb::list;
    } else if (n == "watch") {
      v = Verb::watch;
    } else if (n == "create") {
      v = Verb::create;
    } else if (n == "update") {
      v = Verb::update;
    } else if (n == "patch") {
      v = Verb::patch;
    } else if (n == "delete") {
      v = Verb::delete_;
    } else if (n == "deletecollection") {
      v = Verb::delete_collection;
    } else {
      continue;
    }
    out.add(v);
  }
  return out;
}

bool is_aggregated_discovery(std::string_view json) {
  KindOnly k;
  json::decode(json, k);
  return k.kind == "APIGroupDiscoveryList";
}

std::vector<ApiResource> parse_aggregated_discovery(std::string_view json) {
  WireDiscovery doc;
  json::decode(json, doc);
  if (doc.kind != "APIGroupDiscoveryList") {
    throw json::DecodeError("expected an APIGroupDiscoveryList, got kind \"" + doc.kind + "\"");
  }
  std::vector<ApiResource> out;
  for (auto& g : doc.items) {
    for (auto& v : g.versions) {
      for (auto& r : v.resources) {
        ApiResource a;
        a.group = g.metadata.name;
        a.version = v.version;
        // responseKind names the kind the resource serves; its group/version may differ (e.g.
        // a resource served in one version that returns another's kind) but the path uses the
        // discovered group and version.
        a.kind = r.responseKind ? r.responseKind->kind : std::string();
        a.plural = std::move(r.resource);
        a.singular = std::move(r.singularResource);
        a.scope = r.scope == "Cluster" ? Scope::cluster : Scope::namespaced;
        a.verbs = parse_verbs(r.verbs);
        a.short_names = std::move(r.shortNames);
        a.categories = std::move(r.categories);
        for (auto& s : r.subresources) {
          a.subresources.push_back(std::move(s.subresource));
        }
        out.push_back(std::move(a));
      }
    }
  }
  return out;
}

std::vector<std::string> parse_api_versions(std::string_view json) {
  WireApiVersions doc;
  json::decode(json, doc);
  return std::move(doc.versions);
}

std::vector<GroupVersions> parse_api_group_list(std::string_view json) {
  WireApiGroupList doc;
  json::decode(json, doc);
  std::vector<GroupVersions> out;
  for (auto& g : doc.groups) {
    GroupVersions gv;
    gv.name = std::move(g.name);
    if (g.preferredVersion) {
      gv.versions.push_back(g.preferredVersion->version);
    }
    for (auto& v : g.versions) {
      if (gv.versions.empty() || v.version != gv.versions.front()) {
        gv.versions.push_back(std::move(v.version));
      }
    }
    out.push_back(std::move(gv));
  }
  return out;
}

std::vector<ApiResource> parse_api_resource_list(std::string_view json, std::string_view group,
                                                 std::string_view version) {
  WireApiResourceList doc;
  json::decode(json, doc);
  std::vector<ApiResource> out;
  for (auto& r : doc.resources) {
    if (const auto slash = r.name.find('/'); slash != std::string::npos) {
      const std::string parent = r.name.substr(0, slash);
      for (auto& a : out) {
        if (a.plural == parent) {
          a.subresources.push_back(r.name.substr(slash + 1));
        }
      }
      continue;
    }
    ApiResource a;
    a.group = r.group.empty() ? std::string(group) : r.group;
    a.version = r.version.empty() ? std::string(version) : r.version;
    a.kind = std::move(r.kind);
    a.plural = std::move(r.name);
    a.singular = std::move(r.singularName);
    a.scope = r.namespaced ? Scope::namespaced : Scope::cluster;
    a.verbs = parse_verbs(r.verbs);
    a.short_names = std::move(r.shortNames);
    a.categories = std::move(r.categories);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace kubex
