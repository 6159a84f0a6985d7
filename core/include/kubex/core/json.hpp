// SPDX-License-Identifier: Apache-2.0
#pragma once

// JSON reading and writing for models. The reader is an opaque handle over simdjson's
// On-Demand parser: simdjson types never appear in a public header (their namespace depends
// on the -march a TU is built with), and the generic code below, which user-defined types
// also use, stays header-only without pulling the parser into every translation unit.

#include <kubex/core/box.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/export.hpp>
#include <kubex/core/map.hpp>
#include <kubex/core/raw_json.hpp>
#include <kubex/core/string.hpp>
#include <kubex/core/vector.hpp>

#include <charconv>
#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kubex::json {

/// JSON that does not fit the model it is decoded into. what() is "<path>: <reason>", where
/// the path names the offending field, e.g.
/// `items[3].spec.containers[0].ports[1].containerPort: expected an integer, got a string`.
class KUBEX_API DecodeError : public Error {
 public:
  /// An error at the current value; enclosing readers add the path while it propagates.
  explicit DecodeError(std::string reason);
  /// The path of the offending value ("" for the document itself).
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// What is wrong with the value.
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }
  /// The path and the reason.
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }
  /// Adds an enclosing object field to the path.
  void prepend_field(std::string_view name);
  /// Adds an enclosing array index to the path.
  void prepend_index(std::size_t index);

 private:
  void update();
  std::string path_;
  std::string reason_;
  std::string message_;
};

/// One JSON value being read. Each value may be read once, with one of the accessors; fields
/// and elements not read are skipped, and checked to be valid JSON as raw values are. Readers
/// exist only during a decode call.
class KUBEX_API Reader {
 public:
  /// The JSON type of a value.
  enum class Type { null, boolean, number, string, array, object };

  /// The value's type, without consuming it.
  Type type();
  /// Consumes the value and returns true when it is null; otherwise leaves it unread.
  bool is_null();
  /// The value as a boolean; DecodeError for any other type.
  bool get_bool();
  /// The value as a signed 64-bit integer; DecodeError for fractions or out-of-range numbers.
  std::int64_t get_int64();
  /// The value as a double (integers are converted).
  double get_double();
  /// The value as an unescaped string; the view is valid until the next read.
  std::string_view get_string();
  /// The value's JSON text, verbatim and without surrounding whitespace; the view is into the
  /// document and valid until the decode ends.
  std::string_view get_raw() { return raw_view(); }

  /// Calls `f(std::string_view key, Reader& value)` for each field of an object. The key is
  /// unescaped and valid during the call. DecodeError if the value is not an object.
  template <class F>
  void for_each_field(F&& f) {
    each_field(&f, &call_field<std::remove_reference_t<F>>);
  }
  /// Calls `f(Reader& element)` for each element of an array. DecodeError if it is not one.
  template <class F>
  void for_each_element(F&& f) {
    each_element(&f, &call_element<std::remove_reference_t<F>>);
  }

  /// Throws a DecodeError for this value.
  [[noreturn]] static void fail(std::string reason);

  /// Readers are created by the decoder only (the handle points into its parser state).
  explicit Reader(void* value) noexcept : value_(value) {}

 private:
  using FieldFn = void (*)(void*, std::string_view, Reader&);
  using ElementFn = void (*)(void*, Reader&);
  void each_field(void* ctx, FieldFn fn);
  void each_element(void* ctx, ElementFn fn);
  // The callbacks of for_each_field and for_each_element. Inline member templates, hidden
  // (-fvisibility-inlines-hidden), where a lambda's invoker would take the exported class's
  // visibility and be exported from a shared library once per instantiation.
  template <class F>
  static void call_field(void* ctx, std::string_view key, Reader& value) {
    (*static_cast<F*>(ctx))(key, value);
  }
  template <class F>
  static void call_element(void* ctx, Reader& value) {
    (*static_cast<F*>(ctx))(value);
  }
  // The value's text, checked to be valid JSON; valid until the document is released.
  std::string_view raw_view();
  // Checks and consumes the value if no accessor read it: simdjson would skip it by counting
  // brackets, accepting anything between them.
  void skip();
  void* value_;
  bool read_ = false;  // an accessor consumed the value, or took it to be read
};

