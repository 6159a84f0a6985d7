// SPDX-License-Identifier: Apache-2.0
#include <kubex/client/kubeconfig.hpp>
#include <kubex/client/proxy.hpp>
#include <kubex/core/base64.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/url.hpp>

#include "detail/pem.hpp"
#include "detail/text.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

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

using detail::has_control_characters;
using detail::trim_space;

// One parsed kubeconfig file (or in-memory document).
struct Document {
  std::string source;       // e.g. "kubeconfig /home/me/.kube/config", for messages
  std::string label;        // the file's path, to name merged documents together
  fs::path base_directory;  // relative paths in the document resolve against it
  YAML::Node root;
};

// Walks parsed kubeconfig documents, merged the way client-go merges KUBECONFIG=a:b (the first
// document to name a cluster, user or context, or to set current-context, wins), and produces
// a ClientConfig for one context. Every failure goes through fail(), which prefixes the source
// of the document being read and the field path.
class Resolver {
 public:
  explicit Resolver(std::string source) : source_(std::move(source)) {}

  ClientConfig resolve(const std::vector<Document>& documents, const KubeconfigOptions& options) {
    const bool merged = documents.size() > 1;
    std::vector<const Document*> usable;
    for (const auto& d : documents) {
      use(d);
      if (!d.root || d.root.IsNull()) {
        if (merged) {
          continue;  // client-go accepts an empty file in KUBECONFIG
        }
        fail("document is empty");
      }
      if (!d.root.IsMap()) {
        fail("document is not a mapping");
      }
      usable.push_back(&d);
    }
    const auto clusters = index_named(usable, "clusters", "cluster");
    const auto users = index_named(usable, "users", "user");
    const auto contexts = index_named(usable, "contexts", "context");

    ClientConfig config;
    config.source = all_sources(documents);
    use_all(config.source);
    if (!options.context.empty()) {
      config.context_name = options.context;
      if (!contexts.contains(config.context_name)) {
        fail("contexts", "no context named \"" + config.context_name + "\"");
      }
    } else {
      for (const Document* d : usable) {
        use(*d);
        config.context_name =
            string_field(d->root, "current-context", "current-context").value_or("");
        if (!config.context_name.empty()) {
          break;
        }
      }
      if (config.context_name.empty()) {
        use_all(config.source);
        fail("current-context", "not set and no context was chosen");
      }
      if (!contexts.contains(config.context_name)) {
        fail("current-context", "context \"" + config.context_name + "\" not found");
      }
    }

    // Field paths name the entry, not the nesting: contexts[admin].cluster rather than
    // contexts[admin].context.cluster, which is how people read kubeconfigs.
    const std::string context_path = "contexts[" + config.context_name + "]";
    const Entry& context_entry = contexts.at(config.context_name);
    use(*context_entry.document);
    const YAML::Node& context = context_entry.node;
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

    const Entry& cluster = clusters.at(config.cluster_name);
    use(*cluster.document);
    resolve_cluster(cluster.node, config);
    if (!config.user_name.empty()) {
      const Entry& user = users.at(config.user_name);
      use(*user.document);
      resolve_user(user.node, config);
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
    config.disable_compression =
        bool_field(cluster, "disable-compression", path + ".disable-compression");
    if (auto proxy = string_field(cluster, "proxy-url", path + ".proxy-url")) {
      // Checked now, so that a bad URL is reported with the file and field.
      (void)parse_proxy_url(*proxy, source_ + ": " + path + ".proxy-url");
      config.proxy_url = std::move(*proxy);
    }
  }

  void resolve_user(const YAML::Node& user, ClientConfig& config) const {
    const std::string path = "users[" + config.user_name + "]";
    if (!user || user.IsNull()) {
      return;  // an empty user entry means anonymous access
    }
    require_map(user, path + ".user");

    resolve_exec(user, path, config);
    resolve_auth_provider(user, path, config);
    resolve_impersonation(user, path, config.impersonate);

    if (auto token = string_field(user, "token", path + ".token")) {
      config.token = std::move(*token);
      if (has_control_characters(config.token)) {
        fail(path + ".token", "contains control characters");
      }
    }
    if (auto file = string_field(user, "tokenFile", path + ".tokenFile")) {
      // client-go: an inline token wins, the file is only read (and re-read by transports)
      // when there is none.
      if (config.token.empty()) {
        config.token_file = resolve_path(*file);
        std::string problem;
        const auto contents = read_file(config.token_file, problem);
        if (!contents) {
          fail(path + ".tokenFile",
               "cannot read \"" + config.token_file.string() + "\": " + problem);
        }
        config.token.assign(trim_space(*contents));
        if (config.token.empty()) {
          fail(path + ".tokenFile", "file \"" + config.token_file.string() + "\" is empty");
        }
        if (has_control_characters(config.token)) {
          fail(path + ".tokenFile", "token contains control characters");
        }
      }
    }

    // Basic authentication: kube-apiserver dropped it in 1.19, but proxies and aggregated
    // servers in front of one may still take it; client-go sends it, and so does kubex.
    if (auto name = string_field(user, "username", path + ".username")) {
      config.username = std::move(*name);
    }
    if (auto password = string_field(user, "password", path + ".password")) {
      config.password = std::move(*password);
    }
    if (!config.username.empty() || !config.password.empty()) {
      if (!config.token.empty() || !config.token_file.empty()) {
        fail(path,
             "username/password and a bearer token (token, tokenFile) are both set; "
             "use one authentication method");
      }
      if (config.username.find(':') != std::string::npos) {
        fail(path + ".username", "must not contain ':' (RFC 7617)");
      }
      if (has_control_characters(config.username) || has_control_characters(config.password)) {
        fail(path, "username or password contains control characters");
      }
    }

    if (config.oidc && (!config.token.empty() || !config.username.empty())) {
      fail(path,
           "auth-provider and a token or username/password are both set; use one "
           "authentication method");
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

  void resolve_auth_provider(const YAML::Node& user, const std::string& path,
                             ClientConfig& config) const {
    const YAML::Node node = user["auth-provider"];
    if (!node || node.IsNull()) {
      return;
    }
    const std::string p = path + ".auth-provider";
    require_map(node, p);
    const auto name = string_field(node, "name", p + ".name").value_or("");
    if (name != "oidc") {
      fail(p + ".name", "\"" + name +
                            "\" is not supported (only oidc; client-go removed the gcp and azure "
                            "providers: use an exec plugin)");
    }
    if (config.exec) {
      fail(p, "cannot be combined with exec; use one authentication method");
    }
    const std::string c = p + ".config";
    const YAML::Node settings = node["config"];
    if (!settings || settings.IsNull()) {
      fail(c, "missing");
    }
    require_map(settings, c);
    OidcConfig oidc;
    oidc.client_id = string_field(settings, "client-id", c + ".client-id").value_or("");
    oidc.client_secret = string_field(settings, "client-secret", c + ".client-secret").value_or("");
    oidc.id_token = string_field(settings, "id-token", c + ".id-token").value_or("");
    oidc.refresh_token = string_field(settings, "refresh-token", c + ".refresh-token").value_or("");
    oidc.issuer_url = string_field(settings, "idp-issuer-url", c + ".idp-issuer-url").value_or("");
    if (oidc.client_id.empty()) {
      fail(c + ".client-id", "missing");
    }
    if (oidc.issuer_url.empty()) {
      fail(c + ".idp-issuer-url", "missing");
    }
    ServerUrl issuer;
    try {
      issuer = parse_server_url(oidc.issuer_url);
    } catch (const Error& e) {
      fail(c + ".idp-issuer-url", e.what());
    }
    if (issuer.scheme != "https") {
      fail(c + ".idp-issuer-url", "must be an https:// URL");
    }
    for (const auto* secret : {&oidc.id_token, &oidc.refresh_token, &oidc.client_secret}) {
      if (has_control_characters(*secret)) {
        fail(c, "a token or secret contains control characters");
      }
    }
    if (auto pem = data_or_file(settings, c, "idp-certificate-authority")) {
      if (detail::read_pem_certificates(pem->data).empty()) {
        fail(c + "." + pem->field, "not a PEM certificate bundle");
      }
      oidc.certificate_authority_pem = std::move(pem->data);
    }
    const auto scopes = string_field(settings, "extra-scopes", c + ".extra-scopes").value_or("");
    for (std::size_t start = 0; start < scopes.size();) {
      auto end = scopes.find(',', start);
      if (end == std::string::npos) {
        end = scopes.size();
      }
      const auto scope = trim_space(std::string_view(scopes).substr(start, end - start));
      if (!scope.empty()) {
        oidc.extra_scopes.emplace_back(scope);
      }
      start = end + 1;
    }
    config.oidc = std::move(oidc);
  }

  void resolve_exec(const YAML::Node& user, const std::string& path, ClientConfig& config) const {
    const YAML::Node node = user["exec"];
    if (!node || node.IsNull()) {
      return;
    }
    const std::string p = path + ".exec";
    require_map(node, p);
    ExecConfig exec;
    auto command = string_field(node, "command", p + ".command");
    if (!command) {
      fail(p + ".command", "missing");
    }
    // client-go: a relative path with a separator is relative to the kubeconfig; a bare name
    // is for PATH.
    exec.command = command->find('/') != std::string::npos && command->front() != '/'
                       ? resolve_path(*command).string()
                       : std::move(*command);
    exec.api_version = string_field(node, "apiVersion", p + ".apiVersion").value_or("");
    if (exec.api_version != "client.authentication.k8s.io/v1" &&
        exec.api_version != "client.authentication.k8s.io/v1beta1") {
      fail(p + ".apiVersion", exec.api_version.empty()
                                  ? "missing"
                                  : "\"" + exec.api_version +
                                        "\" is not supported (client.authentication.k8s.io/v1 "
                                        "or v1beta1)");
    }
    exec.args = string_list(node["args"], p + ".args");
    const YAML::Node env = node["env"];
    if (env && !env.IsNull()) {
      if (!env.IsSequence()) {
        fail(p + ".env", "expected a list of {name, value}");
      }
      for (std::size_t i = 0; i < env.size(); ++i) {
        const std::string e = p + ".env[" + std::to_string(i) + "]";
        require_map(env[i], e);
        auto name = string_field(env[i], "name", e + ".name");
        if (!name || name->find('=') != std::string::npos) {
          fail(e + ".name", name ? "contains '='" : "missing");
        }
        exec.env.emplace_back(std::move(*name),
                              string_field(env[i], "value", e + ".value").value_or(""));
      }
    }
    exec.install_hint = string_field(node, "installHint", p + ".installHint").value_or("");
    exec.provide_cluster_info = bool_field(node, "provideClusterInfo", p + ".provideClusterInfo");
    exec.interactive_mode = string_field(node, "interactiveMode", p + ".interactiveMode")
                                .value_or(exec.api_version.ends_with("/v1") ? "" : "IfAvailable");
    if (exec.interactive_mode.empty()) {
      fail(p + ".interactiveMode", "missing (required by client.authentication.k8s.io/v1)");
    }
    if (exec.interactive_mode == "Always") {
      fail(p + ".interactiveMode", "\"Always\" needs a terminal, which kubex never gives a plugin");
    }
    if (exec.interactive_mode != "Never" && exec.interactive_mode != "IfAvailable") {
      fail(p + ".interactiveMode",
           "\"" + exec.interactive_mode + "\" is not one of Never, IfAvailable, Always");
    }
    config.exec = std::move(exec);
  }

  void resolve_impersonation(const YAML::Node& user, const std::string& path,
                             Impersonation& out) const {
    out.user = header_safe(string_field(user, "as", path + ".as"), path + ".as");
    out.uid = header_safe(string_field(user, "as-uid", path + ".as-uid"), path + ".as-uid");
    const std::string groups_path = path + ".as-groups";
    out.groups = string_list(user["as-groups"], groups_path);
    const YAML::Node extra = user["as-user-extra"];
    const std::string extra_path = path + ".as-user-extra";
    if (extra && !extra.IsNull()) {
      require_map(extra, extra_path);
      for (const auto& entry : extra) {
        if (!entry.first.IsScalar() || entry.first.Scalar().empty()) {
          fail(extra_path, "keys must be non-empty strings");
        }
        const std::string key = entry.first.Scalar();
        const std::string key_path = extra_path + "[" + key + "]";
        if (has_control_characters(key)) {
          fail(extra_path, "a key contains control characters");
        }
        out.extra[key] = string_list(entry.second, key_path);
      }
    }
    // client-go refuses these too: without a user there is nobody to add them to.
    if (out.user.empty() && (!out.uid.empty() || !out.groups.empty() || !out.extra.empty())) {
      fail(path + ".as", "missing, but as-uid, as-groups or as-user-extra needs it");
    }
  }

  // Header values cannot carry control characters (they would end the header).
  std::string header_safe(std::optional<std::string> value, const std::string& path) const {
    if (!value) {
      return {};
    }
    if (has_control_characters(*value)) {
      fail(path, "contains control characters");
    }
    return std::move(*value);
  }

  // A list of non-empty strings, e.g. as-groups; absent or null is an empty list.
  std::vector<std::string> string_list(const YAML::Node& node, const std::string& path) const {
    std::vector<std::string> out;
    if (!node || node.IsNull()) {
      return out;
    }
    if (!node.IsSequence()) {
      fail(path, "expected a list of strings");
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string item_path = path + "[" + std::to_string(i) + "]";
      const YAML::Node item = node[i];
      if (!item.IsScalar() || item.Scalar().empty()) {
        fail(item_path, "expected a non-empty string");
      }
      out.push_back(header_safe(item.Scalar(), item_path));
    }
    return out;
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

  // A named entry of a kubeconfig list and the document it came from.
  struct Entry {
    YAML::Node node;
    const Document* document = nullptr;
  };

  // Maps entry name -> inner node for a list like `clusters: [{name: x, cluster: {...}}]`,
  // over all documents; a name repeated within one document is an error, a name an earlier
  // document already gave is ignored.
  std::map<std::string, Entry> index_named(const std::vector<const Document*>& documents,
                                           const std::string& list_key,
                                           const std::string& inner_key) {
    std::map<std::string, Entry> index;
    for (const Document* d : documents) {
      use(*d);
      std::map<std::string, bool> own;
      const YAML::Node list = d->root[list_key];
      if (!list || list.IsNull()) {
        continue;
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
        if (own.contains(*name)) {
          fail(list_key, "duplicate name \"" + *name + "\"");
        }
        own.emplace(*name, true);
        index.try_emplace(std::move(*name), Entry{entry[inner_key], d});
      }
    }
    return index;
  }

  // Messages and relative paths refer to document `d` from now on.
  void use(const Document& d) {
    source_ = d.source;
    base_directory_ = d.base_directory;
  }

  void use_all(const std::string& source) { source_ = source; }

  static std::string all_sources(const std::vector<Document>& documents) {
    if (documents.size() == 1) {
      return documents.front().source;
    }
    std::string out = "kubeconfig ";
    for (std::size_t i = 0; i < documents.size(); ++i) {
      out += (i == 0 ? "" : ":");
      out += documents[i].label;
    }
    return out;
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

// Parses one document; syntax errors name the source and position, never the text.
YAML::Node parse_yaml(std::string_view yaml, const std::string& source) {
  try {
    return YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    // Only the position and yaml-cpp's fixed message: the offending text may be a secret.
    if (e.mark.is_null()) {
      throw ConfigError(source + ": invalid YAML: " + e.msg);
    }
    throw ConfigError(source + ": invalid YAML at line " + std::to_string(e.mark.line + 1) +
                      ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
}

ClientConfig resolve_documents(const std::vector<Document>& documents,
                               const KubeconfigOptions& options) {
  Resolver resolver(documents.front().source);
  try {
    return resolver.resolve(documents, options);
  } catch (const YAML::Exception& e) {
    resolver.fail("invalid structure: " + e.msg);
  }
}

// Reads and parses the kubeconfig file at `path`; std::nullopt if it does not exist and
// `missing_ok`.
std::optional<Document> read_document(const fs::path& path, bool missing_ok) {
  Document d;
  d.label = path.string();
  d.source = "kubeconfig " + d.label;
  std::error_code ec;
  if (missing_ok && !fs::exists(path, ec) && !ec) {
    return std::nullopt;
  }
  std::string problem;
  const auto contents = read_file(path, problem);
  if (!contents) {
    throw ConfigError(d.source + ": cannot read file: " + problem);
  }
  d.base_directory = fs::absolute(path, ec).parent_path();
  if (ec) {
    d.base_directory = path.parent_path();
  }
  d.root = parse_yaml(*contents, d.source);
  return d;
}

}  // namespace

ClientConfig load_kubeconfig(const std::filesystem::path& path, const KubeconfigOptions& options) {
  return resolve_documents({*read_document(path, false)}, options);
}

ClientConfig load_kubeconfig_files(const std::vector<std::filesystem::path>& paths,
                                   const KubeconfigOptions& options) {
  std::vector<Document> documents;
  std::string tried;
  for (const auto& path : paths) {
    if (path.empty()) {
      continue;
    }
    tried += (tried.empty() ? "" : ":") + path.string();
    bool seen = false;
    for (const auto& d : documents) {
      seen = seen || d.label == path.string();
    }
    if (seen) {
      continue;  // client-go reads a file named twice once
    }
    if (auto d = read_document(path, true)) {
      documents.push_back(std::move(*d));
    }
  }
  if (documents.empty()) {
    throw ConfigError("kubeconfig " + tried + ": " +
                      (tried.empty() ? "no file given" : "none of the files exists"));
  }
  return resolve_documents(documents, options);
}

ClientConfig parse_kubeconfig(std::string_view yaml, const std::filesystem::path& base_directory,
                              std::string_view source_name, const KubeconfigOptions& options) {
  Document d;
  d.source = std::string(source_name);
  d.label = d.source;
  d.base_directory = base_directory;
  d.root = parse_yaml(yaml, d.source);
  return resolve_documents({std::move(d)}, options);
}

std::vector<std::filesystem::path> split_kubeconfig_env(std::string_view value) {
  std::vector<std::filesystem::path> paths;
  while (!value.empty()) {
    const auto colon = value.find(':');
    const auto item = value.substr(0, colon);
    if (!item.empty()) {
      paths.emplace_back(item);
    }
    if (colon == std::string_view::npos) {
      break;
    }
    value.remove_prefix(colon + 1);
  }
  return paths;
}

bool in_cluster_environment() noexcept {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  return host != nullptr && *host != '\0' && port != nullptr && *port != '\0';
}

ClientConfig incluster_config(const InClusterOptions& options) {
  const std::string source = "in-cluster configuration";
  const auto fail = [&source](const std::string& what) -> void {
    throw ConfigError(source + ": " + what);
  };
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0') {
    fail("KUBERNETES_SERVICE_HOST is not set (not running in a pod?)");
  }
  if (port == nullptr || *port == '\0') {
    fail("KUBERNETES_SERVICE_PORT is not set (not running in a pod?)");
  }
  const std::string_view h(host);
  const bool ipv6 = h.find(':') != std::string_view::npos;
  const std::string url =
      "https://" + (ipv6 ? "[" + std::string(h) + "]" : std::string(h)) + ":" + port;
  ClientConfig config;
  config.source = source;
  config.context_name = "in-cluster";
  try {
    config.server = parse_server_url(url);
  } catch (const Error& e) {
    fail("KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT: " + std::string(e.what()));
  }
  const fs::path dir = options.service_account_dir;
  std::string problem;
  config.token_file = dir / "token";
  const auto token = read_file(config.token_file, problem);
  if (!token) {
    fail("cannot read the service account token \"" + config.token_file.string() +
         "\": " + problem);
  }
  config.token.assign(trim_space(*token));
  if (config.token.empty() || has_control_characters(config.token)) {
    fail("the service account token \"" + config.token_file.string() + "\" is " +
         (config.token.empty() ? "empty" : "not a token (control characters)"));
  }
  const fs::path ca = dir / "ca.crt";
  auto ca_pem = read_file(ca, problem);
  if (!ca_pem) {
    fail("cannot read the service account CA \"" + ca.string() + "\": " + problem);
  }
  if (detail::read_pem_certificates(*ca_pem).empty()) {
    fail("\"" + ca.string() + "\": no valid PEM certificate found");
  }
  config.certificate_authority_pem = std::move(*ca_pem);
  const fs::path ns = dir / "namespace";
  std::error_code ec;
  if (fs::exists(ns, ec)) {
    const auto name = read_file(ns, problem);
    if (!name) {
      fail("cannot read \"" + ns.string() + "\": " + problem);
    }
    if (!trim_space(*name).empty()) {
      config.namespace_name.assign(trim_space(*name));
    }
  }
  return config;
}

ClientConfig infer_config(const KubeconfigOptions& options) {
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    return load_kubeconfig_files(split_kubeconfig_env(env), options);
  }
  std::string tried = "KUBECONFIG is not set";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    const fs::path path = fs::path(home) / ".kube" / "config";
    std::error_code ec;
    if (fs::exists(path, ec)) {
      return load_kubeconfig(path, options);
    }
    tried += ", " + path.string() + " does not exist";
  } else {
    tried += ", HOME is not set";
  }
  if (in_cluster_environment()) {
    return incluster_config();
  }
  throw ConfigError("no Kubernetes configuration found: " + tried +
                    ", and KUBERNETES_SERVICE_HOST is not set (not in a pod)");
}

}  // namespace kubex::client
