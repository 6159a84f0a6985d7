// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/path.hpp>
#include <kubex/core/percent.hpp>
#include <kubex/core/request.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace kubex {
namespace {

void append_int(std::string& target, std::string_view key, std::int64_t value) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, value);
  append_query(target, key, std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
}

std::string_view rv_match_text(ResourceVersionMatch m) noexcept {
  switch (m) {
    case ResourceVersionMatch::not_older_than:
      return "NotOlderThan";
    case ResourceVersionMatch::exact:
      return "Exact";
    case ResourceVersionMatch::unset:
      break;
  }
  return {};
}

std::string_view validation_text(FieldValidation v) noexcept {
  switch (v) {
    case FieldValidation::ignore:
      return "Ignore";
    case FieldValidation::warn:
      return "Warn";
    case FieldValidation::strict:
      return "Strict";
    case FieldValidation::server_default:
      break;
  }
  return {};
}

void append_write_params(std::string& target, bool dry_run, std::string_view field_manager,
                         FieldValidation validation) {
  if (dry_run) {
    append_query(target, "dryRun", "All");
  }
  if (!field_manager.empty()) {
    append_query(target, "fieldManager", field_manager);
  }
  if (const auto v = validation_text(validation); !v.empty()) {
    append_query(target, "fieldValidation", v);
  }
}

void append_patch_params(std::string& target, const Patch& patch, const PatchParams& params) {
  if (params.force && patch.type() != PatchType::apply) {
    throw Error(errc::invalid_argument, "patch: force=true is only valid with server-side apply");
  }
  if (patch.type() == PatchType::apply && params.field_manager.empty()) {
    throw Error(errc::invalid_argument, "patch: server-side apply needs a field manager");
  }
  append_write_params(target, params.dry_run, params.field_manager, params.field_validation);
  if (params.force) {
    append_query(target, "force", "true");
  }
}

void append_list_params(std::string& target, const ListParams& p) {
  if (!p.label_selector.empty()) {
    append_query(target, "labelSelector", p.label_selector);
  }
  if (!p.field_selector.empty()) {
    append_query(target, "fieldSelector", p.field_selector);
  }
  if (p.limit < 0) {
    throw Error(errc::invalid_argument, "list: limit must not be negative");
  }
  if (p.limit > 0) {
    append_int(target, "limit", p.limit);
  }
  if (!p.continue_token.empty()) {
    append_query(target, "continue", p.continue_token);
  }
  if (!p.resource_version.empty()) {
    append_query(target, "resourceVersion", p.resource_version);
  }
  if (const auto m = rv_match_text(p.resource_version_match); !m.empty()) {
    if (p.resource_version.empty()) {
      throw Error(errc::invalid_argument, "list: resourceVersionMatch needs a resourceVersion");
    }
    append_query(target, "resourceVersionMatch", m);
  }
  if (p.timeout_seconds) {
    append_int(target, "timeoutSeconds", *p.timeout_seconds);
  }
}

ApiRequest make(std::string_view method, std::string target, std::string body = {},
                std::string_view content_type = "application/json") {
  ApiRequest r;
  r.method.assign(method);
  r.target = std::move(target);
  r.body = std::move(body);
  r.content_type.assign(content_type);
  return r;
}

}  // namespace

void append_query(std::string& target, std::string_view key, std::string_view value) {
  target.push_back(target.find('?') == std::string::npos ? '?' : '&');
  target.append(key);
  target.push_back('=');
  append_percent_encoded(target, value, is_unreserved);
}

std::string delete_options_json(const DeleteParams& params) {
  std::string out;
  json::Writer w(out);
  w.begin_object();
  w.key_literal("\"apiVersion\":");
  w.string("v1");
  w.key_literal("\"kind\":");
  w.string("DeleteOptions");
  if (params.grace_period_seconds) {
    if (*params.grace_period_seconds < 0) {
      throw Error(errc::invalid_argument, "delete: gracePeriodSeconds must not be negative");
    }
    w.key_literal("\"gracePeriodSeconds\":");
    w.int64(*params.grace_period_seconds);
  }
  switch (params.propagation_policy) {
    case PropagationPolicy::orphan:
      w.key_literal("\"propagationPolicy\":");
      w.string("Orphan");
      break;
    case PropagationPolicy::background:
      w.key_literal("\"propagationPolicy\":");
      w.string("Background");
      break;
    case PropagationPolicy::foreground:
      w.key_literal("\"propagationPolicy\":");
      w.string("Foreground");
      break;
    case PropagationPolicy::server_default:
      break;
  }
  const auto& pre = params.preconditions;
  if (pre.uid || pre.resource_version) {
    w.key_literal("\"preconditions\":");
    w.begin_object();
    if (pre.uid) {
      w.key_literal("\"uid\":");
      w.string(*pre.uid);
    }
    if (pre.resource_version) {
      w.key_literal("\"resourceVersion\":");
      w.string(*pre.resource_version);
    }
    w.end_object();
  }
  if (params.dry_run) {
    w.key_literal("\"dryRun\":");
    w.begin_array();
    w.string("All");
    w.end_array();
  }
  w.end_object();
  return out;
}

