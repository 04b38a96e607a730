#include "net/http_queue.hpp"

#include <algorithm>
#include <cctype>

namespace stepwise::net::detail {

namespace {

size_t cap_or_max(int32_t cap) {
  return cap > 0 ? static_cast<size_t>(cap) : SIZE_MAX;
}

} // namespace

http_queue::http_queue(int32_t host_cap, int32_t total_cap)
  : host_cap_(cap_or_max(host_cap)), total_cap_(cap_or_max(total_cap)) {
  // nop
}

std::string http_queue::origin_of(const std::string& url) {
  auto sep = url.find("://");
  if (sep == std::string::npos)
    return url;
  auto key = url.substr(0, url.find_first_of("/?#", sep + 3));
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return key;
}

void http_queue::push(std::unique_ptr<http_transfer> t, clock::time_point deadline) {
  auto key = origin_of(t->request().url);
  origins_[key].waiting.emplace_back(std::move(t), deadline);
  ++waiting_;
}

std::optional<http_queue::ready> http_queue::next() {
  if (waiting_ == 0 || running_ >= total_cap_)
    return std::nullopt;
  // A client talks to a handful of hosts: a scan is cheap.
  for (auto& [key, o] : origins_) {
    if (o.waiting.empty() || o.running >= host_cap_)
      continue;
    ready r{std::move(o.waiting.front().first), o.waiting.front().second, &o};
    o.waiting.pop_front();
    --waiting_;
    ++o.running;
    ++running_;
    return r;
  }
  return std::nullopt;
}

void http_queue::finished(origin* from) {
  --running_;
  if (--from->running > 0 || !from->waiting.empty())
    return;
  for (auto i = origins_.begin(); i != origins_.end(); ++i)
    if (&i->second == from) {
      origins_.erase(i);
      return;
    }
}

std::vector<std::unique_ptr<http_transfer>> http_queue::expired(clock::time_point now) {
  std::vector<std::unique_ptr<http_transfer>> late;
  for (auto i = origins_.begin(); i != origins_.end();) {
    auto& w = i->second.waiting;
    auto keep =
      std::stable_partition(w.begin(), w.end(), [now](auto& x) { return x.second > now; });
    for (auto j = keep; j != w.end(); ++j)
      late.push_back(std::move(j->first));
    w.erase(keep, w.end());
    i = w.empty() && i->second.running == 0 ? origins_.erase(i) : std::next(i);
  }
  waiting_ -= late.size();
  return late;
}

std::unique_ptr<http_transfer> http_queue::remove(uint64_t id) {
  for (auto i = origins_.begin(); i != origins_.end(); ++i) {
    auto& w = i->second.waiting;
    auto j = std::find_if(w.begin(), w.end(), [id](auto& x) { return x.first->id() == id; });
    if (j == w.end())
      continue;
    auto out = std::move(j->first);
    w.erase(j);
    waiting_ -= 1;
    if (w.empty() && i->second.running == 0)
      origins_.erase(i);
    return out;
  }
  return nullptr;
}

std::vector<std::unique_ptr<http_transfer>> http_queue::take_all() {
  std::vector<std::unique_ptr<http_transfer>> all;
  for (auto& [key, o] : origins_)
    for (auto& w : o.waiting)
      all.push_back(std::move(w.first));
  for (auto i = origins_.begin(); i != origins_.end();)
    i = i->second.running == 0 ? origins_.erase(i) : std::next(i);
  for (auto& [key, o] : origins_)
    o.waiting.clear();
  waiting_ = 0;
  return all;
}

} // namespace stepwise::net::detail
