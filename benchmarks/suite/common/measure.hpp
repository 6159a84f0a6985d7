// SPDX-License-Identifier: Apache-2.0
#pragma once

// What every C++ adapter of the benchmark suite shares: its command line, the measured loop's
// bookkeeping (wall samples, client CPU, RSS) and the one JSON line it prints for the driver
// (benchmarks/suite/run.py, which documents the fields). No kubex and no I/O library here, so
// the raw limit programs use it too.

#include <dlfcn.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kubex_bench {

/// Monotonic time in nanoseconds.
inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// User plus system CPU time of the whole process (all threads), in nanoseconds.
inline std::int64_t cpu_ns() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const auto ns = [](const timeval& t) {
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 +
           static_cast<std::int64_t>(t.tv_usec) * 1000;
  };
  return ns(u.ru_utime) + ns(u.ru_stime);
}

/// Page faults of the whole process so far (minor and major): a freed heap that glibc gave
/// back to the kernel shows here as every next use of it faulting again.
inline std::int64_t page_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::int64_t>(u.ru_minflt) + static_cast<std::int64_t>(u.ru_majflt);
}

/// A field of /proc/self/status in KiB (VmRSS, VmHWM); -1 when unavailable.
inline long proc_status_kb(std::string_view field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > field.size() && line.compare(0, field.size(), field) == 0 &&
        line[field.size()] == ':') {
      return std::stol(line.substr(field.size() + 1));
    }
  }
  return -1;
}

/// Resets VmHWM to the current RSS, so that VmHWM afterwards is the peak of what follows.
inline void reset_peak_rss() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

/// Tells the driver that the measured loop starts ("loop") or has ended ("done"), at once, so
/// that it can read the control plane's CPU time over the loop alone.
inline void announce_phase(const char* phase) {
  std::fprintf(stdout, "{\"phase\":\"%s\"}\n", phase);
  std::fflush(stdout);
}

/// The allocation counters of common/alloc_shim.c when the memory pass preloads it.
class AllocCounters {
 public:
  AllocCounters()
      : snapshot_(reinterpret_cast<void (*)(std::uint64_t*)>(
            dlsym(RTLD_DEFAULT, "kubex_bench_alloc_snapshot"))),
        reset_peak_(
            reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "kubex_bench_alloc_reset_peak"))) {}
  /// Whether the shim is loaded.
  [[nodiscard]] bool active() const { return snapshot_ != nullptr && reset_peak_ != nullptr; }
  /// count, bytes allocated, live bytes, peak live bytes.
  [[nodiscard]] std::array<std::uint64_t, 4> snapshot() const {
    std::array<std::uint64_t, 4> v{};
    snapshot_(v.data());
    return v;
  }
  void reset_peak() const { reset_peak_(); }

 private:
  void (*snapshot_)(std::uint64_t*);
  void (*reset_peak_)();
};

/// The command line every adapter accepts: --name value pairs. Adapters read their own keys
/// (connection details) with get().
class Args {
 public:
  Args(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
      std::string key = argv[i];
      if (!key.starts_with("--") || i + 1 >= argc) {
        throw std::invalid_argument("expected --name value pairs, got '" + key + "'");
      }
      values_[key.substr(2)] = argv[++i];
    }
  }
  /// The value of --name, or `fallback` when absent.
  [[nodiscard]] std::string get(const std::string& name, std::string fallback = {}) const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
  }
  /// The value of --name; throws when absent.
  [[nodiscard]] std::string required(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) {
      throw std::invalid_argument("missing --" + name);
    }
    return it->second;
  }
  /// --name as an integer.
  [[nodiscard]] long integer(const std::string& name, long fallback) const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : std::stol(it->second);
  }

 private:
  std::map<std::string, std::string> values_;
};

/// The options of one (adapter, scenario) process.
struct Plan {
  std::string scenario;
  std::string namespace_name;
  long warmup = 3;        ///< warm-up iterations (at least)
  double warmup_s = 1.0;  ///< and at least this long
  long iters = 30;        ///< measured iterations (at most)
  long min_iters = 20;    ///< even past max_s
  double max_s = 90.0;    ///< stop measuring after this long, once min_iters are done
  long list_size = 0;     ///< limit of list scenarios (0: none)
  long stream_count = 0;  ///< events or lines of streaming scenarios

  static Plan from(const Args& a) {
    Plan p;
    p.scenario = a.required("scenario");
    p.namespace_name = a.required("namespace");
    p.warmup = a.integer("warmup", p.warmup);
    p.warmup_s = std::stod(a.get("warmup-seconds", "1"));
    p.iters = a.integer("iters", p.iters);
    p.min_iters = std::min(p.iters, a.integer("min-iters", p.min_iters));
    p.max_s = std::stod(a.get("max-seconds", "90"));
    p.list_size = a.integer("list-size", 0);
    p.stream_count = a.integer("stream-count", 0);
    return p;
  }
};

/// The measured loop's record, printed as one JSON line.
class Recorder {
 public:
  explicit Recorder(const Plan& plan) : plan_(plan) {}

  /// Free-form string facts (adapter, variant, http, accept_encoding...).
  void fact(const std::string& key, const std::string& value) { facts_[key] = value; }
  /// Free-form numeric facts (bytes_per_op, connections_opened...).
  void number(const std::string& key, double value) { numbers_[key] = value; }

