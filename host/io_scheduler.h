// Host I/O schedulers of the PIQ paper (Gao et al.), plain C++: NOOP, RWS, PIQ_R, PIQ_W
// and PIQ. See docs/host.md for the exact rules.
//
// Location vector (Formula 1): one bit per flash chip, chip k at bit (N_C - 1 - k) as
// in the paper's figures; the chips of a request are those of the logical pages it
// touches under the device's static allocation (channel first, chip second: chip
// index = page % N_C, exactly Formula 1). Conflict (Formulas 2, 3): a non-zero AND.
// Batches (Formula 4, Algorithm 1): a request joins the first batch of its list whose
// vector it does not conflict with, else a new batch at the end; a batch of the phase
// under way takes no arrival (rounds: docs/host.md). Trims and flushes go with the
// writes, each in a batch of its own opened at the end of the list: never sent ahead of
// a request of the write list that arrived before it (docs/host.md, "Trims and flushes").
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "tlm/host_protocol.h"

namespace ssd::host {

// A bit set over the chips (up to 1024), printed and compared as the paper does. Only
// the words the device's chips use are initialised and copied (one for up to 64 chips:
// a request's vector is made, queued, taken and tracked, and the other 120 bytes cost
// a clearing and copies at each step).
class LocationVector {
 public:
  static constexpr unsigned kMaxChips = 1024;
  LocationVector() { w_[0] = 0; }
  explicit LocationVector(unsigned chips) : n_(chips) {
    for (unsigned i = 0, n = stored(); i < n; ++i) w_[i] = 0;
  }
  LocationVector(const LocationVector& o) : n_(o.n_) { copy_words(o); }
  LocationVector& operator=(const LocationVector& o) {
    n_ = o.n_;
    copy_words(o);
    return *this;
  }
  void set_chip(unsigned k) {
    const unsigned bit = n_ - 1 - k;
    w_[bit / 64] |= std::uint64_t{1} << (bit % 64);
  }
  bool conflicts(const LocationVector& o) const {  // Formulas 2 and 3
    if (w_[0] & o.w_[0]) return true;  // a device of up to 64 chips needs no loop
    for (unsigned i = 1, n = words(); i < n; ++i)
      if (w_[i] & o.w_[i]) return true;
    return false;
  }
  void merge(const LocationVector& o) {  // Formula 4
    for (unsigned i = 0; i < words(); ++i) w_[i] |= o.w_[i];
  }
  bool empty() const {
    for (unsigned i = 0; i < words(); ++i)
      if (w_[i]) return false;
    return true;
  }
  std::uint64_t value() const { return w_[0]; }  // the paper's number (devices of <= 64 chips)
  // f(k) for every chip k set, highest bit (chip 0) first.
  template <typename F>
  void for_each_chip(F&& f) const {
    for (unsigned i = 0, n = words(); i < n; ++i)
      for (std::uint64_t w = w_[i]; w; w &= w - 1) f(n_ - 1 - (i * 64 + static_cast<unsigned>(__builtin_ctzll(w))));
  }
  bool operator==(const LocationVector& o) const {  // the same chips set (a word not stored is 0)
    for (unsigned i = 0, a = stored(), b = o.stored(), n = a > b ? a : b; i < n; ++i)
      if ((i < a ? w_[i] : 0) != (i < b ? o.w_[i] : 0)) return false;
    return true;
  }

 private:
  unsigned words() const { return (n_ + 63) / 64; }
  unsigned stored() const { return n_ > 64 ? words() : 1; }  // w_[0] always is
  void copy_words(const LocationVector& o) {
    for (unsigned i = 0, n = stored(); i < n; ++i) w_[i] = o.w_[i];
  }
  unsigned n_ = 0;
  std::array<std::uint64_t, kMaxChips / 64> w_;  // [0, stored()) initialised
};

// Formula 1: the location vector of a request, from the page size, the chip count and
// the static allocation (a function from logical page to chip index 0..N_C-1).
class LocationMapper {
 public:
  LocationMapper(unsigned chips, std::uint32_t page_bytes, std::function<unsigned(std::uint64_t)> chip_of_page)
      : chips_(chips), spp_(page_bytes / 512), chip_of_page_(std::move(chip_of_page)) {}
  LocationVector vector(std::uint64_t lba, std::uint32_t sectors) const;
  unsigned chips() const { return chips_; }

