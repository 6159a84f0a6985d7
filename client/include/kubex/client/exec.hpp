// SPDX-License-Identifier: Apache-2.0
#pragma once

// The exec, attach and port-forward verbs of Api<T> (declared in api.hpp): a program that
// runs commands in pods or forwards their ports includes this header; every other user of Api
// does not compile the WebSocket sessions behind them.
//
//     #include <kubex/client/exec.hpp>
//     auto result = co_await pods.async_run("web-0", {.command = {"ls", "/"}}, "");

#include <kubex/client/api.hpp>
#include <kubex/client/port_forward.hpp>
#include <kubex/client/process_output.hpp>
#include <kubex/client/remote_process.hpp>

#include <boost/asio/async_result.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace kubex::client {

template <resource T>
template <class CompletionToken>
  requires(subresource_supports<T>("exec", Verb::connect))
auto Api<T>::async_exec(std::string_view name, const ExecParams& params,
                        const ProcessOptions& options, CompletionToken&& token) const {
  return async_process(detail::prepare([&] { return calls_.exec(name, params); }), params.tty,
                       options, std::forward<CompletionToken>(token));
}

template <resource T>
template <class CompletionToken>
  requires(subresource_supports<T>("exec", Verb::connect) &&
           detail::not_options<CompletionToken, ProcessOptions>)
auto Api<T>::async_exec(std::string_view name, const ExecParams& params,
                        CompletionToken&& token) const {
  return async_exec(name, params, ProcessOptions{}, std::forward<CompletionToken>(token));
}

template <resource T>
template <class CompletionToken>
  requires(subresource_supports<T>("exec", Verb::connect))
auto Api<T>::async_run(std::string_view name, const ExecParams& params, std::string input,
                       CompletionToken&& token) const {
  return boost::asio::async_initiate<CompletionToken, ProcessRunSignature>(
      [client = client_](auto handler, detail::Prepared prepared, std::string in, bool with_stdin) {
        detail::run_process(client, std::move(prepared), std::move(in), with_stdin,
                            ProcessOptions{}, std::move(handler));
      },
      token, detail::prepare([&] { return calls_.exec(name, params); }), std::move(input),
      params.with_stdin);
}

template <resource T>
template <class CompletionToken>
  requires(subresource_supports<T>("attach", Verb::connect))
auto Api<T>::async_attach(std::string_view name, const AttachParams& params,
                          CompletionToken&& token) const {
  return async_process(detail::prepare([&] { return calls_.attach(name, params); }), params.tty,
                       ProcessOptions{}, std::forward<CompletionToken>(token));
}

template <resource T>
template <class CompletionToken>
  requires(subresource_supports<T>("portforward", Verb::connect))
auto Api<T>::async_port_forward(std::string_view name, CompletionToken&& token) const {
  return boost::asio::async_initiate<CompletionToken, PortForwardSignature>(
      [client = client_](auto handler, detail::Prepared prepared) {
        detail::open_port_forward(client, std::move(prepared), std::move(handler));
      },
      token, detail::prepare([&] { return calls_.port_forward(name, {}); }));
}

template <resource T>
std::unique_ptr<LocalPortForward> Api<T>::forward_local_port(std::string_view name,
                                                             std::uint16_t remote_port,
                                                             std::uint16_t local_port) const
  requires(subresource_supports<T>("portforward", Verb::connect))
{
  return std::make_unique<LocalPortForward>(client_, calls_.port_forward(name, {}), remote_port,
                                            local_port);
}

template <resource T>
template <class CompletionToken>
auto Api<T>::async_process(detail::Prepared prepared, bool tty, const ProcessOptions& options,
                           CompletionToken&& token) const {
  return boost::asio::async_initiate<CompletionToken, ProcessOpenSignature>(
      [client = client_](auto handler, detail::Prepared p, bool t, ProcessOptions o) {
        detail::open_process(client, std::move(p), t, o, std::move(handler));
      },
      token, std::move(prepared), tty, options);
}

}  // namespace kubex::client