/// Appends compact JSON to a string. Keys and values are written in call order; commas are
/// inserted automatically.
class KUBEX_API Writer {
 public:
  /// What a writer does with a required field whose value is empty.
  enum class Mode : std::uint8_t {
    full,     ///< Writes it, as the API's schema asks of a whole object.
    partial,  ///< Leaves it out (see write_required): a partial object for server-side apply.
  };
  /// A point in the output to go back to.
  struct Mark {
    /// Bytes written then.
    std::size_t size;
    /// Whether the next value needed no comma.
    bool first;
  };

  /// Writes to `out`, appending to what it holds.
  explicit Writer(std::string& out, Mode mode = Mode::full) noexcept : out_(out), mode_(mode) {}

  /// True for Mode::partial.
  [[nodiscard]] bool partial() const noexcept { return mode_ == Mode::partial; }
  /// The current point of the output.
  [[nodiscard]] Mark mark() const noexcept { return {out_.size(), first_}; }
  /// Takes back everything written after `m`.
  void rewind(Mark m) {
    out_.resize(m.size);
    first_ = m.first;
  }
  /// True when what was written after `m` is an empty object, list or string, or null.
  [[nodiscard]] bool empty_since(Mark m) const noexcept {
    const std::size_t start = m.size + (m.first ? 0 : 1);
    if (out_.size() < start) {
      return false;
    }
    const std::string_view value = std::string_view(out_).substr(start);
    return value == "{}" || value == "[]" || value == "\"\"" || value == "null";
  }

  /// Starts an object.
  void begin_object() {
    separate();
    out_.push_back('{');
    first_ = true;
  }
  /// Ends the current object.
  void end_object() {
    out_.push_back('}');
    first_ = false;
  }
  /// Starts an array.
  void begin_array() {
    separate();
    out_.push_back('[');
    first_ = true;
  }
  /// Ends the current array.
  void end_array() {
    out_.push_back(']');
    first_ = false;
  }
  /// Writes a key that needs escaping (map keys, unknown fields).
  void key(std::string_view name) {
    string(name);
    out_.push_back(':');
    first_ = true;
  }
  /// Writes a key given as its complete JSON text with the colon, e.g. `"\"kind\":"`; the
  /// generated writers use it so that field names are not escaped at run time.
  void key_literal(std::string_view quoted_with_colon) {
    separate();
    out_.append(quoted_with_colon);
    first_ = true;
  }
  /// Writes a string value, escaped. Bytes that are not UTF-8 are written as U+FFFD, as Go's
  /// encoder does, so the output is valid JSON whatever the program stored.
  void string(std::string_view value);
  /// Writes an integer value.
  void int64(std::int64_t value) {
    separate();
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    out_.append(buf, r.ptr);
  }
  /// Writes a number value in the shortest form that reads back exactly.
  void number(double value);
  /// Writes true or false.
  void boolean(bool value) {
    separate();
    out_.append(value ? "true" : "false");
  }
  /// Writes null.
  void null() {
    separate();
    out_.append("null");
  }
  /// Writes a value given as JSON text, unchanged.
  void raw(std::string_view json) {
    separate();
    out_.append(json);
  }

 private:
  void separate() {
    if (!first_) {
      out_.push_back(',');
    }
    first_ = false;
  }
  std::string& out_;
  bool first_ = true;
  Mode mode_;
};

/// How values of type T are read and written. Specialised below for scalars and containers;
/// for a model type the primary template calls `kubex_read(Reader&, T&)` and
/// `kubex_write(Writer&, const T&)`, found by argument-dependent lookup: the generator emits
/// them for every model, and user types provide them (see KUBEX_JSON_OBJECT).
template <class T, class Enable = void>
struct Codec {
  /// Reads a T.
  static void read(Reader& r, T& value) { kubex_read(r, value); }
  /// Writes a T.
  static void write(Writer& w, const T& value) { kubex_write(w, value); }
};

/// Reads `value` from `r` with its Codec.
template <class T>
void read(Reader& r, T& value) {
  Codec<T>::read(r, value);
}
/// Writes `value` with its Codec.
template <class T>
void write(Writer& w, const T& value) {
  Codec<T>::write(w, value);
}

/// Writes required field `key` (a key_literal) with `value`. A partial writer takes both
/// back when the value came out empty ({}, [], "" or null): a required field the caller left unset
/// is not sent, as client-go's apply configurations leave it out, instead of claiming it
/// empty for the caller's field manager.
template <class T>
void write_required(Writer& w, std::string_view key, const T& value) {
  if (!w.partial()) {
    w.key_literal(key);
    write(w, value);
    return;
  }
  const Writer::Mark before = w.mark();
  w.key_literal(key);
  const Writer::Mark value_at = w.mark();
  write(w, value);
  if (w.empty_since(value_at)) {
    w.rewind(before);
  }
}

