// SPDX-License-Identifier: Apache-2.0
#include <kubex/client/detail/call.hpp>

#include <boost/asio/append.hpp>
#include <boost/asio/post.hpp>

#include <utility>

namespace kubex::client::detail {

// Posted to the client's executor, then dispatched to the handler's associated one, as the
// transport would complete it.
void complete_later(const Client& client, std::exception_ptr error,
                    boost::asio::any_completion_handler<RequestSignature> handler) {
  boost::asio::post(client.get_executor(),
                    boost::asio::append(std::move(handler), std::move(error), HttpResponse{}));
}

void complete_later(const Client& client, std::exception_ptr error,
                    boost::asio::any_completion_handler<StreamSignature> handler) {
  boost::asio::post(client.get_executor(),
                    boost::asio::append(std::move(handler), std::move(error), ResponseStream{}));
}

}  // namespace kubex::client::detail
