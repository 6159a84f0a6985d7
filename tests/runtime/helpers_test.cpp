// SPDX-License-Identifier: Apache-2.0
// The operator helpers that need no server: status conditions (when lastTransitionTime moves)
// and owner references (one controller at most). Their use against the real apiserver is in
// tests/integration/controller_test.cpp.

#include <kubex/core/error.hpp>
#include <kubex/core/time.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/k8s/v1_35/meta/v1.hpp>
#include <kubex/runtime/conditions.hpp>
#include <kubex/runtime/ownership.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace {

namespace apps = kubex::k8s::v1_35::apps::v1;
namespace core = kubex::k8s::v1_35::core::v1;
using Condition = kubex::k8s::v1_35::meta::v1::Condition;
using kubex::runtime::condition_true;
using kubex::runtime::find_condition;
using kubex::runtime::set_condition;
using namespace std::chrono_literals;

Condition ready(const char* status, const char* reason, std::int64_t generation) {
  Condition c;
  c.type = "Ready";
  c.status = status;
  c.reason = reason;
  c.message = "m";
  c.observed_generation = generation;
  return c;
}

TEST(conditions, the_transition_time_moves_only_when_the_status_changes) {
  const kubex::Time t0(std::chrono::sys_seconds(1'700'000'000s));
  const kubex::Time t1(std::chrono::sys_seconds(1'700'000'100s));
  const kubex::Time t2(std::chrono::sys_seconds(1'700'000'200s));
  std::vector<Condition> conditions;
  EXPECT_TRUE(set_condition(conditions, ready("False", "Progressing", 1), t0));
  EXPECT_EQ(conditions[0].last_transition_time, t0);
  // Same status, same everything: no change, so no status write.
  EXPECT_FALSE(set_condition(conditions, ready("False", "Progressing", 1), t1));
  // Same status, new reason and generation: changed, but it has held since t0.
  EXPECT_TRUE(set_condition(conditions, ready("False", "Waiting", 2), t1));
  EXPECT_EQ(conditions[0].last_transition_time, t0);
  EXPECT_EQ(conditions[0].observed_generation, 2);
  EXPECT_FALSE(condition_true(conditions, "Ready"));
  // A new status: a transition.
  EXPECT_TRUE(set_condition(conditions, ready("True", "Available", 2), t2));
  EXPECT_EQ(conditions[0].last_transition_time, t2);
  EXPECT_TRUE(condition_true(conditions, "Ready"));
  ASSERT_EQ(conditions.size(), 1U);
  EXPECT_EQ(find_condition(conditions, "Other"), nullptr);
  EXPECT_TRUE(kubex::runtime::remove_condition(conditions, "Ready"));
  EXPECT_TRUE(conditions.empty());
}

// The owner comes from a function: GCC 12 warns falsely of an uninitialised name when a
// Deployment is built field by field in the test body (-Wmaybe-uninitialized).
apps::Deployment deployment(const char* name, const char* uid) {
  apps::Deployment d;
  d.metadata.name = name;
  if (uid != nullptr) {
    d.metadata.uid = uid;
  }
  return d;
}

TEST(ownership, a_controller_reference_blocks_deletion_and_there_is_at_most_one) {
  const apps::Deployment owner = deployment("web", "uid-1");
  core::ConfigMap owned;
  owned.metadata.name = "web-config";
  kubex::runtime::set_owner(owned, owner);
  ASSERT_EQ(owned.metadata.owner_references.size(), 1U);
  const auto& ref = owned.metadata.owner_references[0];
  EXPECT_EQ(ref.api_version, "apps/v1");
  EXPECT_EQ(ref.kind, "Deployment");
  EXPECT_EQ(ref.uid, "uid-1");
  EXPECT_EQ(ref.controller, true);
  EXPECT_EQ(ref.block_owner_deletion, true);
  EXPECT_TRUE(kubex::runtime::owned_by(owned, owner, true));
  // Again: updated in place, not added twice.
  kubex::runtime::set_owner(owned, owner);
  EXPECT_EQ(owned.metadata.owner_references.size(), 1U);
  // A second controller is refused; a plain owner is fine.
  const apps::Deployment other = deployment("other", "uid-2");
  EXPECT_THROW(kubex::runtime::set_owner(owned, other), kubex::Error);
  kubex::runtime::set_owner(owned, other, false);
  EXPECT_EQ(owned.metadata.owner_references.size(), 2U);
  EXPECT_TRUE(kubex::runtime::owned_by(owned, other));
  EXPECT_FALSE(kubex::runtime::owned_by(owned, other, true));
  // An owner never read from the server has no uid.
  EXPECT_THROW(kubex::runtime::set_owner(owned, deployment("new", nullptr)), kubex::Error);
}

}  // namespace
