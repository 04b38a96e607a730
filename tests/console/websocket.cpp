#include "tests/console/websocket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <random>

namespace stepwise::test {

websocket::~websocket() {
  if (fd_ >= 0)
    ::close(fd_);
}

std::string websocket::connect(int port, const std::string& path, clock::time_point deadline) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0)
    return "socket failed";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
    return "cannot connect to the DevTools port";
  // The key only proves the server speaks WebSocket; any 16 bytes do.
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port)
                        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Key: c3RlcHdpc2UtY29uc29sZQ==\r\n"
                          "Sec-WebSocket-Version: 13\r\n\r\n";
  if (::send(fd_, request.data(), request.size(), MSG_NOSIGNAL)
      != static_cast<ssize_t>(request.size()))
    return "cannot send the upgrade request";
  std::string head;
  char c;
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (!read_exact(&c, 1, deadline))
      return "no upgrade answer";
    head.push_back(c);
  }
  if (head.rfind("HTTP/1.1 101", 0) != 0)
    return "upgrade refused: " + head.substr(0, head.find('\r'));
  return "";
}

bool websocket::read_exact(char* out, size_t n, clock::time_point deadline) {
  while (buffer_.size() < n) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0)
      return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0)
      continue;
    char chunk[65536];
    auto got = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (got <= 0)
      return false;
    buffer_.append(chunk, static_cast<size_t>(got));
  }
  std::memcpy(out, buffer_.data(), n);
  buffer_.erase(0, n);
  return true;
}

bool websocket::send_frame(int opcode, const std::string& payload) {
  std::string frame;
  frame.push_back(static_cast<char>(0x80 | opcode));
  auto n = payload.size();
  // Client frames are masked (RFC 6455, 5.3).
  if (n < 126) {
    frame.push_back(static_cast<char>(0x80 | n));
  } else if (n < 65536) {
    frame.push_back(static_cast<char>(0x80 | 126));
    frame.push_back(static_cast<char>(n >> 8));
    frame.push_back(static_cast<char>(n & 0xff));
  } else {
    frame.push_back(static_cast<char>(0x80 | 127));
    for (int shift = 56; shift >= 0; shift -= 8)
      frame.push_back(static_cast<char>((n >> shift) & 0xff));
  }
  static std::mt19937 rng{std::random_device{}()};
  char mask[4];
  for (auto& m : mask)
    m = static_cast<char>(rng() & 0xff);
  frame.append(mask, 4);
  for (size_t i = 0; i < n; ++i)
    frame.push_back(static_cast<char>(payload[i] ^ mask[i % 4]));
  size_t sent = 0;
  while (sent < frame.size()) {
    auto k = ::send(fd_, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (k <= 0)
      return false;
    sent += static_cast<size_t>(k);
  }
  return true;
}

bool websocket::send_text(const std::string& text) {
  return send_frame(1, text);
}

std::optional<std::string> websocket::receive(clock::time_point deadline) {
  std::string message;
  for (;;) {
    unsigned char head[2];
    if (!read_exact(reinterpret_cast<char*>(head), 2, deadline))
      return std::nullopt;
    bool fin = (head[0] & 0x80) != 0;
    int opcode = head[0] & 0x0f;
    uint64_t n = head[1] & 0x7f;
    if (n >= 126) {
      unsigned char ext[8];
      size_t bytes = n == 126 ? 2 : 8;
      if (!read_exact(reinterpret_cast<char*>(ext), bytes, deadline))
        return std::nullopt;
      n = 0;
      for (size_t i = 0; i < bytes; ++i)
        n = (n << 8) | ext[i];
    }
    std::string payload(n, '\0');
    if (n > 0 && !read_exact(payload.data(), n, deadline))
      return std::nullopt;
    if (opcode == 8)
      return std::nullopt;
    if (opcode == 9) {
      send_frame(10, payload);
      continue;
    }
    if (opcode == 10)
      continue;
    message += payload;
    if (fin)
      return message;
  }
}

} // namespace stepwise::test
