// The host's record of what its writes are owed after a power cut, plain C++ (no kernel).
// The contract (docs/controller.md, "Power loss"):
//  - a write acknowledged as durable must read back (or a newer write of its page): one
//    completed with FUA, one completed before a FLUSH that completed (sent after it), and
//    every completed write when the device says its completions are durable (write cache
//    off, or plp: ssdsim tells the ledger so);
//  - a write not yet durable may read old or new: per page, the last durable data or any
//    data sent after it, never anything else;
//  - a multi-page write not durable may be torn (some pages new, some old): counted;
//  - surviving writes must be consistent with completion order: a write sent after another
//    was acknowledged must not survive while that one is lost (an unserializable outcome,
//    Zheng et al., FAST'13).
// Per logical page it keeps the last durable data (the base) and the versions sent after
// it, oldest first; a version leaves once a newer one is durable. Per write, the pages it
// still has a version of. audit() takes what the device holds after a cut and classifies
// every write with a version kept.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "tlm/host_protocol.h"

namespace ssd::host {

class DurabilityLedger {
 public:
  // `durable_at_ack`: every completed write is durable (the device's write cache is off,
  // or protected by its hold-up).
  explicit DurabilityLedger(bool durable_at_ack) : all_durable_at_ack_(durable_at_ack) {}

  // Write `id` was sent now: per page, its logical page, what a read must return once it
  // lands (`token`: merged with the old data for a page written in part) and the data it
  // carries (`fresh`). `before(lpn)`: what the page read as before any version kept.
  struct Page {
    std::uint64_t lpn;
    Token token, fresh;
  };
  template <typename Before>
  void sent(std::uint64_t id, Tick at, bool fua, const std::vector<Page>& pages, Before&& before) {
    Write& w = writes_[id];
    w.sent = at;
    w.seq = ++seq_;
    w.durable_at_ack = all_durable_at_ack_ || fua;
    for (const Page& p : pages) {
      auto it = chains_.find(p.lpn);
      if (it == chains_.end()) {
        const Token b = before(p.lpn);
        it = chains_.emplace(p.lpn, Chain{b, b, 0, {}}).first;
      }
      it->second.pending.push_back({p.token, p.fresh, id});
      w.lpns.push_back(p.lpn);
      ++w.versions;
    }
    if (!w.durable_at_ack) undurable_.push_back(id);
  }
  // A trim of `lpn` sent now: the page reads as unwritten once it lands. The firmware
  // records a trim in its mapping at once, and the mapping is taken as persisted when
  // updated: a trim is a version durable at its acknowledgement.
  void trimmed(std::uint64_t id, Tick at, std::uint64_t lpn, Token before_value) {
    sent(id, at, true, {{lpn, kUnwrittenToken, kUnwrittenToken}}, [&](std::uint64_t) { return before_value; });
  }
  // Write (or trim) `id` completed now: as written (Done), refused (nothing of it was
  // done: its versions are dropped, the pages keep what they held), or failed (a media
  // error: some pages may be on flash, others not; never durable, as if still in flight).
  enum class End : std::uint8_t { Done, Refused, Failed };
  void acked(std::uint64_t id, Tick at, End end) {
    const auto it = writes_.find(id);
    if (it == writes_.end()) return;
    Write& w = it->second;
    if (end == End::Refused) {
      drop_versions(id);
      return;
    }
    if (end == End::Failed) return;
    w.acked = at;
    w.ack_seq = ++seq_;
    if (w.durable_at_ack || w.flushed) make_durable(id);
  }
  // A FLUSH sent now (its number in send order returned) and its completion.
  std::uint64_t flush_sent() { return ++seq_; }
  void flush_acked(std::uint64_t flush_seq) {
    while (!undurable_.empty()) {
      const auto it = writes_.find(undurable_.front());
      if (it != writes_.end()) {
        if (it->second.seq > flush_seq) break;
        it->second.flushed = true;
        if (it->second.acked != kNever) make_durable(it->first);
      }
      undurable_.pop_front();
    }
  }

