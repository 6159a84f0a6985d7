// SPDX-License-Identifier: Apache-2.0
// The model decoder on bad input: every document either decodes correctly or throws a
// DecodeError whose path names the offending value; nothing crashes, hangs or gets through
// that would not encode back to valid JSON. Each case checks the exact path.
#include <kubex/core/json.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/apiextensions/v1.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace core = kubex::api::core::v1;
namespace apps = kubex::api::apps::v1;
namespace ext = kubex::api::apiextensions::v1;
using kubex::json::decode;
using kubex::json::DecodeError;
using kubex::json::encode;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(KUBEX_FIXTURES_DIR) + "/v1.35.4/" + name, std::ios::binary);
  if (!in) {
    throw std::runtime_error("missing fixture " + name);
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Failure {
  std::string path;
  std::string reason;
};

// The error decoding `json` as T; a test failure if it decodes.
template <class T>
Failure failure(std::string_view json) {
  try {
    (void)decode<T>(json);
  } catch (const DecodeError& e) {
    EXPECT_EQ(std::string(e.what()), e.path().empty() ? e.reason() : e.path() + ": " + e.reason());
    return {e.path(), e.reason()};
  }
  ADD_FAILURE() << "decoded without an error: " << json.substr(0, 300);
  return {"<none>", "<none>"};
}

// The full message of the error decoding `json` as T.
template <class T>
std::string message(std::string_view json) {
  const Failure f = failure<T>(json);
  return f.path.empty() ? f.reason : f.path + ": " + f.reason;
}

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) {
    out.append(s);
  }
  return out;
}

// ---- wrong types --------------------------------------------------------------------------

TEST(bad_input, wrong_types_name_the_nested_path) {
  const std::string ports =
      R"({"items":[{},{},{},{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80},)"
      R"({"containerPort":"80"}]}]}}]})";
  EXPECT_EQ(
      message<core::PodList>(ports),
      "items[3].spec.containers[0].ports[1].containerPort: expected an integer, got a string");
  EXPECT_EQ(message<core::Pod>(R"({"metadata":{"labels":{"app":1}}})"),
            "metadata.labels.app: expected a string, got a number");
  EXPECT_EQ(message<core::Pod>(R"({"metadata":{"labels":{"app.kubernetes.io/name":true}}})"),
            R"(metadata.labels["app.kubernetes.io/name"]: expected a string, got a boolean)");
  EXPECT_EQ(message<core::Pod>(R"({"metadata":[]})"), "metadata: expected an object, got an array");
  EXPECT_EQ(message<core::Pod>(R"({"spec":{"hostNetwork":"yes"}})"),
            "spec.hostNetwork: expected a boolean, got a string");
  EXPECT_EQ(message<core::Pod>(R"({"spec":{"containers":{"name":"c"}}})"),
            "spec.containers: expected an array, got an object");
  EXPECT_EQ(message<core::Pod>(R"({"spec":{"containers":[{"name":"c","args":["a",["b"]]}]}})"),
            "spec.containers[0].args[1]: expected a string, got an array");
  EXPECT_EQ(message<core::Pod>(
                R"({"status":{"conditions":[{"type":"Ready","lastTransitionTime":"yesterday"}]}})"),
            R"(status.conditions[0].lastTransitionTime: invalid RFC 3339 time "yesterday")");
  EXPECT_EQ(message<core::Pod>(
                R"({"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"lots"}}}]}})"),
            R"(spec.containers[0].resources.limits.cpu: invalid quantity "lots")");
  EXPECT_EQ(message<apps::Deployment>(R"({"spec":{"replicas":1.5}})"),
            "spec.replicas: expected an integer, got a number");
  EXPECT_EQ(
      message<apps::Deployment>(R"({"spec":{"strategy":{"rollingUpdate":{"maxSurge":[25]}}}})"),
      "spec.strategy.rollingUpdate.maxSurge: expected a string, got an array");
  EXPECT_EQ(message<core::PodList>(
                R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"annotations":[]}}]})"),
            "items[1].metadata.annotations: expected an object, got an array");
  EXPECT_EQ(message<core::Pod>(R"({"metadata":{"managedFields":[{"time":5}]}})"),
            "metadata.managedFields[0].time: expected a string, got a number");
  EXPECT_EQ(message<core::Pod>(R"([{"kind":"Pod"}])"), "expected an object, got an array");
}

