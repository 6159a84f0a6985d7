// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the model decoder (kubex::json::decode over simdjson On-Demand and the
// generated readers). For any input, each model type must either throw a well-formed
// DecodeError or decode to an object x with
//   - encode(x) valid JSON (checked by simdjson's DOM parser, which validates everything),
//   - decode(encode(x)) == x, and then encode and decode are each other's inverse,
//   - decode_padded giving the same object as decode.
// For list types, json::ListDecoder fed the input in pieces (as a transport feeds a body
// while it arrives) must agree with decode: the same list, or an error where decode fails
// (a second "items" key, which decode accepts, is the one error of its own).
// As a watch event line, the input must either throw a well-formed DecodeError or give an
// event that survives being written as a line again.
// Any other exception, crash, leak or sanitizer report is a finding. Built with libFuzzer by
// the `fuzz` preset (scripts/fuzz.sh), and with any compiler as kubex_fuzz_replay, which runs
// the seed and regression corpora as a unit test.
#include <kubex/core/json.hpp>
#include <kubex/core/json_list.hpp>
#include <kubex/core/watch.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/apps/v1.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/k8s/v1_35/meta/v1.hpp>

#include <simdjson.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace kubex_fuzz {

namespace core = kubex::api::core::v1;
namespace apps = kubex::api::apps::v1;
namespace meta = kubex::api::meta::v1;

[[noreturn]] void finding(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_decode: %s\n%.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

// `json` with every valid number outside strings replaced by 0: the DOM parser rejects
// numbers beyond a double's range (1e999) that are valid JSON and kept verbatim in raw values.
std::string zero_numbers(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size();) {
    const char c = json[i];
    if (c == '"') {
      const std::size_t start = i++;
      while (i < json.size() && json[i] != '"') {
        i += json[i] == '\\' ? 2 : 1;
      }
      i = std::min(i + 1, json.size());
      out.append(json.substr(start, i - start));
      continue;
    }
    if (c != '-' && (c < '0' || c > '9')) {
      out.push_back(c);
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < json.size() &&
           (json[end] == '-' || json[end] == '+' || json[end] == '.' || json[end] == 'e' ||
            json[end] == 'E' || (json[end] >= '0' && json[end] <= '9'))) {
      ++end;
    }
    // RFC 8259 number grammar; anything else stays for the parser to reject.
    const std::string_view token = json.substr(i, end - i);
    std::size_t k = token[0] == '-' ? 1 : 0;
    auto digits = [&] {
      const std::size_t from = k;
      while (k < token.size() && token[k] >= '0' && token[k] <= '9') {
        ++k;
      }
      return k > from;
    };
    bool ok = k < token.size() && (token[k] == '0' ? (++k, true) : digits());
    if (ok && k < token.size() && token[k] == '.') {
      ++k;
      ok = digits();
    }
    if (ok && k < token.size() && (token[k] == 'e' || token[k] == 'E')) {
      ++k;
      if (k < token.size() && (token[k] == '+' || token[k] == '-')) {
        ++k;
      }
      ok = digits();
    }
    out.append(ok && k == token.size() ? std::string_view("0") : token);
    i = end;
  }
  return out;
}

void require_valid_json(const std::string& json) {
  // Deeper than the decoder's 1024 levels, so depth is not what this checks.
  static simdjson::dom::parser parser;
  static const bool allocated = parser.allocate(1 << 16, 4096) == simdjson::SUCCESS;
  if (!allocated) {
    finding("cannot allocate the DOM parser", "");
  }
  simdjson::dom::element root;
  auto error = parser.parse(json).get(root);
  if (error == simdjson::NUMBER_ERROR) {
    error = parser.parse(zero_numbers(json)).get(root);
  }
  if (error != simdjson::SUCCESS) {
    finding(simdjson::error_message(error), "encode wrote invalid JSON:\n" + json);
  }
}

void require_well_formed(const kubex::json::DecodeError& e) {
  const std::string expected = e.path().empty() ? e.reason() : e.path() + ": " + e.reason();
  if (e.reason().empty() || expected != e.what()) {
    finding("malformed DecodeError", e.what());
  }
}

