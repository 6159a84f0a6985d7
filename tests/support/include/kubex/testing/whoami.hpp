// SPDX-License-Identifier: Apache-2.0
#pragma once
// Who the apiserver says the caller of a connection is, from a SelfSubjectReview. Header-only:
// users link kubex::client and simdjson themselves.

#include <kubex/client/blocking.hpp>

#include <simdjson.h>

#include <string>
#include <string_view>

namespace kubex::testing {

/// The user name the server authenticated (after impersonation), or "<status>" such as
/// "<401>" if the review failed, or "<no username>".
inline std::string whoami(client::BlockingClient& c) {
  const auto review =
      c.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})");
  if (review.status != 201U) {
    return "<" + std::to_string(review.status) + ">";
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view name;
  if (parser.parse(review.body).get(doc) != simdjson::SUCCESS ||
      doc.at_pointer("/status/userInfo/username").get(name) != simdjson::SUCCESS) {
    return "<no username>";
  }
  return std::string(name);
}

}  // namespace kubex::testing
