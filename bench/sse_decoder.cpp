#include "bench/sse_decoder.hpp"

#include <algorithm>
#include <cstdlib>

namespace stepwise::bench {

uint64_t sse_decoder::digest_of(uint64_t digest, int64_t id) {
  auto v = static_cast<uint64_t>(id);
  for (int i = 0; i < 8; ++i) {
    digest ^= (v >> (8 * i)) & 0xffu;
    digest *= 1099511628211ull;
  }
  return digest;
}

bool sse_decoder::take_line(std::string_view line) {
  if (line.rfind("id: ", 0) == 0) {
    auto id = std::strtoll(std::string(line.substr(4)).c_str(), nullptr, 10);
    if (count_ > 0 && id <= last_)
      ordered_ = false;
    ++count_;
    last_ = id;
    digest_ = digest_of(digest_, id);
    if (keep_ids_)
      ids_.push_back(id);
  } else if (!line.empty() && line.front() == ':') {
    ++comments_;
  }
  return true;
}

bool sse_decoder::feed(std::string_view bytes) {
  if (bad_)
    return false;
  buf_.append(bytes.data(), bytes.size());
  if (status_ == 0) {
    auto end = buf_.find("\r\n\r\n");
    if (end == std::string::npos)
      return true;
    head_ = buf_.substr(0, end + 4);
    buf_.erase(0, end + 4);
    if (head_.rfind("HTTP/1.1 ", 0) != 0 || head_.size() < 12)
      return !(bad_ = true);
    status_ = std::atoi(head_.substr(9, 3).c_str());
    chunked_ = head_.find("Transfer-Encoding: chunked") != std::string::npos;
  }
  if (!chunked_) {
    body_ += buf_;
    buf_.clear();
    return true;
  }
  // Chunk sizes and the SSE lines inside the chunks.
  size_t pos = 0;
  while (!ended_ && pos < buf_.size()) {
    if (!in_chunk_) {
      auto eol = buf_.find("\r\n", pos);
      if (eol == std::string::npos)
        break;
      auto size_text = buf_.substr(pos, eol - pos);
      if (size_text.empty()) {
        // The CRLF after a chunk's data.
        pos = eol + 2;
        continue;
      }
      char* stop = nullptr;
      chunk_left_ = std::strtoul(size_text.c_str(), &stop, 16);
      if (stop == size_text.c_str())
        return !(bad_ = true);
      pos = eol + 2;
      if (chunk_left_ == 0) {
        ended_ = true;
        break;
      }
      in_chunk_ = true;
      continue;
    }
    auto n = std::min(chunk_left_, buf_.size() - pos);
    for (size_t i = pos; i < pos + n; ++i) {
      if (buf_[i] == '\n') {
        take_line(line_);
        line_.clear();
      } else {
        line_.push_back(buf_[i]);
      }
    }
    pos += n;
    chunk_left_ -= n;
    if (chunk_left_ == 0)
      in_chunk_ = false;
  }
  buf_.erase(0, pos);
  return true;
}

} // namespace stepwise::bench
