// SPDX-License-Identifier: Apache-2.0
// detail::SpareBodies: which response buffers the transport keeps for the next responses.
#include "detail/spare_bodies.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

using kubex::client::detail::SpareBodies;

std::string with_capacity(std::size_t n) {
  std::string s;
  s.reserve(n);
  s.assign(n / 2, 'x');  // content is dropped when given
  return s;
}

TEST(SpareBodies, keeps_the_largest_buffers_up_to_its_count_and_cap) {
  SpareBodies spare(2, 1000);
  EXPECT_EQ(spare.take().capacity(), std::string().capacity());  // none kept yet

  spare.give(with_capacity(100));
  spare.give(with_capacity(5000));  // above the cap: dropped
  spare.give(with_capacity(300));
  spare.give(with_capacity(200));  // replaces the 100
  spare.give(with_capacity(50));   // smaller than both: dropped

  const std::string a = spare.take();
  const std::string b = spare.take();
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(b.empty());
  EXPECT_GE(std::max(a.capacity(), b.capacity()), 300U);
  EXPECT_LE(std::max(a.capacity(), b.capacity()), 1000U);
  EXPECT_GE(std::min(a.capacity(), b.capacity()), 200U);
  EXPECT_LT(std::min(a.capacity(), b.capacity()), 300U);
  EXPECT_LT(spare.take().capacity(), 50U);  // empty again
}

}  // namespace
