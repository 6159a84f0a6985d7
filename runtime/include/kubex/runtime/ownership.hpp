// SPDX-License-Identifier: Apache-2.0
#pragma once

// Owner and controller references, as controller-runtime's SetOwnerReference and
// SetControllerReference write them: the garbage collector deletes what an owner owns after
// it, and a controller's owns<U> relation finds the owner of a changed object through them.

#include <kubex/core/error.hpp>
#include <kubex/core/resource.hpp>

#include <algorithm>
#include <string>
#include <system_error>

namespace kubex::runtime {

/// Adds (or updates) a reference to `owner` in `object`'s ownerReferences. With `controller`,
/// it is the controller reference, with blockOwnerDeletion (foreground deletion waits for
/// `object`); an object has at most one controller.
/// @throws kubex::Error (errc::invalid_argument) when `owner` has no name or uid (it must have
/// been read from the server), or when another owner already controls `object`.
template <resource Owner, class K>
void set_owner(K& object, const Owner& owner, bool controller = true) {
  const auto& meta = owner.metadata;
  if (!meta.name || meta.name->empty() || !meta.uid || meta.uid->empty()) {
    throw Error(std::make_error_code(std::errc::invalid_argument),
                "owner reference: the owner has no name or uid; read it from the server first");
  }
  auto& refs = object.metadata.owner_references;
  using Ref = typename std::decay_t<decltype(refs)>::value_type;
  Ref ref{};
  ref.api_version = std::string(resource_traits<Owner>::api_version);
  ref.kind = std::string(resource_traits<Owner>::kind);
  ref.name = *meta.name;
  ref.uid = *meta.uid;
  if (controller) {
    ref.controller = true;
    ref.block_owner_deletion = true;
    for (const auto& other : refs) {
      if (other.controller.value_or(false) && other.uid != ref.uid) {
        throw Error(std::make_error_code(std::errc::invalid_argument),
                    "owner reference: " + object.metadata.name.value_or("the object") +
                        " is already controlled by " + other.kind + " " + other.name);
      }
    }
  }
  const auto same = std::find_if(refs.begin(), refs.end(), [&](const Ref& r) {
    return r.uid == ref.uid ||
           (r.kind == ref.kind && r.name == ref.name && r.api_version == ref.api_version);
  });
  if (same != refs.end()) {
    *same = std::move(ref);
  } else {
    refs.push_back(std::move(ref));
  }
}

/// True when `object` names `owner` (by uid) among its owners; with `controller_only`, only
/// as its controller.
template <class Owner, class K>
[[nodiscard]] bool owned_by(const K& object, const Owner& owner, bool controller_only = false) {
  const auto& uid = owner.metadata.uid;
  return uid && std::any_of(object.metadata.owner_references.begin(),
                            object.metadata.owner_references.end(), [&](const auto& r) {
                              return r.uid == *uid &&
                                     (!controller_only || r.controller.value_or(false));
                            });
}

}  // namespace kubex::runtime
