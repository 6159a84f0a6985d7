#include <kubex/core/json.hpp>

#include <simdjson.h>

#include <cmath>
#include <limits>

namespace kubex::json {

namespace od = simdjson::ondemand;

DecodeError::DecodeError(std::string reason)
    : Error(make_error_code(errc::invalid_json), reason), reason_(std::move(reason)) {
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

// Explains a failed read: the type found when it is the wrong one, else simdjson's reason.
[[noreturn]] void fail_read(od::value& v, simdjson::error_code error, const char* expected) {
  if (error == simdjson::INCORRECT_TYPE) {
    od::json_type t{};
    if (v.type().get(t) == simdjson::SUCCESS) {
      Reader::fail(std::string("expected ") + expected + ", got " + type_name(t));
    }
  }
  if (error == simdjson::NUMBER_OUT_OF_RANGE || error == simdjson::NUMBER_ERROR) {
    Reader::fail(std::string("expected ") + expected + ", got a number out of range");
  }
  Reader::fail(std::string("expected ") + expected + ": " + simdjson::error_message(error));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

void Reader::fail(std::string reason) {
  throw DecodeError(std::move(reason));
}

Reader::Type Reader::type() {
  od::json_type t{};
  if (auto e = val(value_).type().get(t); e != simdjson::SUCCESS) {
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
  bool null = false;
  if (auto e = val(value_).is_null().get(null); e != simdjson::SUCCESS) {
    fail(std::string("invalid JSON: ") + simdjson::error_message(e));
  }
  return null;
}

bool Reader::get_bool() {
  bool b = false;
  if (auto e = val(value_).get_bool().get(b); e != simdjson::SUCCESS) {
    fail_read(val(value_), e, "a boolean");
  }
  return b;
}

std::int64_t Reader::get_int64() {
  std::int64_t i = 0;
  if (auto e = val(value_).get_int64().get(i); e != simdjson::SUCCESS) {
    fail_read(val(value_), e, "an integer");
  }
  return i;
}

double Reader::get_double() {
  double d = 0;
  if (auto e = val(value_).get_double().get(d); e != simdjson::SUCCESS) {
    fail_read(val(value_), e, "a number");
  }
  return d;
}

std::string_view Reader::get_string() {
  std::string_view s;
  if (auto e = val(value_).get_string().get(s); e != simdjson::SUCCESS) {
    fail_read(val(value_), e, "a string");
  }
  return s;
}

std::string Reader::get_raw() {
  od::value& v = val(value_);
  od::json_type t{};
  if (auto e = v.type().get(t); e != simdjson::SUCCESS) {
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
    raw = v.raw_json_token();
  }
  if (e != simdjson::SUCCESS) {
    fail(std::string("invalid JSON: ") + simdjson::error_message(e));
  }
  return std::string(trim(raw));
}

void Reader::each_field(void* ctx, FieldFn fn) {
  od::object obj;
  if (auto e = val(value_).get_object().get(obj); e != simdjson::SUCCESS) {
    fail_read(val(value_), e, "an object");
  }
  for (auto field : obj) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key); e != simdjson::SUCCESS) {
      fail(std::string("invalid object key: ") + simdjson::error_message(e));
    }
    od::value v;
    if (auto e = field.value().get(v); e != simdjson::SUCCESS) {
      DecodeError err(std::string("invalid JSON: ") + simdjson::error_message(e));
      err.prepend_field(key);
      throw err;
    }
    Reader child(&v);
    try {
      fn(ctx, key, child);
    } catch (DecodeError& err) {
      err.prepend_field(key);
      throw;
    }
  }
}

void Reader::each_element(void* ctx, ElementFn fn) {
  od::array arr;
  if (auto e = val(value_).get_array().get(arr); e != simdjson::SUCCESS) {
    fail_read(val(value_), e, "an array");
  }
  std::size_t index = 0;
  for (auto element : arr) {
    od::value v;
    if (auto e = element.get(v); e != simdjson::SUCCESS) {
      DecodeError err(std::string("invalid JSON: ") + simdjson::error_message(e));
      err.prepend_index(index);
      throw err;
    }
    Reader child(&v);
    try {
      fn(ctx, child);
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
  static constexpr char hex[] = "0123456789abcdef";
  std::size_t run = 0;  // start of the pending run of bytes that need no escaping
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
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
        const char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf]};
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

void decode(std::string_view json, bool padded, void* out, DecodeFn fn) {
  // One parser per thread: it keeps its buffers between documents, so decoding a stream of
  // watch events allocates nothing for the parser after the first.
  thread_local od::parser parser;
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
  if (auto e = parser.iterate(input).get(doc); e != simdjson::SUCCESS) {
    Reader::fail(std::string("invalid JSON: ") + simdjson::error_message(e));
  }
  od::value root;
  if (auto e = doc.get_value().get(root); e != simdjson::SUCCESS) {
    Reader::fail(std::string("invalid JSON document: ") + simdjson::error_message(e));
  }
  Reader r(&root);
  fn(r, out);
}

}  // namespace detail

}  // namespace kubex::json
