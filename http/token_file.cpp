#include "http/token_file.hpp"

#include <fstream>
#include <sstream>

#include "engine/errc.hpp"

namespace stepwise::http {

namespace {

caf::error bad_line(const std::string& source, int no, const std::string& what) {
  return make_error(errc::invalid_argument, source + ":" + std::to_string(no) + ": " + what);
}

std::vector<std::string> fields_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string f; in >> f;)
    out.push_back(f);
  return out;
}

} // namespace

caf::expected<std::string> read_secret_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return make_error(errc::invalid_argument, "cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

caf::expected<token_set> token_set::parse(std::string_view text, const std::string& source) {
  token_set out;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    auto fields = fields_of(line.substr(0, line.find('#')));
    if (fields.empty())
      continue;
    // The line is never quoted: it may hold a token.
    if (fields.size() != 3)
      return bad_line(source, no,
                      "expected 'ROLE NAME TOKEN' (3 fields, not " + std::to_string(fields.size())
                        + ")");
    token_entry e;
    if (fields[0] == "read")
      e.what = role::read;
    else if (fields[0] == "write")
      e.what = role::write;
    else if (fields[0] == "worker")
      e.what = role::worker;
    else
      return bad_line(source, no, "the role must be read, write or worker");
    e.name = fields[1];
    auto& token = fields[2];
    if (token.rfind("sha256:", 0) == 0) {
      auto d = digest_from_hex(std::string_view(token).substr(7));
      if (!d)
        return bad_line(source, no, "sha256: must be followed by 64 hex digits");
      e.hash = *d;
    } else if (token.size() < min_plain_token) {
      return bad_line(source, no,
                      "the token is shorter than " + std::to_string(min_plain_token)
                        + " characters (make one with: openssl rand -hex 24)");
    } else {
      e.hash = sha256(token);
    }
    for (auto& other : out.entries_) {
      if (other.name == e.name)
        return bad_line(source, no, "the name " + e.name + " is used twice");
      if (digests_equal(other.hash, e.hash))
        return bad_line(source, no, "the same token as " + other.name);
    }
    out.entries_.push_back(std::move(e));
  }
  return out;
}

caf::expected<token_set> token_set::load(const std::string& path) {
  auto text = read_secret_file(path);
  if (!text)
    return text.error();
  return parse(*text, path);
}

const token_entry* token_set::match(std::string_view token) const {
  auto d = sha256(token);
  const token_entry* hit = nullptr;
  // No early exit: the time taken does not tell which entry matched.
  for (auto& e : entries_)
    if (digests_equal(e.hash, d))
      hit = &e;
  return hit;
}

} // namespace stepwise::http
