// SPDX-License-Identifier: Apache-2.0
// Resource traits generated from the paths of the 1.35 spec: the facts Api<T> relies on to
// build URLs and to reject, at compile time, calls the server would refuse. The live server's
// discovery documents are compared with every trait in
// tests/integration/resource_traits_test.cpp; these tests pin well-known kinds.
#include <kubex/core/resource.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/resources.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

namespace v1_35 = kubex::k8s::v1_35;
namespace core = v1_35::core::v1;
namespace apps = v1_35::apps::v1;
using kubex::resource_traits;
using kubex::Scope;
using kubex::Verb;

// Compile-time use is the point of the traits: these fail the build if generation breaks.
static_assert(kubex::resource<core::Pod>);
static_assert(kubex::namespace_scoped<core::Pod>);
static_assert(!kubex::cluster_scoped<core::Pod>);
static_assert(kubex::cluster_scoped<core::Node>);
static_assert(kubex::cluster_scoped<core::Namespace>);
static_assert(kubex::has_subresource<core::Pod>("log"));
static_assert(kubex::has_subresource<core::Pod>("exec"));
static_assert(!kubex::has_subresource<core::ConfigMap>("log"));
static_assert(kubex::subresource_supports<apps::Deployment>("scale", Verb::patch));
static_assert(!kubex::subresource_supports<core::Pod>("log", Verb::update));
static_assert(kubex::supports<core::Pod>(Verb::delete_collection));
// Namespaces cannot be deleted as a collection.
static_assert(!kubex::supports<core::Namespace>(Verb::delete_collection));
static_assert(std::is_same_v<resource_traits<core::Pod>::list_type, core::PodList>);
// Create-only kinds have no list type.
static_assert(std::is_void_v<resource_traits<v1_35::authentication::v1::TokenReview>::list_type>);
// List types, options and shared meta types are not resources.
static_assert(!kubex::resource<core::PodList>);
static_assert(!kubex::resource<core::PodSpec>);
static_assert(!kubex::resource<v1_35::meta::v1::DeleteOptions>);
// The default-version alias names the same types.
static_assert(std::is_same_v<kubex::api::core::v1::Pod, core::Pod>);

template <class T>
std::set<std::string> subresource_names() {
  std::set<std::string> out;
  for (const auto& s : resource_traits<T>::subresources) {
    out.emplace(s.name);
  }
  return out;
}

TEST(ResourceTraits, RecordsTheSourceRelease) {
  EXPECT_EQ(v1_35::kubernetes_version, "v1.35.4");
}

TEST(ResourceTraits, Pod) {
  using R = resource_traits<core::Pod>;
  EXPECT_EQ(R::group, "");
  EXPECT_EQ(R::version, "v1");
  EXPECT_EQ(R::api_version, "v1");
  EXPECT_EQ(R::kind, "Pod");
  EXPECT_EQ(R::plural, "pods");
  EXPECT_EQ(R::scope, Scope::namespaced);
  EXPECT_EQ(R::verbs, kubex::all_verbs);
  EXPECT_EQ(subresource_names<core::Pod>(),
            (std::set<std::string>{"attach", "binding", "ephemeralcontainers", "eviction", "exec",
                                   "log", "portforward", "proxy", "resize", "status"}));
  EXPECT_EQ(kubex::subresource_verbs<core::Pod>("exec"), kubex::Verbs{Verb::connect});
  EXPECT_EQ(kubex::subresource_verbs<core::Pod>("eviction"), kubex::Verbs{Verb::create});
  EXPECT_EQ(kubex::subresource_verbs<core::Pod>("status"),
            (kubex::Verbs{Verb::get, Verb::patch, Verb::update}));
  EXPECT_TRUE(kubex::subresource_verbs<core::Pod>("scale").empty());
}

TEST(ResourceTraits, GroupedAndClusterScoped) {
  using D = resource_traits<apps::Deployment>;
  EXPECT_EQ(D::group, "apps");
  EXPECT_EQ(D::api_version, "apps/v1");
  EXPECT_EQ(D::plural, "deployments");
  EXPECT_EQ(subresource_names<apps::Deployment>(), (std::set<std::string>{"scale", "status"}));

  using C = resource_traits<v1_35::rbac::v1::ClusterRole>;
  EXPECT_EQ(C::group, "rbac.authorization.k8s.io");
  EXPECT_EQ(C::api_version, "rbac.authorization.k8s.io/v1");
  EXPECT_EQ(C::scope, Scope::cluster);
  EXPECT_EQ(C::plural, "clusterroles");

  using N = resource_traits<core::Namespace>;
  EXPECT_EQ(N::scope, Scope::cluster);
  EXPECT_EQ(subresource_names<core::Namespace>(), (std::set<std::string>{"finalize", "status"}));
}

TEST(ResourceTraits, CreateOnlyKinds) {
  using T = resource_traits<v1_35::authentication::v1::TokenReview>;
  EXPECT_EQ(T::verbs, kubex::Verbs{Verb::create});
  EXPECT_EQ(T::scope, Scope::cluster);
  // LocalSubjectAccessReview is only ever created, but inside a namespace.
  using L = resource_traits<v1_35::authorization::v1::LocalSubjectAccessReview>;
  EXPECT_EQ(L::scope, Scope::namespaced);
  EXPECT_EQ(L::verbs, kubex::Verbs{Verb::create});
}

}  // namespace
