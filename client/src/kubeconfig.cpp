#include <kubex/client/kubeconfig.hpp>
#include <kubex/core/base64.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/url.hpp>

#include "detail/pem.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace kubex::client {
namespace {

namespace fs = std::filesystem;

// Larger files are certainly not kubeconfigs, certificates or tokens; refusing them keeps a
// mistaken path (a disk image, /dev/zero) from exhausting memory.
constexpr std::uintmax_t max_file_size = 16U * 1024U * 1024U;

struct FileCloser {
  void operator()(std::FILE* file) const noexcept { std::fclose(file); }
};

// Reads a whole file; on failure returns std::nullopt and sets `problem` (never file contents).
std::optional<std::string> read_file(const fs::path& path, std::string& problem) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec) {
    problem = ec.message();
    return std::nullopt;
  }
  if (fs::is_directory(status)) {
    problem = "is a directory";
    return std::nullopt;
  }
  const std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    problem = std::strerror(errno);
    return std::nullopt;
  }
  std::string data;
  char chunk[16384];
  while (true) {
    const std::size_t n = std::fread(chunk, 1, sizeof chunk, file.get());
    data.append(chunk, n);
    if (data.size() > max_file_size) {
      problem = "file is larger than 16 MiB";
      return std::nullopt;
    }
    if (n < sizeof chunk) {
      break;
    }
  }
  if (std::ferror(file.get()) != 0) {
    problem = "read error";
    return std::nullopt;
  }
  return data;
}

std::string_view trim(std::string_view text) noexcept {
  constexpr std::string_view space = " \t\r\n\f\v";
  const auto first = text.find_first_not_of(space);
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(space);
  return text.substr(first, last - first + 1);
}

bool has_control_characters(std::string_view text) noexcept {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return true;
    }
  }
  return false;
}

// Walks one parsed kubeconfig document and produces a ClientConfig for one context. Every
// failure goes through fail(), which prefixes the source and the field path.
class Resolver {
 public:
  Resolver(std::string source, fs::path base_directory)
      : source_(std::move(source)), base_directory_(std::move(base_directory)) {}

  ClientConfig resolve(const YAML::Node& root, const KubeconfigOptions& options) {
    if (!root || root.IsNull()) {
      fail("document is empty");
    }
    if (!root.IsMap()) {
      fail("document is not a mapping");
    }
    const auto clusters = index_named(root, "clusters", "cluster");
    const auto users = index_named(root, "users", "user");
    const auto contexts = index_named(root, "contexts", "context");

    ClientConfig config;
    config.source = source_;
    if (!options.context.empty()) {
      config.context_name = options.context;
      if (!contexts.contains(config.context_name)) {
        fail("contexts", "no context named \"" + config.context_name + "\"");
      }
    } else {
      config.context_name = string_field(root, "current-context", "current-context").value_or("");
      if (config.context_name.empty()) {
        fail("current-context", "not set and no context was chosen");
      }
      if (!contexts.contains(config.context_name)) {
        fail("current-context", "context \"" + config.context_name + "\" not found");
      }
    }

    // Field paths name the entry, not the nesting: contexts[admin].cluster rather than
    // contexts[admin].context.cluster, which is how people read kubeconfigs.
    const std::string context_path = "contexts[" + config.context_name + "]";
    const YAML::Node& context = contexts.at(config.context_name);
    if (!context || context.IsNull()) {
      fail(context_path + ".context", "missing");
    }
    require_map(context, context_path + ".context");

    config.cluster_name = string_field(context, "cluster", context_path + ".cluster").value_or("");
    if (config.cluster_name.empty()) {
      fail(context_path + ".cluster", "missing");
    }
    if (!clusters.contains(config.cluster_name)) {
      fail(context_path + ".cluster", "cluster \"" + config.cluster_name + "\" not found");
    }
    config.user_name = string_field(context, "user", context_path + ".user").value_or("");
    if (!config.user_name.empty() && !users.contains(config.user_name)) {
      fail(context_path + ".user", "user \"" + config.user_name + "\" not found");
    }
    if (auto ns = string_field(context, "namespace", context_path + ".namespace")) {
      config.namespace_name = std::move(*ns);
    }

    resolve_cluster(clusters.at(config.cluster_name), config);
    if (!config.user_name.empty()) {
      resolve_user(users.at(config.user_name), config);
    }
    return config;
  }

  [[noreturn]] void fail(std::string_view problem) const {
    throw ConfigError(source_ + ": " + std::string(problem));
  }

