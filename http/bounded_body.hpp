#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/optional/optional.hpp>

namespace stepwise::http {

/// A Beast body for request bodies that keeps at most `keep` bytes and only
/// counts the rest: a body over the limit is read to its end, so that the
/// client sees the 413 (closing on unread data resets the connection), but
/// never held, so that many of them cost no more memory than the limit
/// each.
struct bounded_body {
  struct value_type {
    std::string text;
    /// Bytes kept at most (the server's `max_body_bytes`).
    size_t keep = 0;
    /// Bytes the body had in all.
    uint64_t total = 0;
  };

  /// Beast's body reader: what the parser hands the body's bytes to.
  class reader {
  public:
    template <bool IsRequest, class Fields>
    reader(boost::beast::http::header<IsRequest, Fields>&, value_type& body) : body_(body) {
      // nop
    }

    void init(const boost::optional<std::uint64_t>& length, boost::beast::error_code& ec) {
      if (length)
        body_.text.reserve(static_cast<size_t>(std::min<std::uint64_t>(*length, body_.keep)));
      ec = {};
    }

    template <class ConstBufferSequence>
    std::size_t put(const ConstBufferSequence& buffers, boost::beast::error_code& ec) {
      size_t n = 0;
      for (auto b : boost::beast::buffers_range_ref(buffers)) {
        auto room = body_.keep > body_.text.size() ? body_.keep - body_.text.size() : 0;
        body_.text.append(static_cast<const char*>(b.data()), std::min(room, b.size()));
        n += b.size();
      }
      body_.total += n;
      ec = {};
      return n;
    }

    void finish(boost::beast::error_code& ec) {
      ec = {};
    }

  private:
    value_type& body_;
  };
};

} // namespace stepwise::http
