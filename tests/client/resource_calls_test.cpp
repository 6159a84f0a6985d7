// SPDX-License-Identifier: Apache-2.0
// What the blocking and the asynchronous API share, without I/O: LineItems (the lines of a
// streamed body) and ResourceCalls (the request of each verb). Included first, the blocking
// API must not bring in Asio: that is what keeps a blocking program cheap to compile
// (benchmarks/results/client-build.md).
#include <kubex/client/blocking_api.hpp>
#ifdef BOOST_ASIO_DETAIL_CONFIG_HPP
#error "kubex/client/blocking_api.hpp includes Asio; the blocking API must compile without it"
#endif

#include <kubex/core/custom_resource.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/failure.hpp>
#include <kubex/core/json_object.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace {

using kubex::client::ResourceCalls;
using kubex::client::detail::LineItems;

// Lines as they are; a line "bad" throws, as a malformed watch event does.
struct Echo {
  std::optional<std::string> operator()(std::string_view line) const {
    if (line == "bad") {
      throw std::runtime_error("bad line");
    }
    if (line.empty()) {
      return std::nullopt;  // skipped
    }
    return std::string(line);
  }
};

// Feeds `pieces` one at a time, as reads would, and collects every item up to the end.
std::vector<std::string> read_all(const std::vector<std::string>& pieces) {
  LineItems<std::string, Echo> items;
  std::vector<std::string> out;
  std::size_t next = 0;
  for (;;) {
    std::optional<std::string> item;
    if (!items.take(item)) {
      if (next == pieces.size()) {
        items.end();
      } else {
        items.buffer().append(pieces[next++]);
      }
      continue;
    }
    if (!item) {
      return out;
    }
    out.push_back(*item);
  }
}

TEST(LineItems, lines_split_across_reads_with_crlf_and_a_last_line_without_newline) {
  EXPECT_EQ(read_all({"one\ntw", "o\r\n", "\n", "thr", "ee"}),
            (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_EQ(read_all({"a\n", "b\n"}), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(read_all({}).empty());
  EXPECT_TRUE(read_all({"\n\r\n"}).empty());
}

TEST(LineItems, a_line_that_fails_to_parse_is_consumed_and_the_stream_goes_on) {
  LineItems<std::string, Echo> items;
  items.buffer() = "bad\nok\n";
  std::optional<std::string> item;
  EXPECT_THROW((void)items.take(item), std::runtime_error);
  ASSERT_TRUE(items.take(item));
  EXPECT_EQ(item, "ok");
  EXPECT_FALSE(items.take(item));  // needs more bytes
  items.end();
  ASSERT_TRUE(items.take(item));
  EXPECT_FALSE(item);  // the end
}

TEST(LineItems, a_line_over_the_limit_fails_as_soon_as_it_is_too_long_and_for_good) {
  LineItems<std::string, Echo> items;
  items.limit(8);
  items.buffer() = "12345678\n1234";
  std::optional<std::string> item;
  ASSERT_TRUE(items.take(item));  // exactly the limit is fine
  EXPECT_EQ(item, "12345678");
  EXPECT_FALSE(items.take(item));
  items.buffer().append("56789");  // nine bytes and no newline yet: no need to wait for it
  // Too large, not malformed: its own code, so that a caller can tell the two apart.
  const auto too_large = [&] {
    try {
      (void)items.take(item);
    } catch (const kubex::Error& e) {
      return e.code() == std::errc::message_size &&
             kubex::Failure(std::current_exception()).too_large();
    }
    return false;
  };
  EXPECT_TRUE(too_large());
  EXPECT_TRUE(items.buffer().empty());  // the memory is given back
  items.buffer().append("tail\nnext\n");
  EXPECT_TRUE(too_large());  // what follows is unframed
}

TEST(LineItems, a_complete_line_over_the_limit_fails_too) {
  LineItems<std::string, Echo> items;
  items.limit(4);
  items.buffer() = "ok\ntoo long\n";
  std::optional<std::string> item;
  ASSERT_TRUE(items.take(item));
  EXPECT_EQ(item, "ok");
  try {
    (void)items.take(item);
    FAIL() << "a line over the limit was taken";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), std::errc::message_size);
    EXPECT_STREQ(e.what(), "a line of the stream is longer than its limit of 4 bytes");
  }
}

}  // namespace

namespace shop {

struct Meta {
  std::optional<std::string> name;
  std::optional<std::string> namespace_;
};
KUBEX_JSON_OBJECT(Meta, name, namespace_)

struct WidgetSpec {
  std::string color;
};
KUBEX_JSON_OBJECT(WidgetSpec, color)

// A hand-written custom resource: its Box has no out-of-line hooks (see kubex/core/box.hpp).
struct Widget {
  std::string apiVersion{"example.com/v1"};
  std::string kind{"Widget"};
  Meta metadata;
  kubex::Box<WidgetSpec> spec;
};
KUBEX_JSON_OBJECT(Widget, apiVersion, kind, metadata, spec)

}  // namespace shop

KUBEX_CUSTOM_RESOURCE(shop::Widget, "example.com", "v1", "Widget", "widgets", namespaced);

namespace {

TEST(ResourceCalls, requests_of_a_namespaced_kind) {
  const ResourceCalls<shop::Widget> calls("ns");
  const auto get = calls.get("w");
  EXPECT_EQ(get.method, "GET");
  EXPECT_EQ(get.target, "/apis/example.com/v1/namespaces/ns/widgets/w");
  EXPECT_EQ(calls.get_metadata("w").accept, kubex::accept_metadata);
  EXPECT_EQ(calls.list_metadata({}).accept, kubex::accept_metadata_list);
  EXPECT_NE(calls.watch({}).target.find("watch=true"), std::string::npos);

  shop::Widget w;
  w.metadata.name = "w";
  w.spec.ensure().color = "blue";
  w.apiVersion.clear();  // server-side apply sends apiVersion and kind all the same
  w.kind.clear();
  const auto apply = calls.apply(w, {.field_manager = "me"});
  EXPECT_EQ(apply.method, "PATCH");
  EXPECT_EQ(apply.content_type, "application/apply-patch+yaml");
  EXPECT_NE(apply.body.find(R"("apiVersion":"example.com/v1")"), std::string::npos) << apply.body;
  EXPECT_NE(apply.body.find(R"("kind":"Widget")"), std::string::npos) << apply.body;
  EXPECT_NE(apply.body.find(R"("color":"blue")"), std::string::npos) << apply.body;
  const shop::Widget copy = w;  // Box without hooks: copied and destroyed inline
  EXPECT_EQ(copy.spec->color, "blue");

  w.metadata.name.reset();
  try {
    (void)calls.replace(w, {});
    FAIL() << "a nameless replace was built";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("Widget: metadata.name is required"), std::string::npos);
  }
}

TEST(ResourceCalls, all_namespaces_lists_but_does_not_address_one_object) {
  const ResourceCalls<shop::Widget> calls("");
  EXPECT_EQ(calls.list({}).target, "/apis/example.com/v1/widgets");
  try {
    (void)calls.get("w");
    FAIL() << "a get across all namespaces was built";
  } catch (const kubex::Error& e) {
    EXPECT_EQ(e.code(), kubex::errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("Api<Widget>::all"), std::string::npos) << e.what();
  }
}

}  // namespace
