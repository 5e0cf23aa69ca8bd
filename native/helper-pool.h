// HelperPool: threads kept waiting to help a native call finish a batch of work sooner
// (hnsw-index.cc searchMany: one graph searched for several queries side by side).
// Starting a std::thread per call cost about as much as a fifth of a query's graph walk
// on this machine, so the helpers are started once, on demand, and wait between calls.
//
// Run(extra, work) runs work() on the calling thread and on up to `extra` helpers, and
// returns once every one of those runs has returned; work() must share the batch out
// itself (an atomic "next item" counter) so that it is correct with any number of helpers
// joining, including none: a helper that has not started by the time the caller's own
// run ends is called off. One call uses the helpers at a time: another thread's call
// meanwhile (another engine worker) runs its work alone rather than wait.
//
// Thread rule: any thread may call Run. Helpers touch nothing but what work() does, and
// never after Run has returned (the caller waits for every run in progress). The pool
// lives as long as the process (never destroyed: helpers may be waiting at exit).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace conifer_native {

class HelperPool {
 public:
  static HelperPool& Shared() {
    static HelperPool* pool = new HelperPool();  // never destroyed (see above)
    return *pool;
  }

  void Run(size_t extra, const std::function<void()>& work) {
    std::unique_lock<std::mutex> turn(turn_, std::try_to_lock);
    if (extra == 0 || !turn.owns_lock()) {
      work();
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      try {
        while (threads_ < extra) {
          std::thread(&HelperPool::Help, this).detach();
          threads_++;
        }
      } catch (const std::system_error&) {
        // No more threads to be had (a process limit): make do with those there are.
      }
      job_ = &work;
      wanted_ = std::min(extra, threads_);
    }
    wake_.notify_all();
    work();
    std::unique_lock<std::mutex> lock(mutex_);
    wanted_ = 0;  // helpers not started yet are called off: work() left them nothing
    finished_.wait(lock, [this] { return running_ == 0; });
    job_ = nullptr;
  }

 private:
  HelperPool() = default;

  void Help() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return wanted_ > 0; });
      wanted_--;
      running_++;
      const std::function<void()>* job = job_;
      lock.unlock();
      (*job)();
      lock.lock();
      if (--running_ == 0) finished_.notify_all();
    }
  }

  std::mutex turn_;  // held by the call using the helpers
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  size_t threads_ = 0;   // helpers started (they never end)
  size_t wanted_ = 0;    // helpers still to join the current call
  size_t running_ = 0;   // helpers inside the current call's work()
  const std::function<void()>* job_ = nullptr;
};

}  // namespace conifer_native
