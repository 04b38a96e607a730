#include "tools/table.hpp"

#include <algorithm>

namespace stepwise::tools {

namespace {

// Counts code points, not bytes, so that UTF-8 text lines up.
size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;
  return n;
}

} // namespace

table::table(std::vector<std::string> header) : header_(std::move(header)) {
  // nop
}

void table::add(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

std::string table::render() const {
  std::vector<size_t> widths(header_.size());
  for (size_t i = 0; i < header_.size(); ++i)
    widths[i] = width(header_[i]);
  for (auto& r : rows_)
    for (size_t i = 0; i < r.size(); ++i)
      widths[i] = std::max(widths[i], width(r[i]));
  auto line = [&](const std::vector<std::string>& r) {
    std::string out;
    for (size_t i = 0; i < r.size(); ++i) {
      out += r[i];
      if (i + 1 < r.size())
        out += std::string(widths[i] - width(r[i]) + 2, ' ');
    }
    while (!out.empty() && out.back() == ' ')
      out.pop_back();
    return out + "\n";
  };
  auto out = line(header_);
  for (auto& r : rows_)
    out += line(r);
  return out;
}

std::string cell(std::string s, size_t max) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  if (s.size() > max) {
    // Cut on a code point boundary.
    size_t cut = max - 3;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
      --cut;
    s = s.substr(0, cut) + "...";
  }
  return s;
}

} // namespace stepwise::tools
