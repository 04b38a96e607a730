#include "tests/console/browser.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <httplib.h>

#include "http/digest.hpp"
#include "tests/http/serve_child.hpp"

namespace stepwise::test {

namespace json = boost::json;
using clock = std::chrono::steady_clock;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Reads "PORT\nPATH" that Chromium writes once its DevTools endpoint
// listens (bounded).
int devtools_port(const std::string& dir, clock::time_point deadline) {
  auto file = dir + "/DevToolsActivePort";
  while (clock::now() < deadline) {
    auto text = read_file(file);
    if (text.find('\n') != std::string::npos)
      return std::atoi(text.c_str());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return 0;
}

} // namespace

browser::browser(int width, int height) {
  char tmpl[] = "/tmp/stepwise-chromium-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) {
    error_ = "cannot make a profile directory";
    return;
  }
  dir_ = tmpl;
  std::vector<std::string> args{
    chromium_path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--remote-debugging-port=0",
    // A headless page counts as hidden: without these its
    // timers are throttled to a crawl (as Puppeteer does).
    "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding", "--user-data-dir=" + dir_ + "/profile",
    "--window-size=" + std::to_string(width) + "," + std::to_string(height), "about:blank"};
  auto log_path = dir_ + "/chromium.log";
  pid_ = ::fork();
  if (pid_ == 0) {
    // Its own group: the renderers and helpers it starts die with it.
    ::setpgid(0, 0);
    int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(log, 1);
    ::dup2(log, 2);
    exec_args(std::move(args));
  }
  if (pid_ < 0) {
    error_ = "cannot start Chromium";
    return;
  }
  // Also here, so that the group exists before anyone signals it.
  ::setpgid(pid_, pid_);
  auto deadline = clock::now() + std::chrono::seconds(30);
  auto port = devtools_port(dir_ + "/profile", deadline);
  if (port <= 0) {
    error_ = "Chromium did not open its DevTools port";
    return;
  }
  // The first page's own endpoint.
  httplib::Client http("127.0.0.1", port);
  std::string path;
  while (path.empty() && clock::now() < deadline) {
    auto r = http.Get("/json/list");
    auto targets = r && r->status == 200 ? json::parse(r->body) : json::value(json::array{});
    if (targets.is_array())
      for (auto& t : targets.as_array())
        if (t.at("type") == "page") {
          auto url = std::string(t.at("webSocketDebuggerUrl").as_string());
          path = url.substr(url.find('/', std::string("ws://").size()));
          break;
        }
    if (path.empty())
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (path.empty()) {
    error_ = "Chromium shows no page";
    return;
  }
  ws_ = std::make_unique<websocket>();
  error_ = ws_->connect(port, path, deadline);
  if (error_.empty()) {
    call("Page.enable");
    call("Page.bringToFront");
  }
}

browser::~browser() {
  ws_.reset();
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

json::value browser::call(const std::string& method, json::object params) {
  if (!ws_)
    return nullptr;
  auto id = next_id_++;
  json::object msg{{"id", id}, {"method", method}, {"params", std::move(params)}};
  if (!ws_->send_text(json::serialize(msg))) {
    error_ = method + ": cannot send";
    return nullptr;
  }
  auto deadline = clock::now() + std::chrono::seconds(30);
  // Events arrive in between: skip them.
  while (auto text = ws_->receive(deadline)) {
    auto v = json::parse(*text);
    auto& o = v.as_object();
    if (!o.contains("id") || o.at("id").as_int64() != id)
      continue;
    if (auto err = o.if_contains("error")) {
      error_ = method + ": " + json::serialize(*err);
      return nullptr;
    }
    return o.at("result");
  }
  error_ = method + ": no answer";
  return nullptr;
}

json::value browser::eval(const std::string& expr) {
  auto r = call("Runtime.evaluate",
                {{"expression", expr}, {"returnByValue", true}, {"awaitPromise", true}});
  if (!r.is_object())
    return nullptr;
  if (r.as_object().contains("exceptionDetails")) {
    error_ = "script threw: " + json::serialize(r.at("exceptionDetails"));
    return nullptr;
  }
  auto& result = r.at("result").as_object();
  auto v = result.if_contains("value");
  return v != nullptr ? *v : json::value(nullptr);
}

bool browser::wait_for(const std::string& expr, std::chrono::seconds bound) {
  auto deadline = clock::now() + bound;
  while (clock::now() < deadline) {
    auto v = eval(expr);
    if (v.is_bool() && v.as_bool())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

void browser::navigate(const std::string& url) {
  call("Page.navigate", {{"url", url}});
}

bool browser::screenshot(const std::string& path) {
  auto r = call("Page.captureScreenshot", {{"format", "png"}});
  if (!r.is_object())
    return false;
  auto png = http::base64_decode(r.at("data").as_string());
  if (!png)
    return false;
  std::ofstream(path, std::ios::binary) << *png;
  return true;
}

std::string browser::log() const {
  return dir_.empty() ? std::string() : read_file(dir_ + "/chromium.log");
}

} // namespace stepwise::test