RequestBuilder::RequestBuilder(std::string_view group, std::string_view version,
                               std::string_view plural, std::string_view namespace_name)
    : collection_(resource_path({.group = group,
                                 .version = version,
                                 .resource = plural,
                                 .namespace_name = namespace_name})) {}

std::string RequestBuilder::object_path(std::string_view name, std::string_view sub) const {
  std::string path = collection_;
  if (!is_valid_path_segment(name)) {
    std::string message = "resource name \"";
    message.append(name).append("\" cannot be used in a request path");
    if (name.empty()) {
      message = "resource name must not be empty";
    }
    throw Error(errc::invalid_path, message);
  }
  path.push_back('/');
  path.append(escape_path_segment(name));
  if (!sub.empty()) {
    path.push_back('/');
    path.append(sub);
  }
  return path;
}

ApiRequest RequestBuilder::get(std::string_view name, const GetParams& params) const {
  std::string target = object_path(name);
  if (!params.resource_version.empty()) {
    append_query(target, "resourceVersion", params.resource_version);
  }
  return make("GET", std::move(target));
}

ApiRequest RequestBuilder::list(const ListParams& params) const {
  std::string target = collection_;
  append_list_params(target, params);
  return make("GET", std::move(target));
}

ApiRequest RequestBuilder::watch(const WatchParams& p) const {
  std::string target = collection_;
  append_query(target, "watch", "true");
  if (!p.label_selector.empty()) {
    append_query(target, "labelSelector", p.label_selector);
  }
  if (!p.field_selector.empty()) {
    append_query(target, "fieldSelector", p.field_selector);
  }
  if (!p.resource_version.empty()) {
    append_query(target, "resourceVersion", p.resource_version);
  }
  if (p.resource_version_match == ResourceVersionMatch::exact) {
    throw Error(errc::invalid_argument, "watch: resourceVersionMatch=Exact is not allowed");
  }
  if (p.send_initial_events) {
    if (!p.allow_bookmarks || p.resource_version_match != ResourceVersionMatch::not_older_than) {
      throw Error(errc::invalid_argument,
                  "watch: sendInitialEvents needs allowWatchBookmarks and "
                  "resourceVersionMatch=NotOlderThan");
    }
    append_query(target, "sendInitialEvents", "true");
  }
  if (const auto m = rv_match_text(p.resource_version_match); !m.empty()) {
    append_query(target, "resourceVersionMatch", m);
  }
  if (p.allow_bookmarks) {
    append_query(target, "allowWatchBookmarks", "true");
  }
  if (p.timeout_seconds) {
    append_int(target, "timeoutSeconds", *p.timeout_seconds);
  }
  ApiRequest request = make("GET", std::move(target));
  request.idle_timeout = p.idle_timeout ? *p.idle_timeout : watch_idle_timeout(p.timeout_seconds);
  return request;
}

ApiRequest RequestBuilder::create(std::string body, const PostParams& params) const {
  std::string target = collection_;
  append_write_params(target, params.dry_run, params.field_manager, params.field_validation);
  return make("POST", std::move(target), std::move(body));
}

ApiRequest RequestBuilder::replace(std::string_view name, std::string body,
                                   const PostParams& params) const {
  return replace_subresource({}, name, std::move(body), params);
}

ApiRequest RequestBuilder::patch(std::string_view name, const Patch& patch,
                                 const PatchParams& params) const {
  return patch_subresource({}, name, patch, params);
}

ApiRequest RequestBuilder::delete_(std::string_view name, const DeleteParams& params) const {
  return make("DELETE", object_path(name), delete_options_json(params));
}

ApiRequest RequestBuilder::delete_collection(const DeleteParams& params,
                                             const ListParams& list) const {
  std::string target = collection_;
  append_list_params(target, list);
  return make("DELETE", std::move(target), delete_options_json(params));
}

