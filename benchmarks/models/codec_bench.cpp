// SPDX-License-Identifier: Apache-2.0
// Benchmarks of the typed models codec (kubex::json over simdjson On-Demand) on API responses
// captured from testenv's kube-apiserver v1.35.4 (tests/fixtures/v1.35.4, see
// tools/fixtures/capture.sh):
//
//   PodList     podlist-500.json                    500 Running pods, ~2 MB
//   MetaList    partialobjectmetadatalist-100.json  100 PartialObjectMetadata, ~165 KB
//   Pod         pod.json                            one Pod, ~4 KB
//   Pods20      protobuf/pods.json                  20 pods of every kind testenv runs, ~80 KB
//   Pods20Pb    protobuf/pods.pb                    the same list at the same resourceVersion,
//                                                   in protobuf, ~48 KB
//
// For each document the same bytes are loaded once into a std::string with simdjson's padding
// in its capacity, so neither the baseline nor json::decode_padded copies them. Rows:
//
//   BareWalk       simdjson On-Demand, recursive walk over every object field and array element;
//                  every key and string unescaped, every number parsed, every bool/null read.
//                  Nothing is stored. This is the baseline the 2.5x target refers to.
//   DomParse       simdjson DOM parse (tape) of the same bytes, reused parser; context only.
//   TypedDecode    json::decode_padded into a fresh typed object; destroying the objects is
//                  excluded from the time (under PauseTiming), so the row is the decode call
//                  itself, into recently freed memory.
//   TypedDecodeAndFree  the same, destruction of the previous result included.
//   Encode         json::encode(object) -> new std::string (what callers write).
//   EncodeReuse    json::encode(object, out) into a string that keeps its capacity.
//   ProtoDecode    protobuf::decode_object into a fresh typed object, as TypedDecode.
//   ItemsDecode    a list through json::ListDecoder, item by item as the client decodes a list
//                  body (each item its own decode and arena); the body is copied first.
//
// --arena (parsed in main) serves every allocation of the timed decodes from one bump arena,
// reset between batches, whose frees cost nothing: the upper bound of what a model backed by
// a per-list arena would save, in time and in bytes, without changing a model. The counter
// live_bytes/input_byte is the heap one decoded object holds, per byte of its body: glibc's
// bytes in use (headers and rounding included) or, with --arena, the arena's bytes.
//
// The heap is kept between iterations (see main; --malloc=default restores glibc's defaults).
//
// Counters: bytes_per_second (input bytes for decoders, output bytes for encoders),
// items_per_second (pods or objects), allocs/item and alloc_bytes/item (operator new calls counted
// by the replacement below; simdjson's own aligned buffers are allocated once per thread and are
// not in the loop); for the typed decoders, arena_allocs/item, arena_bytes/item and
// arena_unused/item (kubex::arena_stats over one decode: what fills an object's blocks).
#include <kubex/core/arena_stats.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/json_list.hpp>
#include <kubex/core/json_types.hpp>
#include <kubex/core/protobuf_object.hpp>
#include <kubex/k8s/default.hpp>
#include <kubex/k8s/v1_35/core/v1.hpp>
#include <kubex/k8s/v1_35/meta/v1.hpp>

#include <benchmark/benchmark.h>
#include <malloc.h>
#include <simdjson.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

// --- allocation counting ----------------------------------------------------------------------
// Replaces the global operator new/delete of this program. The counters are thread-local (the
// benchmarks are single-threaded) and cost one TLS increment per allocation. The replacements
// are out of line, as the library ones are (inlined, GCC pairs malloc with delete and warns
// about mismatched allocation functions).

namespace {
thread_local std::uint64_t t_allocs = 0;
thread_local std::uint64_t t_alloc_bytes = 0;

// --arena: a bump allocator over one reserved mapping (not kubex::Arena: it stands in for
// malloc under any model, to bound what an arena could save). Only allocations made while
// t_arena_on is set come from it; a free of an arena block is a no-op, so objects decoded
// into the arena may be destroyed before or after BumpArena::reset().
struct BumpArena {
  static constexpr std::size_t capacity = std::size_t{1} << 32U;  // reserved, touched on use
  char* base = nullptr;
  std::size_t used = 0;

