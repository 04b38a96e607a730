#include "bench/stream_clients.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace stepwise::bench {

namespace {

bool send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    auto n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0)
      return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

} // namespace

stream_clients::stream_clients(std::string host, int port)
  : host_(std::move(host)), port_(port), epoll_(::epoll_create1(EPOLL_CLOEXEC)) {
  // nop
}

stream_clients::~stream_clients() {
  stop_ = true;
  if (thread_.joinable())
    thread_.join();
  for (auto& c : conns_)
    if (c.fd >= 0)
      ::close(c.fd);
  if (epoll_ >= 0)
    ::close(epoll_);
}

int stream_clients::connect_one() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port_));
  ::inet_pton(AF_INET, host_.c_str(), &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

size_t stream_clients::open_streams(size_t n, const std::string& request) {
  size_t ok = 0;
  for (size_t i = 0; i < n; ++i) {
    auto fd = connect_one();
    if (fd < 0 || !send_all(fd, request)) {
      if (fd >= 0)
        ::close(fd);
      continue;
    }
    conns_.push_back(conn{fd, false, false, sse_decoder{false}});
    ++ok;
  }
  return ok;
}

size_t stream_clients::open_stalled(size_t n, const std::string& partial) {
  partial_ = partial;
  size_t ok = 0;
  for (size_t i = 0; i < n; ++i) {
    auto fd = connect_one();
    if (fd < 0 || !send_all(fd, partial)) {
      if (fd >= 0)
        ::close(fd);
      continue;
    }
    conns_.push_back(conn{fd, true, false, sse_decoder{false}});
    ++ok;
  }
  return ok;
}

void stream_clients::start() {
  for (size_t i = 0; i < conns_.size(); ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = i;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, conns_[i].fd, &ev);
  }
  thread_ = std::thread([this] { run(); });
}

void stream_clients::run() {
  std::vector<epoll_event> events(1024);
  while (!stop_) {
    auto n = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), 100);
    if (n <= 0)
      continue;
    std::lock_guard<std::mutex> guard{mtx_};
    for (int k = 0; k < n; ++k)
      on_readable(static_cast<size_t>(events[static_cast<size_t>(k)].data.u64));
  }
}

void stream_clients::on_readable(size_t i) {
  auto& c = conns_[i];
  if (c.closed)
    return;
  char buf[65536];
  auto n = ::read(c.fd, buf, sizeof(buf));
  if (n > 0) {
    if (!c.stalled)
      c.decoder.feed(std::string_view(buf, static_cast<size_t>(n)));
    return;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  ::epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
  ::close(c.fd);
  c.fd = -1;
  if (!c.stalled) {
    c.closed = true;
    return;
  }
  // The server cut a stalled client off at its deadline: another takes
  // its place, as an attacker's would.
  ++stalled_cut_;
  auto fd = connect_one();
  if (fd < 0 || !send_all(fd, partial_)) {
    if (fd >= 0)
      ::close(fd);
    c.closed = true;
    return;
  }
  c.fd = fd;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.u64 = i;
  ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev);
}

stream_counts stream_clients::counts() const {
  std::lock_guard<std::mutex> guard{mtx_};
  stream_counts out;
  out.stalled_cut = stalled_cut_;
  for (auto& c : conns_) {
    if (c.stalled) {
      out.stalled_open += c.closed ? 0 : 1;
      continue;
    }
    if (c.decoder.status() == 200 && c.decoder.comments() > 0)
      ++out.admitted;
    else if (c.decoder.status() != 0 && c.decoder.status() != 200)
      ++out.refused;
    if (c.closed)
      ++out.closed;
  }
  return out;
}

size_t stream_clients::reached(int64_t last) const {
  std::lock_guard<std::mutex> guard{mtx_};
  size_t n = 0;
  for (auto& c : conns_)
    if (!c.stalled && c.decoder.count() > 0 && c.decoder.last_id() >= last)
      ++n;
  return n;
}

size_t stream_clients::complete(size_t count, uint64_t digest) const {
  std::lock_guard<std::mutex> guard{mtx_};
  size_t n = 0;
  for (auto& c : conns_)
    if (!c.stalled && c.decoder.ordered() && c.decoder.count() == count
        && c.decoder.digest() == digest)
      ++n;
  return n;
}

} // namespace stepwise::bench
