// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace kubex::testing {

/// A fresh directory under the system temp directory, removed with everything in it on
/// destruction.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kubex-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The directory.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

  /// Writes `contents` to `relative` (creating parent directories) and returns the full path.
  std::filesystem::path write(const std::filesystem::path& relative,
                              std::string_view contents) const {
    const auto full = path_ / relative;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream out(full, std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    if (!out) {
      throw std::runtime_error("cannot write " + full.string());
    }
    return full;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace kubex::testing
