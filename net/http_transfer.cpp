#include "net/http_transfer.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <string_view>

namespace stepwise::net::detail {

namespace {

bool has_ctl(std::string_view s) {
  return s.find_first_of(std::string_view{"\r\n\0", 3}) != std::string_view::npos;
}

/// Whether `s` is an HTTP token (RFC 9110): what a header name may be.
bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) != 0
           || std::string_view{"!#$%&'*+-.^_`|~"}.find(ch) != std::string_view::npos;
  });
}

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x))
                  == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) {
  auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return {};
  auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

long millis(std::chrono::milliseconds d) {
  return static_cast<long>(std::clamp<std::chrono::milliseconds::rep>(d.count(), 0, LONG_MAX));
}

bool is_tls_error(CURLcode code) {
  switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_USE_SSL_FAILED:
      return true;
    default:
      return false;
  }
}

} // namespace

http_transfer::http_transfer(uint64_t id, http_request req, http_callback cb,
                             http_counters& counters)
  : id_(id), req_(std::move(req)), cb_(std::move(cb)), counters_(counters) {
  counters_.queued.fetch_add(1, std::memory_order_relaxed);
}

http_transfer::~http_transfer() {
  if (easy_ != nullptr)
    curl_easy_cleanup(easy_);
  curl_slist_free_all(header_list_);
  if (!answered_) // Never happens through the client; keeps the gauges right.
    (sent_ ? counters_.in_flight : counters_.queued).fetch_sub(1, std::memory_order_relaxed);
}

// -- set-up -------------------------------------------------------------------

std::optional<http_error> http_transfer::prepare(const http_client_options& opts,
                                                 std::chrono::milliseconds timeout, CURL* spare) {
  // A reset handle costs a fraction of a new one (curl_easy_init sets up
  // its whole state: about 15 % of the client's instructions per call).
  if (spare != nullptr)
    curl_easy_reset(spare);
  easy_ = spare != nullptr ? spare : curl_easy_init();
  if (easy_ == nullptr)
    return http_error{http_error_kind::other, "curl_easy_init failed"};
  if (auto err = set_headers())
    return err;
  max_body_ = opts.max_response_bytes > 0 ? opts.max_response_bytes : SIZE_MAX;
  CURLcode rc = CURLE_OK;
  auto set = [&](CURLoption opt, auto value) {
    if (rc == CURLE_OK)
      rc = curl_easy_setopt(easy_, opt, value);
  };
  set(CURLOPT_URL, req_.url.c_str());
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  set(CURLOPT_PRIVATE, static_cast<void*>(this));
  set(CURLOPT_ERRORBUFFER, static_cast<char*>(errbuf_));
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_TCP_NODELAY, 1L);
  set(CURLOPT_TCP_KEEPALIVE, 1L);
  set(CURLOPT_TIMEOUT_MS, millis(timeout));
  set(CURLOPT_CONNECTTIMEOUT_MS, millis(opts.connect_timeout));
  set(CURLOPT_SSL_VERIFYPEER, opts.verify_tls ? 1L : 0L);
  set(CURLOPT_SSL_VERIFYHOST, opts.verify_tls ? 2L : 0L);
  if (!opts.ca_file.empty())
    set(CURLOPT_CAINFO, opts.ca_file.c_str());
  set(CURLOPT_WRITEFUNCTION, &http_transfer::on_body);
  set(CURLOPT_WRITEDATA, static_cast<void*>(this));
  set(CURLOPT_HEADERFUNCTION, &http_transfer::on_header);
  set(CURLOPT_HEADERDATA, static_cast<void*>(this));
  set(CURLOPT_PREREQFUNCTION, &http_transfer::on_prereq);
  set(CURLOPT_PREREQDATA, static_cast<void*>(this));
  set(CURLOPT_RESOLVER_START_FUNCTION, &http_transfer::on_resolve);
  set(CURLOPT_RESOLVER_START_DATA, static_cast<void*>(this));
  set(CURLOPT_SOCKOPTFUNCTION, &http_transfer::on_socket);
  set(CURLOPT_SOCKOPTDATA, static_cast<void*>(this));
  set(CURLOPT_HTTPHEADER, header_list_);
  if (rc == CURLE_OK && !set_method())
    rc = CURLE_OUT_OF_MEMORY;
  if (rc != CURLE_OK)
    return http_error{http_error_kind::other,
                      std::string{"cannot set up the request: "} + curl_easy_strerror(rc)};
  return std::nullopt;
}

std::optional<http_error> http_transfer::set_headers() {
  bool has_body =
    req_.method == http_method::post || req_.method == http_method::put || !req_.body.empty();
  bool has_type = false;
  auto append = [this](const std::string& line) {
    auto next = curl_slist_append(header_list_, line.c_str());
    if (next == nullptr)
      return false;
    header_list_ = next;
    return true;
  };
  for (auto& [name, value] : req_.headers) {
    if (!is_token(name) || has_ctl(value))
      return http_error{http_error_kind::other, "invalid request header '" + name + "'"};
    has_type = has_type || same_name(name, "content-type");
    // "Name;" is libcurl's way to send a header with an empty value.
    if (!append(value.empty() ? name + ";" : name + ": " + value))
      return http_error{http_error_kind::other, "out of memory"};
  }
  // A body gets no form Content-Type and no "Expect: 100-continue" round trip.
  if (has_body && ((!has_type && !append("Content-Type:")) || !append("Expect:")))
    return http_error{http_error_kind::other, "out of memory"};
  return std::nullopt;
}

