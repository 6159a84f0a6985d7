// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/core/path.hpp>
#include <kubex/core/percent.hpp>

#include <string>
#include <string_view>

namespace kubex {
namespace {

// Unreserved, and the two sub-delimiters Go's url package leaves in a path segment.
bool is_unescaped(char c) noexcept {
  return is_unreserved(c) || c == ':' || c == '@';
}

// Returns why `segment` cannot be a path segment, or an empty view if it can.
std::string_view segment_problem(std::string_view segment) noexcept {
  if (segment.empty()) {
    return "must not be empty";
  }
  if (segment == "." || segment == "..") {
    return "must not be \".\" or \"..\"";
  }
  if (segment.find('/') != std::string_view::npos) {
    return "must not contain '/'";
  }
  if (segment.find('%') != std::string_view::npos) {
    return "must not contain '%'";
  }
  return {};
}

void append_segment(std::string& path, std::string_view what, std::string_view segment) {
  if (const auto problem = segment_problem(segment); !problem.empty()) {
    std::string message = "resource path: ";
    message.append(what).append(" \"").append(segment).append("\" ").append(problem);
    throw Error(errc::invalid_path, message);
  }
  path.push_back('/');
  path.append(escape_path_segment(segment));
}

void require(std::string_view what, std::string_view value) {
  if (value.empty()) {
    throw Error(errc::invalid_path, std::string("resource path: ").append(what) + " is required");
  }
}

}  // namespace

bool is_valid_path_segment(std::string_view segment) noexcept {
  return segment_problem(segment).empty();
}

std::string escape_path_segment(std::string_view segment) {
  std::string out;
  out.reserve(segment.size());
  append_percent_encoded(out, segment, is_unescaped);
  return out;
}

std::string resource_path(const ResourcePathParts& parts) {
  require("version", parts.version);
  require("resource", parts.resource);
  if (!parts.subresource.empty()) {
    require("name (needed by a subresource)", parts.name);
  }

  std::string path;
  path.reserve(64);
  if (parts.group.empty()) {
    path.append("/api");
  } else {
    path.append("/apis");
    append_segment(path, "group", parts.group);
  }
  append_segment(path, "version", parts.version);
  if (!parts.namespace_name.empty()) {
    path.append("/namespaces");
    append_segment(path, "namespace", parts.namespace_name);
  }
  append_segment(path, "resource", parts.resource);
  if (!parts.name.empty()) {
    append_segment(path, "name", parts.name);
  }
  if (!parts.subresource.empty()) {
    append_segment(path, "subresource", parts.subresource);
  }
  return path;
}

}  // namespace kubex