 private:
  unsigned chips_;
  std::uint64_t spp_;
  std::function<unsigned(std::uint64_t)> chip_of_page_;
};

enum class SchedulerKind { Noop, Rws, PiqR, PiqW, Piq };
SchedulerKind parse_scheduler(const std::string& name);  // throws std::invalid_argument

// How the queue hands requests to the device (host.dispatch, docs/host.md "Dispatch"):
// Ncq, each request as soon as the device takes one (the order is the policy's); Batch,
// a batch at a time (Algorithm 1, line 23, "Issue Batch_List.Head"): the next batch of
// a batched list goes only when every request of the one before it has completed.
enum class DispatchKind { Ncq, Batch };
DispatchKind parse_dispatch(const std::string& name);  // throws std::invalid_argument

// The scheduling queue. Requests are added (push), taken for dispatch (pop), and
// reported completed (complete) so that their chips stop counting as outstanding.
class IoScheduler {
 public:
  struct Entry {
    std::uint64_t id;
    HostOp op;
    LocationVector v;
    Tick arrival;
    std::uint64_t batch;  // the batch it joined (for tests and traces)
    std::uint64_t lba = 0;
    std::uint32_t sectors = 0;
    bool fua = false;  // a write with Force Unit Access
    std::uint16_t stream = 0;  // the workload stream it came from (workload.streams)
  };
  IoScheduler(SchedulerKind kind, unsigned chips, DispatchKind dispatch = DispatchKind::Ncq)
      : kind_(kind), dispatch_(dispatch), chips_(chips) {
    for (int l = 0; l < 2; ++l) lists_[l].batched = batched(l);
  }

  void push(const Entry& e);
  bool empty() const { return waiting_ == 0; }
  std::size_t waiting() const { return waiting_; }
  // The next request to dispatch by the policy; false if none waits.
  bool pop(Entry& out);
  void complete(std::uint64_t id, HostOp op);

  // Batch view, for tests: per list (0 reads or all, 1 writes), batch vectors in order
  // (for an unbatched list, the vectors of the requests waiting in it).
  std::vector<std::uint64_t> batch_values(int list) const;
  // Batches served whole, of reads (0) and of writes (1): a batch counts when its last
  // member completes; in an unbatched list (NOOP, RWS, one kind of PIQ_R and PIQ_W) every
  // request is a batch of its own. The paper's "read and write cycles" (Figs. 6, 7).
  std::uint64_t batches_served(int op) const { return served_[op]; }
  // Reads taken while a write that arrived before them (a smaller id) was waiting: the
  // reads RWS and the PIQ schemes prioritized (the paper's Fig. 9; NOOP never does).
  std::uint64_t prioritized_reads() const { return prioritized_; }

 private:
  struct Batch {
    std::uint64_t number;
    LocationVector v;          // of every member not yet completed
    std::deque<Entry> waiting;  // members not yet dispatched, in arrival order
    std::vector<Entry> in_flight;  // dispatched, not completed
  };
  // A list is batched (Algorithm 1) or a plain FIFO, where every request is a batch of
  // its own: then only the entries are kept (their batch numbers order the rounds), and
  // a completion has nothing to update.
  struct List {
    bool batched = false;
    std::deque<Batch> batches;
    std::deque<Entry> fifo;
  };
  bool batched(int list) const;
  int list_of(HostOp op) const;
  enum class Take { Took, Held, None };  // Held: the issued batch is still in flight
  Take take(List& l, std::uint64_t limit, Entry& out);
  void recompute(Batch& b);
  bool write_waiting_before(std::uint64_t id) const;

  SchedulerKind kind_;
  DispatchKind dispatch_;
  unsigned chips_;
  std::uint64_t served_[2] = {0, 0};
  std::uint64_t prioritized_ = 0;
  List lists_[2];
  std::size_t waiting_ = 0;
  std::uint64_t next_batch_ = 0;
  // Rounds (reads, then writes): how many batches of each list belong to this round.
  int phase_ = 0;  // 0 reads, 1 writes
  std::uint64_t round_end_ = 0;  // batches numbered below this belong to the current phase
  bool round_open_ = false;
};

}  // namespace ssd::host