/// True when a field holding `value` is left out of an object as "absent": an empty optional
/// or Box, an empty list, map or raw value. Generated writers skip such optional fields,
/// as Go's `omitempty` does.
template <class T>
bool is_absent(const T& value) {
  if constexpr (requires { value.has_value(); }) {
    return !value.has_value();
  } else if constexpr (requires { value.empty(); }) {
    return value.empty();
  } else {
    return false;
  }
}

template <>
struct Codec<bool> {
  static void read(Reader& r, bool& v) { v = r.get_bool(); }
  static void write(Writer& w, bool v) { w.boolean(v); }
};

template <>
struct Codec<std::int64_t> {
  static void read(Reader& r, std::int64_t& v) { v = r.get_int64(); }
  static void write(Writer& w, std::int64_t v) { w.int64(v); }
};

template <>
struct Codec<std::int32_t> {
  KUBEX_API static void read(Reader& r, std::int32_t& v);
  static void write(Writer& w, std::int32_t v) { w.int64(v); }
};

template <>
struct Codec<double> {
  static void read(Reader& r, double& v) { v = r.get_double(); }
  static void write(Writer& w, double v) { w.number(v); }
};

template <>
struct Codec<std::string> {
  static void read(Reader& r, std::string& v) { v.assign(r.get_string()); }
  static void write(Writer& w, const std::string& v) { w.string(v); }
};

template <>
struct Codec<RawJson> {
  // JSON null reads as the empty value, which writes as null: a null and an unset required
  // field are one value, so a decode of what was encoded gives back the same object.
  static void read(Reader& r, RawJson& v) {
    v.text = r.get_raw();
    if (v.text == "null") {
      v.text.clear();
    }
  }
  static void write(Writer& w, const RawJson& v) {
    w.raw(v.text.empty() ? std::string_view("null") : v.text.view());
  }
};

template <class T>
struct Codec<std::optional<T>> {
  static void read(Reader& r, std::optional<T>& v) {
    if (r.is_null()) {
      v.reset();
    } else {
      Codec<T>::read(r, v.emplace());
    }
  }
  static void write(Writer& w, const std::optional<T>& v) {
    if (v) {
      Codec<T>::write(w, *v);
    } else {
      w.null();
    }
  }
};

template <class T>
struct Codec<Box<T>> {
  static void read(Reader& r, Box<T>& v) {
    if (r.is_null()) {
      v.reset();
    } else {
      Codec<T>::read(r, v.ensure());
    }
  }
  static void write(Writer& w, const Box<T>& v) {
    if (v) {
      Codec<T>::write(w, *v);
    } else {
      w.null();
    }
  }
};

namespace detail {

// Reads an array's elements onto the back of `items`, a std::vector.
template <class T>
void read_elements(Reader& r, std::vector<T>& items) {
  if constexpr (std::is_same_v<T, bool>) {
    // std::vector<bool> has no bool& to read into (DRA device attributes use lists of bools).
    r.for_each_element([&items](Reader& e) {
      bool element = false;
      Codec<bool>::read(e, element);
      items.push_back(element);
    });
  } else {
    r.for_each_element([&items](Reader& e) { Codec<T>::read(e, items.emplace_back()); });
  }
}

// Writes a list (std::vector or Vector) of T.
template <class T, class List>
void write_array(Writer& w, const List& v) {
  w.begin_array();
  for (const auto& e : v) {
    Codec<T>::write(w, e);
  }
  w.end_array();
}

// Writes a string-keyed map (std::map or Map) of T.
template <class T, class Entries>
void write_object(Writer& w, const Entries& v) {
  w.begin_object();
  for (const auto& [key, e] : v) {
    w.key(std::string_view(key));
    Codec<T>::write(w, e);
  }
  w.end_object();
}

}  // namespace detail

template <class T>
struct Codec<std::vector<T>> {
  static void read(Reader& r, std::vector<T>& v) {
    v.clear();
    if (!r.is_null()) {
      detail::read_elements(r, v);
    }
  }
  static void write(Writer& w, const std::vector<T>& v) { detail::write_array<T>(w, v); }
};