  bool owns(const void* p) const noexcept {
    const auto* c = static_cast<const char*>(p);
    return base != nullptr && c >= base && c < base + capacity;
  }
  void* take(std::size_t n) noexcept {
    if (base == nullptr) {
      void* m = mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED) {
        return nullptr;
      }
      base = static_cast<char*>(m);
    }
    const std::size_t at = (used + 15U) & ~std::size_t{15};
    if (at + n > capacity) {
      return nullptr;
    }
    used = at + n;
    return base + at;
  }
  void reset() noexcept { used = 0; }
};
bool g_arena_mode = false;  // --arena
BumpArena g_arena;
thread_local bool t_arena_on = false;

void* counted_malloc(std::size_t n) noexcept {
  ++t_allocs;
  t_alloc_bytes += n;
  if (t_arena_on) {
    return g_arena.take(n == 0 ? 1 : n);
  }
  return std::malloc(n == 0 ? 1 : n);
}

void counted_free(void* p) noexcept {
  if (!g_arena.owns(p)) {
    std::free(p);
  }
}

// Serves the allocations of its lifetime from the arena when --arena was given.
struct BumpScope {
  BumpScope() noexcept { t_arena_on = g_arena_mode; }
  ~BumpScope() { t_arena_on = false; }
  BumpScope(const BumpScope&) = delete;
  BumpScope& operator=(const BumpScope&) = delete;
};

struct AllocSnapshot {
  std::uint64_t allocs = t_allocs;
  std::uint64_t bytes = t_alloc_bytes;
};
}  // namespace