TEST(bad_input, a_scalar_document_is_not_a_model) {
  EXPECT_EQ(message<core::Pod>("1"), "expected an object or an array, got a number");
  EXPECT_EQ(message<core::Pod>(R"( "Pod" )"), "expected an object or an array, got a string");
  EXPECT_EQ(message<core::Pod>("null"), "expected an object or an array, got null");
  EXPECT_EQ(message<core::Pod>("nul"), "invalid JSON: invalid literal");
  EXPECT_EQ(message<core::Pod>("1 2"), "invalid JSON: unexpected content after the value");
}

// ---- truncation ---------------------------------------------------------------------------

// The path a decoder names for an object key, as DecodeError::prepend_field writes it.
std::string member(const std::string& path, const std::string& key) {
  bool plain = !key.empty();
  for (char c : key) {
    plain = plain && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '$');
  }
  if (!plain) {
    return path + "[\"" + key + "\"]";  // the fixtures' typed keys need no escaping
  }
  return path.empty() ? key : path + "." + key;
}

// The path the decoder must name when a document is cut short, worked out independently of
// it: the value being read where the text ends if one is (a string, a number or literal,
// nothing after a ':', a ',' or a '['), else the innermost open container (the text ends
// after a key, a complete string, array or object, or a '{'). Values of `raw_keys` are read
// as a whole, so an end inside one names that value. Returns the path for each prefix of
// `doc`, from the empty one to all but its last byte, in one pass.
std::vector<std::string> cut_paths(std::string_view doc, const std::set<std::string>& raw_keys) {
  struct Frame {
    bool object;
    std::string path;   // of the container
    std::string key;    // object: the current member
    std::size_t index;  // array: the current element
    bool raw;           // the container is, or is inside, a raw value
    std::string raw_path;
  };
  enum class At {
    value,
    value_or_end,
    string_value,
    scalar,
    key_or_end,
    key,
    in_key,
    colon,
    after
  };
  std::vector<Frame> stack;
  At at = At::value;
  std::string token;
  bool escape = false;
  auto member_path = [&]() -> std::string {
    if (stack.empty()) {
      return "";
    }
    const Frame& f = stack.back();
    return f.object ? member(f.path, f.key) : f.path + "[" + std::to_string(f.index) + "]";
  };
  auto open = [&](bool object) {
    Frame f{object, member_path(), "", 0, false, ""};
    if (!stack.empty() && stack.back().raw) {
      f.raw = true;
      f.raw_path = stack.back().raw_path;
    } else if (!stack.empty() && stack.back().object && raw_keys.count(stack.back().key) != 0) {
      f.raw = true;
      f.raw_path = f.path;
    }
    stack.push_back(f);
  };
  auto expected = [&]() -> std::string {
    for (const Frame& f : stack) {
      if (f.raw) {
        return f.raw_path;
      }
    }
    switch (at) {
      case At::value:
      case At::value_or_end:
      case At::string_value:
      case At::scalar:  // even `1` or `true`: the text may have gone on (`12`, `true}`)
        return member_path();
      default:
        return stack.empty() ? "" : stack.back().path;
    }
  };
  std::vector<std::string> paths;
  paths.reserve(doc.size());
  for (std::size_t i = 0; i < doc.size(); ++i) {
    paths.push_back(expected());  // for the prefix doc[0, i)
    const char c = doc[i];
    if (at == At::string_value || at == At::in_key) {
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        at = at == At::in_key ? At::colon : At::after;
      } else if (at == At::in_key) {
        stack.back().key.push_back(c);
      }
      continue;
    }
    if (at == At::scalar) {
      if (c != ',' && c != '}' && c != ']' && c != ' ' && c != '\n') {
        token.push_back(c);
        continue;
      }
      at = At::after;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      continue;
    }
    switch (at) {
      case At::value:
      case At::value_or_end:
        if (c == '{') {
          open(true);
          at = At::key_or_end;
        } else if (c == '[') {
          open(false);
          at = At::value_or_end;
        } else if (c == ']') {
          stack.pop_back();
          at = At::after;
        } else if (c == '"') {
          at = At::string_value;
        } else {
          token.assign(1, c);
          at = At::scalar;
        }
        break;
      case At::key_or_end:
      case At::key:
        if (c == '}') {
          stack.pop_back();
          at = At::after;
        } else {
          stack.back().key.clear();
          at = At::in_key;
        }
        break;
      case At::colon:
        at = At::value;
        break;
      case At::after:
        if (c == ',') {
          if (stack.back().object) {
            at = At::key;
          } else {
            ++stack.back().index;
            at = At::value;
          }
        } else {
          stack.pop_back();
          at = At::after;
        }
        break;
      default:
        break;
    }
  }
  return paths;
}