template <class T>
struct Codec<std::map<std::string, T>> {
  static void read(Reader& r, std::map<std::string, T>& v) {
    v.clear();
    if (r.is_null()) {
      return;
    }
    r.for_each_field(
        [&v](std::string_view key, Reader& e) { Codec<T>::read(e, v[std::string(key)]); });
  }
  static void write(Writer& w, const std::map<std::string, T>& v) { detail::write_object<T>(w, v); }
};

// kubex's compact containers, which the generated models hold. A decoded list or map is
// gathered in a scratch std::vector that the thread reuses, then moved into storage of its
// exact size in the decode's Arena: nothing a growing vector outgrew is left behind.
namespace detail {

// A scratch vector of T for one decode; taken from the thread's spare and given back after,
// unless it grew past 64 KiB (a list of hundreds of items keeps no memory for later).
template <class T>
class Scratch {
 public:
  Scratch() : items_(std::move(spare())) { items_.clear(); }
  ~Scratch() {
    items_.clear();
    if (items_.capacity() * sizeof(T) <= (std::size_t{64} << 10)) {
      spare() = std::move(items_);
    }
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::vector<T>& items() noexcept { return items_; }

 private:
  static std::vector<T>& spare() {
    thread_local std::vector<T> s;
    return s;
  }
  std::vector<T> items_;
};

}  // namespace detail

template <>
struct Codec<String> {
  static void read(Reader& r, String& v) { v.assign(r.get_string()); }
  static void write(Writer& w, const String& v) { w.string(v.view()); }
};

template <class T>
struct Codec<Vector<T>> {
  static void read(Reader& r, Vector<T>& v) {
    if (r.is_null()) {
      v.clear();
      return;
    }
    detail::Scratch<T> scratch;
    detail::read_elements(r, scratch.items());
    v.assign_moved(scratch.items());
  }
  static void write(Writer& w, const Vector<T>& v) { detail::write_array<T>(w, v); }
};

template <class T>
struct Codec<Map<String, T>> {
  static void read(Reader& r, Map<String, T>& v) {
    if (r.is_null()) {
      v.clear();
      return;
    }
    detail::Scratch<std::pair<String, T>> scratch;
    auto& entries = scratch.items();
    r.for_each_field([&entries](std::string_view key, Reader& e) {
      auto& entry = entries.emplace_back(String(key), T{});
      Codec<T>::read(e, entry.second);
    });
    v.assign_moved(entries);
  }
  static void write(Writer& w, const Map<String, T>& v) { detail::write_object<T>(w, v); }
};

/// Writes unknown fields back after the known ones.
inline void write_unknown(Writer& w, const UnknownFields& unknown) {
  for (const auto& [name, value] : unknown.fields()) {
    w.key(name);
    w.raw(value.text.view());
  }
}

namespace detail {
using DecodeFn = void (*)(Reader&, void*);
// `depth`: the levels of arrays and objects around the document, counted against the nesting
// limit (a list's item decoded on its own sits at depth 2).
KUBEX_API void decode(std::string_view json, bool padded, void* out, DecodeFn fn,
                      std::size_t depth = 0);
}  // namespace detail

/// Decodes a JSON document into `out`, replacing its contents. The document must be one
/// JSON object or array (RFC 8259: UTF-8 without a byte order mark, nothing after the value),
/// nested at most 1024 levels; raw values and unknown fields are checked as strictly as typed
/// ones, so whatever is decoded encodes back to valid JSON.
/// @throws DecodeError naming the path of the first value that does not fit.
template <class T>
void decode(std::string_view json, T& out) {
  detail::decode(json, false, &out, [](Reader& r, void* o) { read(r, *static_cast<T*>(o)); });
}
/// Decodes a JSON document held in a string with at least 64 bytes of spare capacity after
/// its end, which saves a copy (simdjson reads past the end in blocks).
template <class T>
void decode_padded(const std::string& json, T& out) {
  detail::decode(json, json.capacity() - json.size() >= 64, &out,
                 [](Reader& r, void* o) { read(r, *static_cast<T*>(o)); });
}
/// Decodes a JSON document into a new T.
template <class T>
T decode(std::string_view json) {
  T out{};
  decode(json, out);
  return out;
}
/// Encodes `value` as compact JSON, appended to `out`; Mode::partial leaves out the required
/// fields left empty (server-side apply).
template <class T>
void encode(const T& value, std::string& out, Writer::Mode mode = Writer::Mode::full) {
  Writer w(out, mode);
  write(w, value);
}
/// Encodes `value` as compact JSON.
template <class T>
std::string encode(const T& value) {
  std::string out;
  encode(value, out);
  return out;
}

}  // namespace kubex::json