[[gnu::noinline]] void* operator new(std::size_t n) {
  if (void* p = counted_malloc(n)) {
    return p;
  }
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new[](std::size_t n) {
  if (void* p = counted_malloc(n)) {
    return p;
  }
  throw std::bad_alloc();
}
[[gnu::noinline]] void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return counted_malloc(n);
}
[[gnu::noinline]] void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return counted_malloc(n);
}
[[gnu::noinline]] void operator delete(void* p) noexcept {
  counted_free(p);
}
[[gnu::noinline]] void operator delete[](void* p) noexcept {
  counted_free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
  counted_free(p);
}
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept {
  counted_free(p);
}
[[gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept {
  counted_free(p);
}
[[gnu::noinline]] void operator delete[](void* p, const std::nothrow_t&) noexcept {
  counted_free(p);
}

// --- PartialObjectMetadataList ----------------------------------------------------------------
// Generated although the OpenAPI documents lack it (tools/codegen adds the metadata-only types).

namespace bench {

namespace json = kubex::json;
namespace meta = kubex::k8s::v1_35::meta::v1;
namespace core = kubex::k8s::v1_35::core::v1;

using MetaList = meta::PartialObjectMetadataList;

// --- fixtures ---------------------------------------------------------------------------------

// A document loaded once: the bytes with at least SIMDJSON_PADDING bytes of spare capacity.
struct Doc {
  std::string bytes;
  std::size_t items = 1;
};

Doc load(const char* name) {
  const std::string path = std::string(KUBEX_FIXTURES_DIR) + "/v1.35.4/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot open fixture " + path);
  }
  std::ostringstream s;
  s << in.rdbuf();
  Doc d;
  d.bytes = s.str();
  d.bytes.reserve(d.bytes.size() + simdjson::SIMDJSON_PADDING);
  return d;
}

const Doc& podlist() {
  static const Doc d = [] {
    Doc x = load("podlist-500.json");
    x.items = 500;
    return x;
  }();
  return d;
}
const Doc& metalist() {
  static const Doc d = [] {
    Doc x = load("partialobjectmetadatalist-100.json");
    x.items = 100;
    return x;
  }();
  return d;
}
const Doc& pod() {
  static const Doc d = load("pod.json");
  return d;
}
const Doc& pods20() {
  static const Doc d = [] {
    Doc x = load("protobuf/pods.json");
    x.items = 20;
    return x;
  }();
  return d;
}
const Doc& pods20_pb() {
  static const Doc d = [] {
    Doc x = load("protobuf/pods.pb");
    x.items = 20;
    return x;
  }();
  return d;
}

// --- the baseline: a bare On-Demand walk ------------------------------------------------------

namespace od = simdjson::ondemand;

// What the walk saw, so that nothing it reads can be optimised away.
struct Sink {
  std::uint64_t keys = 0;
  std::uint64_t strings = 0;
  std::uint64_t string_bytes = 0;
  std::uint64_t numbers = 0;
  std::uint64_t bools = 0;
  std::uint64_t nulls = 0;
  std::uint64_t mix = 0;
  double number_sum = 0;
};

simdjson::error_code walk(od::value v, Sink& s);

simdjson::error_code walk_object(od::object o, Sink& s) {
  for (auto field : o) {
    std::string_view key;
    SIMDJSON_TRY(field.unescaped_key().get(key));
    ++s.keys;
    s.string_bytes += key.size();
    od::value child;
    SIMDJSON_TRY(field.value().get(child));
    SIMDJSON_TRY(walk(child, s));
  }
  return simdjson::SUCCESS;
}

simdjson::error_code walk(od::value v, Sink& s) {
  od::json_type t{};
  SIMDJSON_TRY(v.type().get(t));
  switch (t) {
    case od::json_type::object: {
      od::object o;
      SIMDJSON_TRY(v.get_object().get(o));
      return walk_object(o, s);
    }
    case od::json_type::array: {
      od::array a;
      SIMDJSON_TRY(v.get_array().get(a));
      for (auto element : a) {
        od::value e;
        SIMDJSON_TRY(element.get(e));
        SIMDJSON_TRY(walk(e, s));
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::string: {
      std::string_view str;
      SIMDJSON_TRY(v.get_string().get(str));
      ++s.strings;
      s.string_bytes += str.size();
      s.mix += str.empty() ? 0U : static_cast<unsigned char>(str.back());
      return simdjson::SUCCESS;
    }
    case od::json_type::number: {
      od::number n;
      SIMDJSON_TRY(v.get_number().get(n));
      ++s.numbers;
      s.number_sum += n.as_double();
      return simdjson::SUCCESS;
    }
    case od::json_type::boolean: {
      bool b = false;
      SIMDJSON_TRY(v.get_bool().get(b));
      ++s.bools;
      s.mix += b ? 1U : 0U;
      return simdjson::SUCCESS;
    }
    case od::json_type::null: {
      bool null = false;
      SIMDJSON_TRY(v.is_null().get(null));
      s.nulls += null ? 1U : 0U;
      return simdjson::SUCCESS;
    }
  }
  return simdjson::INCORRECT_TYPE;
}

Sink bare_walk(od::parser& parser, const std::string& bytes) {
  Sink s;
  od::document doc;
  simdjson::error_code e = parser.iterate(bytes.data(), bytes.size(), bytes.capacity()).get(doc);
  od::value root;
  if (e == simdjson::SUCCESS) {
    e = doc.get_value().get(root);
  }
  if (e == simdjson::SUCCESS) {
    e = walk(root, s);
  }
  if (e != simdjson::SUCCESS) {
    throw std::runtime_error(std::string("bare walk: ") + simdjson::error_message(e));
  }
  return s;
}

// --- helpers ----------------------------------------------------------------------------------

void set_alloc_counters(benchmark::State& state, const AllocSnapshot& before, std::size_t items) {
  const AllocSnapshot after;
  const double n = static_cast<double>(state.iterations()) * static_cast<double>(items);
  state.counters["allocs/item"] = static_cast<double>(after.allocs - before.allocs) / n;
  state.counters["alloc_bytes/item"] = static_cast<double>(after.bytes - before.bytes) / n;
}

void set_throughput(benchmark::State& state, std::size_t bytes, std::size_t items) {
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(items));
}

std::size_t item_count(const core::PodList& l) {
  return l.items.size();
}
std::size_t item_count(const MetaList& l) {
  return l.items.size();
}
std::size_t item_count(const core::Pod&) {
  return 1;
}

// The decoders the rows compare. json_items: a list through json::ListDecoder, item by item
// as the client decodes a list body (each item its own decode, and its own arena); the body is
// copied first, since the decoder consumes it.
enum class Wire { json, json_items, protobuf };

template <class T>
void decode_as(Wire wire, const Doc& d, T& out) {
  if (wire == Wire::protobuf) {
    kubex::protobuf::decode_object(d.bytes, out);
  } else if (wire == Wire::json_items) {
    if constexpr (requires { out.items; }) {
      std::string body = d.bytes;
      json::ListDecoder<T> decoder(0);
      decoder.feed(body);
      out = decoder.finish(body);
    }
  } else {
    json::decode_padded(d.bytes, out);
  }
}

// The heap one decoded object holds per byte of its body (see the header), and, outside
// --arena, how its arena blocks are filled, per item: the allocations, the blocks' bytes, and
// the bytes in them no allocation took (the spare end of a block, and its header).
template <class T>
void set_memory_counters(benchmark::State& state, Wire wire, const Doc& d) {
  if (g_arena_mode) {
    g_arena.reset();
    T v{};
    {
      const BumpScope arena;
      decode_as(wire, d, v);
    }
    const auto held = static_cast<double>(g_arena.used);
    g_arena.reset();
    state.counters["live_bytes/input_byte"] = held / static_cast<double>(d.bytes.size());
    return;
  }
  // On a thread of its own, whose first decode stays alive while the second is measured: a
  // decode on a thread that has freed arena blocks takes them from its cache, and glibc's
  // bytes in use would not see them.
  double held = 0;
  kubex::ArenaStats before_stats;
  kubex::ArenaStats after_stats;
  std::thread([&] {
    T warm{};
    decode_as(wire, d, warm);  // the thread's parser and scratch buffers
    const auto before = mallinfo2().uordblks;
    before_stats = kubex::arena_stats();
    T v{};
    decode_as(wire, d, v);
    after_stats = kubex::arena_stats();
    held = static_cast<double>(mallinfo2().uordblks - before);
  }).join();
  const auto n = static_cast<double>(d.items);
  state.counters["live_bytes/input_byte"] = held / static_cast<double>(d.bytes.size());
  state.counters["arena_allocs/item"] =
      static_cast<double>(after_stats.allocations - before_stats.allocations) / n;
  state.counters["arena_bytes/item"] =
      static_cast<double>(after_stats.block_bytes - before_stats.block_bytes) / n;
  state.counters["arena_unused/item"] =
      static_cast<double>((after_stats.block_bytes - before_stats.block_bytes) -
                          (after_stats.used_bytes - before_stats.used_bytes)) /
      n;
}

// Decodes once and checks that encode -> decode gives back the same object, so a benchmark of
// a decoder that silently drops data cannot go unnoticed.
template <class T>
T checked_decode(const Doc& d, Wire wire = Wire::json) {
  T v{};
  decode_as(wire, d, v);
  if (item_count(v) != d.items) {
    throw std::runtime_error("decoded " + std::to_string(item_count(v)) + " items, expected " +
                             std::to_string(d.items));
  }
  T again{};
  json::decode(json::encode(v), again);
  if (!(again == v)) {
    throw std::runtime_error("decode -> encode -> decode changed the object");
  }
  return v;
}

// --- benchmarks -------------------------------------------------------------------------------

void BareWalk(benchmark::State& state, const Doc& (*doc)()) {
  const Doc& d = doc();
  od::parser parser;
  Sink total = bare_walk(parser, d.bytes);  // allocates the parser's buffers
  state.counters["values"] =
      static_cast<double>(total.keys + total.strings + total.numbers + total.bools + total.nulls);
  const AllocSnapshot before;
  for (auto _ : state) {
    Sink s = bare_walk(parser, d.bytes);
    benchmark::DoNotOptimize(s);
  }
  set_alloc_counters(state, before, d.items);
  set_throughput(state, d.bytes.size(), d.items);
}

void DomParse(benchmark::State& state, const Doc& (*doc)()) {
  const Doc& d = doc();
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto e = parser.parse(d.bytes.data(), d.bytes.size(), false).get(root)) {
    throw std::runtime_error(std::string("dom parse: ") + simdjson::error_message(e));
  }
  const AllocSnapshot before;
  for (auto _ : state) {
    auto r = parser.parse(d.bytes.data(), d.bytes.size(), false);
    benchmark::DoNotOptimize(r);
  }
  set_alloc_counters(state, before, d.items);
  set_throughput(state, d.bytes.size(), d.items);
}

// Decodes into fresh objects; freeing them is excluded from the time (PauseTiming). Objects
// are freed in batches of about 64 KB of input (1 for the lists, 16 for a Pod: PauseTiming
// costs about a microsecond), so each decode writes into memory freed just before, as a
// client's next response would; decoding into tens of megabytes of cold memory instead made
// the PodList decode some 30 % slower.
template <class T, Wire wire = Wire::json>
void TypedDecode(benchmark::State& state, const Doc& (*doc)()) {
  const Doc& d = doc();
  (void)checked_decode<T>(d, wire);  // also warms the thread's parser
  set_memory_counters<T>(state, wire, d);
  const std::size_t batch_size =
      std::clamp<std::size_t>((std::size_t{64} << 10) / d.bytes.size(), 1, 64);
  std::vector<T> batch(batch_size);
  std::size_t used = 0;
  std::uint64_t untimed_allocs = 0;
  std::uint64_t untimed_bytes = 0;
  const AllocSnapshot before;
  for (auto _ : state) {
    if (used == batch_size) {
      state.PauseTiming();
      const AllocSnapshot pause;
      batch.clear();
      batch.resize(batch_size);
      g_arena.reset();  // nothing left in it: the batch was just destroyed
      used = 0;
      untimed_allocs += t_allocs - pause.allocs;
      untimed_bytes += t_alloc_bytes - pause.bytes;
      state.ResumeTiming();
    }
    {
      const BumpScope arena;
      decode_as(wire, d, batch[used]);
    }
    benchmark::DoNotOptimize(batch[used]);
    ++used;
  }
  const double n = static_cast<double>(state.iterations()) * static_cast<double>(d.items);
  state.counters["allocs/item"] =
      static_cast<double>(t_allocs - before.allocs - untimed_allocs) / n;
  state.counters["alloc_bytes/item"] =
      static_cast<double>(t_alloc_bytes - before.bytes - untimed_bytes) / n;
  batch.clear();
  g_arena.reset();
  set_throughput(state, d.bytes.size(), d.items);
}

template <class T>
void TypedDecodeAndFree(benchmark::State& state, const Doc& (*doc)()) {
  const Doc& d = doc();
  (void)checked_decode<T>(d);
  const AllocSnapshot before;
  for (auto _ : state) {
    T v{};
    json::decode_padded(d.bytes, v);
    benchmark::DoNotOptimize(v);
  }
  set_alloc_counters(state, before, d.items);
  set_throughput(state, d.bytes.size(), d.items);
}

template <class T>
void Encode(benchmark::State& state, const Doc& (*doc)()) {
  const Doc& d = doc();
  const T v = checked_decode<T>(d);
  const std::size_t out_size = json::encode(v).size();
  state.counters["output_bytes"] = static_cast<double>(out_size);
  const AllocSnapshot before;
  for (auto _ : state) {
    std::string out = json::encode(v);
    benchmark::DoNotOptimize(out);
  }
  set_alloc_counters(state, before, d.items);
  set_throughput(state, out_size, d.items);
}

template <class T>
void EncodeReuse(benchmark::State& state, const Doc& (*doc)()) {
  const Doc& d = doc();
  const T v = checked_decode<T>(d);
  std::string out;
  json::encode(v, out);
  const std::size_t out_size = out.size();
  const AllocSnapshot before;
  for (auto _ : state) {
    out.clear();
    json::encode(v, out);
    benchmark::DoNotOptimize(out);
  }
  set_alloc_counters(state, before, d.items);
  set_throughput(state, out_size, d.items);
}

void register_all() {
  using PodList = core::PodList;
  using Pod = core::Pod;
  // Besides Google Benchmark's mean, median and stddev of the repetitions, their minimum: on a
  // shared machine interference only ever adds time, so the fastest repetition is the best
  // estimate of the undisturbed cost (the summary reports both).
  auto reg = [](const char* name, auto fn, const Doc& (*doc)()) {
    benchmark::RegisterBenchmark(name, fn, doc)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime()
        ->ComputeStatistics("min", [](const std::vector<double>& v) {
          return *std::min_element(v.begin(), v.end());
        });
  };
  reg("PodList/BareWalk", BareWalk, podlist);
  reg("PodList/DomParse", DomParse, podlist);
  reg("PodList/TypedDecode", TypedDecode<PodList>, podlist);
  reg("PodList/TypedDecodeAndFree", TypedDecodeAndFree<PodList>, podlist);
  reg("PodList/Encode", Encode<PodList>, podlist);
  reg("PodList/EncodeReuse", EncodeReuse<PodList>, podlist);
  reg("MetaList/BareWalk", BareWalk, metalist);
  reg("MetaList/DomParse", DomParse, metalist);
  reg("MetaList/TypedDecode", TypedDecode<MetaList>, metalist);
  reg("MetaList/TypedDecodeAndFree", TypedDecodeAndFree<MetaList>, metalist);
  reg("MetaList/Encode", Encode<MetaList>, metalist);
  reg("Pod/BareWalk", BareWalk, pod);
  reg("Pod/DomParse", DomParse, pod);
  reg("Pod/TypedDecode", TypedDecode<Pod>, pod);
  reg("Pod/TypedDecodeAndFree", TypedDecodeAndFree<Pod>, pod);
  reg("Pod/Encode", Encode<Pod>, pod);
  reg("Pods20/BareWalk", BareWalk, pods20);
  reg("Pods20/TypedDecode", TypedDecode<PodList>, pods20);
  reg("Pods20Pb/ProtoDecode", TypedDecode<PodList, Wire::protobuf>, pods20_pb);
  reg("PodList/ItemsDecode", TypedDecode<PodList, Wire::json_items>, podlist);
}

}  // namespace bench