bool http_transfer::set_method() {
  auto with_body = [this] {
    return curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE,
                            static_cast<curl_off_t>(req_.body.size()))
             == CURLE_OK
           && curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, req_.body.data()) == CURLE_OK;
  };
  auto custom = [this](const char* verb) {
    return curl_easy_setopt(easy_, CURLOPT_CUSTOMREQUEST, verb) == CURLE_OK;
  };
  switch (req_.method) {
    case http_method::post:
      return with_body();
    case http_method::put:
      return custom("PUT") && with_body();
    case http_method::get:
      if (req_.body.empty())
        return curl_easy_setopt(easy_, CURLOPT_HTTPGET, 1L) == CURLE_OK;
      return custom("GET") && with_body();
    case http_method::del:
      return custom("DELETE") && (req_.body.empty() || with_body());
  }
  return false;
}

// -- libcurl callbacks --------------------------------------------------------

size_t http_transfer::on_body(char* data, size_t size, size_t n, void* self) {
  auto& t = *static_cast<http_transfer*>(self);
  auto len = size * n;
  if (len > t.max_body_ - std::min(t.max_body_, t.resp_.body.size())) {
    t.too_large_ = true;
    return 0; // Makes libcurl fail the transfer with CURLE_WRITE_ERROR.
  }
  t.resp_.body.append(data, len);
  return len;
}

size_t http_transfer::on_header(char* data, size_t size, size_t n, void* self) {
  auto& t = *static_cast<http_transfer*>(self);
  auto len = size * n;
  std::string_view line{data, len};
  auto& headers = t.resp_.headers;
  if (line.substr(0, 5) == "HTTP/") {
    headers.clear(); // A new response: after 100 Continue, say.
  } else if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) {
    if (!headers.empty()) // Obsolete line folding.
      headers.back().second.append(" ").append(trim(line));
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    std::string name{trim(line.substr(0, colon))};
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    headers.emplace_back(std::move(name), std::string{trim(line.substr(colon + 1))});
  }
  return len;
}

int http_transfer::on_prereq(void* self, char*, char*, int, int) {
  auto& t = *static_cast<http_transfer*>(self);
  if (!t.sent_) { // libcurl calls it again when it retries on a new connection.
    t.sent_ = true;
    t.counters_.queued.fetch_sub(1, std::memory_order_relaxed);
    t.counters_.in_flight.fetch_add(1, std::memory_order_relaxed);
  }
  return CURL_PREREQFUNC_OK;
}

int http_transfer::on_resolve(void*, void*, void* self) {
  static_cast<http_transfer*>(self)->connecting_ = true;
  return 0;
}

int http_transfer::on_socket(void* self, curl_socket_t, curlsocktype) {
  static_cast<http_transfer*>(self)->connecting_ = true;
  return CURL_SOCKOPT_OK;
}

// -- results ------------------------------------------------------------------

http_result http_transfer::finish(CURLcode code) {
  if (code == CURLE_OK) {
    long status = 0;
    curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
    resp_.status = static_cast<int32_t>(status);
    return std::move(resp_);
  }
  std::string message = errbuf_[0] != '\0' ? errbuf_ : curl_easy_strerror(code);
  auto kind = http_error_kind::other;
  if (code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_RESOLVE_PROXY
      || code == CURLE_COULDNT_CONNECT) {
    kind = http_error_kind::connect_failed;
  } else if (code == CURLE_OPERATION_TIMEDOUT) {
    // Not sent: it timed out setting up its connection (DNS, TCP, TLS) or,
    // with no set-up begun, waiting for a free one under the caps.
    kind = !sent_ && connecting_ ? http_error_kind::connect_failed : http_error_kind::timeout;
    if (!sent_ && !connecting_)
      message = "no connection came free within the timeout (connection caps)";
  } else if (is_tls_error(code)) {
    kind = http_error_kind::tls;
  } else if (code == CURLE_WRITE_ERROR && too_large_) {
    message = "the response body exceeds " + std::to_string(max_body_) + " bytes";
  }
  return http_error{kind, std::move(message)};
}

void http_transfer::answer(http_result r) {
  if (answered_)
    return;
  answered_ = true;
  if (auto err = std::get_if<http_error>(&r))
    err->request_sent = sent_;
  (sent_ ? counters_.in_flight : counters_.queued).fetch_sub(1, std::memory_order_relaxed);
  (std::holds_alternative<http_response>(r) ? counters_.completed : counters_.failed)
    .fetch_add(1, std::memory_order_relaxed);
  auto cb = std::move(cb_);
  if (!cb)
    return;
  try {
    cb(std::move(r));
  } catch (...) { // NOLINT(bugprone-empty-catch): callbacks must not throw.
  }
}

} // namespace stepwise::net::detail
