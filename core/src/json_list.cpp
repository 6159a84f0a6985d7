// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/json_list.hpp>

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kubex::json {

namespace {

bool is_ws(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// The first byte in [p, end) that is one of `chars` (at most five), or end. Most of a list's
// bytes are inside strings and items, where only a few bytes matter: SSE2 (part of x86-64)
// tests sixteen at a time.
template <char... Chars>
const char* find_any(const char* p, const char* end) {
#if defined(__SSE2__)
  while (end - p >= 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hits = _mm_setzero_si128();
    ((hits = _mm_or_si128(hits, _mm_cmpeq_epi8(block, _mm_set1_epi8(Chars)))), ...);
    if (const int mask = _mm_movemask_epi8(hits); mask != 0) {
      return p + __builtin_ctz(static_cast<unsigned>(mask));
    }
    p += 16;
  }
#endif
  while (p < end && ((*p != Chars) && ...)) {
    ++p;
  }
  return p;
}

// Whether a key's text (between its quotes) names "items", escapes decoded: only escapes can
// spell it another way (`it\u0065ms`).
bool names_items(std::string_view key) {
  if (key.find('\\') == std::string_view::npos) {
    return key == "items";
  }
  std::string decoded;
  for (std::size_t i = 0; i < key.size() && decoded.size() <= 5; ++i) {
    if (key[i] != '\\') {
      decoded.push_back(key[i]);
      continue;
    }
    if (i + 5 >= key.size() || key[i + 1] != 'u') {
      return false;  // \n, \" and the like are no letters of "items"
    }
    unsigned value = 0;
    for (std::size_t k = i + 2; k < i + 6; ++k) {
      const char h = key[k];
      const unsigned digit = h >= '0' && h <= '9'   ? static_cast<unsigned>(h - '0')
                             : h >= 'a' && h <= 'f' ? static_cast<unsigned>(h - 'a' + 10)
                             : h >= 'A' && h <= 'F' ? static_cast<unsigned>(h - 'A' + 10)
                                                    : 16U;
      if (digit > 15) {
        return false;
      }
      value = value * 16 + digit;
    }
    if (value > 0x7f) {
      return false;
    }
    decoded.push_back(static_cast<char>(value));
    i += 5;
  }
  return decoded == "items";
}

#if defined(__SSE2__)
// Where the bytes that matter inside an item lie in a 64-byte block: bit k for byte k.
struct BlockMasks {
  std::uint64_t quote = 0;
  std::uint64_t backslash = 0;
  std::uint64_t open = 0;   // '{' and '['
  std::uint64_t close = 0;  // '}' and ']'
};

BlockMasks block_masks(const char* p) {
  BlockMasks m;
  for (unsigned part = 0; part < 4; ++part) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * part));
    auto bits = [part](__m128i hits) {
      return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(hits)))
             << (16 * part);
    };
    auto is = [&v](char c) {
      return _mm_cmpeq_epi8(v, _mm_set1_epi8(c));
    };
    m.quote |= bits(is('"'));
    m.backslash |= bits(is('\\'));
    m.open |= bits(_mm_or_si128(is('{'), is('[')));
    m.close |= bits(_mm_or_si128(is('}'), is(']')));
  }
  return m;
}

// Bit k: the parity of the set bits 0..k, i.e. whether byte k lies after an odd number of
// quotes (inside a string, its opening quote included).
std::uint64_t prefix_parity(std::uint64_t x) {
  x ^= x << 1U;
  x ^= x << 2U;
  x ^= x << 4U;
  x ^= x << 8U;
  x ^= x << 16U;
  x ^= x << 32U;
  return x;
}
#endif

[[noreturn]] void fail_items(const char* reason) {
  DecodeError err(std::string("invalid JSON: ") + reason);
  err.prepend_field("items");
  throw err;
}

}  // namespace

std::size_t ListSplitter::consumed() const noexcept {
  switch (phase_) {
    case Phase::items:
      return expect_ == Expect::in_element || expect_ == Expect::in_scalar ? element_begin_ : pos_;
    case Phase::tail:
      return items_end_;
    case Phase::head:
    case Phase::unsupported:
      break;
  }
  return 0;
}