  /// Whether another warm-up iteration is due (call before each).
  [[nodiscard]] bool warming() {
    if (warm_start_ == 0) {
      warm_start_ = now_ns();
      rss_ready_kb_ = proc_status_kb("VmRSS");
      rss_ready_anon_kb_ = proc_status_kb("RssAnon");
    }
    const bool more = warm_done_ < plan_.warmup ||
                      static_cast<double>(now_ns() - warm_start_) < plan_.warmup_s * 1e9;
    if (more) {
      ++warm_done_;
    }
    return more;
  }
  /// Starts the measured loop (after the warm-up).
  void begin() {
    if (alloc_.active()) {
      alloc_.reset_peak();
      alloc_start_ = alloc_.snapshot();
    }
    reset_peak_rss();
    announce_phase("loop");
    cpu_start_ = cpu_ns();
    faults_start_ = page_faults();
    loop_start_ = now_ns();
  }
  /// Whether another measured iteration is due.
  [[nodiscard]] bool measuring() const {
    const auto n = static_cast<long>(samples_.size());
    if (n >= plan_.iters) {
      return false;
    }
    return n < plan_.min_iters || static_cast<double>(now_ns() - loop_start_) < plan_.max_s * 1e9;
  }
  /// One measured iteration: its wall time and the items (or events, lines) it saw.
  void sample(std::int64_t wall_ns, long items) {
    samples_.push_back(wall_ns);
    items_.push_back(items);
  }
  /// Per-event times of streaming scenarios (pooled over iterations).
  void event(std::int64_t ns) { events_.push_back(ns); }
  /// Ends the measured loop.
  void end() {
    cpu_loop_ns_ = cpu_ns() - cpu_start_;
    loop_ns_ = now_ns() - loop_start_;
    const std::int64_t faults = page_faults() - faults_start_;
    announce_phase("done");
    rss_peak_kb_ = proc_status_kb("VmHWM");
    rss_done_file_kb_ = proc_status_kb("RssFile") + proc_status_kb("RssShmem");
    if (alloc_.active()) {
      const auto a = alloc_.snapshot();
      const auto n = static_cast<double>(std::max<std::size_t>(1, samples_.size()));
      numbers_["allocs_per_op"] = static_cast<double>(a[0] - alloc_start_[0]) / n;
      numbers_["alloc_bytes_per_op"] = static_cast<double>(a[1] - alloc_start_[1]) / n;
      numbers_["alloc_peak_live_bytes"] = static_cast<double>(a[3] - alloc_start_[2]);
      numbers_["alloc_live_growth_bytes"] =
          static_cast<double>(a[2]) - static_cast<double>(alloc_start_[2]);
    }
    // Stored after the allocation snapshot: the map's own node is not the loop's.
    numbers_["page_faults_per_op"] = static_cast<double>(faults) /
                                     static_cast<double>(std::max<std::size_t>(1, samples_.size()));
  }

  /// The JSON line for the driver.
  void print(std::FILE* out = stdout) const {
    std::string s = "{";
    const auto str = [&](std::string_view k, std::string_view v) {
      s += '"';
      s += k;
      s += "\":\"";
      for (const char c : v) {
        if (c == '"' || c == '\\') {
          s += '\\';
        }
        if (static_cast<unsigned char>(c) >= 0x20) {
          s += c;
        }
      }
      s += "\",";
    };
    const auto num = [&](std::string_view k, double v) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", v);
      s += '"';
      s += k;
      s += "\":";
      s += buf;
      s += ',';
    };
    const auto list = [&](std::string_view k, const auto& values) {
      s += '"';
      s += k;
      s += "\":[";
      for (std::size_t i = 0; i < values.size(); ++i) {
        s += (i ? "," : "") + std::to_string(values[i]);
      }
      s += "],";
    };
    str("scenario", plan_.scenario);
    for (const auto& [k, v] : facts_) {
      str(k, v);
    }
    num("warmup", static_cast<double>(warm_done_));
    num("n", static_cast<double>(samples_.size()));
    num("cpu_ns", static_cast<double>(cpu_loop_ns_));
    num("loop_ns", static_cast<double>(loop_ns_));
    num("rss_ready_kb", static_cast<double>(rss_ready_kb_));
    num("rss_peak_loop_kb", static_cast<double>(rss_peak_kb_));
    num("rss_ready_anon_kb", static_cast<double>(rss_ready_anon_kb_));
    num("rss_done_file_kb", static_cast<double>(rss_done_file_kb_));
    for (const auto& [k, v] : numbers_) {
      num(k, v);
    }
    list("items", items_);
    list("events_ns", events_);
    list("samples_ns", samples_);
    s.back() = '}';
    s += '\n';
    std::fputs(s.c_str(), out);
    std::fflush(out);
  }

 private:
  Plan plan_;
  AllocCounters alloc_;
  std::array<std::uint64_t, 4> alloc_start_{};
  std::map<std::string, std::string> facts_;
  std::map<std::string, double> numbers_;
  std::int64_t warm_start_ = 0;
  long warm_done_ = 0;
  std::int64_t cpu_start_ = 0;
  std::int64_t faults_start_ = 0;
  std::int64_t loop_start_ = 0;
  std::int64_t cpu_loop_ns_ = 0;
  std::int64_t loop_ns_ = 0;
  long rss_ready_kb_ = -1;
  long rss_peak_kb_ = -1;
  long rss_ready_anon_kb_ = -1;  // anonymous memory at ready: the heap, not mapped files
  long rss_done_file_kb_ = -1;   // file-backed and shared pages at done (code, mapped files)
  std::vector<std::int64_t> samples_;
  std::vector<long> items_;
  std::vector<std::int64_t> events_;
};

}  // namespace kubex_bench
