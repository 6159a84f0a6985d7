// SPDX-License-Identifier: Apache-2.0
#pragma once

// The runtime's names for kubex::Backoff (kubex/core/backoff.hpp): the delays between
// attempts after failures, jittered and exponential, with the time passed in.

#include <kubex/core/backoff.hpp>

namespace kubex::runtime {

/// How a Backoff grows (kubex::BackoffPolicy). The defaults are client-go's reflector's.
using BackoffPolicy = kubex::BackoffPolicy;

/// The delays of a BackoffPolicy (kubex::Backoff). Not thread-safe; time is passed in.
using Backoff = kubex::Backoff;

}  // namespace kubex::runtime
