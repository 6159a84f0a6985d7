// SPDX-License-Identifier: Apache-2.0
#include "detail/io.hpp"

#include <algorithm>

namespace kubex::client::detail {

Watched::~Watched() {
  if (watched_by_ != nullptr) {
    watched_by_->unwatch(*this);
  }
}

void Watchdog::watch(Watched& item, Clock::time_point deadline) {
  item.deadline_ = deadline;
  if (item.watched_by_ == nullptr) {
    watched_.push_back(&item);
    item.watched_by_ = this;
  }
  if (deadline < alarm_) {
    arm(deadline);
  }
}

void Watchdog::unwatch(Watched& item) noexcept {
  if (item.watched_by_ != this) {
    return;
  }
  item.watched_by_ = nullptr;
  const auto it = std::find(watched_.begin(), watched_.end(), &item);
  *it = watched_.back();
  watched_.pop_back();
  if (watched_.empty() && alarm_ != Clock::time_point::max()) {
    alarm_ = Clock::time_point::max();
    try {
      timer_.cancel();
    } catch (...) {  // not seen in practice; the alarm would then wake once, for nothing
    }
  }
}

void Watchdog::arm(Clock::time_point when) {
  alarm_ = when;
  timer_.expires_at(when);  // cancels the pending wait, if any
  timer_.async_wait([weak = weak_from_this()](const boost_error& ec) {
    if (ec) {
      return;  // cancelled or moved: a newer wait or unwatch took over
    }
    if (const auto self = weak.lock()) {
      self->on_alarm();
    }
  });
}

void Watchdog::on_alarm() {
  const auto now = Clock::now();
  auto next = Clock::time_point::max();
  // Late items are let go of first and expired after the sweep: expiring one may watch or
  // unwatch others.
  std::vector<Watched*> late;
  for (std::size_t i = 0; i < watched_.size();) {
    Watched& item = *watched_[i];
    if (item.deadline_ <= now) {
      item.watched_by_ = nullptr;
      late.push_back(&item);
      watched_[i] = watched_.back();
      watched_.pop_back();
    } else {
      next = std::min(next, item.deadline_);
      ++i;
    }
  }
  alarm_ = Clock::time_point::max();
  if (next != Clock::time_point::max()) {
    arm(next);
  }
  for (Watched* item : late) {
    item->expire();
  }
}

}  // namespace kubex::client::detail
