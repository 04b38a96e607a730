#include "net/http_client.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include <pthread.h>
#include <signal.h>

#include "net/curl_sockets.hpp"
#include "net/http_queue.hpp"
#include "net/http_transfer.hpp"

namespace stepwise::net {

using detail::http_queue;
using detail::http_transfer;

namespace {

/// Initializes libcurl once per process; returns its result. Never cleaned
/// up: other clients may come later, and libcurl's global state is small.
CURLcode global_init() {
  static std::once_flag flag;
  static CURLcode result = CURLE_OK;
  std::call_once(flag, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  return result;
}

http_error shutting_down() {
  return {http_error_kind::shutting_down, "the HTTP client is stopping"};
}

http_error no_connection() {
  return {http_error_kind::timeout, "no connection came free within the timeout (connection caps)"};
}

/// How often requests waiting for a connection are checked for their
/// deadline: a waiting request times out at most this late.
constexpr auto expiry_check = std::chrono::milliseconds(100);

} // namespace

// -- the I/O thread's state ---------------------------------------------------

struct http_client::impl {
  explicit impl(http_client_options o)
    : opts(std::move(o)), queue(opts.max_host_connections, opts.max_total_connections) {
    // nop
  }

  ~impl() {
    for (auto* e : spare)
      curl_easy_cleanup(e);
    if (multi != nullptr)
      curl_multi_cleanup(multi);
  }

  /// Keeps the easy handle of a transfer that left the multi handle for
  /// the next one, up to one per connection allowed.
  void keep_handle(http_transfer& t) {
    if (spare.size() < static_cast<size_t>(std::max(opts.max_total_connections, int32_t{1})))
      spare.push_back(t.release_handle());
  }

  /// Creates the multi handle; an error message on failure.
  std::string init();

  /// Sets `stopping` (and `broken`, if not empty) and wakes the loop.
  void request_stop(std::string why = {});

  void run();

  /// Queues the new transfers, with their deadlines.
  void take(std::vector<std::unique_ptr<http_transfer>>& batch);

  /// Answers `timeout` to the queued transfers past their deadline, at
  /// most once per `expiry_check`.
  void expire();

  /// Hands queued transfers to libcurl while the caps allow, each with what
  /// is left of its timeout.
  void start();

  /// Answers every transfer libcurl finished.
  void collect();

  /// Answers every transfer still held with `err`.
  void fail_all(const http_error& err);

  /// Ends the transfers `cancel` named (queued or under way) with
  /// `canceled`; ids already answered are ignored.
  void cancel(std::vector<uint64_t>& ids);

  const http_client_options opts;
  detail::http_counters counters;
  /// Set by `init` before the thread starts; cleaned up by the thread at its
  /// end (null from then on, guarded by mtx) or with the impl.
  CURLM* multi = nullptr;

  std::mutex mtx;
  /// Transfers sent but not yet taken by the I/O thread (guarded by mtx).
  std::vector<std::unique_ptr<http_transfer>> incoming;
  /// No more transfers are taken and no more wake-ups sent (guarded by mtx).
  bool stopping = false;
  /// Why the client failed and takes no requests; empty: it did not fail
  /// (guarded by mtx).
  std::string broken;

  /// Serializes joining the thread.
  std::mutex join_mtx;
  std::thread thread;
  std::thread::id thread_id;

  /// Ids of requests to cancel, and the next id `send` gives (guarded by mtx).
  std::vector<uint64_t> cancels;
  uint64_t next_id = 0;

  /// Transfers waiting for a connection (I/O thread only).
  http_queue queue;
  http_queue::clock::time_point next_expiry{};
  /// Transfers libcurl holds, by easy handle, and their origins (I/O
  /// thread only).
  std::unordered_map<CURL*, std::pair<std::unique_ptr<http_transfer>, http_queue::origin*>> active;
  /// Easy handles of finished transfers, to reuse (I/O thread only).
  std::vector<CURL*> spare;
  /// The sockets libcurl waits on; `wake` from any thread.
  detail::curl_sockets sockets;
};

std::string http_client::impl::init() {
  if (auto rc = global_init(); rc != CURLE_OK)
    return std::string{"curl_global_init failed: "} + curl_easy_strerror(rc);
  multi = curl_multi_init();
  if (multi == nullptr)
    return "curl_multi_init failed";
  auto cap = [](int32_t x) { return static_cast<long>(std::max(x, int32_t{0})); };
  CURLMcode rc =
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, cap(opts.max_host_connections));
  if (rc == CURLM_OK)
    rc = curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, cap(opts.max_total_connections));
  if (rc == CURLM_OK && opts.max_total_connections > 0)
    rc = curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, cap(opts.max_total_connections));
  if (rc == CURLM_OK) // HTTP/1.1 only: one request at a time per connection.
    rc = curl_multi_setopt(multi, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_NOTHING));
  if (rc != CURLM_OK)
    return std::string{"curl_multi_setopt failed: "} + curl_multi_strerror(rc);
  return sockets.attach(multi);
}

