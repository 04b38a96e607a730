#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace stepwise::net {

// -- requests and responses ---------------------------------------------------

/// The methods a request may use (`del` is DELETE: `delete` is a keyword).
enum class http_method : uint8_t { get, post, put, del };

std::string_view to_string(http_method x); // "GET", "POST", "PUT", "DELETE"

/// What a request can fail with. After `connect_failed` and `tls` the
/// server never saw the request; after the others `http_error::request_sent`
/// tells.
enum class http_error_kind : uint8_t {
  /// No full response within the request's timeout: the server is slow, or
  /// no connection came free in time under the connection caps.
  timeout,
  /// No connection: refused, unreachable, a DNS failure, or no connection
  /// set up within the connect timeout (or the request's timeout).
  connect_failed,
  /// The TLS handshake failed: an untrusted or mismatched certificate, no
  /// common protocol, a server that does not speak TLS.
  tls,
  /// The client stopped before the request was answered.
  shutting_down,
  /// The caller canceled the request (`http_client::cancel`): its
  /// transfer ended, its connection closed if it was under way.
  canceled,
  /// Anything else: a malformed URL or header, an unsupported scheme, the
  /// connection lost mid-response, a response body over the limit, a client
  /// that could not start or whose I/O loop failed.
  other,
};

std::string_view to_string(http_error_kind x); // "timeout", "connect_failed", ...

/// A failed request. `message` is libcurl's description (or the client's own).
struct http_error {
  http_error_kind kind = http_error_kind::other;
  std::string message;
  /// Whether the request was handed to a connection. False: the server
  /// cannot have seen it, and sending it again is safe whatever the method.
  bool request_sent = false;
};

/// One HTTP/1.1 request.
struct http_request {
  http_method method = http_method::get;
  /// An `http://` or `https://` URL; other schemes fail with `other`.
  std::string url;
  /// Sent as given, in order. No `Content-Type` is sent unless set here.
  /// A name that is no HTTP token (letters, digits, `!#$%&'*+-.^_`|~`) or a
  /// value with CR, LF or NUL fails the request with `other`.
  std::vector<std::pair<std::string, std::string>> headers;
  /// Always sent with POST and PUT (`Content-Length: 0` when empty); sent
  /// with GET and DELETE when not empty.
  std::string body;
  /// Bound on the whole exchange from when the I/O thread takes the request,
  /// including any wait for a free connection under the connection caps;
  /// zero: the client's default.
  std::chrono::milliseconds timeout{0};
};

/// A response, whatever its status.
struct http_response {
  int32_t status = 0;
  /// The final response's headers in the order received, names in lower
  /// case, values without surrounding white space.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  /// Returns the value of the first header named `name` (any case), or null.
  const std::string* header(std::string_view name) const;
};

/// A request's result: a response or an error. The client never throws.
using http_result = std::variant<http_response, http_error>;

/// Receives a request's result, exactly once, on the client's I/O thread
/// (see `http_client::send` for the exceptions). It must be cheap and must
/// not block, since every other request of the client waits while it runs:
/// typically it sends a CAF message or sets a promise. It may call `send`
/// and `stop` (stop then returns at once and the thread ends afterwards).
/// It must not throw; an exception is caught and dropped.
using http_callback = std::function<void(http_result)>;

// -- the client ---------------------------------------------------------------

/// Configures an `http_client`. Caps of zero mean no cap. Proxies come
/// from libcurl's environment variables (`http_proxy`, `https_proxy`,
/// `no_proxy`).
struct http_client_options {
  /// Name of the I/O thread (at most 15 characters are kept).
  std::string thread_name = "sw-http";
  /// Connections open at once to one host and port; requests beyond it
  /// wait in the client, in the order sent, for a free connection (they do
  /// not fail unless their timeout passes first).
  int32_t max_host_connections = 128;
  /// Connections open at once in total, likewise; also the number of idle
  /// connections kept for reuse.
  int32_t max_total_connections = 1024;
  /// Timeout of requests whose own `timeout` is zero (zero: none).
  std::chrono::milliseconds default_timeout = std::chrono::seconds(30);
  /// Bound on DNS, TCP connect and TLS handshake of a new connection
  /// (zero: libcurl's 300 s).
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(10);
  /// Verify the server's certificate and host name on `https://`. Turn it
  /// off only for tests and trusted networks.
  bool verify_tls = true;
  /// PEM file of the certificate authorities to trust instead of the
  /// system's; empty: the system's.
  std::string ca_file;
  /// A longer response body fails the request with `other` (zero: no limit).
  size_t max_response_bytes = size_t{64} << 20;
};

/// What the client is doing and has done. `queued` and `in_flight` are
/// gauges; `completed` and `failed` only grow.
struct http_client_stats {
  /// Accepted, not yet sent: waiting for the I/O thread, for a free
  /// connection, or for the connection to be set up.
  uint64_t queued = 0;
  /// Sent (or being sent) on a connection, not yet answered.
  uint64_t in_flight = 0;
  /// Answered with a response (any status).
  uint64_t completed = 0;
  /// Answered with an error (including `shutting_down`).
  uint64_t failed = 0;
};

/// An asynchronous HTTP/1.1 client on libcurl's multi interface: one I/O
/// thread (`curl_multi_poll`) carries every request, however many are in
/// flight; no thread waits on a response. Connections are kept alive and
/// reused up to the caps of `http_client_options`; `https://` goes through
/// OpenSSL.
///
/// Thread-safe: `send`, `stop` and `stats` may be called from any thread,
/// including CAF scheduler threads; `send` takes one short mutex and never
/// waits on I/O.
class http_client {
public:
  explicit http_client(http_client_options opts = {});

  /// Stops (see `stop`). When the last owner is dropped inside a callback,
  /// the I/O thread is left to finish on its own instead of being joined.
  ~http_client();

  http_client(const http_client&) = delete;
  http_client& operator=(const http_client&) = delete;

  /// Names a request sent, for `cancel`.
  using request_id = uint64_t;

  /// Queues `req`; `cb` receives its result exactly once on the I/O thread.
  /// After `stop` `cb` receives `shutting_down` (or `other`, if the client
  /// could not start or its I/O loop failed) on the calling thread before
  /// `send` returns. Returns the request's id.
  request_id send(http_request req, http_callback cb);

  /// Ends request `id` if it is not answered yet: it leaves the queue, or
  /// its transfer is stopped and its connection closed, and its callback
  /// receives `canceled` (on the I/O thread). Thread-safe and cheap: for a
  /// caller that gave the request up (a step that timed out or was
  /// canceled), so that it holds no connection and no server work.
  void cancel(request_id id);

  /// Answers every request not yet answered with `shutting_down`, ends the
  /// I/O thread and waits for it (except when called on that thread), and
  /// releases every connection. Idempotent.
  void stop();

  http_client_stats stats() const;

private:
  struct impl;
  /// Shared with the I/O thread, which may outlive this object (see above).
  std::shared_ptr<impl> impl_;
};

} // namespace stepwise::net
