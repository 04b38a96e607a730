#include "tests/http/raw_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

namespace stepwise::test {

raw_conn::raw_conn(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd_ >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
}

raw_conn::raw_conn(raw_conn&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

raw_conn::~raw_conn() {
  if (fd_ >= 0)
    ::close(fd_);
}

bool raw_conn::send(std::string_view data) {
  size_t sent = 0;
  while (sent < data.size()) {
    auto n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0)
      return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

bool raw_conn::await_close(std::chrono::milliseconds limit, std::string* got) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - std::chrono::steady_clock::now())
                  .count();
    if (left <= 0)
      return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0)
      continue;
    auto n = ::read(fd_, buf, sizeof(buf));
    if (n <= 0)
      return true;
    if (got != nullptr)
      got->append(buf, static_cast<size_t>(n));
  }
}

stream_fleet::stream_fleet(int port, size_t n, const std::string& request)
  : decoders_(n), closed_(n, false) {
  conns_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    conns_.emplace_back(port);
    REQUIRE(conns_.back().send(request));
  }
}

bool stream_fleet::pump_until(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  std::vector<pollfd> fds(conns_.size());
  char buf[16384];
  while (!done()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - std::chrono::steady_clock::now())
                  .count();
    if (left <= 0)
      return done();
    for (size_t i = 0; i < conns_.size(); ++i)
      fds[i] = pollfd{closed_[i] ? -1 : conns_[i].fd(), POLLIN, 0};
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::min<int64_t>(left, 100))) <= 0)
      continue;
    for (size_t i = 0; i < conns_.size(); ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
        continue;
      auto n = ::read(conns_[i].fd(), buf, sizeof(buf));
      if (n <= 0)
        closed_[i] = true;
      else
        decoders_[i].feed(std::string_view(buf, static_cast<size_t>(n)));
    }
  }
  return true;
}

size_t stream_fleet::admitted() const {
  size_t n = 0;
  for (auto& d : decoders_)
    if (d.status() == 200 && d.comments() > 0)
      ++n;
  return n;
}

size_t stream_fleet::closed() const {
  size_t n = 0;
  for (bool c : closed_)
    if (c)
      ++n;
  return n;
}

bool stream_fleet::all_reached(int64_t last) const {
  for (auto& d : decoders_)
    if (d.ids().empty() || d.ids().back() < last)
      return false;
  return true;
}

std::string get_request(const std::string& target, const std::string& extra) {
  return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + "\r\n";
}

} // namespace stepwise::test