void ListSplitter::drop(std::size_t n) noexcept {
  auto shift = [n](std::size_t& offset) {
    offset = offset >= n ? offset - n : 0;
  };
  shift(pos_);
  shift(element_begin_);
  shift(items_end_);
  shift(key_begin_);
  shift(items_begin_);
  shift(slow_until_);
}

std::size_t ListSplitter::scan_item_blocks(std::string_view text, std::size_t i,
                                           std::vector<Element>& out) {
#if defined(__SSE2__)
  // Most of a list is inside its items, where only brackets outside strings count: a block of
  // 64 bytes is classified at once, and only its brackets are visited one by one.
  while (text.size() - i >= 64) {
    BlockMasks m = block_masks(text.data() + i);
    // A run of backslashes at the block's end may escape the next block's first byte: the
    // block ends before the run instead, and the next one starts with it.
    unsigned limit = 64;
    if ((m.backslash >> 63U) != 0) {
      if (m.backslash == ~std::uint64_t{0}) {
        slow_until_ = i + 64;  // 64 backslashes: byte by byte
        return i;
      }
      limit = 64 - static_cast<unsigned>(__builtin_clzll(~m.backslash));
      const std::uint64_t keep = (std::uint64_t{1} << limit) - 1;  // limit < 64 here
      m.quote &= keep;
      m.backslash &= keep;
      m.open &= keep;
      m.close &= keep;
    }
    // A quote after an odd run of backslashes is escaped and does not end the string.
    std::uint64_t escaped = 0;
    for (std::uint64_t runs = m.backslash; runs != 0;) {
      const auto start = static_cast<unsigned>(__builtin_ctzll(runs));
      const auto length = static_cast<unsigned>(__builtin_ctzll(~(runs >> start)));
      if ((length & 1U) != 0) {
        escaped |= std::uint64_t{1} << (start + length);  // < limit: runs are maximal
      }
      runs &= ~(((std::uint64_t{1} << length) - 1) << start);
    }
    std::uint64_t inside = prefix_parity(m.quote & ~escaped);
    if (in_string_) {
      inside = ~inside;
    }
    for (std::uint64_t brackets = (m.open | m.close) & ~inside; brackets != 0;
         brackets &= brackets - 1) {
      const auto k = static_cast<unsigned>(__builtin_ctzll(brackets));
      if ((m.open >> k) & 1U) {
        ++depth_;
      } else if (--depth_ == 2) {
        out.push_back({element_begin_, i + k + 1});
        expect_ = Expect::separator;
        in_string_ = false;
        return i + k + 1;
      }
    }
    in_string_ = ((inside >> (limit - 1)) & 1U) != 0;
    string_depth_ = depth_;
    i += limit;
  }
#else
  (void)text;
  (void)out;
#endif
  return i;
}

void ListSplitter::scan(std::string_view text, std::vector<Element>& out) {
  const char* const base = text.data();
  const char* const end = base + text.size();
  std::size_t i = pos_;
  while (i < text.size() && phase_ != Phase::unsupported) {
    if (phase_ == Phase::items && depth_ > 2 && i >= slow_until_ && text.size() - i >= 64) {
      if (const std::size_t next = scan_item_blocks(text, i, out); next != i) {
        i = next;
        continue;
      }
    }
    if (in_string_) {
      const char* p = find_any<'"', '\\'>(base + i, end);
      i = static_cast<std::size_t>(p - base);
      if (p == end) {
        break;
      }
      if (*p == '\\') {
        if (i + 1 == text.size()) {
          break;  // the escaped byte has not arrived: resume at the backslash
        }
        i += 2;
        continue;
      }
      in_string_ = false;
      if (phase_ == Phase::items && string_depth_ == 2) {
        out.push_back({element_begin_, i + 1});
        expect_ = Expect::separator;
      } else if (reading_key_) {
        reading_key_ = false;
        expect_key_ = false;
        const std::string_view key = text.substr(key_begin_, i - key_begin_);
        key_is_items_ = names_items(key);
        if (key_is_items_ && phase_ == Phase::head && key != "items") {
          phase_ = Phase::unsupported;  // spelled with escapes: decoded whole
        }
      }
      ++i;
      continue;
    }
    if (phase_ == Phase::items && depth_ > 2) {
      // Inside an item only quotes and brackets matter; the item's decoder checks the rest.
      const char* p = find_any<'"', '{', '}', '[', ']'>(base + i, end);
      i = static_cast<std::size_t>(p - base);
      if (p == end) {
        break;
      }
    }
    structural(text, i, out);
    ++i;
  }
  pos_ = i;
}