  // What a cut lost, classified per write (a write counted once in each class it is in).
  struct Outcome {
    std::uint64_t writes_checked = 0;  // writes with a version kept (durable or not)
    std::uint64_t durable_lost = 0;    // durable writes with a page that reads older data
    std::uint64_t volatile_lost = 0;   // acknowledged, not durable, with a page lost
    std::uint64_t unacked_lost = 0;    // in flight at the cut, with a page lost
    std::uint64_t torn = 0;            // multi-page writes with pages both lost and kept
    std::uint64_t order_violations = 0;  // kept writes sent after a lost write's acknowledgement
    std::uint64_t foreign_pages = 0;   // pages that read neither their durable data nor a later version
    std::uint64_t pages_checked = 0;
    Outcome& operator+=(const Outcome& o) {
      writes_checked += o.writes_checked;
      durable_lost += o.durable_lost;
      volatile_lost += o.volatile_lost;
      unacked_lost += o.unacked_lost;
      torn += o.torn;
      order_violations += o.order_violations;
      foreign_pages += o.foreign_pages;
      pages_checked += o.pages_checked;
      return *this;
    }
  };
  // The device's data after a cut: `held(lpn, out)` puts in `out` the data of each
  // version of the page the device keeps through the cut (on flash, or in a buffer its
  // hold-up programs); recovery takes the newest of them, in the order the host sent them
  // (a sequence number per write in the page's spare area). Changes nothing: the run goes
  // on with the device as it was (a probe).
  using Held = std::function<void(std::uint64_t, std::vector<Token>&)>;
  Outcome audit(const Held& held) const {
    Outcome o;
    struct Fate {
      std::uint32_t lost = 0, kept = 0, shown = 0;
    };
    std::unordered_map<std::uint64_t, Fate> fate;
    auto fate_of = [&](std::uint64_t id) -> Fate& { return fate[id]; };
    std::vector<Token> v;
    for (const auto& [lpn, c] : chains_) {
      ++o.pages_checked;
      v.clear();
      held(lpn, v);
      const auto holds = [&](Token t) { return std::find(v.begin(), v.end(), t) != v.end(); };
      // The newest version the device holds; versions up to it are kept (or replaced by
      // a kept newer one), those after it lost.
      std::size_t hold = c.pending.size();  // none of them
      for (std::size_t j = c.pending.size(); j-- > 0;)
        if (holds(c.pending[j].token) || holds(c.pending[j].fresh)) {
          hold = j;
          break;
        }
      const bool base_held = hold == c.pending.size() && (holds(c.base) || holds(c.base_fresh));
      if (hold == c.pending.size() && !base_held) {
        ++o.foreign_pages;
        if (c.base_write) ++fate_of(c.base_write).lost;
      }
      for (std::size_t j = 0; j < c.pending.size(); ++j) {
        Fate& f = fate_of(c.pending[j].write);
        if (hold != c.pending.size() && j <= hold) {
          ++f.kept;
          if (j == hold) ++f.shown;
        } else {
          ++f.lost;
        }
      }
      if (c.base_write && (base_held || hold != c.pending.size())) ++fate_of(c.base_write).kept;
    }
    // The earliest acknowledgement of a lost write: a kept write sent after it is out of
    // order. In the host's order of events (sends and acknowledgements share one count: a
    // write sent from inside another's completion, at the same instant, comes after it).
    std::uint64_t first_lost_ack = ~std::uint64_t{0};
    for (const auto& [id, f] : fate) {
      const Write& w = writes_.at(id);
      ++o.writes_checked;
      if (f.lost && w.acked != kNever) first_lost_ack = std::min(first_lost_ack, w.ack_seq);
      if (f.lost) {
        if (w.durable) ++o.durable_lost;
        else if (w.acked != kNever) ++o.volatile_lost;
        else ++o.unacked_lost;
        if (f.kept) ++o.torn;
      }
    }
    for (const auto& [id, f] : fate)
      if (f.shown && writes_.at(id).seq > first_lost_ack) ++o.order_violations;
    return o;
  }

  std::size_t pages() const { return chains_.size(); }
  std::size_t writes() const { return writes_.size(); }

 private:
  struct Version {
    Token token, fresh;
    std::uint64_t write;
  };
  struct Chain {
    Token base;               // the last durable data (or what the page held before the run's writes)
    Token base_fresh;         // ... as its write carried it (before a merge with the page's old data)
    std::uint64_t base_write;  // the write that made it (0: none of the run's kept)
    std::vector<Version> pending;  // sent after it, oldest first
  };
  struct Write {
    Tick sent = 0, acked = kNever;
    std::uint64_t seq = 0, ack_seq = 0;  // sent, acknowledged: in the host's order of events
    std::uint32_t versions = 0;  // pages with a version of it kept (pending or base)
    std::vector<std::uint64_t> lpns;  // its pages
    bool durable_at_ack = false, flushed = false, durable = false;
  };
  void release(std::uint64_t id) {
    const auto it = writes_.find(id);
    if (it != writes_.end() && --it->second.versions == 0) writes_.erase(it);
  }
  // Its pages' versions become their bases; older versions leave.
  void make_durable(std::uint64_t id) {
    Write& w = writes_.at(id);
    w.durable = true;
    std::vector<std::uint64_t> gone;
    for (std::uint64_t lpn : w.lpns) {
      Chain& c = chains_.at(lpn);
      std::size_t j = 0;
      while (j < c.pending.size() && c.pending[j].write != id) ++j;
      if (j == c.pending.size()) continue;  // a newer version is durable already
      if (c.base_write) gone.push_back(c.base_write);
      for (std::size_t k = 0; k < j; ++k) gone.push_back(c.pending[k].write);
      c.base = c.pending[j].token;
      c.base_fresh = c.pending[j].fresh;
      c.base_write = id;
      c.pending.erase(c.pending.begin(), c.pending.begin() + static_cast<std::ptrdiff_t>(j) + 1);
    }
    for (std::uint64_t g : gone) release(g);
  }
  void drop_versions(std::uint64_t id) {
    const std::vector<std::uint64_t> lpns = writes_.at(id).lpns;
    for (std::uint64_t lpn : lpns) {
      Chain& c = chains_.at(lpn);
      for (std::size_t j = 0; j < c.pending.size(); ++j)
        if (c.pending[j].write == id) {
          c.pending.erase(c.pending.begin() + static_cast<std::ptrdiff_t>(j));
          release(id);
          break;
        }
    }
  }

  bool all_durable_at_ack_;
  std::uint64_t seq_ = 0;
  std::unordered_map<std::uint64_t, Chain> chains_;
  std::unordered_map<std::uint64_t, Write> writes_;
  std::deque<std::uint64_t> undurable_;  // writes not durable at their acknowledgement, in send order
};

}  // namespace ssd::host
