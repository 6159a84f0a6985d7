// SPDX-License-Identifier: Apache-2.0
#include "detail/observed_body.hpp"

#include <utility>

namespace kubex::client::detail {

bool ObservedBody::start(std::string& raw, unsigned status, std::string_view encoding) {
  mode_ = Mode::off;
  problem_.clear();
  inflated_.clear();
  if (status / 100 == 2 && (encoding.empty() || encoding == "identity")) {
    mode_ = Mode::identity;
  } else if (status / 100 == 2 && encoding == "gzip") {
    mode_ = Mode::gzip;
    if (inflater_) {
      inflater_->reset();
    } else {
      inflater_.emplace(limit_);
    }
  }
  // Told even when it will not see this body: what it saw before belongs to another attempt.
  reader_(mode_ == Mode::gzip ? inflated_ : raw, true);
  return mode_ != Mode::off;
}

bool ObservedBody::grow(std::string& raw) {
  if (!problem_.empty()) {
    return false;
  }
  switch (mode_) {
    case Mode::off:
      return true;
    case Mode::identity:
      reader_(raw, false);
      return true;
    case Mode::gzip:
      break;
  }
  const bool ok = inflater_->feed(raw, inflated_, problem_);
  raw.clear();
  if (ok) {
    reader_(inflated_, false);
  }
  return ok;
}

bool ObservedBody::finish(std::string& raw, SpareBodies& spare) {
  if (mode_ != Mode::gzip) {
    return true;
  }
  if (!grow(raw)) {
    return false;
  }
  if (!inflater_->ended()) {
    problem_ = "corrupt gzip body";  // the body ended before the member's trailer
    return false;
  }
  raw.swap(inflated_);
  spare.give(std::move(inflated_));
  return true;
}

}  // namespace kubex::client::detail