template <class T>
void expect_truncations_name_the_cut(const std::string& name) {
  const std::string doc = fixture(name);
  const std::set<std::string> raw_keys{"fieldsV1"};
  const std::size_t complete = doc.rfind('}') + 1;  // what follows is whitespace
  const std::vector<std::string> paths = cut_paths(doc, raw_keys);
  std::set<std::string> named;
  for (std::size_t cut = 0; cut < complete; ++cut) {
    const std::string_view prefix(doc.data(), cut);
    const Failure f = failure<T>(prefix);
    ASSERT_EQ(f.path, paths.at(cut))
        << name << " cut at " << cut << ": ..." << prefix.substr(cut < 60 ? 0 : cut - 60)
        << "\nreason: " << f.reason;
    named.insert(f.path);
  }
  // Nested values were named, not only the document: an oracle and a decoder that both said
  // "" everywhere would agree too.
  EXPECT_GE(named.size(), 20U) << name;
  EXPECT_TRUE(std::any_of(named.begin(), named.end(), [](const std::string& p) {
    return p.find("[0].") != std::string::npos;
  })) << name;
  EXPECT_NO_THROW((void)decode<T>(doc.substr(0, complete)));
}

TEST(bad_input, truncated_pod_names_the_value_being_read) {
  expect_truncations_name_the_cut<core::Pod>("pod.json");
}

TEST(bad_input, truncated_pod_list_names_the_value_being_read) {
  expect_truncations_name_the_cut<core::PodList>("podlist-web.json");
}