void ListSplitter::structural(std::string_view text, std::size_t i, std::vector<Element>& out) {
  const char c = text[i];
  if (phase_ == Phase::items && depth_ > 2) {
    if (c == '"') {
      in_string_ = true;
      string_depth_ = depth_;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (--depth_ == 2) {  // '}' or ']'
      out.push_back({element_begin_, i + 1});
      expect_ = Expect::separator;
    }
    return;
  }
  if (phase_ == Phase::items) {
    items_byte(c, i, out);
    return;
  }
  if (is_ws(c)) {
    return;
  }
  if (depth_ == 0) {
    if (phase_ == Phase::head) {
      if (c == '{') {
        depth_ = 1;
        expect_key_ = true;
      } else {
        phase_ = Phase::unsupported;  // not an object: decoded whole
      }
    }
    return;  // after the object: the decoder of the rest reports it
  }
  if (depth_ == 1 && await_value_) {
    await_value_ = false;
    if (key_is_items_) {
      if (phase_ == Phase::tail) {
        // The bytes of the first array are gone; json::decode would keep the last one.
        DecodeError err("the key appears twice in the list");
        err.prepend_field("items");
        throw err;
      }
      if (c != '[') {
        phase_ = Phase::unsupported;  // null or not an array: decoded whole
        return;
      }
      phase_ = Phase::items;
      depth_ = 2;
      items_begin_ = i + 1;
      expect_ = Expect::element_or_end;
      return;
    }
  }
  switch (c) {
    case '"':
      in_string_ = true;
      string_depth_ = depth_;
      if (depth_ == 1 && expect_key_) {
        reading_key_ = true;
        key_begin_ = i + 1;
      }
      break;
    case '{':
    case '[':
      ++depth_;
      break;
    case '}':
    case ']':
      --depth_;
      break;
    case ',':
      expect_key_ = depth_ == 1;
      break;
    case ':':
      await_value_ = depth_ == 1;
      break;
    default:
      break;  // inside a scalar
  }
}

void ListSplitter::items_byte(char c, std::size_t i, std::vector<Element>& out) {
  if (expect_ == Expect::in_scalar) {
    if (!is_ws(c) && std::strchr(",]}{[\":", c) == nullptr) {
      return;  // still the scalar (its decoder checks it)
    }
    out.push_back({element_begin_, i});
    expect_ = Expect::separator;
  }
  if (is_ws(c)) {
    return;
  }
  switch (expect_) {
    case Expect::separator:
      if (c == ',') {
        expect_ = Expect::element;
      } else if (c == ']') {
        close_items(i);
      } else {
        fail_items("expected ',' or ']' after an item");
      }
      return;
    case Expect::element_or_end:
      if (c == ']') {
        close_items(i);
        return;
      }
      [[fallthrough]];
    case Expect::element:
      if (c == ',' || c == ']' || c == '}' || c == ':') {
        fail_items("expected an item");
      }
      element_begin_ = i;
      if (c == '{' || c == '[') {
        depth_ = 3;
        expect_ = Expect::in_element;
      } else if (c == '"') {
        in_string_ = true;
        string_depth_ = 2;
        expect_ = Expect::in_element;
      } else {
        expect_ = Expect::in_scalar;
      }
      return;
    case Expect::in_element:
    case Expect::in_scalar:
      return;  // not reached: handled by the caller and above
  }
}

void ListSplitter::close_items(std::size_t i) {
  phase_ = Phase::tail;
  depth_ = 1;
  items_end_ = i;
  expect_key_ = false;
}

}  // namespace kubex::json
