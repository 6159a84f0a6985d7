// SPDX-License-Identifier: Apache-2.0
#pragma once

// The TCP connections of this process, read from /proc: an account of connection reuse that
// does not depend on kubex's own bookkeeping. Linux only; header-only.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <system_error>

namespace kubex::testing {

// Kernel TCP states in /proc/net/tcp.
constexpr int tcp_established = 0x01;
constexpr int tcp_close_wait = 0x08;

// The TCP connections this process holds to port `port`, as socket inode -> kernel state. Read
// from /proc, so it checks kubex's own connection bookkeeping independently.
inline std::map<unsigned long, int> sockets_to(std::uint16_t port) {
  std::set<unsigned long> own;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const auto link = std::filesystem::read_symlink(entry.path(), ec).string();
    if (!ec && link.starts_with("socket:[")) {
      own.insert(std::stoul(link.substr(8)));
    }
  }
  std::map<unsigned long, int> sockets;
  for (const char* table : {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // column titles
    while (std::getline(in, line)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout;
      unsigned long inode = 0;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode;
      const auto colon = remote.rfind(':');
      if (!fields || colon == std::string::npos) {
        continue;
      }
      if (std::stoul(remote.substr(colon + 1), nullptr, 16) == port && own.contains(inode)) {
        sockets[inode] = std::stoi(state, nullptr, 16);
      }
    }
  }
  return sockets;
}

}  // namespace kubex::testing