TEST(bad_input, truncation_examples) {
  const std::string doc = fixture("pod.json");
  auto cut_after = [&doc](std::string_view needle) {
    const auto at = doc.find(needle);
    EXPECT_NE(at, std::string::npos) << needle;
    return doc.substr(0, at + needle.size());
  };
  const std::string end = "invalid JSON: unexpected end of the document";
  EXPECT_EQ(message<core::Pod>(cut_after(R"("name":"seed-)")),
            "metadata.name: invalid JSON: unterminated string");
  EXPECT_EQ(message<core::Pod>(cut_after(R"("namespace":)")), "metadata.namespace: " + end);
  EXPECT_EQ(message<core::Pod>(cut_after(R"("generation":1)")), "metadata.generation: " + end);
  EXPECT_EQ(message<core::Pod>(cut_after(R"("enableServiceLinks":true)")),
            "spec.enableServiceLinks: " + end);
  EXPECT_EQ(message<core::Pod>(cut_after(R"("enableServiceLinks":tr)")),
            "spec.enableServiceLinks: " + end);
  EXPECT_EQ(message<core::Pod>(cut_after(R"("containers":[)")), "spec.containers[0]: " + end);
  EXPECT_EQ(failure<core::Pod>(cut_after(R"("fieldsV1":{"f:status":{)")).path,
            "metadata.managedFields[0].fieldsV1");
  EXPECT_EQ(failure<core::Pod>(cut_after(R"("namespace":"bench")")).path, "metadata");
  EXPECT_EQ(failure<core::Pod>(doc.substr(0, doc.rfind('}'))).path, "");
}

// ---- nesting ------------------------------------------------------------------------------

TEST(bad_input, deep_nesting_in_raw_values_is_an_error_not_a_stack_overflow) {
  const std::size_t n = 100000;
  for (const auto& [open, close] : {std::pair{"[", "]"}, std::pair{R"({"a":)", "}"}}) {
    const std::string deep = repeat(open, n) + "1" + repeat(close, n);
    EXPECT_EQ(message<core::Pod>(R"({"future":)" + deep + "}"),
              "future: invalid JSON: nesting deeper than 1024 levels");
    EXPECT_EQ(message<core::Pod>(R"({"metadata":{"managedFields":[{"fieldsV1":)" + deep + "}]}}"),
              "metadata.managedFields[0].fieldsV1: invalid JSON: nesting deeper than 1024 levels");
    // Unclosed: still an error at the raw value.
    EXPECT_EQ(failure<core::Pod>(R"({"future":)" + repeat(open, n)).path, "future");
  }
  // The limit counts every level from the document's root: the Pod is level 1.
  const auto nested = [](std::size_t levels) {
    return R"({"future":)" + repeat("[", levels) + repeat("]", levels) + "}";
  };
  EXPECT_EQ(decode<core::Pod>(nested(1023)).unknown_fields.fields().at(0).second.text,
            repeat("[", 1023) + repeat("]", 1023));
  EXPECT_EQ(message<core::Pod>(nested(1024)),
            "future: invalid JSON: nesting deeper than 1024 levels");
}

TEST(bad_input, deep_nesting_in_typed_values_is_an_error_not_a_stack_overflow) {
  const std::size_t n = 100000;
  EXPECT_EQ(message<core::PodList>(R"({"items":)" + repeat("[", n) + repeat("]", n) + "}"),
            "items[0]: expected an object, got an array");
  EXPECT_EQ(message<core::Pod>(R"({"spec":{"containers":[{"name":"c","args":)" + repeat("[", n)),
            "spec.containers[0].args[0]: expected a string, got an array");
  // JSONSchemaProps is recursive, so its reader recurses as deep as the document goes.
  const auto schema = [](std::size_t levels) {
    return repeat(R"({"not":)", levels) + "{}" + repeat("}", levels);
  };
  const Failure f = failure<ext::JSONSchemaProps>(schema(n));
  std::string path = repeat("not.", 1024);
  path.pop_back();
  EXPECT_EQ(f.path, path);
  EXPECT_EQ(f.reason, "invalid JSON: nesting deeper than 1024 levels");
  EXPECT_EQ(failure<ext::JSONSchemaProps>(schema(1024)).path, path);
  // 1023 "not"s and the innermost {} make 1024 objects below the root... the root is one of
  // the 1024 levels, so this is the deepest schema accepted.
  const auto ok = decode<ext::JSONSchemaProps>(schema(1023));
  const ext::JSONSchemaProps* p = &ok;
  std::size_t depth = 0;
  while (p->not_) {
    p = p->not_.get();
    ++depth;
  }
  EXPECT_EQ(depth, 1023u);
  EXPECT_EQ(
      message<ext::JSONSchemaProps>(R"({"properties":{"a":{"properties":{"b c":{"items":)" +
                                    repeat("[", n) + repeat("]", n) + "}}}}}"),
      R"(properties.a.properties["b c"].items: invalid JSON: nesting deeper than 1024 levels)");
}

// ---- huge values --------------------------------------------------------------------------

TEST(bad_input, huge_strings_decode_and_encode) {
  const std::string big(64u << 20, 'x');
  const auto pod = decode<core::Pod>(R"({"metadata":{"name":")" + big + R"("}})");
  ASSERT_TRUE(pod.metadata.name);
  EXPECT_EQ(*pod.metadata.name, big);
  EXPECT_EQ(encode(pod),
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + big + R"("}})");
  const auto raw = decode<core::Pod>(R"({"future":[")" + big + R"("]})");
  EXPECT_EQ(raw.unknown_fields.fields().at(0).second.text, "[\"" + big + "\"]");
  // A flaw at the far end of a huge value is still found and named.
  EXPECT_EQ(message<core::Pod>(R"({"metadata":{"annotations":{"a":")" + big + "\xff\"}}}"),
            "metadata.annotations.a: invalid UTF-8 in a string");
  EXPECT_EQ(message<core::Pod>(R"({"metadata":{"name":")" + big),
            "metadata.name: invalid JSON: unterminated string");
}

// ---- invalid UTF-8 and strings ------------------------------------------------------------

