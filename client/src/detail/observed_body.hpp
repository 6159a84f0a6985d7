// SPDX-License-Identifier: Apache-2.0
// Internal: a whole response's body shown to HttpRequest::on_body while it arrives, inflated
// on the way when it comes gzip, so that a list is decoded during the transfer either way and
// neither the compressed nor the inflated body is ever held whole. Never installed.
#pragma once

#include "detail/gzip.hpp"
#include "detail/spare_bodies.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace kubex::client::detail {

/// One request's body reader and, for a gzip answer, its inflater; shared by the request's
/// attempts (each restarts it).
class ObservedBody {
 public:
  /// Shows bodies to `reader` (HttpRequest::on_body); `limit` bounds an inflated body.
  ObservedBody(std::function<void(std::string&, bool)> reader, std::size_t limit)
      : reader_(std::move(reader)), limit_(limit) {}

  /// An attempt's head is in: tells the reader to start over and returns whether it sees this
  /// body as it grows (a 2xx answer, identity or gzip).
  bool start(std::string& raw, unsigned status, std::string_view encoding);
  /// `raw`, the body received so far, grew; a gzip body is inflated and `raw` emptied.
  /// false when it cannot be inflated (problem()).
  bool grow(std::string& raw);
  /// The body ended: `raw` becomes what the reader left of it. false when a gzip body is
  /// incomplete (problem()). The compressed buffer's memory goes to `spare`.
  bool finish(std::string& raw, SpareBodies& spare);
  /// Why grow or finish refused the body.
  [[nodiscard]] const std::string& problem() const noexcept { return problem_; }
  /// The body finish() delivered is inflated already.
  [[nodiscard]] bool inflated() const noexcept { return mode_ == Mode::gzip; }

 private:
  enum class Mode { off, identity, gzip };

  std::function<void(std::string&, bool)> reader_;
  std::size_t limit_;
  Mode mode_ = Mode::off;
  std::optional<Inflater> inflater_;
  std::string inflated_;  // inflated and not yet taken by the reader
  std::string problem_;
};

}  // namespace kubex::client::detail
