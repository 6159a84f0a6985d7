// SPDX-License-Identifier: Apache-2.0
// Models generated from a CRD by the installed kubex_crd_models() (test install_consumer): a
// CronTab decodes into its typed struct, keeps a field its schema does not name, and carries
// the resource traits Api<T> needs.

#include <kubex/consumer/crontab.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/resource.hpp>

#include <cstdio>
#include <string>

int main() {
  namespace v1 = consumer::crd::v1;
  static_assert(kubex::resource_traits<v1::CronTab>::api_version == "stable.example.com/v1");
  static_assert(kubex::resource_traits<v1::CronTab>::plural == "crontabs");
  const auto tab = kubex::json::decode<v1::CronTab>(
      R"({"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly"},)"
      R"("spec":{"cronSpec":"0 3 * * *","image":"backup:1","replicas":2,"extra":true}})");
  const std::string written = kubex::json::encode(tab);
  if (!tab.spec || tab.spec->image != "backup:1" || tab.spec->replicas != 2 ||
      written.find(R"("extra":true)") == std::string::npos) {
    std::fprintf(stderr, "unexpected CronTab: %s\n", written.c_str());
    return 1;
  }
  std::printf("%s\n", written.c_str());
  return 0;
}