void http_client::impl::request_stop(std::string why) {
  std::lock_guard<std::mutex> guard{mtx};
  if (broken.empty())
    broken = std::move(why);
  if (stopping)
    return;
  stopping = true;
  sockets.wake();
}

void http_client::impl::run() {
  auto name = opts.thread_name.substr(0, 15);
  pthread_setname_np(pthread_self(), name.c_str());
  // libcurl avoids SIGPIPE where it can (MSG_NOSIGNAL); should one come
  // anyway it stays pending on this thread instead of ending the process.
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &blocked, nullptr);
  std::vector<std::unique_ptr<http_transfer>> batch;
  std::vector<uint64_t> canceled;
  auto err = shutting_down();
  for (;;) {
    {
      std::lock_guard<std::mutex> guard{mtx};
      if (stopping)
        break;
      batch.swap(incoming);
      canceled.swap(cancels);
    }
    take(batch);
    cancel(canceled);
    expire();
    start();
    // Returns on a socket event, on libcurl's next timer, or on a wake-up.
    auto wait = queue.waiting() > 0 ? expiry_check : std::chrono::milliseconds(1000);
    if (auto why = sockets.wait_and_drive(wait); !why.empty()) {
      // The wait itself failed: better fail everything than spin.
      err = {http_error_kind::other, "the HTTP client failed: " + why};
      request_stop(err.message);
    }
    collect();
    start();
  }
  fail_all(err);
  // Closes the idle connections now. No one wakes `multi` once `stopping`
  // is set; the mutex orders this after the last wake-up.
  std::lock_guard<std::mutex> guard{mtx};
  curl_multi_cleanup(multi);
  multi = nullptr;
}

void http_client::impl::take(std::vector<std::unique_ptr<http_transfer>>& batch) {
  auto now = http_queue::clock::now();
  for (auto& t : batch) {
    auto timeout = t->request().timeout.count() > 0 ? t->request().timeout : opts.default_timeout;
    queue.push(std::move(t),
               timeout.count() > 0 ? now + timeout : http_queue::clock::time_point::max());
  }
  batch.clear();
}

void http_client::impl::expire() {
  auto now = http_queue::clock::now();
  if (queue.waiting() == 0 || now < next_expiry)
    return;
  next_expiry = now + expiry_check;
  for (auto& t : queue.expired(now))
    t->answer(no_connection());
}

void http_client::impl::start() {
  while (auto r = queue.next()) {
    auto left = std::chrono::milliseconds{0}; // none
    if (r->deadline != http_queue::clock::time_point::max()) {
      left = std::chrono::ceil<std::chrono::milliseconds>(r->deadline - http_queue::clock::now());
      if (left.count() <= 0) {
        queue.finished(r->from);
        r->t->answer(no_connection());
        continue;
      }
    }
    CURL* reuse = nullptr;
    if (!spare.empty()) {
      reuse = spare.back();
      spare.pop_back();
    }
    if (auto err = r->t->prepare(opts, left, reuse)) {
      queue.finished(r->from);
      r->t->answer(std::move(*err));
      continue;
    }
    auto easy = r->t->handle();
    if (auto rc = curl_multi_add_handle(multi, easy); rc != CURLM_OK) {
      queue.finished(r->from);
      r->t->answer(http_error{http_error_kind::other, std::string{"curl_multi_add_handle failed: "}
                                                        + curl_multi_strerror(rc)});
      continue;
    }
    active.emplace(easy, std::make_pair(std::move(r->t), r->from));
  }
}

