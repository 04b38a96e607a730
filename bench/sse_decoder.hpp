#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stepwise::bench {

/// Decodes the bytes of one `GET /api/v1/events/stream` answer as they
/// arrive, in whatever pieces: the HTTP head, then a chunked body whose
/// lines are server-sent events, of which it keeps each frame's `id`; or a
/// body of known length (an error answer), kept whole. Used where many
/// streams are read over raw sockets (the benchmark, the tests).
class sse_decoder {
public:
  /// `keep_ids` false: only the count, order and digest of the ids are
  /// kept (ten thousand streams of a long run would hold gigabytes).
  explicit sse_decoder(bool keep_ids = true) : keep_ids_(keep_ids) {
    // nop
  }

  /// Takes the next bytes. Returns false once the answer is malformed.
  bool feed(std::string_view bytes);

  /// The status of the answer; 0 until its head arrived.
  int status() const {
    return status_;
  }

  /// The head's text, once it arrived.
  const std::string& head() const {
    return head_;
  }

  /// A body of known length (not a stream), as far as it arrived.
  const std::string& body() const {
    return body_;
  }

  /// The ids of the frames so far, in arrival order (when kept).
  const std::vector<int64_t>& ids() const {
    return ids_;
  }

  /// How many frames arrived.
  size_t count() const {
    return count_;
  }

  /// The last frame's id (0 before the first).
  int64_t last_id() const {
    return last_;
  }

  /// Whether every id was above the one before.
  bool ordered() const {
    return ordered_;
  }

  /// `digest_of` the ids so far.
  uint64_t digest() const {
    return digest_;
  }

  /// Folds `id` into `digest` (FNV-1a over its bytes): two lists of ids
  /// have the same digest when they are the same, in the same order.
  static uint64_t digest_of(uint64_t digest, int64_t id);

  /// The digest of no id.
  static constexpr uint64_t empty_digest = 14695981039346656037ull;

  /// Comment lines so far (`: keep-alive`, the first one tells the stream
  /// was admitted).
  size_t comments() const {
    return comments_;
  }

  /// The stream's last chunk arrived (the server ended it).
  bool ended() const {
    return ended_;
  }

  bool malformed() const {
    return bad_;
  }

private:
  bool take_line(std::string_view line);

  std::string buf_;
  std::string head_;
  std::string body_;
  std::string line_;
  std::vector<int64_t> ids_;
  bool keep_ids_;
  size_t count_ = 0;
  int64_t last_ = 0;
  bool ordered_ = true;
  uint64_t digest_ = empty_digest;
  int status_ = 0;
  bool chunked_ = false;
  size_t chunk_left_ = 0;
  bool in_chunk_ = false;
  bool ended_ = false;
  bool bad_ = false;
  size_t comments_ = 0;
};

} // namespace stepwise::bench