TEST(bad_input, invalid_utf8_is_rejected_with_its_path) {
  // Each is not UTF-8: a lone continuation byte, a truncated sequence, an overlong encoding,
  // an encoded UTF-16 surrogate, a code point above U+10FFFF, bytes never used.
  for (std::string_view bad : {"\x80", "\xc3", "\xe2\x82", "\xc0\xaf", "\xe0\x80\xaf",
                               "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff", "\xfe"}) {
    const std::string b(bad);
    EXPECT_EQ(message<core::Pod>(R"({"metadata":{"name":"a)" + b + R"("}})"),
              "metadata.name: invalid UTF-8 in a string");
    EXPECT_EQ(message<core::Pod>(R"({"metadata":{"labels":{"ok":"1","k)" + b + R"(":"v"}}})"),
              "metadata.labels: invalid UTF-8 in an object key");
    EXPECT_EQ(
        message<core::PodList>(R"({"items":[{},{"metadata":{"labels":{"k":")" + b + R"("}}}]})"),
        "items[1].metadata.labels.k: invalid UTF-8 in a string");
    EXPECT_EQ(message<core::Pod>(R"({"future":{"x":[1,")" + b + R"("]}})"),
              "future: invalid UTF-8 in a string");
    EXPECT_EQ(message<core::Pod>(R"({"future":{")" + b + R"(":1}})"),
              "future: invalid UTF-8 in a string");
    EXPECT_EQ(message<core::Pod>(R"({"metadata":{"managedFields":[{"fieldsV1":{"f:)" + b +
                                 R"(":{}}}]}})"),
              "metadata.managedFields[0].fieldsV1: invalid UTF-8 in a string");
    EXPECT_EQ(message<core::Pod>(R"({"kind":"Pod",")" + b + R"(":1})"),
              "invalid UTF-8 in an object key");
    EXPECT_EQ(message<core::Pod>(R"({"status":{"phase":"Running)" + b + R"("}})"),
              "status.phase: invalid UTF-8 in a string");
  }
  // Valid multi-byte UTF-8 up to U+10FFFF is kept as sent.
  const std::string ok = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf";
  const auto pod =
      decode<core::Pod>(R"({"metadata":{"name":")" + ok + R"("},"f":")" + ok + R"("})");
  EXPECT_EQ(*pod.metadata.name, ok);
  EXPECT_EQ(encode(pod), R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + ok +
                             R"("},"f":")" + ok + R"("})");
}

TEST(bad_input, escapes_and_control_characters_are_checked_everywhere) {
  EXPECT_EQ(message<core::Pod>(R"({"metadata":{"name":"\ud800"}})"),
            "metadata.name: invalid JSON: unpaired UTF-16 surrogate in a string");
  EXPECT_EQ(message<core::Pod>(R"({"future":["\udc00"]})"),
            "future: invalid JSON: unpaired UTF-16 surrogate in a string");
  EXPECT_EQ(message<core::Pod>(R"({"future":"\ud800\u0041"})"),
            "future: invalid JSON: unpaired UTF-16 surrogate in a string");
  EXPECT_EQ(message<core::Pod>(R"({"future":"\q"})"),
            "future: invalid JSON: invalid escape sequence in a string");
  EXPECT_EQ(message<core::Pod>(R"({"future":"\u12G4"})"),
            "future: invalid JSON: invalid \\u escape in a string");
  EXPECT_EQ(message<core::Pod>("{\"metadata\":{\"name\":\"a\tb\"}}"),
            "metadata.name: invalid JSON: unescaped control character in a string");
  EXPECT_EQ(message<core::Pod>(std::string("{\"future\":[\"a\0b\"]}", 18)),
            "future: invalid JSON: unescaped control character in a string");
  EXPECT_EQ(message<core::Pod>("{\"metadata\":{\"labels\":{\"a\nb\":\"c\"}}}"),
            "metadata.labels: invalid JSON: unescaped control character in an object key");
  // A valid pair and escaped control characters are fine, and survive a round trip.
  const auto pod =
      decode<core::Pod>(R"({"metadata":{"name":"\ud83d\ude00\u0000\n"},"f":"\ud83d\ude00"})");
  EXPECT_EQ(*pod.metadata.name, std::string("\xf0\x9f\x98\x80\0\n", 6));
  EXPECT_EQ(decode<core::Pod>(encode(pod)), pod);
}

TEST(bad_input, encode_never_writes_invalid_utf8) {
  core::Pod pod;
  pod.metadata.name =
      "a\xff"
      "b\xc3";
  pod.metadata.labels["k\xe2\x82"] = "\xed\xa0\x80";
  // One U+FFFD for each byte that is not part of a UTF-8 sequence, as Go writes them.
  const std::string r = "\xef\xbf\xbd";
  EXPECT_EQ(encode(pod), R"({"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"k)" + r + r +
                             R"(":")" + r + r + r + R"("},"name":"a)" + r + "b" + r + R"("}})");
  EXPECT_NO_THROW((void)decode<core::Pod>(encode(pod)));
}

// ---- raw values and unknown fields --------------------------------------------------------