#define KUBEX_BENCH_STR2(x) #x
#define KUBEX_BENCH_STR(x) KUBEX_BENCH_STR2(x)

int main(int argc, char** argv) {
  // By default glibc returns freed memory at the top of the heap to the kernel (trim threshold
  // 128 KiB) and serves requests over 128 KiB with mmap, so every decode into fresh objects
  // after the previous ones were freed, and every 2 MB encode buffer, would start with page
  // faults. A long-running client reuses its heap; so does the benchmark, unless
  // --malloc=default (parsed here, before Google Benchmark sees the arguments) asks for glibc's
  // defaults to show the cold-heap cost.
  bool default_malloc = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--malloc=default" || arg == "--arena") {
      (arg == "--arena" ? g_arena_mode : default_malloc) = true;
      for (int j = i; j + 1 < argc; ++j) {
        argv[j] = argv[j + 1];
      }
      --argc;
      --i;
    }
  }
  if (!default_malloc) {
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::AddCustomContext("simdjson_version", KUBEX_BENCH_STR(SIMDJSON_VERSION));
  benchmark::AddCustomContext("simdjson_ondemand_implementation",
                              KUBEX_BENCH_STR(SIMDJSON_BUILTIN_IMPLEMENTATION));
  benchmark::AddCustomContext("simdjson_active_implementation",
                              simdjson::get_active_implementation()->name());
  benchmark::AddCustomContext("malloc", default_malloc ? "glibc defaults (--malloc=default)"
                                                       : "glibc, heap retained (M_TRIM_THRESHOLD "
                                                         "1 GiB, M_MMAP_THRESHOLD 32 MiB)");
  benchmark::AddCustomContext("allocator", g_arena_mode ? "decodes served by a bump arena (--arena)"
                                                        : "operator new over malloc");
#ifdef KUBEX_BENCH_VARIANT
  benchmark::AddCustomContext("variant", KUBEX_BENCH_VARIANT);
#endif
  try {
    bench::register_all();
    benchmark::RunSpecifiedBenchmarks();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "codec_bench: %s\n", e.what());
    return 1;
  }
  benchmark::Shutdown();
  return 0;
}
