// SPDX-License-Identifier: Apache-2.0
#include <kubex/core/api_error.hpp>
#include <kubex/core/error.hpp>
#include <kubex/core/json.hpp>
#include <kubex/core/remote_command.hpp>

#include <charconv>
#include <string>
#include <string_view>
#include <utility>

namespace kubex::remote_command {
namespace {

// At most 200 bytes of what the server sent, control bytes escaped, for messages.
std::string excerpt(std::string_view bytes) {
  std::string out = "\"";
  for (const char c : bytes.substr(0, 200)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '"' || c == '\\') {
      constexpr std::string_view hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4U];
      out += hex[u & 0xfU];
    } else {
      out += c;
    }
  }
  out += bytes.size() > 200 ? "\"..." : "\"";
  return out;
}

[[noreturn]] void malformed(std::string_view context, std::string_view status_json,
                            std::string_view why) {
  std::string message(context);
  message.append(": the error channel ").append(why).append(": ").append(excerpt(status_json));
  throw Error(errc::invalid_json, message);
}

}  // namespace

std::string frame(Channel channel, std::string_view data) {
  std::string out;
  out.reserve(data.size() + 1);
  out += static_cast<char>(channel);
  out.append(data);
  return out;
}

std::string resize_frame(std::uint16_t width, std::uint16_t height) {
  return frame(Channel::resize, "{\"Width\":" + std::to_string(width) +
                                    ",\"Height\":" + std::to_string(height) + "}");
}

std::string close_frame(Channel channel) {
  std::string out(2, '\0');
  out[0] = static_cast<char>(Channel::close);
  out[1] = static_cast<char>(channel);
  return out;
}

int exit_code(std::string_view context, std::string_view status_json) {
  Status status;
  if (status_json.empty() || status_json.front() != '{') {
    malformed(context, status_json, "carried no Status");
  }
  try {
    json::decode(status_json, status);
  } catch (const json::DecodeError&) {
    malformed(context, status_json, "carried no valid Status");
  }
  if (status.status == "Success") {
    return 0;
  }
  if (status.status != "Failure") {
    malformed(context, status_json, "carried a Status that is neither Success nor Failure");
  }
  if (status.reason == "NonZeroExitCode") {
    if (status.details) {
      for (const auto& cause : status.details->causes) {
        if (cause.reason != "ExitCode") {
          continue;
        }
        int code = 0;
        const auto* first = cause.message.data();
        const auto* last = first + cause.message.size();
        const auto [end, ec] = std::from_chars(first, last, code);
        if (ec == std::errc() && end == last && code > 0) {
          return code;
        }
        malformed(context, status_json, "reported an exit code that is not a positive integer");
      }
    }
    malformed(context, status_json, "reported a non-zero exit without an ExitCode cause");
  }
  throw ApiError::from_status(context, std::move(status));
}

}  // namespace kubex::remote_command
