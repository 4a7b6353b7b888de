// A thread of the model's own that runs ahead of the simulation on the machine's other
// core. It reads the host's workload to come (request_stream.h) and hands
// each request to `work`; between requests, and while the stream is far enough ahead,
// it hands `side` each value the simulation has posted (post(): a queue from the
// simulation's thread, for what it will need again later). Both must only compute what
// changes no result (the preconditioned image's pure lookups) and touch nothing the
// simulation changes. While there is nothing to do it sleeps in steps of 50 us. The
// worker stops when destroyed (it cancels the stream and joins). Plain C++.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <utility>

#include "accel/request_stream.h"

namespace ssd::accel {

class LookaheadWorker {
 public:
  using Work = std::function<void(HostOp op, std::uint64_t lba, std::uint32_t sectors)>;
  using Side = std::function<void(std::uint64_t value)>;
  LookaheadWorker(std::unique_ptr<RequestStream> stream, Work work, Side side)
      : stream_(std::move(stream)), work_(std::move(work)), side_(std::move(side)), thread_([this] { run(); }) {}
  ~LookaheadWorker() {
    stop_.store(true, std::memory_order_relaxed);
    stream_->cancel();
    thread_.join();
  }
  LookaheadWorker(const LookaheadWorker&) = delete;
  LookaheadWorker& operator=(const LookaheadWorker&) = delete;

  // From the simulation's thread only: queues `value` for `side`. A full queue drops it
  // (it was only help).
  void post(std::uint64_t value) {
    if (head_ - tail_seen_ == kQueue) {
      tail_seen_ = tail_.load(std::memory_order_acquire);
      if (head_ - tail_seen_ == kQueue) return;
    }
    queue_[head_ % kQueue] = value;
    head_published_.store(++head_, std::memory_order_release);
  }
  // Requests handed to `work` and values to `side` so far.
  std::uint64_t requests() const { return requests_.load(std::memory_order_relaxed); }
  std::uint64_t side_values() const { return tail_.load(std::memory_order_relaxed); }

 private:
  static constexpr std::uint64_t kQueue = 4096;
  // Hands `side` what is queued; false if nothing was.
  bool drain() {
    const std::uint64_t head = head_published_.load(std::memory_order_acquire);
    std::uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail == head) return false;
    for (; tail != head; ++tail) side_(queue_[tail % kQueue]);
    tail_.store(tail, std::memory_order_release);
    return true;
  }
  void run() {
    HostOp op;
    std::uint64_t lba;
    std::uint32_t sectors;
    bool stream_open = true;
    std::uint64_t n = 0;
    try {
      while (!stop_.load(std::memory_order_relaxed)) {
        const bool drained = drain();
        const RequestStream::Next r = stream_open ? stream_->next(op, lba, sectors) : RequestStream::Next::End;
        if (r == RequestStream::Next::Request) {
          work_(op, lba, sectors);
          requests_.store(++n, std::memory_order_relaxed);
          continue;
        }
        if (r == RequestStream::Next::End) stream_open = false;
        if (!drained) std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    } catch (...) {  // a failure ends only help: the simulation reports its own errors
    }
  }
  std::unique_ptr<RequestStream> stream_;
  Work work_;
  Side side_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> requests_{0};
  // The queue: written by post() on the simulation's thread, read by the worker.
  std::uint64_t queue_[kQueue];
  alignas(64) std::uint64_t head_ = 0, tail_seen_ = 0;  // the simulation's
  alignas(64) std::atomic<std::uint64_t> head_published_{0};
  alignas(64) std::atomic<std::uint64_t> tail_{0};
  alignas(64) std::thread thread_;  // last: started once the rest is built
};

}  // namespace ssd::accel
