// SPDX-License-Identifier: Apache-2.0
#pragma once

// A program the test runs beside itself (an operator replica, an election candidate): started
// with posix_spawn, its stdout and stderr in a file the test reads while it runs, signalled
// and waited for. Killed when the object goes, so a failed test leaves nothing behind.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kubex::testing {

/// A child process; see the file comment.
class ChildProcess {
 public:
  /// Starts `argv` (argv[0] a path) with `env` added to this process's environment
  /// ("NAME=value" each), its output going to `output`.
  /// @throws std::runtime_error if it cannot be started.
  ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
               std::filesystem::path output);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// True until it was seen to exit.
  [[nodiscard]] bool running();
  /// Sends `signal`.
  void signal(int signal);
  /// Waits at most `limit` for it to exit; its exit status, -1 when killed by a signal, or
  /// none if it still runs.
  std::optional<int> wait_exit(std::chrono::milliseconds limit);
  /// What it printed so far.
  [[nodiscard]] std::string output() const;
  /// Its output file.
  [[nodiscard]] const std::filesystem::path& output_path() const noexcept { return output_; }

 private:
  std::filesystem::path output_;
  pid_t pid_ = -1;
  std::optional<int> exit_status_;
};

}  // namespace kubex::testing