ApiRequest RequestBuilder::get_subresource(std::string_view sub, std::string_view name) const {
  return make("GET", object_path(name, sub));
}

ApiRequest RequestBuilder::create_subresource(std::string_view sub, std::string_view name,
                                              std::string body, const PostParams& params) const {
  std::string target = object_path(name, sub);
  append_write_params(target, params.dry_run, params.field_manager, params.field_validation);
  return make("POST", std::move(target), std::move(body));
}

ApiRequest RequestBuilder::replace_subresource(std::string_view sub, std::string_view name,
                                               std::string body, const PostParams& params) const {
  std::string target = object_path(name, sub);
  append_write_params(target, params.dry_run, params.field_manager, params.field_validation);
  return make("PUT", std::move(target), std::move(body));
}

ApiRequest RequestBuilder::patch_subresource(std::string_view sub, std::string_view name,
                                             const Patch& patch, const PatchParams& params) const {
  std::string target = object_path(name, sub);
  append_patch_params(target, patch, params);
  return make("PATCH", std::move(target), patch.body(), patch.content_type());
}

ApiRequest RequestBuilder::logs(std::string_view name, const LogParams& p, bool follow) const {
  std::string target = object_path(name, "log");
  if (!p.container.empty()) {
    append_query(target, "container", p.container);
  }
  if (follow) {
    append_query(target, "follow", "true");
  }
  if (p.previous) {
    append_query(target, "previous", "true");
  }
  if (p.since_seconds && !p.since_time.empty()) {
    throw Error(errc::invalid_argument, "logs: sinceSeconds and sinceTime are exclusive");
  }
  if (p.since_seconds) {
    append_int(target, "sinceSeconds", *p.since_seconds);
  }
  if (!p.since_time.empty()) {
    append_query(target, "sinceTime", p.since_time);
  }
  if (p.tail_lines) {
    append_int(target, "tailLines", *p.tail_lines);
  }
  if (p.limit_bytes) {
    append_int(target, "limitBytes", *p.limit_bytes);
  }
  if (p.timestamps) {
    append_query(target, "timestamps", "true");
  }
  ApiRequest r = make("GET", std::move(target));
  r.accept = "text/plain, */*";
  return r;
}

namespace {

// The stream switches exec and attach share; the apiserver refuses the same combinations.
void append_streams(std::string& target, std::string_view what, bool in, bool out, bool err,
                    bool tty) {
  if (!in && !out && !err) {
    throw Error(errc::invalid_argument,
                std::string(what) + ": at least one of stdin, stdout and stderr is required");
  }
  if (tty && err) {
    throw Error(errc::invalid_argument,
                std::string(what) + ": a tty merges stderr into stdout; set with_stderr to false");
  }
  if (in) {
    append_query(target, "stdin", "true");
  }
  if (out) {
    append_query(target, "stdout", "true");
  }
  if (err) {
    append_query(target, "stderr", "true");
  }
  if (tty) {
    append_query(target, "tty", "true");
  }
}

}  // namespace

ApiRequest RequestBuilder::exec(std::string_view name, const ExecParams& p) const {
  if (p.command.empty()) {
    throw Error(errc::invalid_argument, "exec: a command is required");
  }
  std::string target = object_path(name, "exec");
  for (const auto& word : p.command) {
    append_query(target, "command", word);
  }
  if (!p.container.empty()) {
    append_query(target, "container", p.container);
  }
  append_streams(target, "exec", p.with_stdin, p.with_stdout, p.with_stderr, p.tty);
  return make("GET", std::move(target));
}

ApiRequest RequestBuilder::attach(std::string_view name, const AttachParams& p) const {
  std::string target = object_path(name, "attach");
  if (!p.container.empty()) {
    append_query(target, "container", p.container);
  }
  append_streams(target, "attach", p.with_stdin, p.with_stdout, p.with_stderr, p.tty);
  return make("GET", std::move(target));
}

ApiRequest RequestBuilder::port_forward(std::string_view name,
                                        const std::vector<std::uint16_t>& ports) const {
  std::string list;
  for (const auto port : ports) {
    if (port == 0) {
      throw Error(errc::invalid_argument, "port-forward: port 0 is not a port (1-65535)");
    }
    if (!list.empty()) {
      list += ',';
    }
    list += std::to_string(port);
  }
  std::string target = object_path(name, "portforward");
  if (!list.empty()) {
    append_query(target, "ports", list);
  }
  return make("GET", std::move(target));
}

}  // namespace kubex
