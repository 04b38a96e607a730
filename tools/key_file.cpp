#include "tools/key_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "engine/errc.hpp"
#include "tools/log.hpp"

namespace stepwise::tools {

namespace {

caf::error failed(const std::string& what) {
  return make_error(errc::invalid_argument, what + ": " + std::strerror(errno));
}

/// Closes a descriptor on every path out.
struct fd_guard {
  int fd;
  ~fd_guard() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// Appends what `fd` holds to `text`; false on a read error.
bool read_all(int fd, std::string& text) {
  char buf[4096];
  for (;;) {
    auto n = ::read(fd, buf, sizeof(buf));
    if (n <= 0)
      return n == 0;
    text.append(buf, static_cast<size_t>(n));
  }
}

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// Today's date as a key id, `kYYYYMMDD`: a later key gets another id.
std::string dated_id() {
  auto now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[16];
  std::strftime(buf, sizeof(buf), "k%Y%m%d", &utc);
  return buf;
}

std::string how_to_make_one() {
  return "make a key file with\n"
         "  (umask 077; echo \"k1 $(openssl rand -base64 32)\" > stepwise.keys)\n"
         "and pass --secret-key-file stepwise.keys (every process sharing the "
         "database needs the same file; keep it apart from the database's "
         "backups), or pass --insecure-plaintext-secrets to store secret "
         "values unencrypted";
}

} // namespace

std::string sqlite_path(const std::string& uri) {
  auto rest = uri.substr(std::string{"sqlite:"}.size());
  return rest.substr(0, rest.find('?'));
}

std::string default_key_file(const std::string& db_path) {
  auto slash = db_path.rfind('/');
  auto dot = db_path.rfind('.');
  bool has_ext = dot != std::string::npos && dot > (slash == std::string::npos ? 0 : slash + 1);
  return (has_ext ? db_path.substr(0, dot) : db_path) + ".keys";
}

caf::expected<std::shared_ptr<const key_ring>> read_key_file(const std::string& path) {
  fd_guard f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0)
    return failed("cannot read the key file '" + path + "'");
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    return failed("cannot read the key file '" + path + "'");
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
    log(log_level::warn, "the key file " + path + " may be read by other users: chmod 600 it");
  std::string text;
  if (!read_all(f.fd, text))
    return failed("cannot read the key file '" + path + "'");
  auto ring = key_ring::parse(text, path);
  std::fill(text.begin(), text.end(), '\0');
  if (!ring)
    return std::move(ring.error());
  return std::make_shared<const key_ring>(std::move(*ring));
}

caf::expected<std::shared_ptr<const key_ring>> create_key_file(const std::string& path,
                                                               const std::string& id) {
  auto key = key_ring::generate(id);
  if (!key)
    return std::move(key.error());
  auto line = key_ring::line_of(*key);
  {
    fd_guard f{::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)};
    if (f.fd < 0)
      return failed("cannot create the key file '" + path + "'");
    auto n = ::write(f.fd, line.data(), line.size());
    std::fill(line.begin(), line.end(), '\0');
    if (n != static_cast<ssize_t>(line.size()) || ::fsync(f.fd) != 0)
      return failed("cannot write the key file '" + path + "'");
  }
  // The database will hold values only this key opens: the file must
  // survive a crash as surely as they do.
  fd_guard dir{::open(dir_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd < 0 || ::fsync(dir.fd) != 0)
    return failed("cannot flush the directory of the key file '" + path + "'");
  std::vector<secret_key> keys;
  keys.push_back(std::move(*key));
  auto ring = key_ring::of(std::move(keys));
  if (!ring)
    return std::move(ring.error());
  return std::make_shared<const key_ring>(std::move(*ring));
}

caf::error copy_key_file(const std::string& from, const std::string& to) {
  std::string text;
  {
    fd_guard in{::open(from.c_str(), O_RDONLY | O_CLOEXEC)};
    if (in.fd < 0 || !read_all(in.fd, text))
      return failed("cannot read the key file '" + from + "'");
  }
  auto partial = to + ".partial";
  ::unlink(partial.c_str());
  {
    fd_guard out{::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)};
    if (out.fd < 0)
      return failed("cannot create '" + partial + "'");
    auto n = ::write(out.fd, text.data(), text.size());
    std::fill(text.begin(), text.end(), '\0');
    if (n != static_cast<ssize_t>(text.size()) || ::fsync(out.fd) != 0) {
      auto err = failed("cannot write '" + partial + "'");
      ::unlink(partial.c_str());
      return err;
    }
  }
  if (::rename(partial.c_str(), to.c_str()) != 0) {
    auto err = failed("cannot rename '" + partial + "' to '" + to + "'");
    ::unlink(partial.c_str());
    return err;
  }
  fd_guard dir{::open(dir_of(to).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd < 0 || ::fsync(dir.fd) != 0)
    return failed("cannot flush the directory of '" + to + "'");
  return caf::error{};
}

caf::expected<std::shared_ptr<const key_ring>> keys_for(const serve_options& o, bool create,
                                                        const sealed_probe& probe) {
  if (o.insecure_plaintext_secrets) {
    log(log_level::warn, "--insecure-plaintext-secrets: secret values are stored unencrypted");
    return std::shared_ptr<const key_ring>{};
  }
  auto path = o.secret_key_file;
  bool sqlite = o.store.rfind("sqlite:", 0) == 0;
  if (path.empty()) {
    if (!sqlite)
      return make_error(errc::invalid_argument,
                        "a PostgreSQL store needs a key to encrypt secret values: "
                          + how_to_make_one());
    path = default_key_file(sqlite_path(o.store));
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
      if (!create)
        return make_error(errc::invalid_argument, "no key file " + path
                                                    + " beside the database, and no "
                                                      "--secret-key-file");
      auto sealed = probe ? probe() : caf::expected<bool>{false};
      if (!sealed)
        return std::move(sealed.error());
      if (*sealed)
        return make_error(errc::invalid_argument,
                          "the key file " + path
                            + " is missing, but the database holds "
                              "secret values encrypted with it: restore it (or name the "
                              "key file with --secret-key-file)");
      auto made = create_key_file(path, dated_id());
      if (!made)
        return made;
      log(log_level::info, "created the key file " + path + " (key " + (*made)->current().id
                             + ", mode 0600): it encrypts the secret values stored in "
                             + sqlite_path(o.store)
                             + "; without it they are lost. Back it up apart from "
                               "the database");
      return made;
    }
  }
  auto ring = read_key_file(path);
  if (!ring)
    return ring;
  auto ids = (*ring)->ids();
  std::string others;
  for (size_t i = 1; i < ids.size(); ++i)
    others += (others.empty() ? "" : ", ") + ids[i];
  log(log_level::info, "secret values are encrypted with key " + ids.front() + " of " + path
                         + (others.empty() ? "" : " (also decrypts with: " + others + ")"));
  return ring;
}

} // namespace stepwise::tools
