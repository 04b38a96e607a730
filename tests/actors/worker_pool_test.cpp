// The order in which the worker pool runs what waits in it.
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "actors/worker_pool.hpp"

using namespace stepwise;

TEST_CASE("the pool runs timed jobs first, then the earliest rank, then in order", "[pool]") {
  worker_pool pool{"test", 1};
  std::mutex mtx;
  std::condition_variable cv;
  bool open = false;
  bool blocked = false;
  std::vector<std::string> ran;
  // The one worker waits here until everything else is queued.
  pool.submit([&] {
    std::unique_lock<std::mutex> g{mtx};
    blocked = true;
    cv.notify_all();
    cv.wait(g, [&] { return open; });
  });
  {
    std::unique_lock<std::mutex> g{mtx};
    cv.wait(g, [&] { return blocked; });
  }
  auto job = [&](std::string name) {
    return [&, name] {
      std::lock_guard<std::mutex> g{mtx};
      ran.push_back(name);
      cv.notify_all();
    };
  };
  pool.submit(job("new 20"), 20);
  pool.submit(job("new 10 a"), 10);
  pool.submit(job("timed 30"), 30, true);
  pool.submit(job("new 10 b"), 10);
  pool.submit(job("timed 25"), 25, true);
  {
    std::unique_lock<std::mutex> g{mtx};
    open = true;
    cv.notify_all();
    cv.wait(g, [&] { return ran.size() == 5; });
  }
  CHECK(ran == std::vector<std::string>{"timed 25", "timed 30", "new 10 a", "new 10 b", "new 20"});
}
