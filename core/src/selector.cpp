// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/error.hpp>
#include <kubex/core/selector.hpp>

#include <string>
#include <string_view>

namespace kubex {
namespace {

bool is_alnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A qualified name's name part, or a non-empty label value: 1-63 of [A-Za-z0-9_.-], starting
// and ending alphanumeric.
bool is_label_name(std::string_view s) noexcept {
  if (s.empty() || s.size() > 63 || !is_alnum(s.front()) || !is_alnum(s.back())) {
    return false;
  }
  for (const char c : s) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

// RFC 1123 subdomain: lower-case labels of [a-z0-9-] separated by '.', at most 253 characters.
bool is_dns_subdomain(std::string_view s) noexcept {
  if (s.empty() || s.size() > 253) {
    return false;
  }
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto dot = s.find('.', start);
    const auto label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (const char c : label) {
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
        return false;
      }
    }
    if (dot == std::string_view::npos) {
      break;
    }
    start = dot + 1;
  }
  return true;
}

[[noreturn]] void invalid(std::string_view what, std::string_view value) {
  std::string message(what);
  message.append(" \"").append(value).append("\" is not valid");
  throw Error(errc::invalid_argument, message);
}

void append_requirement(std::string& text, std::string_view requirement) {
  if (!text.empty()) {
    text.push_back(',');
  }
  text.append(requirement);
}

}  // namespace

bool is_valid_label_key(std::string_view key) noexcept {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos) {
    return is_label_name(key);
  }
  return is_dns_subdomain(key.substr(0, slash)) && is_label_name(key.substr(slash + 1));
}

bool is_valid_label_value(std::string_view value) noexcept {
  return value.empty() || is_label_name(value);
}

LabelSelector& LabelSelector::set(std::string_view key, std::string_view op,
                                  std::initializer_list<std::string_view> values) {
  if (!is_valid_label_key(key)) {
    invalid("label selector: key", key);
  }
  std::string requirement;
  if (op == "!") {
    requirement.append("!").append(key);
  } else if (op.empty()) {
    requirement.append(key);
  } else if (op == " in " || op == " notin ") {
    if (values.size() == 0) {
      std::string message = "label selector: ";
      message.append(key).append(op).append("needs at least one value");
      throw Error(errc::invalid_argument, message);
    }
    requirement.append(key).append(op).append("(");
    bool first = true;
    for (const std::string_view v : values) {
      if (!is_valid_label_value(v)) {
        invalid("label selector: value", v);
      }
      requirement.append(first ? "" : ",").append(v);
      first = false;
    }
    requirement.append(")");
  } else {
    const std::string_view v = *values.begin();
    if (!is_valid_label_value(v)) {
      invalid("label selector: value", v);
    }
    requirement.append(key).append(op).append(v);
  }
  append_requirement(text_, requirement);
  return *this;
}

LabelSelector& LabelSelector::eq(std::string_view key, std::string_view value) {
  return set(key, "=", {value});
}
LabelSelector& LabelSelector::ne(std::string_view key, std::string_view value) {
  return set(key, "!=", {value});
}
LabelSelector& LabelSelector::in(std::string_view key,
                                 std::initializer_list<std::string_view> values) {
  return set(key, " in ", values);
}
LabelSelector& LabelSelector::not_in(std::string_view key,
                                     std::initializer_list<std::string_view> values) {
  return set(key, " notin ", values);
}
LabelSelector& LabelSelector::exists(std::string_view key) {
  return set(key, "", {});
}
LabelSelector& LabelSelector::not_exists(std::string_view key) {
  return set(key, "!", {});
}

FieldSelector& FieldSelector::add(std::string_view field, std::string_view op,
                                  std::string_view value) {
  if (field.empty() || field.find_first_of(",=!\\ ") != std::string_view::npos) {
    invalid("field selector: field", field);
  }
  std::string requirement(field);
  requirement.append(op);
  // The apiserver's fields.EscapeValue: backslash, comma and equals sign are escaped.
  for (const char c : value) {
    if (c == '\\' || c == ',' || c == '=') {
      requirement.push_back('\\');
    }
    requirement.push_back(c);
  }
  append_requirement(text_, requirement);
  return *this;
}

FieldSelector& FieldSelector::eq(std::string_view field, std::string_view value) {
  return add(field, "=", value);
}
FieldSelector& FieldSelector::ne(std::string_view field, std::string_view value) {
  return add(field, "!=", value);
}

}  // namespace kubex
