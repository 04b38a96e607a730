#include "net/curl_sockets.hpp"

#include <cerrno>
#include <cstring>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace stepwise::net::detail {

curl_sockets::~curl_sockets() {
  if (epoll_ >= 0)
    ::close(epoll_);
  if (wake_ >= 0)
    ::close(wake_);
}

std::string curl_sockets::attach(CURLM* multi) {
  multi_ = multi;
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_ < 0)
    return std::string{"epoll_create1 failed: "} + std::strerror(errno);
  wake_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_ < 0)
    return std::string{"eventfd failed: "} + std::strerror(errno);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wake_;
  if (epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &ev) != 0)
    return std::string{"epoll_ctl failed: "} + std::strerror(errno);
  CURLMcode rc = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, &curl_sockets::on_socket);
  if (rc == CURLM_OK)
    rc = curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, this);
  if (rc == CURLM_OK)
    rc = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, &curl_sockets::on_timer);
  if (rc == CURLM_OK)
    rc = curl_multi_setopt(multi, CURLMOPT_TIMERDATA, this);
  if (rc != CURLM_OK)
    return std::string{"curl_multi_setopt failed: "} + curl_multi_strerror(rc);
  return {};
}

void curl_sockets::wake() {
  uint64_t one = 1;
  // Fails only when the counter is full: a wake-up is pending anyway.
  [[maybe_unused]] auto n = ::write(wake_, &one, sizeof one);
}

int curl_sockets::on_socket(CURL*, curl_socket_t fd, int what, void* self, void*) {
  auto ep = static_cast<curl_sockets*>(self)->epoll_;
  if (what == CURL_POLL_REMOVE) {
    // libcurl may have closed it already: nothing to take out then.
    epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
    return 0;
  }
  epoll_event ev{};
  ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
  ev.data.fd = fd;
  if (epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev) != 0 && errno == ENOENT)
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  return 0;
}

int curl_sockets::on_timer(CURLM*, long timeout_ms, void* self) {
  auto& s = *static_cast<curl_sockets*>(self);
  if (timeout_ms < 0)
    s.timer_.reset();
  else
    s.timer_ = clock::now() + std::chrono::milliseconds(timeout_ms);
  return 0;
}

std::string curl_sockets::wait_and_drive(std::chrono::milliseconds max_wait) {
  auto wait = max_wait;
  if (timer_) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(*timer_ - clock::now());
    wait = std::max(std::chrono::milliseconds{0}, std::min(wait, left));
  }
  epoll_event events[64];
  auto n = epoll_wait(epoll_, events, 64, static_cast<int>(wait.count()));
  if (n < 0 && errno != EINTR)
    return std::string{"epoll_wait failed: "} + std::strerror(errno);
  int running = 0;
  for (int i = 0; i < n; ++i) {
    auto fd = events[i].data.fd;
    if (fd == wake_) {
      uint64_t count;
      [[maybe_unused]] auto r = ::read(wake_, &count, sizeof count);
      continue;
    }
    auto got = events[i].events;
    int flags = ((got & (EPOLLIN | EPOLLHUP)) ? CURL_CSELECT_IN : 0)
                | ((got & EPOLLOUT) ? CURL_CSELECT_OUT : 0)
                | ((got & EPOLLERR) ? CURL_CSELECT_ERR : 0);
    curl_multi_socket_action(multi_, fd, flags, &running);
  }
  if (timer_ && clock::now() >= *timer_) {
    // Reset first: the handling may set the next one.
    timer_.reset();
    curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
  }
  return {};
}

} // namespace stepwise::net::detail
