// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/arena.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/percent.hpp>

#include <simdjson.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>

namespace kubex::json {

namespace od = simdjson::ondemand;

namespace {

// `text` with control characters written as \u00XX. Reasons quote decoded values (an invalid
// time, a quantity), which may hold any character: a NUL would cut what() short and a newline
// break a log line.
std::string escape_controls(std::string text) {
  std::string out;
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20) {
      out += "\\u00";
      out.push_back(hex_lower[b >> 4]);
      out.push_back(hex_lower[b & 0xf]);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

DecodeError::DecodeError(std::string reason)
    : Error(make_error_code(errc::invalid_json), escape_controls(reason)),
      reason_(escape_controls(std::move(reason))) {
  update();
}

void DecodeError::prepend_field(std::string_view name) {
  // Names that are not plain identifiers are quoted so the path stays unambiguous.
  bool plain = !name.empty();
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '$';
    plain = plain && ok;
  }
  std::string head;
  if (plain) {
    head.assign(name);
  } else {
    head = "[\"";
    for (char c : name) {
      if (c == '"' || c == '\\') {
        head.push_back('\\');
      } else if (static_cast<unsigned char>(c) < 0x20) {
        // Escaped as JSON does: a NUL would cut what() short, a newline break a log line.
        head += "\\u00";
        head.push_back(hex_lower[(c >> 4) & 0xf]);
        head.push_back(hex_lower[c & 0xf]);
        continue;
      }
      head.push_back(c);
    }
    head += "\"]";
  }
  if (!path_.empty() && path_.front() != '[') {
    head.push_back('.');
  }
  path_ = head + path_;
  update();
}

void DecodeError::prepend_index(std::size_t index) {
  const bool dot = !path_.empty() && path_.front() != '[';
  path_ = "[" + std::to_string(index) + (dot ? "]." : "]") + path_;
  update();
}

void DecodeError::update() {
  message_ = path_.empty() ? reason_ : path_ + ": " + reason_;
}

namespace {

// Deepest nesting of arrays and objects accepted in a document, typed and raw parts together.
// Typed values are read recursively (a recursive model such as JSONSchemaProps can nest
// without end), so without a limit a hostile document overflows the stack; simdjson's
// On-Demand parser has no limit of its own. 1024 is simdjson's DOM default; Kubernetes
// objects nest a few dozen levels at most.
constexpr std::size_t kMaxDepth = 1024;
constexpr const char* kTooDeep = "nesting deeper than 1024 levels";
static_assert(kMaxDepth == 1024, "kTooDeep names the limit");
// simdjson's development checks (on in builds without NDEBUG, e.g. the asan preset) assert
// that On-Demand nesting stays below the parser's max_depth, 1024 by default and counted
// from another origin than kMaxDepth: give the parser room, so that kMaxDepth, checked
// first, is what limits nesting in every build. Costs a few bytes per level.
constexpr std::size_t kParserMaxDepth = 2 * kMaxDepth;

// A document larger than this does not keep its parser buffers for the next decode on the
// thread: simdjson sizes them to about 6 times the largest document seen, and one huge
// response must not pin hundreds of megabytes for the life of the thread.
constexpr std::size_t kMaxRetainedCapacity = std::size_t{16} << 20;

// What simdjson's first stage (run over the whole input before any value is read) rejected,
// once located by locate_flaw(): it reports such errors without a position.
enum class Flaw { none, invalid_utf8, control_character, unterminated_string };

// State of the decode running on this thread. A decode is synchronous and uses the thread's
// parser, so one per thread suffices; detail::decode saves and restores it.
struct DecodeState {
  std::size_t depth = 0;          // arrays and objects being read
  const char* flaw_at = nullptr;  // locating pass only: the first flawed byte
  Flaw flaw = Flaw::none;
  const char* end = nullptr;  // end of the document being read
};
thread_local DecodeState t_state;

od::value& val(void* p) {
  return *static_cast<od::value*>(p);
}

const char* type_name(od::json_type t) {
  switch (t) {
    case od::json_type::array:
      return "an array";
    case od::json_type::object:
      return "an object";
    case od::json_type::number:
      return "a number";
    case od::json_type::string:
      return "a string";
    case od::json_type::boolean:
      return "a boolean";
    case od::json_type::null:
      return "null";
  }
  return "an unknown value";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// A token for an error message, shortened (the input may be hostile and huge), with bytes
// other than printable ASCII written as \xNN: a NUL would cut what() short.
std::string excerpt(std::string_view token) {
  token = trim(token);
  constexpr std::size_t kMax = 40;
  std::string out;
  for (char c : token.substr(0, kMax)) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b >= 0x7f) {
      out += "\\x";
      out.push_back(hex_lower[b >> 4]);
      out.push_back(hex_lower[b & 0xf]);
    } else {
      out.push_back(c);
    }
  }
  return token.size() <= kMax ? out : out + "...";
}

// The length of the well-formed UTF-8 sequence at p[0..n) (Unicode 15, table 3-7), or 0.
std::size_t utf8_length(const unsigned char* p, std::size_t n) {
  const unsigned c = p[0];
  auto cont = [p, n](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return k < n && p[k] >= lo && p[k] <= hi;
  };
  if (c < 0x80) {
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) {
    return cont(1) ? 2 : 0;
  }
  if (c == 0xE0) {
    return cont(1, 0xA0) && cont(2) ? 3 : 0;
  }
  if (c == 0xED) {  // no UTF-16 surrogates
    return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  }
  if (c >= 0xE1 && c <= 0xEF) {
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (c == 0xF0) {
    return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  }
  if (c >= 0xF1 && c <= 0xF3) {
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  if (c == 0xF4) {  // nothing above U+10FFFF
    return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

// Checks that `s` is exactly one JSON value (RFC 8259) with strings of well-formed UTF-8 and
// \u escapes that pair their surrogates, nested at most `max_depth` levels. Returns what is
// wrong, or nullptr. Raw values need it: simdjson's On-Demand parser skips them by counting
// brackets, without checking literals, numbers, escapes, commas or that brackets match, and
// a raw value is written back verbatim. Iterative, so hostile nesting cannot overflow the stack.
// `text_checked`: `s` lies in a document that passed simdjson's first stage, which validates
// UTF-8 and rejects control characters inside strings for the whole input; strings then need
// scanning only for their closing quote and escapes (managedFields' raw values are most of a
// list's bytes).
const char* check_json(std::string_view s, std::size_t max_depth, bool text_checked = false) {
  const std::size_t n = s.size();
  std::size_t i = 0;
  std::string open;  // the unclosed '[' and '{'
  auto at = [&](std::size_t k) {
    return k < n ? s[k] : '\0';
  };
  auto skip_ws = [&] {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) {
      ++i;
    }
  };
  auto digits = [&] {
    const std::size_t from = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') {
      ++i;
    }
    return i > from;
  };
  auto hex4 = [&](std::size_t k) {
    int v = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const int d = hex_value(at(k + j));
      if (d < 0) {
        return -1;
      }
      v = v * 16 + d;
    }
    return v;
  };
  // A string at s[i] == '"'; on success i is past its closing quote.
  auto string = [&]() -> const char* {
    for (++i; i < n;) {
      if (text_checked) {
        while (i < n && s[i] != '"' && s[i] != '\\') {
          ++i;
        }
        if (i == n) {
          break;
        }
      }
      const auto c = static_cast<unsigned char>(s[i]);
      if (c == '"') {
        ++i;
        return nullptr;
      }
      if (c < 0x20) {
        return "unescaped control character in a string";
      }
      if (c >= 0x80) {
        const std::size_t len =
            utf8_length(reinterpret_cast<const unsigned char*>(s.data()) + i, n - i);
        if (len == 0) {
          return "invalid UTF-8 in a string";
        }
        i += len;
        continue;
      }
      if (c != '\\') {
        ++i;
        continue;
      }
      const char e = at(i + 1);
      if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
          e == 't') {
        i += 2;
        continue;
      }
      if (e != 'u') {
        return "invalid escape sequence in a string";
      }
      const int u = hex4(i + 2);
      if (u < 0) {
        return "invalid \\u escape in a string";
      }
      i += 6;
      if (u >= 0xDC00 && u <= 0xDFFF) {
        return "unpaired UTF-16 surrogate in a string";
      }
      if (u >= 0xD800 && u <= 0xDBFF) {
        const int low = at(i) == '\\' && at(i + 1) == 'u' ? hex4(i + 2) : -1;
        if (low < 0xDC00 || low > 0xDFFF) {
          return "unpaired UTF-16 surrogate in a string";
        }
        i += 6;
      }
    }
    return "unterminated string";
  };
  auto literal = [&](std::string_view word) {
    if (s.substr(i, word.size()) != word) {
      return false;
    }
    i += word.size();
    return true;
  };

  skip_ws();
  for (;;) {
    // A value is expected at i.
    const char c = at(i);
    if (c == '{' || c == '[') {
      if (open.size() >= max_depth) {
        return kTooDeep;
      }
      open.push_back(c);
      ++i;
      skip_ws();
      if (at(i) == (c == '{' ? '}' : ']')) {
        open.pop_back();
        ++i;
      } else if (c == '{') {
        if (at(i) != '"') {
          return "expected a string key";
        }
        if (const char* err = string()) {
          return err;
        }
        skip_ws();
        if (at(i) != ':') {
          return "expected ':' after an object key";
        }
        ++i;
        skip_ws();
        continue;
      } else {
        continue;
      }
    } else if (c == '"') {
      if (const char* err = string()) {
        return err;
      }
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      if (c == '-') {
        ++i;
      }
      if (at(i) == '0') {
        ++i;
      } else if (!digits()) {
        return "malformed number";
      }
      if (at(i) == '.') {
        ++i;
        if (!digits()) {
          return "malformed number";
        }
      }
      if (at(i) == 'e' || at(i) == 'E') {
        ++i;
        if (at(i) == '+' || at(i) == '-') {
          ++i;
        }
        if (!digits()) {
          return "malformed number";
        }
      }
    } else if (!literal("true") && !literal("false") && !literal("null")) {
      if (i == n) {
        return "unexpected end of the value";
      }
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? "invalid literal"
                                                              : "unexpected character";
    }
    // After a value: the enclosing containers continue or close.
    for (;;) {
      skip_ws();
      if (open.empty()) {
        return i == n ? nullptr : "unexpected content after the value";
      }
      const char close = open.back() == '{' ? '}' : ']';
      if (at(i) == close) {
        open.pop_back();
        ++i;
        continue;
      }
      if (at(i) != ',') {
        return open.back() == '{' ? "expected ',' or '}' in an object"
                                  : "expected ',' or ']' in an array";
      }
      ++i;
      skip_ws();
      if (open.back() == '{') {
        if (at(i) != '"') {
          return "expected a string key";
        }
        if (const char* err = string()) {
          return err;
        }
        skip_ws();
        if (at(i) != ':') {
          return "expected ':' after an object key";
        }
        ++i;
        skip_ws();
      }
      break;
    }
  }
}

// Fails with the flaw found by locate_flaw() when it lies in [begin, end).
void check_flaw(const char* begin, const char* end, bool key) {
  const char* at = t_state.flaw_at;
  if (at == nullptr || at < begin || at >= end) {
    return;
  }
  const char* where = key ? " in an object key" : " in a string";
  switch (t_state.flaw) {
    case Flaw::invalid_utf8:
      Reader::fail(std::string("invalid UTF-8") + where);
    case Flaw::control_character:
      Reader::fail(std::string("invalid JSON: unescaped control character") + where);
    case Flaw::unterminated_string:
      Reader::fail("invalid JSON: unterminated string");
    case Flaw::none:
      break;
  }
}

// True when the value's token runs to the end of the input, so the document was cut short:
// simdjson then reports the value (`1`, `true`, or nothing at all) as malformed or of another
// type, which would misdescribe it.
bool at_end(od::value& v) {
  const std::string_view token = v.raw_json_token();
  const char* end = t_state.end;
  return end != nullptr &&
         (token.data() >= end || token.size() >= static_cast<std::size_t>(end - token.data()));
}

[[noreturn]] void fail_end() {
  Reader::fail("invalid JSON: unexpected end of the document");
}

// Fails when `v` is a scalar that is not valid JSON (`nul`, `truex`, `01`, a bad escape):
// simdjson reports those as a wrong type or with a reason that does not say what is wrong.
void check_scalar(od::value& v, od::json_type t) {
  if (t == od::json_type::object || t == od::json_type::array) {
    return;
  }
  if (at_end(v)) {
    fail_end();
  }
  const std::string_view token = trim(v.raw_json_token());
  const char* why = check_json(token, 0);
  if (why == nullptr) {
    return;
  }
  if (t == od::json_type::string) {
    Reader::fail(std::string("invalid JSON: ") + why);
  }
  Reader::fail(std::string("invalid JSON: malformed ") +
               (t == od::json_type::number ? "number " : "literal ") + excerpt(token));
}

// Explains a failed read: the type found when it is the wrong one, else simdjson's reason.
[[noreturn]] void fail_read(od::value& v, simdjson::error_code error, const char* expected,
                            od::json_type want) {
  od::json_type t{};
  if (v.type().get(t) == simdjson::SUCCESS) {
    check_scalar(v, t);
    if (t != want) {
      Reader::fail(std::string("expected ") + expected + ", got " + type_name(t));
    }
  } else if (at_end(v)) {
    fail_end();
  }
  Reader::fail(std::string("invalid JSON: ") + simdjson::error_message(error));
}

// Explains a number that simdjson did not convert: valid JSON that does not fit the type
// (`9223372036854775808`, `1.5` for an integer, `1e999`), or not a valid number at all.
[[noreturn]] void fail_number(od::value& v, simdjson::error_code error, const char* expected,
                              bool integer) {
  od::json_type t{};
  if (v.type().get(t) != simdjson::SUCCESS || t != od::json_type::number) {
    fail_read(v, error, expected, od::json_type::number);
  }
  check_scalar(v, t);
  const std::string_view token = trim(v.raw_json_token());
  if (integer && token.find_first_of(".eE") != std::string_view::npos) {
    Reader::fail(std::string("expected ") + expected + ", got a number");
  }
  Reader::fail(std::string("expected ") +
               (integer ? "a 64-bit integer" : "a number in the range of a double") + ", got " +
               excerpt(token));
}

// Counts one level of nesting while an array or object is read.
class Nesting {
 public:
  Nesting() {
    if (t_state.depth >= kMaxDepth) {
      Reader::fail(std::string("invalid JSON: ") + kTooDeep);
    }
    ++t_state.depth;
  }
  Nesting(const Nesting&) = delete;
  Nesting& operator=(const Nesting&) = delete;
  ~Nesting() { --t_state.depth; }
};

}  // namespace

void Reader::fail(std::string reason) {
  throw DecodeError(std::move(reason));
}

Reader::Type Reader::type() {
  od::json_type t{};
  if (auto e = val(value_).type().get(t); e != simdjson::SUCCESS) {
    if (at_end(val(value_))) {
      fail_end();
    }
    fail(std::string("invalid JSON: ") + simdjson::error_message(e));
  }
  switch (t) {
    case od::json_type::array:
      return Type::array;
    case od::json_type::object:
      return Type::object;
    case od::json_type::number:
      return Type::number;
    case od::json_type::string:
      return Type::string;
    case od::json_type::boolean:
      return Type::boolean;
    case od::json_type::null:
      return Type::null;
  }
  return Type::null;
}

bool Reader::is_null() {
  // value::is_null() reads the value as a non-root scalar, which simdjson's debug checks reject
  // for a document's root array; type() only peeks at the first byte, and the root is never null.
  od::json_type t{};
  if (val(value_).type().get(t) == simdjson::SUCCESS && t != od::json_type::null) {
    return false;
  }
  read_ = true;
  bool null = false;
  if (auto e = val(value_).is_null().get(null); e != simdjson::SUCCESS) {
    fail_read(val(value_), e, "null", od::json_type::null);
  }
  return null;
}

bool Reader::get_bool() {
  read_ = true;
  bool b = false;
  if (auto e = val(value_).get_bool().get(b); e != simdjson::SUCCESS) {
    fail_read(val(value_), e, "a boolean", od::json_type::boolean);
  }
  return b;
}

std::int64_t Reader::get_int64() {
  read_ = true;
  std::int64_t i = 0;
  if (auto e = val(value_).get_int64().get(i); e != simdjson::SUCCESS) {
    fail_number(val(value_), e, "an integer", true);
  }
  return i;
}

double Reader::get_double() {
  read_ = true;
  double d = 0;
  if (auto e = val(value_).get_double().get(d); e != simdjson::SUCCESS) {
    fail_number(val(value_), e, "a number", false);
  }
  return d;
}

std::string_view Reader::get_string() {
  read_ = true;
  od::value& v = val(value_);
  if (t_state.flaw_at != nullptr) {
    const std::string_view token = v.raw_json_token();
    check_flaw(token.data(), token.data() + token.size(), false);
  }
  std::string_view s;
  if (auto e = v.get_string().get(s); e != simdjson::SUCCESS) {
    fail_read(v, e, "a string", od::json_type::string);
  }
  return s;
}

void Reader::skip() {
  if (!read_) {
    (void)raw_view();
  }
}

std::string_view Reader::raw_view() {
  read_ = true;
  od::value& v = val(value_);
  od::json_type t{};
  if (auto e = v.type().get(t); e != simdjson::SUCCESS) {
    if (at_end(v)) {
      fail_end();
    }
    fail(std::string("invalid JSON: ") + simdjson::error_message(e));
  }
  std::string_view raw;
  simdjson::error_code e = simdjson::SUCCESS;
  if (t == od::json_type::object) {
    od::object o;
    e = v.get_object().get(o);
    if (e == simdjson::SUCCESS) {
      e = o.raw_json().get(raw);
    }
  } else if (t == od::json_type::array) {
    od::array a;
    e = v.get_array().get(a);
    if (e == simdjson::SUCCESS) {
      e = a.raw_json().get(raw);
    }
  } else {
    if (at_end(v)) {
      fail_end();  // `1` may be the start of `12`: a cut document is never valid
    }
    raw = v.raw_json_token();
    if (t == od::json_type::string) {
      // Consume the string: left for the enclosing object to skip, a string followed by ':'
      // would be taken for a key and `{"a":"b":"c"}}` accepted.
      od::raw_json_string consumed;
      (void)v.get_raw_json_string().get(consumed);
    }
  }
  if (e != simdjson::SUCCESS) {
    fail(std::string("invalid JSON: ") + simdjson::error_message(e));
  }
  raw = trim(raw);
  check_flaw(raw.data(), raw.data() + raw.size(), false);
  // simdjson skips raw values without validating them, and they are written back verbatim:
  // check them here so that invalid JSON never gets into a model or out through encode.
  if (const char* err = check_json(raw, kMaxDepth - t_state.depth, true)) {
    fail(std::string("invalid JSON: ") + err);
  }
  return raw;
}

void Reader::each_field(void* ctx, FieldFn fn) {
  read_ = true;
  od::object obj;
  if (auto e = val(value_).get_object().get(obj); e != simdjson::SUCCESS) {
    fail_read(val(value_), e, "an object", od::json_type::object);
  }
  Nesting nesting;
  for (auto result : obj) {
    od::field field;
    if (auto e = std::move(result).get(field); e != simdjson::SUCCESS) {
      fail(std::string("invalid JSON: ") + simdjson::error_message(e));
    }
    if (t_state.flaw_at != nullptr) {
      // The key runs from after its opening quote to the start of the value.
      const std::string_view value_token = field.value().raw_json_token();
      check_flaw(field.key().raw(), value_token.data(), true);
    }
    std::string_view key;
    if (auto e = field.unescaped_key().get(key); e != simdjson::SUCCESS) {
      fail(std::string("invalid object key: ") + simdjson::error_message(e));
    }
    Reader child(&field.value());
    try {
      fn(ctx, key, child);
      child.skip();
    } catch (DecodeError& err) {
      err.prepend_field(key);
      throw;
    }
  }
}

void Reader::each_element(void* ctx, ElementFn fn) {
  read_ = true;
  od::array arr;
  if (auto e = val(value_).get_array().get(arr); e != simdjson::SUCCESS) {
    fail_read(val(value_), e, "an array", od::json_type::array);
  }
  Nesting nesting;
  std::size_t index = 0;
  for (auto element : arr) {
    od::value v;
    if (auto e = element.get(v); e != simdjson::SUCCESS) {
      // No element starts here (`[1 2`, `[1` at the end): the array is at fault, as an object
      // is for a missing ',' or '}', not an element that does not exist.
      fail(std::string("invalid JSON: ") + simdjson::error_message(e));
    }
    Reader child(&v);
    try {
      fn(ctx, child);
      child.skip();
    } catch (DecodeError& err) {
      err.prepend_index(index);
      throw;
    }
    ++index;
  }
}

void Codec<std::int32_t>::read(Reader& r, std::int32_t& v) {
  const std::int64_t i = r.get_int64();
  if (i < std::numeric_limits<std::int32_t>::min() ||
      i > std::numeric_limits<std::int32_t>::max()) {
    Reader::fail("expected a 32-bit integer, got " + std::to_string(i));
  }
  v = static_cast<std::int32_t>(i);
}

void Writer::string(std::string_view value) {
  separate();
  out_.reserve(out_.size() + value.size() + 2);
  out_.push_back('"');
  std::size_t run = 0;  // start of the pending run of bytes that need no escaping
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c >= 0x80) {
      // Decoded strings are valid UTF-8, but a program may set any bytes: replace what is not
      // UTF-8 with U+FFFD, as Go's encoder does, so the output is always valid JSON.
      const std::size_t len =
          utf8_length(reinterpret_cast<const unsigned char*>(value.data()) + i, value.size() - i);
      if (len != 0) {
        i += len - 1;
        continue;
      }
      out_.append(value.data() + run, i - run);
      run = i + 1;
      out_.append("\xef\xbf\xbd");
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      continue;
    }
    out_.append(value.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out_.append("\\\"");
        break;
      case '\\':
        out_.append("\\\\");
        break;
      case '\n':
        out_.append("\\n");
        break;
      case '\r':
        out_.append("\\r");
        break;
      case '\t':
        out_.append("\\t");
        break;
      default: {
        const char esc[6] = {'\\', 'u', '0', '0', hex_lower[c >> 4], hex_lower[c & 0xf]};
        out_.append(esc, 6);
      }
    }
  }
  out_.append(value.data() + run, value.size() - run);
  out_.push_back('"');
}