TEST(bad_input, raw_values_must_be_valid_json) {
  // simdjson skips these without looking inside; they would be written back verbatim.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"tru", "invalid literal"},
      {"nul", "invalid literal"},
      {"01", "unexpected content after the value"},
      {"-", "malformed number"},
      {"1.", "malformed number"},
      {"1e+", "malformed number"},
      {".5", "unexpected character"},
      {"[1 2]", "expected ',' or ']' in an array"},
      {"[1,,2]", "unexpected character"},
      {"[1,]", "unexpected character"},
      {"[1}", "expected ',' or ']' in an array"},
      {"{\"a\" 1}", "expected ':' after an object key"},
      {"{\"a\":1,}", "expected a string key"},
      {"{1:2}", "expected a string key"},
      {"{\"a\":[}", "unexpected character"},
      {"-Infinity", "malformed number"},
  };
  for (const auto& [raw, why] : cases) {
    const std::string json = R"({"metadata":{"managedFields":[{},{"fieldsV1":)" + raw + "}]}}";
    const Failure f = failure<core::Pod>(json);
    EXPECT_EQ(f.path, "metadata.managedFields[1].fieldsV1") << raw;
    // Some are caught by simdjson's own checks first, with its own words.
    EXPECT_EQ(f.reason.substr(0, 14), "invalid JSON: ") << raw;
    if (f.reason.find("The JSON document") == std::string::npos) {
      EXPECT_EQ(f.reason, "invalid JSON: " + why) << raw;
    }
    EXPECT_EQ(failure<core::Pod>(R"({"spec":{"future":)" + raw + "}}").path, "spec.future") << raw;
  }
  // Numbers that are valid JSON but fit no C++ type are kept as sent in raw values.
  const auto pod = decode<core::Pod>(R"({"f":[1e999,-0,123456789012345678901234567890]})");
  EXPECT_EQ(pod.unknown_fields.fields().at(0).second.text,
            "[1e999,-0,123456789012345678901234567890]");
}

TEST(bad_input, nan_and_infinity_are_not_json) {
  for (std::string_view lit : {"NaN", "Infinity", "-Infinity", "nan", "inf"}) {
    const std::string l(lit);
    EXPECT_EQ(failure<core::Pod>(R"({"spec":{"activeDeadlineSeconds":)" + l + "}}").path,
              "spec.activeDeadlineSeconds")
        << lit;
    EXPECT_EQ(failure<core::Pod>(R"({"future":)" + l + "}").path, "future") << lit;
    EXPECT_EQ(failure<core::Pod>(R"({"future":[1,)" + l + "]}").path, "future") << lit;
    EXPECT_EQ(failure<apps::Deployment>(R"({"spec":{"strategy":{"rollingUpdate":{"maxSurge":)" + l +
                                        "}}}}")
                  .path,
              "spec.strategy.rollingUpdate.maxSurge")
        << lit;
  }
  EXPECT_EQ(message<core::Pod>(R"({"spec":{"activeDeadlineSeconds":-Infinity}})"),
            "spec.activeDeadlineSeconds: invalid JSON: malformed number -Infinity");
}

// ---- numbers ------------------------------------------------------------------------------