void http_client::impl::collect() {
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
    if (msg->msg != CURLMSG_DONE)
      continue;
    // `msg` dies with the removal of its handle: copy what we need first.
    CURL* easy = msg->easy_handle;
    CURLcode code = msg->data.result;
    auto i = active.find(easy);
    if (i == active.end())
      continue;
    auto t = std::move(i->second.first);
    queue.finished(i->second.second);
    active.erase(i);
    curl_multi_remove_handle(multi, easy);
    t->answer(t->finish(code));
    keep_handle(*t);
  }
}

void http_client::impl::cancel(std::vector<uint64_t>& ids) {
  http_error why{http_error_kind::canceled, "the caller canceled the request"};
  for (auto id : ids) {
    if (auto t = queue.remove(id)) {
      t->answer(why);
      continue;
    }
    auto i = std::find_if(active.begin(), active.end(),
                          [id](auto& kv) { return kv.second.first->id() == id; });
    if (i == active.end())
      continue; // answered already
    auto t = std::move(i->second.first);
    queue.finished(i->second.second);
    curl_multi_remove_handle(multi, i->first);
    active.erase(i);
    t->answer(why);
  }
  ids.clear();
}

void http_client::impl::fail_all(const http_error& err) {
  // Take the map first: a callback may drop the last owner of the client.
  auto held = std::move(active);
  active.clear();
  for (auto& [easy, t] : held) {
    curl_multi_remove_handle(multi, easy);
    queue.finished(t.second);
    t.first->answer(err);
  }
  held.clear();
  for (auto& t : queue.take_all())
    t->answer(err);
  std::vector<std::unique_ptr<http_transfer>> rest;
  {
    std::lock_guard<std::mutex> guard{mtx};
    rest.swap(incoming);
  }
  for (auto& t : rest)
    t->answer(err);
}

// -- the client ---------------------------------------------------------------

http_client::http_client(http_client_options opts)
  : impl_(std::make_shared<impl>(std::move(opts))) {
  if (auto why = impl_->init(); !why.empty()) {
    impl_->request_stop("the HTTP client could not start: " + why);
    return;
  }
  try {
    // The thread shares the state: it may outlive this object (see ~http_client).
    impl_->thread = std::thread{[st = impl_] { st->run(); }};
    impl_->thread_id = impl_->thread.get_id();
  } catch (const std::system_error& e) {
    impl_->request_stop(std::string{"the HTTP client could not start: "} + e.what());
  }
}

http_client::~http_client() {
  stop();
  std::lock_guard<std::mutex> guard{impl_->join_mtx};
  if (impl_->thread.joinable()) // Only when dropped on the I/O thread itself.
    impl_->thread.detach();
}

http_client::request_id http_client::send(http_request req, http_callback cb) {
  std::unique_ptr<http_transfer> t;
  std::string broken;
  {
    std::lock_guard<std::mutex> guard{impl_->mtx};
    auto id = ++impl_->next_id;
    t = std::make_unique<http_transfer>(id, std::move(req), std::move(cb), impl_->counters);
    if (!impl_->stopping) {
      bool wake = impl_->incoming.empty();
      impl_->incoming.push_back(std::move(t));
      // A non-empty queue has a wake-up on its way already.
      if (wake)
        impl_->sockets.wake();
      return id;
    }
    broken = impl_->broken;
  }
  if (broken.empty())
    t->answer(shutting_down());
  else
    t->answer(http_error{http_error_kind::other, std::move(broken)});
  return t->id();
}

void http_client::cancel(request_id id) {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  if (impl_->stopping)
    return; // everything is answered `shutting_down`
  impl_->cancels.push_back(id);
  impl_->sockets.wake();
}

void http_client::stop() {
  impl_->request_stop();
  if (std::this_thread::get_id() == impl_->thread_id)
    return; // A callback: the loop ends once it returns.
  std::lock_guard<std::mutex> guard{impl_->join_mtx};
  if (impl_->thread.joinable())
    impl_->thread.join();
}

http_client_stats http_client::stats() const {
  auto& c = impl_->counters;
  http_client_stats out;
  out.queued = c.queued.load(std::memory_order_relaxed);
  out.in_flight = c.in_flight.load(std::memory_order_relaxed);
  out.completed = c.completed.load(std::memory_order_relaxed);
  out.failed = c.failed.load(std::memory_order_relaxed);
  return out;
}

} // namespace stepwise::net
