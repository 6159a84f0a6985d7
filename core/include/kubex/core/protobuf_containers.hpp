// SPDX-License-Identifier: Apache-2.0
// The containers a repeated or map field of a generated model is held in, std's and kubex's
// compact ones alike: the reader and the writer of protobuf fields both dispatch on them.
#pragma once

#include <kubex/core/map.hpp>
#include <kubex/core/string.hpp>
#include <kubex/core/vector.hpp>

#include <map>
#include <string>
#include <vector>

namespace kubex::protobuf::detail {

// The lists a repeated field is held in.
template <class L>
inline constexpr bool is_list = false;
template <class T>
inline constexpr bool is_list<std::vector<T>> = true;
template <class T>
inline constexpr bool is_list<Vector<T>> = true;
// The maps a map field is held in: string keys, as every map of the Kubernetes API has.
template <class M>
inline constexpr bool is_string_map = false;
template <class V>
inline constexpr bool is_string_map<std::map<std::string, V>> = true;
template <class V>
inline constexpr bool is_string_map<Map<String, V>> = true;

/// A list type a repeated field reads into and writes from.
template <class L>
concept list = is_list<L>;
/// A map type a map field reads into and writes from.
template <class M>
concept string_map = is_string_map<M>;

}  // namespace kubex::protobuf::detail