void Writer::number(double value) {
  if (!std::isfinite(value)) {
    // JSON has no NaN or infinity; Go's encoder refuses them too.
    throw Error(make_error_code(errc::invalid_json), "cannot encode a non-finite number as JSON");
  }
  separate();
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, value);
  out_.append(buf, r.ptr);
}

namespace detail {

namespace {

// Errors of simdjson's first stage, which runs over the whole input before any value is read
// and so reports them without a position.
bool is_flaw(simdjson::error_code e) {
  return e == simdjson::UTF8_ERROR || e == simdjson::UNESCAPED_CHARS ||
         e == simdjson::UNCLOSED_STRING;
}

// A copy of a document with the flaws of is_flaw() repaired, and the first of them.
struct Repaired {
  std::string text;
  std::size_t offset = 0;
  Flaw flaw = Flaw::none;
};

// Finds the flaws simdjson's first stage rejects: bytes that are not UTF-8 (replaced by 'x'),
// unescaped control characters in strings (replaced by a space) and a string still open at
// the end (closed). The repaired copy has the same structure, so reading it reaches the value
// that holds the first flaw, whose path the error then names.
Repaired repair(std::string_view json) {
  Repaired out;
  out.text.assign(json);
  auto note = [&out](std::size_t offset, Flaw flaw) {
    if (out.flaw == Flaw::none) {
      out.offset = offset;
      out.flaw = flaw;
    }
  };
  bool in_string = false;
  bool dangling_escape = false;  // the input ends with the '\\' of an escape
  for (std::size_t i = 0; i < json.size();) {
    const auto c = static_cast<unsigned char>(json[i]);
    if (c >= 0x80) {
      const std::size_t len =
          utf8_length(reinterpret_cast<const unsigned char*>(json.data()) + i, json.size() - i);
      if (len == 0) {
        note(i, Flaw::invalid_utf8);
        out.text[i] = 'x';
        ++i;
      } else {
        i += len;
      }
      continue;
    }
    if (!in_string) {
      in_string = c == '"';
    } else if (c == '"') {
      in_string = false;
    } else if (c == '\\') {
      if (i + 1 == json.size()) {
        dangling_escape = true;
      } else if (static_cast<unsigned char>(json[i + 1]) < 0x80) {
        ++i;  // the escaped byte cannot end the string
      }
    } else if (c < 0x20) {
      note(i, Flaw::control_character);
      out.text[i] = ' ';
    }
    ++i;
  }
  if (in_string) {
    note(json.size(), Flaw::unterminated_string);
    if (dangling_escape) {
      out.text.push_back('\\');  // complete the escape, or the quote would be escaped
    }
    out.text.push_back('"');
  }
  return out;
}

// Reads the document's root value into `out`; `json` is the document's text.
void read_root(od::document& doc, std::string_view json, void* out, DecodeFn fn) {
  t_state.end = json.data() + json.size();
  od::json_type t{};
  if (auto e = doc.type().get(t); e != simdjson::SUCCESS) {
    Reader::fail(std::string("invalid JSON: ") + simdjson::error_message(e));
  }
  if (t != od::json_type::object && t != od::json_type::array) {
    // simdjson cannot hand out a scalar document as a value, and models are objects.
    if (const char* why = check_json(json, 0)) {
      Reader::fail(std::string("invalid JSON: ") + why);
    }
    Reader::fail(std::string("expected an object or an array, got ") + type_name(t));
  }
  od::value root;
  if (auto e = doc.get_value().get(root); e != simdjson::SUCCESS) {
    Reader::fail(std::string("invalid JSON document: ") + simdjson::error_message(e));
  }
  Reader r(&root);
  fn(r, out);
  // The On-Demand parser stops after the root value; anything after it is not JSON.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) == simdjson::SUCCESS) {
    Reader::fail("invalid JSON: unexpected content after the document");
  }
}

}  // namespace