template <class T>
void check(std::string_view input) {
  T first{};
  try {
    kubex::json::decode(input, first);
  } catch (const kubex::json::DecodeError& e) {
    require_well_formed(e);
    return;
  }
  std::string padded(input);
  padded.reserve(padded.size() + 64);
  T in_place{};
  kubex::json::decode_padded(padded, in_place);
  if (!(in_place == first)) {
    finding("decode_padded differs from decode", input);
  }

  const std::string encoded = kubex::json::encode(first);
  require_valid_json(encoded);
  T second{};
  try {
    kubex::json::decode(encoded, second);
  } catch (const kubex::json::DecodeError& e) {
    finding(e.what(), "encode wrote what decode rejects:\n" + encoded);
  }
  if (!(second == first)) {
    finding("decode(encode(x)) != x", encoded);
  }
  // From there on encoding is a fixed point.
  const std::string again = kubex::json::encode(second);
  T third{};
  try {
    kubex::json::decode(again, third);
  } catch (const kubex::json::DecodeError& e) {
    finding(e.what(), "encode wrote what decode rejects:\n" + again);
  }
  if (!(third == second) || kubex::json::encode(third) != again) {
    finding("encoding is not a fixed point", again);
  }
}

// Feeds `input` to a ListDecoder in pieces of `piece` bytes and compares with decode.
template <class L>
void check_list(std::string_view input, std::size_t piece) {
  L whole{};
  bool whole_ok = true;
  try {
    kubex::json::decode(input, whole);
  } catch (const kubex::json::DecodeError&) {
    whole_ok = false;
  }
  kubex::json::ListDecoder<L> decoder(0);  // splits inputs of any size
  std::string body;
  L fed{};
  try {
    for (std::size_t at = 0; at < input.size(); at += piece) {
      body.append(input.substr(at, piece));
      decoder.feed(body);
    }
    fed = decoder.finish(body);
  } catch (const kubex::json::DecodeError& e) {
    require_well_formed(e);
    if (whole_ok && std::string_view(e.what()) != "items: the key appears twice in the list") {
      finding(e.what(), "ListDecoder rejects what decode accepts:\n" + std::string(input));
    }
    return;
  }
  if (!whole_ok) {
    finding("ListDecoder accepts what decode rejects", input);
  }
  if (!(fed == whole)) {
    finding("ListDecoder differs from decode", input);
  }
}

// Decodes `input` as a line of a watch on pods, into an event that held another one before,
// as a watch reuses its event.
void check_watch_event(std::string_view input) {
  kubex::WatchEvent<core::Pod> event;
  event.object.metadata.name = "previous";
  try {
    kubex::decode_watch_event(input, event);
  } catch (const kubex::json::DecodeError& e) {
    require_well_formed(e);
    return;
  }
  if (event.type == kubex::WatchEventType::error) {
    return;
  }
  std::string line = R"({"type":")";
  line.append(kubex::to_string(event.type)).append(R"(","object":)");
  line.append(kubex::json::encode(event.object)).append("}");
  kubex::WatchEvent<core::Pod> again;
  try {
    kubex::decode_watch_event(line, again);
  } catch (const kubex::json::DecodeError& e) {
    finding(e.what(), "a watch event written again is rejected:\n" + line);
  }
  if (again.type != event.type || !(again.object == event.object)) {
    finding("a watch event written again differs", line);
  }
}

}  // namespace kubex_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  kubex_fuzz::check<kubex_fuzz::core::Pod>(input);
  kubex_fuzz::check<kubex_fuzz::core::PodList>(input);
  kubex_fuzz::check<kubex_fuzz::apps::Deployment>(input);
  kubex_fuzz::check<kubex_fuzz::meta::PartialObjectMetadataList>(input);
  kubex_fuzz::check_watch_event(input);
  // Pieces of a size taken from the input, so that the fuzzer varies where they split.
  const std::size_t piece = size == 0 ? 1 : 1 + data[0] % 97;
  kubex_fuzz::check_list<kubex_fuzz::core::PodList>(input, piece);
  kubex_fuzz::check_list<kubex_fuzz::meta::PartialObjectMetadataList>(input, input.size() + 1);
  kubex_fuzz::check_list<kubex_fuzz::meta::PartialObjectMetadataList>(input, 1);
  return 0;
}
