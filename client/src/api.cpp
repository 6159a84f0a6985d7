// SPDX-License-Identifier: Apache-2.0
#include <kubex/client/api.hpp>
#include <kubex/core/json_object.hpp>

#include <string>
#include <string_view>
#include <utility>

namespace kubex::client::detail {
namespace {

struct KindOnly {
  std::string kind;
};
KUBEX_JSON_OBJECT(KindOnly, kind)

}  // namespace

HttpRequest to_http(ApiRequest request) {
  HttpRequest out;
  out.method = std::move(request.method);
  out.target = std::move(request.target);
  out.body = std::move(request.body);
  out.content_type = std::move(request.content_type);
  out.accept = std::move(request.accept);
  out.idle_timeout = request.idle_timeout;
  return out;
}

std::exception_ptr api_error(std::string_view method, std::string_view target,
                             const HttpResponse& response) {
  return std::make_exception_ptr(
      ApiError::from_response(method, target, response.status, response.body));
}

bool is_status_body(const std::string& body) {
  // Objects and Status both start with "kind" when the apiserver writes them, so this parse
  // stops early in practice; it reads the field wherever it is.
  KindOnly k;
  json::decode(body, k);
  return k.kind == "Status";
}

std::optional<std::string_view> LineBuffer::next_line() {
  const auto nl = data_.find('\n', scanned_);
  if (nl == std::string::npos) {
    scanned_ = data_.size();
    // Drop consumed lines once they are most of the buffer, so it does not grow with the
    // stream; a line still being received stays where it is.
    if (start_ > 0 && start_ >= data_.size() / 2) {
      data_.erase(0, start_);
      scanned_ -= start_;
      start_ = 0;
    }
    return std::nullopt;
  }
  std::string_view line(data_.data() + start_, nl - start_);
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  start_ = nl + 1;
  scanned_ = start_;
  return line;
}

std::string_view LineBuffer::rest() {
  std::string_view r(data_.data() + start_, data_.size() - start_);
  start_ = data_.size();
  scanned_ = start_;
  if (!r.empty() && r.back() == '\r') {
    r.remove_suffix(1);
  }
  return r;
}

}  // namespace kubex::client::detail
