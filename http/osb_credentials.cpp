#include "http/osb_credentials.hpp"

#include <sstream>

#include "engine/errc.hpp"
#include "http/token_file.hpp"

namespace stepwise::http {

caf::expected<std::shared_ptr<basic_credentials>> basic_credentials::open(const std::string& path) {
  return first_loaded(std::shared_ptr<basic_credentials>{new basic_credentials(path)});
}

caf::expected<void> basic_credentials::reload() {
  auto text = read_secret_file(path_);
  if (!text)
    return text.error();
  std::istringstream in(*text);
  std::string line;
  std::string found;
  int lines = 0;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    auto b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos)
      continue;
    found = line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
    ++lines;
  }
  // Never quoted: the line is the password.
  auto colon = found.find(':');
  if (lines != 1 || colon == std::string::npos || colon == 0)
    return make_error(errc::invalid_argument, path_ + " must hold one line 'user:password'");
  if (found.size() - colon - 1 < min_broker_password)
    return make_error(errc::invalid_argument, path_ + ": the password is shorter than "
                                                + std::to_string(min_broker_password)
                                                + " characters");
  auto hash = sha256(found);
  std::lock_guard<std::mutex> guard{mtx_};
  hash_ = hash;
  return caf::unit;
}

std::string osb_caller(std::string_view authorization) {
  std::string out = "osb:";
  auto space = authorization.find(' ');
  if (space == std::string_view::npos)
    return out;
  auto decoded = base64_decode(authorization.substr(space + 1));
  if (!decoded)
    return out;
  out.append(*decoded, 0, decoded->find(':'));
  return out;
}

bool basic_credentials::check(std::string_view authorization) const {
  auto space = authorization.find(' ');
  if (space == std::string_view::npos)
    return false;
  auto scheme = authorization.substr(0, space);
  if (scheme != "Basic" && scheme != "basic")
    return false;
  auto decoded = base64_decode(authorization.substr(space + 1));
  if (!decoded)
    return false;
  auto presented = sha256(*decoded);
  std::lock_guard<std::mutex> guard{mtx_};
  return digests_equal(presented, hash_);
}

} // namespace stepwise::http
