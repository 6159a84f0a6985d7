// SPDX-License-Identifier: Apache-2.0
#pragma once

// The operations behind Api<T>'s verbs: send one request, then decode its response (a call) or
// wrap its open body (a stream). Each is a handler that decodes and then invokes the caller's
// handler, passed to the transport's type-erased async_send/async_open: the transport (compiled
// once, in the library) tracks work on the handler's executor and completes through it, so no
// composed operation is instantiated per verb.

#include <kubex/client/client.hpp>
#include <kubex/client/resource_calls.hpp>
#include <kubex/core/api_error.hpp>
#include <kubex/core/export.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/associator.hpp>
#include <boost/asio/async_result.hpp>

#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace kubex::client::detail {

/// A handler made of the caller's `handler` and a step `fn` that runs first and then completes
/// it: fn(handler, args...). It takes the handler's associated executor, allocator and
/// cancellation slot (the associator at the end of this file), so wrapping changes nothing the
/// transport sees about the caller.
template <class Handler, class Fn>
struct Bound {
  Handler handler;
  Fn fn;
  template <class... Args>
  void operator()(Args&&... args) {
    std::move(fn)(std::move(handler), std::forward<Args>(args)...);
  }
};

template <class Fn, class Handler>
Bound<std::decay_t<Handler>, Fn> bind(Handler&& handler, Fn fn) {
  return {std::forward<Handler>(handler), std::move(fn)};
}

/// Completes `handler` with `error` later, through the client's executor and then the
/// handler's own: an initiating function never completes its operation itself, even when
/// building the request failed (a caller may hold a lock around it). Compiled once: the
/// handler is the one the transport would have had.
KUBEX_API void complete_later(const Client& client, std::exception_ptr error,
                              boost::asio::any_completion_handler<RequestSignature> handler);
/// complete_later for the opening of a stream.
KUBEX_API void complete_later(const Client& client, std::exception_ptr error,
                              boost::asio::any_completion_handler<StreamSignature> handler);

/// Decodes a whole response into R (decode returns std::nullopt for a status that is not a
/// success: the response's ApiError), then completes the handler.
template <class R, class Decode>
struct DecodeResponse {
  Decode decode;
  Client client;
  std::string method;
  std::string target;

  template <class Handler>
  void operator()(Handler&& handler, std::exception_ptr error, HttpResponse response) {
    if (error) {
      std::move(handler)(std::move(error), R{});
      return;
    }
    std::optional<R> result;
    std::exception_ptr failure;
    try {
      result = decode(response);
      if (!result) {
        failure = api_error(method, target, response);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    // The decoded value owns its data; the body's memory can serve the next response.
    client.recycle(std::move(response.body));
    if (failure) {
      std::move(handler)(std::move(failure), R{});
    } else {
      std::move(handler)(nullptr, std::move(*result));
    }
  }
};

template <class R, class Decode>
struct InitiateCall {
  template <class Handler>
  void operator()(Handler&& handler, const Client& client, HttpRequest request, Decode decode,
                  std::exception_ptr early) const {
    std::string method = request.method;
    std::string target = request.target;
    auto bound = detail::bind(
        std::forward<Handler>(handler),
        DecodeResponse<R, Decode>{std::move(decode), client, std::move(method), std::move(target)});
    if (early) {
      complete_later(client, std::move(early),
                     boost::asio::any_completion_handler<RequestSignature>(std::move(bound)));
      return;
    }
    client.async_request(std::move(request), std::move(bound));
  }
};

/// Sends `request` and completes with decode(response): an R, or std::nullopt to fail with
/// the response's ApiError.
template <class R, class Decode, class CompletionToken>
auto async_call(const Client& client, Prepared prepared, Decode decode, CompletionToken&& token) {
  return boost::asio::async_initiate<CompletionToken, void(std::exception_ptr, R)>(
      InitiateCall<R, Decode>{}, token, client, to_http(std::move(prepared.request)),
      std::move(decode), std::move(prepared.error));
}

/// Sends a list request and decodes the list's items while its body arrives (ListBody).
/// `complete(L&)` runs on the decoded list before it is delivered.
template <class L, class CompletionToken, class Complete = KeepList>
auto async_list_call(const Client& client, Prepared prepared, CompletionToken&& token,
                     Complete complete = {}) {
  ListBody<L> body;
  HttpRequest http = to_http(std::move(prepared.request));
  http.on_body = body.observer();
  auto decode = body.decoder(std::move(complete));
  return boost::asio::async_initiate<CompletionToken, void(std::exception_ptr, L)>(
      InitiateCall<L, decltype(decode)>{}, token, client, std::move(http), std::move(decode),
      std::move(prepared.error));
}

/// Wraps an open stream as S, failing with the ApiError of a non-2xx status.
template <class S>
struct WrapStream {
  Client client;
  std::string method;
  std::string target;

  template <class Handler>
  void operator()(Handler&& handler, std::exception_ptr error, ResponseStream stream) {
    if (!error && stream.head().status / 100 != 2) {
      error = api_error(method, target, stream.head());
    }
    if (error) {
      std::move(handler)(std::move(error), S(ResponseStream{}, client.get_executor()));
      return;
    }
    std::move(handler)(nullptr, S(std::move(stream), client.get_executor()));
  }
};

template <class S>
struct InitiateOpen {
  template <class Handler>
  void operator()(Handler&& handler, const Client& client, HttpRequest request,
                  std::exception_ptr early) const {
    std::string method = request.method;
    std::string target = request.target;
    auto bound = detail::bind(std::forward<Handler>(handler),
                              WrapStream<S>{client, std::move(method), std::move(target)});
    if (early) {
      complete_later(client, std::move(early),
                     boost::asio::any_completion_handler<StreamSignature>(std::move(bound)));
      return;
    }
    client.async_stream(std::move(request), std::move(bound));
  }
};

/// Opens a streamed response (watch, log follow) and completes with it wrapped as S.
template <class S, class CompletionToken>
auto async_open(const Client& client, Prepared prepared, CompletionToken&& token) {
  return boost::asio::async_initiate<CompletionToken, void(std::exception_ptr, S)>(
      InitiateOpen<S>{}, token, client, to_http(std::move(prepared.request)),
      std::move(prepared.error));
}

}  // namespace kubex::client::detail

/// A Bound handler has the associations of the handler it wraps.
template <template <class, class> class Associator, class Handler, class Fn, class DefaultCandidate>
struct boost::asio::associator<Associator, kubex::client::detail::Bound<Handler, Fn>,
                               DefaultCandidate> {
  using type = typename Associator<Handler, DefaultCandidate>::type;
  static type get(const kubex::client::detail::Bound<Handler, Fn>& b) noexcept {
    return Associator<Handler, DefaultCandidate>::get(b.handler);
  }
  static auto get(const kubex::client::detail::Bound<Handler, Fn>& b,
                  const DefaultCandidate& c) noexcept
      -> decltype(Associator<Handler, DefaultCandidate>::get(b.handler, c)) {
    return Associator<Handler, DefaultCandidate>::get(b.handler, c);
  }
};