void decode(std::string_view json, bool padded, void* out, DecodeFn fn, std::size_t depth) {
  // One parser per thread: it keeps its buffers between documents, so decoding a stream of
  // watch events allocates nothing for the parser after the first.
  thread_local od::parser parser;
  // Restores the state of an enclosing decode, and drops the buffers of a huge document.
  struct Scope {
    DecodeState saved = std::exchange(t_state, DecodeState{});
    Scope() = default;
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() {
      t_state = saved;
      if (parser.capacity() > kMaxRetainedCapacity) {
        parser = od::parser{};
      }
    }
  } scope;
  t_state.depth = depth;
  // The compact containers of the decoded object (String, Vector, Map) take their memory from
  // one arena. Its first block is sized from the arena bytes per JSON byte of the thread's last
  // decode: the items of a list are alike, so each usually takes one block, with little spare.
  thread_local ArenaEstimate estimate;
  Arena arena(estimate.first_block(json.size()));
  const ArenaScope arena_scope(&arena);

  if (parser.max_depth() != kParserMaxDepth) {
    if (auto e = parser.allocate(json.size(), kParserMaxDepth); e != simdjson::SUCCESS) {
      Reader::fail(std::string("cannot decode: ") + simdjson::error_message(e));
    }
  }
  // RFC 8259 lets a parser ignore a byte order mark; Go's encoding/json, which the API server
  // uses, rejects it, and so does kubex rather than accept what the server would not.
  if (json.starts_with("\xEF\xBB\xBF")) {
    Reader::fail("invalid JSON: byte order mark (U+FEFF) before the document");
  }
  simdjson::padded_string copy;
  simdjson::padded_string_view input;
  if (padded) {
    input = simdjson::padded_string_view(json.data(), json.size(),
                                         json.size() + simdjson::SIMDJSON_PADDING);
  } else {
    copy = simdjson::padded_string(json);
    input = copy;
  }
  od::document doc;
  const simdjson::error_code e = parser.iterate(input).get(doc);
  if (e == simdjson::SUCCESS) {
    read_root(doc, std::string_view(input.data(), input.length()), out, fn);
    estimate.learn(arena, json.size());
    return;
  }
  const std::string reason = std::string("invalid JSON: ") + simdjson::error_message(e);
  if (!is_flaw(e)) {
    Reader::fail(reason);
  }
  // Read a repaired copy to find the value with the flaw; Reader's accessors fail there.
  Repaired repaired = repair(json);
  if (repaired.flaw == Flaw::none) {
    Reader::fail(reason);
  }
  const simdjson::padded_string text(repaired.text);
  od::document located;
  if (parser.iterate(text).get(located) != simdjson::SUCCESS) {
    Reader::fail(reason);
  }
  t_state.flaw_at = text.data() + repaired.offset;
  t_state.flaw = repaired.flaw;
  read_root(located, std::string_view(text.data(), text.size()), out, fn);
  Reader::fail(reason);  // the flaw is in no value that was read
}

}  // namespace detail

}  // namespace kubex::json
