// SPDX-License-Identifier: Apache-2.0
// The reflector's Store with events applied by hand: the initial state swapped in whole,
// changes and deletions, indexes kept current, readers on other threads, objects that outlive
// their removal.

#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/runtime/store.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace core = kubex::k8s::v1_35::core::v1;
using kubex::runtime::Store;
using kubex::runtime::WatcherEvent;
using kubex::runtime::WatcherEventType;
using namespace std::chrono_literals;

core::ConfigMap cm(const std::string& ns, const std::string& name, const std::string& rv,
                   const std::string& app = "") {
  core::ConfigMap c;
  if (!ns.empty()) {
    c.metadata.namespace_ = ns;
  }
  c.metadata.name = name;
  c.metadata.resource_version = rv;
  if (!app.empty()) {
    c.metadata.labels["app"] = app;
  }
  return c;
}

WatcherEvent<core::ConfigMap> ev(WatcherEventType type, core::ConfigMap c = {}) {
  return {type, std::move(c)};
}

void relist(Store<core::ConfigMap>& store, const std::vector<core::ConfigMap>& objects) {
  store.apply(ev(WatcherEventType::init));
  for (const auto& o : objects) {
    store.apply(ev(WatcherEventType::init_apply, o));
  }
  store.apply(ev(WatcherEventType::init_done));
}