  [[noreturn]] void fail(std::string_view field, std::string_view problem) const {
    throw ConfigError(source_ + ": " + std::string(field) + ": " + std::string(problem));
  }

 private:
  void resolve_cluster(const YAML::Node& cluster, ClientConfig& config) const {
    const std::string path = "clusters[" + config.cluster_name + "]";
    if (!cluster || cluster.IsNull()) {
      fail(path + ".cluster", "missing");
    }
    require_map(cluster, path + ".cluster");

    reject_unsupported(cluster, path, "proxy-url", "proxies are not supported yet");

    const auto server = string_field(cluster, "server", path + ".server");
    if (!server) {
      fail(path + ".server", "missing");
    }
    try {
      config.server = parse_server_url(*server);
    } catch (const Error& e) {
      fail(path + ".server", e.what());
    }

    if (auto pem = data_or_file(cluster, path, "certificate-authority")) {
      if (detail::read_pem_certificates(pem->data).empty()) {
        fail(path + "." + pem->field, "no valid PEM certificate found");
      }
      config.certificate_authority_pem = std::move(pem->data);
    }
    config.insecure_skip_tls_verify =
        bool_field(cluster, "insecure-skip-tls-verify", path + ".insecure-skip-tls-verify");
    if (config.insecure_skip_tls_verify && !config.certificate_authority_pem.empty()) {
      // Same rule as client-go: a CA together with "insecure" is almost always a mistake.
      fail(path + ".insecure-skip-tls-verify",
           "cannot be combined with certificate-authority or certificate-authority-data");
    }
    config.tls_server_name =
        string_field(cluster, "tls-server-name", path + ".tls-server-name").value_or("");
  }

  void resolve_user(const YAML::Node& user, ClientConfig& config) const {
    const std::string path = "users[" + config.user_name + "]";
    if (!user || user.IsNull()) {
      return;  // an empty user entry means anonymous access
    }
    require_map(user, path + ".user");

    reject_unsupported(user, path, "exec", "exec credential plugins are not supported yet");
    reject_unsupported(user, path, "auth-provider", "auth providers are not supported yet");
    reject_unsupported(user, path, "username", "basic authentication is not supported");
    reject_unsupported(user, path, "password", "basic authentication is not supported");
    for (const char* key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
      reject_unsupported(user, path, key, "impersonation is not supported yet");
    }

    if (auto token = string_field(user, "token", path + ".token")) {
      config.token = std::move(*token);
      if (has_control_characters(config.token)) {
        fail(path + ".token", "contains control characters");
      }
    }
    if (auto file = string_field(user, "tokenFile", path + ".tokenFile")) {
      config.token_file = resolve_path(*file);
      // client-go: an inline token wins, the file is only read when there is none.
      if (config.token.empty()) {
        std::string problem;
        const auto contents = read_file(config.token_file, problem);
        if (!contents) {
          fail(path + ".tokenFile",
               "cannot read \"" + config.token_file.string() + "\": " + problem);
        }
        config.token.assign(trim(*contents));
        if (config.token.empty()) {
          fail(path + ".tokenFile", "file \"" + config.token_file.string() + "\" is empty");
        }
        if (has_control_characters(config.token)) {
          fail(path + ".tokenFile", "token contains control characters");
        }
      }
    }

    auto cert = data_or_file(user, path, "client-certificate");
    auto key = data_or_file(user, path, "client-key");
    if (cert && !key) {
      fail(path + "." + cert->field, "is set but client-key-data or client-key is not");
    }
    if (key && !cert) {
      fail(path + "." + key->field,
           "is set but client-certificate-data or client-certificate is not");
    }
    if (cert && key) {
      const auto certs = detail::read_pem_certificates(cert->data);
      if (certs.empty()) {
        fail(path + "." + cert->field, "no valid PEM certificate found");
      }
      const auto pkey = detail::read_pem_private_key(key->data);
      if (!pkey) {
        fail(path + "." + key->field,
             "no valid PEM private key found (encrypted keys are not supported)");
      }
      if (!detail::key_matches_certificate(certs.front().get(), pkey.get())) {
        fail(path + "." + key->field, "does not match the client certificate");
      }
      config.client_certificate_pem = std::move(cert->data);
      config.client_key_pem = std::move(key->data);
    }
  }

  struct Blob {
    std::string field;  // which field it came from, for messages
    std::string data;
  };

