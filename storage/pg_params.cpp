#include "storage/pg_params.hpp"

#include "engine/utf8.hpp"

namespace stepwise {

namespace {

// The wire format is big-endian.
void append32(std::string& out, uint32_t x) {
  char b[4] = {static_cast<char>(x >> 24), static_cast<char>(x >> 16), static_cast<char>(x >> 8),
               static_cast<char>(x)};
  out.append(b, 4);
}

void append64(std::string& out, uint64_t x) {
  append32(out, static_cast<uint32_t>(x >> 32));
  append32(out, static_cast<uint32_t>(x));
}

// Appends `s` with every byte PostgreSQL would refuse in a UTF-8 database
// (a NUL, a malformed sequence) replaced by U+FFFD: one bad error message
// must not fail a whole group commit, again on every retry.
void append_text(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c != 0 && c < 0x80) {
      out += s[i++];
    } else if (auto n = c == 0 ? 0 : utf8::sequence_length(s.substr(i)); n > 0) {
      out.append(s.data() + i, n);
      i += n;
    } else {
      out += utf8::replacement;
      ++i;
    }
  }
}

} // namespace

// -- pg_params ----------------------------------------------------------------

const char* const* pg_params::values() {
  ptrs_.clear();
  for (size_t i = 0; i < data_.size(); ++i)
    ptrs_.push_back(kind_[i] == null ? nullptr : data_[i].c_str());
  return ptrs_.data();
}

const int* pg_params::lengths() {
  lengths_.clear();
  for (auto& d : data_)
    lengths_.push_back(static_cast<int>(d.size()));
  return lengths_.data();
}

const int* pg_params::formats() {
  formats_.clear();
  for (auto k : kind_)
    formats_.push_back(k == binary ? 1 : 0);
  return formats_.data();
}

// -- pg_array -----------------------------------------------------------------

pg_array::pg_array(type elem) : elem_(elem) {
  // nop
}

void pg_array::put32(uint32_t x) {
  append32(body_, x);
}

void pg_array::add(std::string_view x) {
  // The length goes first: reserve it, then fill it in.
  auto at = body_.size();
  put32(0);
  append_text(body_, x);
  auto n = static_cast<uint32_t>(body_.size() - at - 4);
  for (int k = 0; k < 4; ++k)
    body_[at + static_cast<size_t>(k)] = static_cast<char>(n >> (24 - 8 * k));
  ++count_;
}

void pg_array::add(int64_t x) {
  if (elem_ == type::int4) {
    put32(4);
    put32(static_cast<uint32_t>(static_cast<int32_t>(x)));
  } else {
    put32(8);
    append64(body_, static_cast<uint64_t>(x));
  }
  ++count_;
}

void pg_array::add_null() {
  put32(0xFFFFFFFFu); // length -1
  has_null_ = true;
  ++count_;
}

std::string pg_array::bytes() const {
  std::string out;
  out.reserve(20 + body_.size());
  // An empty array has no dimensions.
  append32(out, count_ > 0 ? 1 : 0);
  append32(out, has_null_ ? 1 : 0);
  append32(out, static_cast<uint32_t>(elem_));
  if (count_ > 0) {
    append32(out, static_cast<uint32_t>(count_));
    append32(out, 1); // lower bound
  }
  out += body_;
  return out;
}

} // namespace stepwise
