// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/protobuf.hpp>

#include <bit>
#include <cstring>

namespace kubex::protobuf {
namespace {

const char* type_name(WireType type) noexcept {
  switch (type) {
    case WireType::varint:
      return "varint";
    case WireType::fixed64:
      return "fixed64";
    case WireType::bytes:
      return "length-delimited";
    case WireType::fixed32:
      return "fixed32";
  }
  return "unknown";
}

template <class T>
T load_le(const char* p) noexcept {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    v |= static_cast<T>(static_cast<T>(static_cast<unsigned char>(p[i])) << (8U * i));
  }
  return v;
}

template <class T>
void store_le(std::string& out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    out.push_back(static_cast<char>(static_cast<unsigned char>(v >> (8U * i))));
  }
}

}  // namespace

DecodeError::DecodeError(const std::string& reason)
    : Error(errc::invalid_protobuf, "invalid protobuf: " + reason) {}

void Reader::fail(const std::string& what) const {
  throw DecodeError(what + " at byte " + std::to_string(origin_ + pos_));
}

std::uint64_t Reader::read_varint_checked(const char* what) {
  std::uint64_t value = 0;
  for (unsigned i = 0; i < 10; ++i) {
    if (pos_ == data_.size()) {
      fail(std::string("truncated ") + what);
    }
    const auto byte = static_cast<unsigned char>(data_[pos_]);
    if (i == 9 && byte > 1) {
      fail(std::string(what) + " overflows 64 bits");
    }
    ++pos_;
    value |= static_cast<std::uint64_t>(byte & 0x7FU) << (7U * i);
    if (byte < 0x80U) {
      return value;
    }
  }
  fail(std::string(what) + " longer than 10 bytes");
}

bool Reader::next_checked() {
  if (pending_) {
    skip();
  }
  if (pos_ == data_.size()) {
    return false;
  }
  field_start_ = pos_;
  const std::uint64_t key = read_varint("field key");
  const std::uint64_t number = key >> 3U;
  const auto type = static_cast<unsigned>(key & 7U);
  if (number == 0 || number > max_field_number) {
    pos_ = field_start_;
    fail("field number " + std::to_string(number) + " out of range");
  }
  if (type != 0 && type != 1 && type != 2 && type != 5) {
    pos_ = field_start_;
    fail("field " + std::to_string(number) + " has wire type " + std::to_string(type) +
         (type == 3 || type == 4 ? " (a group, which Kubernetes does not use)" : ""));
  }
  field_ = static_cast<std::uint32_t>(number);
  type_ = static_cast<WireType>(type);
  pending_ = true;
  return true;
}

void Reader::wrong_type(WireType type) const {
  if (!pending_) {
    fail("no field to read");
  }
  fail("field " + std::to_string(field_) + " is " + type_name(type_) + ", expected " +
       type_name(type));
}

void Reader::length_past_end(std::size_t at, std::uint64_t length) {
  const std::size_t left = data_.size() - pos_;
  pos_ = at;
  fail("field " + std::to_string(field_) + " claims " + std::to_string(length) + " bytes, but " +
       std::to_string(left) + " are left");
}

void Reader::too_deep() const {
  fail("messages nested deeper than " + std::to_string(max_depth));
}

std::int64_t Reader::int64() {
  return static_cast<std::int64_t>(uint64());
}

std::int32_t Reader::int32() {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(uint64() & 0xFFFFFFFFU));
}

void Reader::packed_varints(std::vector<std::uint64_t>& out) {
  expect(WireType::bytes);
  const std::uint64_t length = read_varint("length");
  if (length > data_.size() - pos_) {
    fail("packed field " + std::to_string(field_) + " claims " + std::to_string(length) +
         " bytes, but " + std::to_string(data_.size() - pos_) + " are left");
  }
  const std::size_t end = pos_ + static_cast<std::size_t>(length);
  const std::string_view whole = data_;
  data_ = whole.substr(0, end);  // a varint must not run past the packed run
  try {
    while (pos_ < end) {
      out.push_back(read_varint("packed varint"));
    }
  } catch (...) {
    data_ = whole;
    throw;
  }
  data_ = whole;
}

bool Reader::boolean() {
  return uint64() != 0;
}

std::int64_t Reader::sint64() {
  const std::uint64_t v = uint64();
  return static_cast<std::int64_t>(v >> 1U) ^ -static_cast<std::int64_t>(v & 1U);
}

std::uint64_t Reader::fixed64() {
  expect(WireType::fixed64);
  if (data_.size() - pos_ < 8) {
    fail("truncated fixed64 of field " + std::to_string(field_));
  }
  const auto v = load_le<std::uint64_t>(data_.data() + pos_);
  pos_ += 8;
  return v;
}

std::uint32_t Reader::fixed32() {
  expect(WireType::fixed32);
  if (data_.size() - pos_ < 4) {
    fail("truncated fixed32 of field " + std::to_string(field_));
  }
  const auto v = load_le<std::uint32_t>(data_.data() + pos_);
  pos_ += 4;
  return v;
}

double Reader::float64() {
  return std::bit_cast<double>(fixed64());
}

void Reader::skip() {
  switch (type_) {
    case WireType::varint:
      (void)uint64();
      return;
    case WireType::fixed64:
      (void)fixed64();
      return;
    case WireType::bytes:
      (void)bytes();
      return;
    case WireType::fixed32:
      (void)fixed32();
      return;
  }
}

void append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80U) {
    out.push_back(static_cast<char>(static_cast<unsigned char>(value | 0x80U)));
    value >>= 7U;
  }
  out.push_back(static_cast<char>(static_cast<unsigned char>(value)));
}

void Writer::key(std::uint32_t field, WireType type) {
  if (field == 0 || field > max_field_number) {
    throw Error(errc::invalid_argument,
                "protobuf field number " + std::to_string(field) + " out of range");
  }
  varint((static_cast<std::uint64_t>(field) << 3U) | static_cast<std::uint64_t>(type));
}

void Writer::varint(std::uint64_t value) {
  append_varint(out_, value);
}

void Writer::uint64(std::uint32_t field, std::uint64_t value) {
  key(field, WireType::varint);
  varint(value);
}

void Writer::sint64(std::uint32_t field, std::int64_t value) {
  uint64(field, (static_cast<std::uint64_t>(value) << 1U) ^
                    static_cast<std::uint64_t>(value >> 63));  // arithmetic shift: all ones or 0
}

void Writer::fixed64(std::uint32_t field, std::uint64_t value) {
  key(field, WireType::fixed64);
  store_le(out_, value);
}

void Writer::fixed32(std::uint32_t field, std::uint32_t value) {
  key(field, WireType::fixed32);
  store_le(out_, value);
}

void Writer::float64(std::uint32_t field, double value) {
  fixed64(field, std::bit_cast<std::uint64_t>(value));
}

void Writer::bytes(std::uint32_t field, std::string_view value) {
  key(field, WireType::bytes);
  varint(value.size());
  out_.append(value);
}

void Writer::close_message(std::size_t at) {
  const std::size_t length = out_.size() - at - 1;
  if (length < 0x80U) {
    out_[at] = static_cast<char>(length);
    return;
  }
  std::string prefix;
  append_varint(prefix, length);
  out_.insert(at + 1, prefix.size() - 1, '\0');
  std::memcpy(out_.data() + at, prefix.data(), prefix.size());
}

}  // namespace kubex::protobuf