  // Reads `<name>-data` (base64) or, if absent, the file named by `<name>`; data wins, as in
  // client-go.
  std::optional<Blob> data_or_file(const YAML::Node& map, const std::string& path,
                                   const std::string& name) const {
    const std::string data_key = name + "-data";
    if (auto encoded = string_field(map, data_key, path + "." + data_key)) {
      auto decoded = base64_decode(*encoded);
      if (!decoded) {
        fail(path + "." + data_key, "invalid base64");
      }
      if (decoded->empty()) {
        return std::nullopt;
      }
      return Blob{data_key, std::move(*decoded)};
    }
    if (auto file = string_field(map, name, path + "." + name)) {
      const auto resolved = resolve_path(*file);
      std::string problem;
      auto contents = read_file(resolved, problem);
      if (!contents) {
        fail(path + "." + name, "cannot read \"" + resolved.string() + "\": " + problem);
      }
      return Blob{name, std::move(*contents)};
    }
    return std::nullopt;
  }

  fs::path resolve_path(const std::string& value) const {
    fs::path path(value);
    if (path.is_relative()) {
      path = base_directory_ / path;
    }
    return path.lexically_normal();
  }

  // Maps entry name -> inner node for a list like `clusters: [{name: x, cluster: {...}}]`.
  std::map<std::string, YAML::Node> index_named(const YAML::Node& root, const std::string& list_key,
                                                const std::string& inner_key) const {
    std::map<std::string, YAML::Node> index;
    const YAML::Node list = root[list_key];
    if (!list || list.IsNull()) {
      return index;
    }
    if (!list.IsSequence()) {
      fail(list_key, "expected a list");
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node entry = list[i];
      const std::string entry_path = list_key + "[" + std::to_string(i) + "]";
      require_map(entry, entry_path);
      auto name = string_field(entry, "name", entry_path + ".name");
      if (!name) {
        fail(entry_path + ".name", "missing");
      }
      if (index.contains(*name)) {
        fail(list_key, "duplicate name \"" + *name + "\"");
      }
      index.emplace(std::move(*name), entry[inner_key]);
    }
    return index;
  }

  void require_map(const YAML::Node& node, const std::string& path) const {
    if (!node.IsMap()) {
      fail(path, "expected a mapping");
    }
  }

  // Returns a non-empty scalar, std::nullopt if absent, null or empty; fails on other node kinds.
  std::optional<std::string> string_field(const YAML::Node& map, const std::string& key,
                                          const std::string& path) const {
    const YAML::Node node = map[key];
    if (!node || node.IsNull()) {
      return std::nullopt;
    }
    if (!node.IsScalar()) {
      fail(path, "expected a string");
    }
    auto value = node.Scalar();
    if (value.empty()) {
      return std::nullopt;
    }
    return value;
  }

  bool bool_field(const YAML::Node& map, const std::string& key, const std::string& path) const {
    const YAML::Node node = map[key];
    if (!node || node.IsNull()) {
      return false;
    }
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
      fail(path, "expected true or false");
    }
    return value;
  }

  void reject_unsupported(const YAML::Node& map, const std::string& path, const std::string& key,
                          std::string_view why) const {
    const YAML::Node node = map[key];
    if (node && !node.IsNull()) {
      fail(path + "." + key, why);
    }
  }

  std::string source_;
  fs::path base_directory_;
};

ClientConfig resolve_document(std::string_view yaml, const fs::path& base_directory,
                              std::string source, const KubeconfigOptions& options) {
  Resolver resolver(std::move(source), base_directory);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    // Only the position and yaml-cpp's fixed message: the offending text may be a secret.
    if (e.mark.is_null()) {
      resolver.fail("invalid YAML: " + e.msg);
    }
    resolver.fail("invalid YAML at line " + std::to_string(e.mark.line + 1) + ", column " +
                  std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  try {
    return resolver.resolve(root, options);
  } catch (const YAML::Exception& e) {
    resolver.fail("invalid structure: " + e.msg);
  }
}

}  // namespace

ClientConfig load_kubeconfig(const std::filesystem::path& path, const KubeconfigOptions& options) {
  std::string source = "kubeconfig " + path.string();
  std::string problem;
  const auto contents = read_file(path, problem);
  if (!contents) {
    throw ConfigError(source + ": cannot read file: " + problem);
  }
  std::error_code ec;
  auto directory = std::filesystem::absolute(path, ec).parent_path();
  if (ec) {
    directory = path.parent_path();
  }
  return resolve_document(*contents, directory, std::move(source), options);
}

ClientConfig parse_kubeconfig(std::string_view yaml, const std::filesystem::path& base_directory,
                              std::string_view source_name, const KubeconfigOptions& options) {
  return resolve_document(yaml, base_directory, std::string(source_name), options);
}

}  // namespace kubex::client