TEST(bad_input, numbers_out_of_range_name_the_field) {
  auto port = [](std::string_view v) {
    return R"({"spec":{"containers":[{"name":"c","ports":[{"containerPort":)" + std::string(v) +
           "}]}]}}";
  };
  EXPECT_EQ(message<core::Pod>(port("2147483648")),
            "spec.containers[0].ports[0].containerPort: expected a 32-bit integer, got 2147483648");
  EXPECT_EQ(
      message<core::Pod>(port("-2147483649")),
      "spec.containers[0].ports[0].containerPort: expected a 32-bit integer, got -2147483649");
  EXPECT_EQ(message<core::Pod>(port("99999999999999999999")),
            "spec.containers[0].ports[0].containerPort: expected a 64-bit integer, got "
            "99999999999999999999");
  EXPECT_EQ(message<core::Pod>(port("1e3")),
            "spec.containers[0].ports[0].containerPort: expected an integer, got a number");
  EXPECT_EQ(message<core::Pod>(port("01")),
            "spec.containers[0].ports[0].containerPort: invalid JSON: malformed number 01");
  EXPECT_EQ(message<core::Pod>(port("-")),
            "spec.containers[0].ports[0].containerPort: invalid JSON: malformed number -");
  EXPECT_EQ(message<core::Pod>(port("1.")),
            "spec.containers[0].ports[0].containerPort: invalid JSON: malformed number 1.");
  EXPECT_EQ(decode<core::Pod>(port("2147483647")).spec->containers[0].ports[0].container_port,
            2147483647);
  EXPECT_EQ(decode<core::Pod>(port("-2147483648")).spec->containers[0].ports[0].container_port,
            -2147483648LL);

  auto deadline = [](std::string_view v) {
    return R"({"spec":{"activeDeadlineSeconds":)" + std::string(v) + "}}";
  };
  EXPECT_EQ(message<core::Pod>(deadline("9223372036854775808")),
            "spec.activeDeadlineSeconds: expected a 64-bit integer, got 9223372036854775808");
  EXPECT_EQ(message<core::Pod>(deadline("-9223372036854775809")),
            "spec.activeDeadlineSeconds: expected a 64-bit integer, got -9223372036854775809");
  EXPECT_EQ(
      message<core::Pod>(deadline(std::string(400, '9'))),
      "spec.activeDeadlineSeconds: expected a 64-bit integer, got " + std::string(40, '9') + "...");
  EXPECT_EQ(message<core::Pod>(deadline("1e400")),
            "spec.activeDeadlineSeconds: expected an integer, got a number");
  EXPECT_EQ(*decode<core::Pod>(deadline("9223372036854775807")).spec->active_deadline_seconds,
            INT64_MAX);
  EXPECT_EQ(*decode<core::Pod>(deadline("-9223372036854775808")).spec->active_deadline_seconds,
            INT64_MIN);

  EXPECT_EQ(message<apps::Deployment>(
                R"({"spec":{"strategy":{"rollingUpdate":{"maxUnavailable":2147483648}}}})"),
            "spec.strategy.rollingUpdate.maxUnavailable: expected a 32-bit integer or a string, "
            "got 2147483648");
  EXPECT_EQ(message<core::Pod>(
                R"({"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":1Gi}}}]}})"),
            "spec.containers[0].resources.limits.cpu: invalid JSON: unexpected content after the "
            "value");
}

// ---- literals, duplicates, document framing -----------------------------------------------

TEST(bad_input, error_messages_escape_what_they_quote) {
  // Found by fuzzing: a NUL in a quoted token or key cut what() short.
  const std::string nul(1, '\0');
  EXPECT_EQ(message<core::Pod>(R"({"spec":{"activeDeadlineSeconds":12)" + nul + "\x01\xc3\xa9}}"),
            "spec.activeDeadlineSeconds: invalid JSON: malformed number 12\\x00\\x01\\xc3\\xa9");
  EXPECT_EQ(message<core::Pod>(R"({"metadata":{"labels":{"a\u0000\n\"b":1}}})"),
            R"(metadata.labels["a\u0000\u000a\"b"]: expected a string, got a number)");
  // Reasons that quote a decoded value (found by fuzzing too).
  EXPECT_EQ(
      message<core::Pod>(
          R"({"status":{"conditions":[{"lastTransitionTime":"2026-11-30\u0000T\n"}]}})"),
      R"(status.conditions[0].lastTransitionTime: invalid RFC 3339 time "2026-11-30\u0000T\u000a")");
  EXPECT_EQ(
      message<core::Pod>(
          R"({"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1\u0001"}}}]}})"),
      R"(spec.containers[0].resources.limits.cpu: invalid quantity "1\u0001")");
}

TEST(bad_input, malformed_literals_name_the_field) {
  EXPECT_EQ(message<core::Pod>(R"({"spec":{"hostNetwork":truex}})"),
            "spec.hostNetwork: invalid JSON: malformed literal truex");
  EXPECT_EQ(message<core::Pod>(R"({"spec":{"hostNetwork":fals}})"),
            "spec.hostNetwork: invalid JSON: malformed literal fals");
  EXPECT_EQ(message<core::Pod>(R"({"metadata":nul})"),
            "metadata: invalid JSON: malformed literal nul");
  EXPECT_EQ(message<core::Pod>(R"({"spec":{"hostNetwork":nul}})"),
            "spec.hostNetwork: invalid JSON: malformed literal nul");
}

