// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the kubeconfig reader (kubex::client::parse_kubeconfig over yaml-cpp). A
// kubeconfig is input the user may not have written (a cloud CLI's output, a file from a ticket),
// so for any document the reader must either resolve a configuration or throw a kubex::Error whose
// message names the document, and never print a secret: a value under a key that holds one
// (token, password, client-key-data, client-secret, id-token, refresh-token, a proxy URL's
// password) must not appear in the message. Any other exception, crash, hang, leak or
// sanitizer report is a finding. Built with libFuzzer by the `fuzz` preset (scripts/fuzz.sh
// kubeconfig), and with any compiler as kubex_fuzz_kubeconfig_replay, which runs the seed and
// regression corpus (kubeconfig-corpus/) as a unit test.
#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/error.hpp>

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kubex_fuzz {

constexpr std::string_view kSource = "kubeconfig <fuzz>";

[[noreturn]] void finding(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_kubeconfig: %s\n%.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

// The error message resolving `text`, or std::nullopt when it resolves.
std::optional<std::string> resolve(const std::string& text) {
  try {
    // A folder that does not exist: relative paths in the input name no real file.
    (void)kubex::client::parse_kubeconfig(text, "/nonexistent/kubex-fuzz", kSource);
    return std::nullopt;
  } catch (const kubex::Error& e) {
    return std::string(e.what());
  } catch (const std::exception& e) {
    finding("an exception that is not a kubex::Error escaped", e.what());
  }
}

bool secret_key(const std::string& key) {
  return key == "token" || key == "password" || key == "client-key-data" ||
         key == "client-secret" || key == "id-token" || key == "refresh-token";
}

// The password of a proxy URL (`http://user:pass@host`), or its whole user information when
// it has no ':'; "" without any.
std::string proxy_secret(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) {
    return "";
  }
  const auto at = url.find('@', scheme + 3);
  if (at == std::string::npos) {
    return "";
  }
  const std::string userinfo = url.substr(scheme + 3, at - scheme - 3);
  const auto colon = userinfo.find(':');
  return colon == std::string::npos ? userinfo : userinfo.substr(colon + 1);
}

// Collects the scalars under secret keys anywhere in the document. Bounded, because aliases
// can make a small document a huge tree.
void collect(const YAML::Node& node, std::vector<std::string>& out, int& budget) {
  if (--budget < 0) {
    return;
  }
  if (node.IsSequence()) {
    for (const auto& item : node) {
      collect(item, out, budget);
    }
  } else if (node.IsMap()) {
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        continue;
      }
      const std::string key = entry.first.Scalar();
      if (entry.second.IsScalar()) {
        if (secret_key(key)) {
          out.push_back(entry.second.Scalar());
        } else if (key == "proxy-url") {
          out.push_back(proxy_secret(entry.second.Scalar()));
        }
      }
      collect(entry.second, out, budget);
    }
  }
}

std::vector<std::string> secrets(const std::string& text) {
  std::vector<std::string> out;
  try {
    int budget = 10000;
    collect(YAML::Load(text), out, budget);
  } catch (const std::exception&) {
    // Not YAML: the reader must say so, with nothing from the text.
  }
  return out;
}

// Letters and digits only: the same characters shifted by one keep YAML's structure, and the
// same length keeps every position in messages.
bool checkable(std::string_view s) {
  if (s.size() < 6) {
    return false;  // short values occur in messages by chance
  }
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return true;
}

std::string shifted(std::string s) {
  for (char& c : s) {
    c = c == 'z' ? 'a' : c == 'Z' ? 'A' : c == '9' ? '0' : static_cast<char>(c + 1);
  }
  return s;
}

void check(const std::string& text) {
  const std::optional<std::string> message = resolve(text);
  if (!message) {
    return;
  }
  if (!message->starts_with(kSource)) {
    finding("the message does not name the document", *message);
  }
  for (const std::string& secret : secrets(text)) {
    if (!checkable(secret) || message->find(secret) == std::string::npos) {
      continue;
    }
    const auto at = text.find(secret);
    if (at == std::string::npos || text.find(secret, at + 1) != std::string::npos) {
      continue;  // also elsewhere in the text, e.g. as a name the message may quote
    }
    // The message may hold the same characters by chance (a secret "kubeconfig"): it holds
    // the secret when they change with it.
    std::string other = text;
    other.replace(at, secret.size(), shifted(secret));
    const std::optional<std::string> again = resolve(other);
    if (!again || again->find(secret) == std::string::npos) {
      finding("the message prints a secret", *message);
    }
  }
}

}  // namespace kubex_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kubex_fuzz::check(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