std::vector<std::string> names(const std::vector<Store<core::ConfigMap>::object_ptr>& objects) {
  std::vector<std::string> out;
  for (const auto& o : objects) {
    out.push_back(o->metadata.name.value_or(""));
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(store_test, the_initial_state_appears_whole_at_init_done) {
  Store<core::ConfigMap> store;
  store.apply(ev(WatcherEventType::init));
  store.apply(ev(WatcherEventType::init_apply, cm("ns", "a", "1")));
  store.apply(ev(WatcherEventType::init_apply, cm("ns", "b", "2")));
  EXPECT_EQ(store.size(), 0U);
  EXPECT_FALSE(store.ready());
  store.apply(ev(WatcherEventType::init_done));
  EXPECT_TRUE(store.ready());
  EXPECT_EQ(names(store.list()), (std::vector<std::string>{"a", "b"}));
  ASSERT_NE(store.get("ns/a"), nullptr);
  EXPECT_EQ(store.get("ns/a")->metadata.resource_version, "1");
  EXPECT_EQ(store.get("a"), nullptr);  // keys carry the namespace
}

TEST(store_test, a_relist_replaces_the_old_state_only_when_complete) {
  Store<core::ConfigMap> store;
  relist(store, {cm("ns", "a", "1"), cm("ns", "b", "2")});
  store.apply(ev(WatcherEventType::init));
  store.apply(ev(WatcherEventType::init_apply, cm("ns", "b", "5")));
  store.apply(ev(WatcherEventType::init_apply, cm("ns", "c", "6")));
  EXPECT_EQ(names(store.list()), (std::vector<std::string>{"a", "b"}));  // still the old state
  store.apply(ev(WatcherEventType::init_done));
  EXPECT_EQ(names(store.list()), (std::vector<std::string>{"b", "c"}));  // a was deleted meanwhile
  EXPECT_EQ(store.get("ns/b")->metadata.resource_version, "5");
}

TEST(store_test, changes_and_deletions_keep_the_indexes_current) {
  Store<core::ConfigMap> store;
  store.add_index("app", [](const core::ConfigMap& c) {
    const auto it = c.metadata.labels.find("app");
    return it == c.metadata.labels.end() ? std::vector<std::string>{}
                                         : std::vector<std::string>{it->second};
  });
  relist(store,
         {cm("one", "a", "1", "web"), cm("one", "b", "2", "db"), cm("two", "c", "3", "web")});
  EXPECT_EQ(names(store.by_index("app", "web")), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(names(store.by_index("namespace", "one")), (std::vector<std::string>{"a", "b"}));
  store.apply(ev(WatcherEventType::apply, cm("one", "a", "4", "db")));  // moves a to db
  EXPECT_EQ(names(store.by_index("app", "web")), (std::vector<std::string>{"c"}));
  EXPECT_EQ(names(store.by_index("app", "db")), (std::vector<std::string>{"a", "b"}));
  store.apply(ev(WatcherEventType::deleted, cm("one", "b", "5", "db")));
  EXPECT_EQ(names(store.by_index("app", "db")), (std::vector<std::string>{"a"}));
  EXPECT_EQ(names(store.by_index("namespace", "one")), (std::vector<std::string>{"a"}));
  store.apply(ev(WatcherEventType::apply, cm("two", "d", "6", "web")));  // a new one
  EXPECT_EQ(names(store.by_index("app", "web")), (std::vector<std::string>{"c", "d"}));
  EXPECT_TRUE(store.by_index("app", "cache").empty());
  EXPECT_TRUE(store.by_index("no-such-index", "web").empty());
  // An index added later covers what is stored already.
  store.add_index("name", [](const core::ConfigMap& c) {
    return std::vector<std::string>{c.metadata.name.value_or("")};
  });
  EXPECT_EQ(names(store.by_index("name", "d")), (std::vector<std::string>{"d"}));
}

TEST(store_test, a_cluster_scoped_object_is_keyed_by_name_alone) {
  Store<core::ConfigMap> store;
  relist(store, {cm("", "global", "1")});
  ASSERT_NE(store.get("global"), nullptr);
  EXPECT_TRUE(store.by_index("namespace", "").empty());
}

TEST(store_test, an_object_handed_out_outlives_its_removal) {
  Store<core::ConfigMap> store;
  relist(store, {cm("ns", "a", "1")});
  const auto held = store.get("ns/a");
  store.apply(ev(WatcherEventType::deleted, cm("ns", "a", "2")));
  relist(store, {});
  EXPECT_EQ(store.get("ns/a"), nullptr);
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->metadata.name, "a");
}

// The reader runs against the writer, not after it: each relist waits (bounded) until the reader
// has read while the first half of the relist was received, while the second half was, and
// after it was swapped in, and starts each swap while a read is under way. A phase counter, read
// before and after each read, says which of these a read fell in whole: during a relist the old
// state must be seen exactly, after it the new one, and a read that overlapped the swap itself one
// whole state or the other.
TEST(store_test, readers_on_other_threads_see_one_whole_state_or_the_other) {
  Store<core::ConfigMap> store;
  std::vector<core::ConfigMap> left;
  std::vector<core::ConfigMap> right;
  for (int i = 0; i < 200; ++i) {
    left.push_back(cm("ns", "left-" + std::to_string(i), "1"));
    right.push_back(cm("ns", "right-" + std::to_string(i), "2"));
  }
  relist(store, left);
  constexpr int rounds = 50;
  // Phases of relist r: 4r+1 its first half being received, 4r+2 its second half, 4r+3 its
  // init_done being applied, 4r+4 swapped in.
  std::atomic<int> phase{0};
  std::atomic<int> seen{-1};     // the last phase a read fell in whole
  std::atomic<int> started{-1};  // the phase the last read started in
  std::atomic<bool> stop{false};
  std::atomic<int> mixed{0};
  std::atomic<int> wrong{0};
  std::atomic<int> during{0};
  std::atomic<int> swaps_overlapped{0};
  // 1 for all left, 2 for all right, 0 for anything else.
  const auto state_of = [](const std::vector<Store<core::ConfigMap>::object_ptr>& all) {
    const auto lefts = std::count_if(all.begin(), all.end(), [](const auto& o) {
      return o->metadata.name->starts_with("left-");
    });
    if (all.size() != 200 || (lefts != 0 && lefts != 200)) {
      return 0;
    }
    return lefts == 200 ? 1 : 2;
  };
  // Relist r (from 0) brings right when r is even, left when odd.
  const auto before_relist = [](int r) {
    return r % 2 == 0 ? 1 : 2;
  };
  std::thread reader([&] {
    while (!stop) {
      const int p1 = phase.load();
      started = p1;
      const int state = state_of(store.list());
      const int p2 = phase.load();
      if (state == 0) {
        ++mixed;
      }
      if (p1 != p2 || p1 == 0) {
        continue;
      }
      const int r = (p1 - 1) / 4;
      switch (p1 - 4 * r) {
        case 1:
        case 2:  // being received: the old state, exactly
          ++during;
          wrong += state != before_relist(r) ? 1 : 0;
          break;
        case 3:  // being swapped in: either whole state (mixed counts the rest)
          ++swaps_overlapped;
          break;
        default:  // swapped in: the new state
          wrong += state == before_relist(r) ? 1 : 0;
          break;
      }
      seen = p1;
    }
  });
  // Waits (bounded) until the reader read within the current phase.
  const auto read_now = [&] {
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (seen.load() < phase.load()) {
      if (std::chrono::steady_clock::now() > until) {
        return false;
      }
      std::this_thread::yield();
    }
    return true;
  };
  bool overlapped = true;
  for (int r = 0; r < rounds && overlapped; ++r) {
    const auto& next = r % 2 == 0 ? right : left;
    phase = 4 * r + 1;
    store.apply(ev(WatcherEventType::init));
    for (std::size_t i = 0; i < next.size(); ++i) {
      if (i == next.size() / 2) {
        overlapped = overlapped && read_now();
        phase = 4 * r + 2;
      }
      store.apply(ev(WatcherEventType::init_apply, next[i]));
    }
    overlapped = overlapped && read_now();
    phase = 4 * r + 3;
    // The swap starts while the reader is reading.
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (started.load() < phase.load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::yield();
    }
    store.apply(ev(WatcherEventType::init_done));
    phase = 4 * r + 4;
    overlapped = overlapped && read_now();
  }
  stop = true;
  reader.join();
  ASSERT_TRUE(overlapped) << "the reader did not read within 10 s";
  EXPECT_GE(during, 2 * rounds);  // at least two reads within each relist
  EXPECT_EQ(mixed, 0);
  EXPECT_EQ(wrong, 0);
  std::printf("reads while a relist was received: %d; overlapping a swap: %d\n", during.load(),
              swaps_overlapped.load());
}

TEST(store_test, wait_until_ready_waits_for_the_first_initial_state) {
  Store<core::ConfigMap> store;
  EXPECT_FALSE(store.wait_until_ready(10ms));
  std::thread writer([&store] {
    std::this_thread::sleep_for(50ms);
    relist(store, {cm("ns", "a", "1")});
  });
  EXPECT_TRUE(store.wait_until_ready(10s));
  writer.join();
  EXPECT_EQ(store.size(), 1U);
}

}  // namespace