TEST(bad_input, duplicate_keys_last_one_wins) {
  // RFC 8259 leaves duplicate names to the implementation; kubex keeps the last value whole
  // (it does not merge objects), so encode writes each field once.
  const auto pod = decode<core::Pod>(
      R"({"metadata":{"name":"a","labels":{"x":"1","x":"2"},"name":"b"},)"
      R"("spec":{"containers":[{"name":"c1"},{"name":"c2"}],"containers":[{"name":"c3"}]},)"
      R"("metadata":{"name":"c"},"future":1,"future":[2]})");
  EXPECT_EQ(*pod.metadata.name, "c");
  EXPECT_TRUE(pod.metadata.labels.empty());
  ASSERT_EQ(pod.spec->containers.size(), 1u);
  EXPECT_EQ(pod.spec->containers[0].name, "c3");
  // Unknown fields are kept in order, duplicates included, and written back as read.
  ASSERT_EQ(pod.unknown_fields.fields().size(), 2u);
  EXPECT_EQ(encode(pod), R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"c"},)"
                         R"("spec":{"containers":[{"name":"c3"}]},"future":1,"future":[2]})");
  EXPECT_EQ(decode<core::Pod>(encode(pod)), pod);
  const auto labels = decode<core::Pod>(R"({"metadata":{"labels":{"x":"1","x":"2"}}})");
  EXPECT_EQ(labels.metadata.labels.at("x"), "2");
  // The second occurrence is checked like the first.
  EXPECT_EQ(message<core::Pod>(R"({"metadata":{"name":"a"},"metadata":{"name":1}})"),
            "metadata.name: expected a string, got a number");
}

TEST(bad_input, a_string_followed_by_a_colon_is_an_error) {
  // simdjson, skipping a value nobody read, took `"n"` for a key, ate `:"b"` and one closing
  // brace too many, so these documents used to decode (found by fuzzing, as a list whose
  // broken items array was then replaced by a second "items" key).
  const std::string improper =
      "invalid JSON: The JSON document has an improper structure: missing or superfluous "
      "commas, braces, missing keys, etc.";
  EXPECT_EQ(message<core::Pod>(R"({"metadata":{"future":"n":"b"}}})"), "metadata: " + improper);
  EXPECT_EQ(message<core::Pod>(R"({"future":"n":"b"}})"), improper);
  EXPECT_EQ(message<core::Pod>(R"({"metadata":{"name":"n":"b"}}})"), "metadata: " + improper);
  EXPECT_EQ(message<core::Pod>(R"({"metadata":{"labels":{"a":"n":"b"}}}})"),
            "metadata.labels: " + improper);
  EXPECT_EQ(message<core::Pod>(R"({"future":["n":"b"]})"),
            "future: invalid JSON: expected ',' or ']' in an array");
  EXPECT_EQ(message<core::Pod>(R"({"spec":{"containers":[{"args":["n":"b"]}]}})"),
            "spec.containers[0].args: " + improper);
  EXPECT_EQ(message<core::PodList>(R"({"items":[{"2requests":"name":"a\"]}"}}],"it\u0065ms":[]})"),
            "items[0]: " + improper);
  // A colon inside a string is just text.
  EXPECT_EQ(*decode<core::Pod>(R"({"metadata":{"name":"n:b"}})").metadata.name, "n:b");
}

TEST(bad_input, trailing_content_after_the_document) {
  const std::string pod = fixture("pod.json");
  for (std::string_view tail : {" x", "}", "]", "{}", ",", " 1", " null", "\"", " {\"a\":1}"}) {
    EXPECT_EQ(message<core::Pod>(pod + std::string(tail)),
              "invalid JSON: unexpected content after the document")
        << tail;
  }
  EXPECT_EQ(message<core::PodList>(R"({"items":[]}[])"),
            "invalid JSON: unexpected content after the document");
  // Whitespace is not content.
  EXPECT_EQ(decode<core::Pod>(pod + " \n\t\r "), decode<core::Pod>(pod));
}

TEST(bad_input, empty_input_and_byte_order_marks) {
  EXPECT_EQ(message<core::Pod>(""), "invalid JSON: Empty: no JSON found");
  EXPECT_EQ(message<core::Pod>(" \n\t "), "invalid JSON: Empty: no JSON found");
  EXPECT_EQ(message<core::Pod>("\xef\xbb\xbf"),
            "invalid JSON: byte order mark (U+FEFF) before the document");
  EXPECT_EQ(message<core::Pod>("\xef\xbb\xbf{}"),
            "invalid JSON: byte order mark (U+FEFF) before the document");
  EXPECT_EQ(failure<core::Pod>("\xef\xbb").path, "");
  EXPECT_EQ(failure<core::Pod>(std::string(1, '\0')).path, "");
  // decode_padded takes the same path.
  std::string padded = "\xef\xbb\xbf{}";
  padded.reserve(padded.size() + 64);
  core::Pod out;
  EXPECT_THROW(kubex::json::decode_padded(padded, out), DecodeError);
}

}  // namespace
