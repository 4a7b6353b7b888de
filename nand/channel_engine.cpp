#include "nand/channel_engine.h"

#include "tlm/latency_parts.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace ssd::nand {

namespace {
template <typename Job>
RegState reg_state(const Job* j) {
  if (!j) return RegState::Free;
  return j->c->op == FlashOp::Read ? RegState::ReadData : RegState::ProgramData;
}
ArrayState array_state(FlashOp op) {
  switch (op) {
    case FlashOp::Read: return ArrayState::Read;
    case FlashOp::Program: return ArrayState::Program;
    case FlashOp::Erase: return ArrayState::Erase;
    case FlashOp::Resume: break;
  }
  return ArrayState::Idle;
}
}  // namespace

ChannelEngine::ChannelEngine(const NandConfig& cfg, unsigned channel, ChipActivity* activity, FaultModel* faults)
    : cfg_(cfg), channel_(channel), activity_(activity), faults_(faults && faults->on() ? faults : nullptr),
      meter_(cfg.chips_per_channel, cfg.dies_per_chip) {
  if (faults_) {
    t_retry_cmd_ = cfg_.bus_ticks(faults_->config().retry_cmd_cycles);
    soft_level_ = faults_->config().soft_level();
    soft_senses_ = faults_->config().soft_senses;
  }
  t_cmd_ = cfg_.bus_ticks(cfg_.cmd_addr_cycles);
  t_erase_cmd_ = cfg_.bus_ticks(cfg_.erase_cmd_cycles);
  t_data_ = cfg_.bus_ticks(cfg_.page_bytes);
  t_read_ = us_to_ticks(cfg_.t_read_us);
  t_prog_ = us_to_ticks(cfg_.t_prog_us);
  bits_ = cfg_.bits_per_cell;
  units_ = cfg_.units_per_page;
  indep_ = cfg_.independent_plane_reads;
  t_prog_slc_ = us_to_ticks(cfg_.t_prog_slc_us);
  t_read_slc_ = us_to_ticks(cfg_.t_read_slc_us);
  const std::vector<double> t_read_type = cfg_.read_times_us();
  for (unsigned k = 0; k < bits_; ++k) t_read_type_[k] = us_to_ticks(t_read_type[k]);
  t_erase_ = us_to_ticks(cfg_.t_erase_us);
  t_suspend_cmd_ = cfg_.bus_ticks(cfg_.suspend_cmd_cycles);
  t_suspend_program_ = us_to_ticks(cfg_.t_suspend_program_us);
  t_suspend_erase_ = us_to_ticks(cfg_.t_suspend_erase_us);
  t_suspend_penalty_ = us_to_ticks(cfg_.suspend_penalty_us);
  dies_.resize(std::size_t{cfg_.chips_per_channel} * cfg_.dies_per_chip);
  in_array_.assign((dies_.size() + 63) / 64, 0);
  accept_.assign(dies_.size(), (1u << (3 * kStartBits)) - 1);
  chip_inflight_.assign(cfg_.chips_per_channel, 0);
  const std::size_t blocks = std::size_t{cfg_.chips_per_channel} * cfg_.dies_per_chip *
                             cfg_.planes_per_die * cfg_.blocks_per_plane;
  // Tokens, a data unit's each: a page below its block's write pointer has been written,
  // one at or above it is erased. A block's tokens take memory once it is written
  // (common/pages_by_block.h).
  tokens_ = PagesByBlock<Token>(blocks, cfg_.units_per_block());
  pages_.assign(blocks, BlockPages{});
  erase_count_.assign(blocks, 0);
  if (faults_ && faults_->bad_blocks_per_plane()) image_block_.assign(blocks, 0);  // the FTL numbers the good blocks only
  first_block_ = std::size_t{channel} * blocks;
}

std::size_t ChannelEngine::block_at(unsigned chip, unsigned die, unsigned plane, std::uint32_t block) const {
  return ((std::size_t{chip} * cfg_.dies_per_chip + die) * cfg_.planes_per_die + plane) * cfg_.blocks_per_plane +
         block;
}

std::size_t ChannelEngine::block_index(const FlashCommand& c, unsigned plane) const {
  return block_at(c.chip, c.die, plane, c.block[plane]);
}

void ChannelEngine::erase_block(std::size_t bi) {
  pages_[bi].write_ptr = 0;
  pages_[bi].partial = 0;
  ++erase_count_[bi];
  pages_[bi].image_pages = 0;
  pages_[bi].slc = false;
}

std::uint32_t ChannelEngine::erase_count(unsigned chip, unsigned die, unsigned plane,
                                         std::uint32_t block) const {
  return erase_count_[block_at(chip, die, plane, block)];
}

std::uint32_t ChannelEngine::write_pointer(unsigned chip, unsigned die, unsigned plane,
                                           std::uint32_t block) const {
  return pages_[block_at(chip, die, plane, block)].write_ptr;
}

void ChannelEngine::backdoor_program(unsigned chip, unsigned die, unsigned plane,
                                     std::uint32_t block, std::uint32_t page, Token t, unsigned unit) {
  const std::size_t bi = block_at(chip, die, plane, block);
  BlockPages& b = pages_[bi];
  // The next unit: unit 0 of the next page, or the next of a page begun unit by unit.
  const std::uint32_t next_page = b.partial ? b.write_ptr - 1u : b.write_ptr;
  const unsigned next_unit = b.partial;
  if (page != next_page || unit != next_unit || page >= cfg_.pages_per_block)
    throw std::logic_error("NAND backdoor: programming page " + std::to_string(page) +
                           (units_ > 1 ? " unit " + std::to_string(unit) : std::string()) + " of block " +
                           std::to_string(block) + " whose next page is " + std::to_string(next_page) +
                           (units_ > 1 ? " unit " + std::to_string(next_unit) : std::string()));
  tokens_.at(bi, page * units_ + unit) = t;
  if (unit == 0) ++b.write_ptr;
  b.partial = static_cast<std::uint8_t>(unit + 1 < units_ ? unit + 1 : 0);
}

void ChannelEngine::backdoor_program_block(unsigned chip, unsigned die, unsigned plane,
                                           std::uint32_t block, const Token* tokens, std::uint32_t n) {
  const std::size_t bi = block_at(chip, die, plane, block);
  if (pages_[bi].write_ptr != 0 || n > cfg_.units_per_block())
    throw std::logic_error("NAND backdoor: block " + std::to_string(block) + " is not erased");
  if (n) std::copy(tokens, tokens + n, tokens_.chunk(bi));
  pages_[bi].write_ptr = static_cast<std::uint16_t>((n + units_ - 1) / units_);
  pages_[bi].partial = static_cast<std::uint8_t>(n % units_);
}

void ChannelEngine::backdoor_erase(unsigned chip, unsigned die, unsigned plane, std::uint32_t block,
                                   std::uint32_t times) {
  if (times == 0) return;
  const std::size_t bi = block_at(chip, die, plane, block);
  erase_block(bi);
  erase_count_[bi] += times - 1;
}

void ChannelEngine::backdoor_set_slc(unsigned chip, unsigned die, unsigned plane, std::uint32_t block, bool slc) {
  const std::size_t bi = block_at(chip, die, plane, block);
  if (slc && bits_ == 1) throw std::logic_error("NAND backdoor: SLC mode on a part of one bit per cell");
  if (slc && pages_[bi].write_ptr > cfg_.slc_pages_per_block())
    throw std::logic_error("NAND backdoor: block " + std::to_string(block) + " holds " +
                           std::to_string(pages_[bi].write_ptr) + " pages, more than SLC mode allows");
  pages_[bi].slc = slc;
}

void ChannelEngine::set_image(const PageImage* image) { image_ = image; }

void ChannelEngine::backdoor_load_image(unsigned chip, unsigned die, unsigned plane, std::uint32_t block,
                                        std::uint32_t pages, std::uint32_t erases, std::uint32_t image_block) {
  if (!image_) throw std::logic_error("NAND backdoor: loading a block from an image without one");
  if (pages > cfg_.units_per_block() || pages % units_)
    throw std::logic_error("NAND backdoor: loading " + std::to_string(pages) + " units into a block of " +
                           std::to_string(cfg_.pages_per_block) + " pages of " + std::to_string(units_));
  pages /= units_;  // the block's pages
  const std::size_t bi = block_at(chip, die, plane, block);
  if (!image_block_.empty()) {
    if (image_block == ~0u) throw std::logic_error("NAND backdoor: a block loaded without its image numbering");
    image_block_[bi] = image_block;
  }
  pages_[bi].write_ptr = static_cast<std::uint16_t>(pages);
  erase_count_[bi] = erases;
  pages_[bi].image_pages = static_cast<std::uint16_t>(pages);
  pages_[bi].partial = 0;
  pages_[bi].slc = false;  // an image's blocks are written in the part's own mode
}

void ChannelEngine::keep_image_numbering() {
  if (image_block_.empty()) image_block_.assign(pages_.size(), 0);
}

Token ChannelEngine::backdoor_read(unsigned chip, unsigned die, unsigned plane, std::uint32_t block,
                                   std::uint32_t page, unsigned unit) const {
  const std::size_t bi = block_at(chip, die, plane, block);
  const BlockPages& b = pages_[bi];
  if (unit >= units_) throw std::logic_error("NAND backdoor: reading unit " + std::to_string(unit) + " of a page of " + std::to_string(units_));
  if (page >= b.write_ptr || (b.partial && page + 1 == b.write_ptr && unit >= b.partial)) return kErasedToken;
  return page_token(bi, page, unit);
}

void ChannelEngine::store_units(std::size_t bi, const FlashCommand& c, unsigned p, unsigned pages) {
  for (unsigned k = 0; k < pages; ++k)
    for (unsigned u = 0; u < units_; ++u)
      tokens_.at(bi, (c.page + k) * units_ + u) =
          c.unit_planes >> p & 1u ? c.unit_tokens[p][k * units_ + u] : c.token_of(k, p);
}

bool ChannelEngine::chip_idle(unsigned chip) const {
  for (unsigned d = 0; d < cfg_.dies_per_chip; ++d)
    if (!die_idle(chip, d)) return false;
  return true;
}

bool ChannelEngine::statically_valid(const FlashCommand& c) const {
  bool blocks_ok = true;
  for_planes(c.plane_mask, [&](unsigned p) { blocks_ok = blocks_ok && c.block[p] < cfg_.blocks_per_plane; });
  return c.channel == channel_ && c.chip < cfg_.chips_per_channel && c.die < cfg_.dies_per_chip &&
         c.plane_mask != 0 && !(c.plane_mask >> cfg_.planes_per_die) &&
         (c.plane_count() == 1 || cfg_.multiplane) && (c.op == FlashOp::Erase || c.page < cfg_.pages_per_block) &&
         c.out_bytes <= cfg_.page_bytes && c.unit < units_ && blocks_ok;
}

std::string ChannelEngine::static_error(const FlashCommand& c) const {
  if (statically_valid(c) && cells_valid(c)) return std::string();
  using param::key;
  std::ostringstream os;
  if (c.channel != channel_) {
    os << "sent to channel " << channel_ << " but addressed to channel " << c.channel;
  } else if (c.chip >= cfg_.chips_per_channel) {
    os << "chip " << c.chip << " does not exist (" << key(&NandConfig::chips_per_channel) << " = "
       << cfg_.chips_per_channel << ")";
  } else if (c.die >= cfg_.dies_per_chip) {
    os << "die " << c.die << " does not exist (" << key(&NandConfig::dies_per_chip) << " = " << cfg_.dies_per_chip
       << ")";
  } else if (c.plane_mask == 0) {
    os << "no plane selected (plane mask 0)";
  } else if (c.plane_mask >> cfg_.planes_per_die) {
    os << "plane mask 0x" << std::hex << unsigned{c.plane_mask} << std::dec
       << " names a plane that does not exist (" << key(&NandConfig::planes_per_die) << " = " << cfg_.planes_per_die
       << ")";
  } else if (c.plane_count() > 1 && !cfg_.multiplane) {
    os << "multi-plane command while multi-plane operations are off (" << key(&NandConfig::multiplane)
       << " = false)";
  } else if (c.out_bytes > cfg_.page_bytes) {
    os << "moves out " << c.out_bytes << " bytes of a " << cfg_.page_bytes << "-byte page ("
       << key(&NandConfig::page_bytes) << ")";
  } else if (c.unit >= units_) {
    os << "unit " << unsigned{c.unit} << " does not exist (a page holds " << units_ << (units_ == 1 ? " unit" : " units")
       << " of data: " << key(&NandConfig::page_bytes) << " = " << cfg_.page_bytes << " / the FTL's mapping units)";
  } else if (c.op != FlashOp::Erase && c.page >= cfg_.pages_per_block) {
    os << "page " << c.page << " does not exist (" << key(&NandConfig::pages_per_block) << " = " << cfg_.pages_per_block
       << ")";
  } else if (c.slc && bits_ == 1) {
    os << "SLC mode on a part of one bit per cell (" << key(&NandConfig::bits_per_cell) << " = 1)";
  } else if (c.op == FlashOp::Program && !c.slc && c.page % bits_ != 0) {
    os << "programs from page " << c.page << ", which does not begin a wordline (" << key(&NandConfig::bits_per_cell)
       << " = " << bits_ << ": a PROGRAM writes a wordline's " << bits_ << " pages, from a multiple of " << bits_
       << ")";
  } else {
    for_planes(c.plane_mask, [&](unsigned p) {
      if (c.block[p] >= cfg_.blocks_per_plane && os.tellp() == 0)
        os << "block " << c.block[p] << " on plane " << p
           << " does not exist (" << key(&NandConfig::blocks_per_plane) << " = " << cfg_.blocks_per_plane << ")";
    });
  }
  return os.str();
}

bool ChannelEngine::dynamically_valid(const FlashCommand& c) const {
  bool ok = true;
  for_planes(c.plane_mask, [&](unsigned p) {
    const BlockPages& b = pages_[block_index(c, p)];
    if (c.op == FlashOp::Program)
      ok = ok && c.page == b.write_ptr && b.slc == c.slc && (!c.slc || c.page < cfg_.slc_pages_per_block());
    else if (c.op == FlashOp::Read)
      ok = ok && c.page < b.write_ptr && b.slc == c.slc && !(b.partial && c.page + 1u == b.write_ptr && c.unit >= b.partial);
  });
  return ok;
}

std::string ChannelEngine::dynamic_error(const FlashCommand& c) const {
  if (dynamically_valid(c)) return std::string();
  std::ostringstream os;
  for_planes(c.plane_mask, [&](unsigned p) {
    if (os.tellp() != 0) return;
    const BlockPages& b = pages_[block_index(c, p)];
    const std::uint32_t wp = b.write_ptr;
    if (c.op != FlashOp::Erase && b.slc != c.slc) {
      os << "block " << c.block[p] << " on plane " << p << (b.slc ? " is in SLC mode (its last erase set it): a "
                                                                  : " is not in SLC mode: a ")
         << to_string(c.op) << (c.slc ? " in SLC mode" : " without SLC mode");
    } else if (c.op == FlashOp::Program && c.slc && c.page >= cfg_.slc_pages_per_block()) {
      using param::key;
      os << "programming page " << c.page << " of block " << c.block[p] << " on plane " << p
         << " in SLC mode: a block in SLC mode holds " << cfg_.slc_pages_per_block() << " pages ("
         << key(&NandConfig::pages_per_block) << " / " << key(&NandConfig::bits_per_cell) << ")";
    } else if (c.op == FlashOp::Program && c.page < wp) {
      os << "programming page " << c.page << " of block " << c.block[p] << " on plane " << p
         << ", which is not erased (the block is programmed up to page " << wp - 1 << ")";
    } else if (c.op == FlashOp::Program && c.page > wp) {
      os << "programming page " << c.page << " of block " << c.block[p] << " on plane " << p
         << " out of order: the next page to program in that block is " << wp;
    } else if (c.op == FlashOp::Read && c.page >= wp) {
      os << "reading page " << c.page << " of block " << c.block[p] << " on plane " << p
         << ", which is erased";
    } else if (c.op == FlashOp::Read) {
      os << "reading unit " << unsigned{c.unit} << " of page " << c.page << " of block " << c.block[p] << " on plane "
         << p << ", which is erased (the page's first " << unsigned{b.partial} << " units are written)";
    }
  });
  return os.str();
}

void ChannelEngine::observe_regs(Die& d, const FlashCommand& c, Tick now) {
  for_planes(c.plane_mask, [&](unsigned p) {
    observer_->on_registers(now, c.chip, c.die, p, reg_state(d.planes[p].data),
                            reg_state(d.planes[p].cache));
  });
}

void ChannelEngine::chip_started(unsigned chip, Tick now) {
  if (chip_inflight_[chip]++ == 0 && activity_)
    activity_->set_busy(std::size_t{channel_} * cfg_.chips_per_channel + chip, now);
}

void ChannelEngine::chip_finished(unsigned chip, Tick now) {
  if (--chip_inflight_[chip] == 0 && activity_)
    activity_->set_idle(std::size_t{channel_} * cfg_.chips_per_channel + chip, now);
}

ChannelEngine::Job* ChannelEngine::take_job(FlashCommand* c, void* owner) {
  Job* j;
  if (!free_jobs_.empty()) {
    j = free_jobs_.back();
    free_jobs_.pop_back();
  } else {
    j = &jobs_.emplace_back();
  }
  j->c = c;
  j->owner = owner;
  j->live = true;
  return j;
}

void ChannelEngine::power_cut(Tick now, std::vector<Completed>& lost) {
  catch_up(now);
  // Commands refused at submit are due now: they end as the next advance() would end them.
  for (Job* j : rejected_) {
    std::string why = std::move(j->c->error);
    fail(j, now, std::move(why), lost);
  }
  rejected_.clear();
  std::vector<Job*> held;
  for (Job& j : jobs_)
    if (j.live) held.push_back(&j);
  // The newest first, so that a program whose page goes back to erased is its block's
  // last page then; `lost` is in submission order.
  std::sort(held.begin(), held.end(), [](const Job* a, const Job* b) { return a->seq > b->seq; });
  for (Job* j : held) {
    FlashCommand* c = j->c;
    const bool started = j->stage != Queued;
    if (started && c->op == FlashOp::Program) {
      // Its array time began (or it is held suspended): the cells are part programmed.
      // Else its data had not left the registers: the page is still erased.
      const bool cells = j->stage == Array || j->stage == Held;
      for_planes(c->plane_mask, [&](unsigned p) {
        const std::size_t bi = block_index(*c, p);
        if (!cells) {
          if (pages_[bi].write_ptr != c->page + cfg_.pages_written(*c))
            throw std::logic_error("NAND power cut: " + c->describe() + " in its registers is not its block's last page");
          pages_[bi].write_ptr = static_cast<std::uint16_t>(c->page);
          pages_[bi].partial = 0;
          return;
        }
        // Its wordline's pages all (one-shot programming leaves no other wordline torn).
        for (unsigned k = 0; k < cfg_.pages_written(*c); ++k) fill_page(bi, c->page + k, kTornToken);
        c->failed_planes = static_cast<std::uint8_t>(c->failed_planes | 1u << p);
        torn_pages_ += cfg_.pages_written(*c);
      });
    } else if (started && c->op == FlashOp::Erase) {
      for_planes(c->plane_mask, [&](unsigned p) {
        const std::size_t bi = block_index(*c, p);
        // A block erased in SLC mode holds pages_per_block / n pages.
        const std::uint32_t pages = c->slc ? cfg_.slc_pages_per_block() : cfg_.pages_per_block;
        Token* t = tokens_.chunk(bi);
        std::fill(t, t + pages * units_, kTornToken);
        pages_[bi].write_ptr = static_cast<std::uint16_t>(pages);
        pages_[bi].partial = 0;
        c->failed_planes = static_cast<std::uint8_t>(c->failed_planes | 1u << p);
        torn_pages_ += pages;
      });
    }
    // The die's occupation (the meter's, which ignores a command not in it) and, once
    // started, its chip; a RESUME holds neither.
    if (c->op != FlashOp::Resume) {
      meter_.release(c->chip, c->die, j->seq, now, bus_clock(now));
      if (started) chip_finished(c->chip, now);
    }
    c->status = FlashStatus::PowerLoss;
    c->t_done = now;
  }
  for (auto it = held.rbegin(); it != held.rend(); ++it) {
    lost.push_back({(*it)->c, (*it)->owner});
    give_job(*it);
  }
  if (bus_op_) counters_.bus_busy += now - bus_start_;
  bus_op_ = nullptr;
  seg_end_ = kNever;
  nseg_ = iseg_ = 0;
  lazy_bus_end_ = false;
  for (std::size_t i = 0; i < dies_.size(); ++i) {
    const FlashCommand* op = dies_[i].array_op  ? dies_[i].array_op->c
                             : dies_[i].nsensing ? dies_[i].sensing[dies_[i].nsensing - 1]->c
                                                 : nullptr;
    const Job* susp = dies_[i].parked ? dies_[i].parked : dies_[i].target;  // a suspension under way ends too
    if (susp && observer_) observer_->on_suspend(now, *susp->c, SuspendPhase::None);
    dies_[i] = Die{};
    refresh_accept(dies_[i]);
    if (!observer_) continue;
    const auto chip = static_cast<unsigned>(i / cfg_.dies_per_chip), die = static_cast<unsigned>(i % cfg_.dies_per_chip);
    if (op) observer_->on_array(now, *op, ArrayState::Idle);
    observer_->on_queue(now, chip, die, 0);
    for (unsigned p = 0; p < cfg_.planes_per_die; ++p)
      observer_->on_registers(now, chip, die, p, RegState::Free, RegState::Free);
  }
  if (observer_) observer_->on_bus(now, BusPhase::Idle, nullptr);
  std::fill(in_array_.begin(), in_array_.end(), 0);
  waiting_out_.clear();
  waiting_cmd_.clear();
  suspending_dies_.clear();
  heads_.clear();
  held_dies_ = 0;
  queued_total_ = 0;
  next_array_end_ = next_suspend_end_ = kNever;
  in_flight_ = 0;
  next_event_ = kNever;
}

void ChannelEngine::submit(FlashCommand* c, Tick now, void* owner) {
  Job* j = take_job(c, owner);
  j->stage = Queued;
  j->via_cache = false;
  j->rest = false;
  suspend_seen_ = suspend_seen_ || c->suspend || c->op == FlashOp::Resume;
  j->seq = seq_++;
  j->ready_at = now;
  j->next = nullptr;
  c->status = FlashStatus::Pending;
  c->t_submit = now;
  ++in_flight_;
  next_event_ = std::min(next_event_, now);
  if (!statically_valid(*c) || !cells_valid(*c) || (c->op == FlashOp::Resume && c->plane_mask != 1)) {
    c->error = c->op == FlashOp::Resume && c->plane_mask != 1 ? "a RESUME names its die only (plane mask 1)"
                                                               : static_error(*c);
    c->metered = false;  // it never reaches its die: no wait to split
    c->waited = {};
    rejected_.push_back(j);
    return;
  }
  // The die is committed to it from now: the meter's time of what it waited for in the
  // scheduler block ends here, and its own occupation begins.
  if (c->op != FlashOp::Resume) {  // a RESUME is no work of its own: the die's work is what it restarts
    if (c->metered) meter_.growth(c->chip, c->die, now, bus_busy_ticks(now), c->waited);
    meter_.occupy(c->chip, c->die, j->seq, work_kind(*c), now, bus_clock(now));
  }
  Die& d = die_of(*c);
  if (d.tail) {
    d.tail->next = j;
  } else {
    d.head = j;
    heads_.push_back(die_index(d));
  }
  d.tail = j;
  ++d.queued;
  ++queued_total_;
  note_queue(d, c->chip, c->die, now);
}

void ChannelEngine::refresh_accept(Die& d) {
  // Plane bits; the planes the die does not have hold nothing (an address check refuses
  // a command naming one when it reaches the channel).
  const std::uint32_t absent = ((1u << kMaxPlanes) - 1) & ~((1u << cfg_.planes_per_die) - 1);
  std::uint32_t data_free = absent, cache_free = absent;
  for (unsigned p = 0; p < cfg_.planes_per_die; ++p) {
    data_free |= std::uint32_t{d.planes[p].data == nullptr} << p;
    cache_free |= std::uint32_t{d.planes[p].cache == nullptr} << p;
  }
  if (d.susp) {
    accept_[die_index(d)] = held_accept(d, data_free, cache_free);
    return;
  }
  constexpr std::uint32_t all = (1u << kStartBits) - 1, condition = 1u << kMaxPlanes;
  const std::uint32_t idle = d.inflight == 0 ? all : 0u;
  // A command in its command phase is counted as what it will be when the phase ends, so
  // that a command the die accepts can still start when the bus frees: a read will occupy
  // the array, and a program, the array busy, will wait in the cache register.
  const bool reads_only = !d.array_op && !d.in_cmd_phase && d.inflight == d.inflight_reads;
  const bool programs_only =
      d.inflight == d.inflight_programs && !d.waiting_programs && !(d.in_cmd_phase && d.array_op);
  std::uint32_t read = !cfg_.cache_read ? idle : reads_only ? condition | data_free : 0u;
  // Independent plane reads: any planes whose data registers are free, while only reads
  // are in flight (a read holds its data registers from its command to its data's leaving
  // them: out, or to the cache registers).
  if (indep_) read = d.inflight == d.inflight_reads ? condition | data_free : 0u;
  const std::uint32_t program = !cfg_.cache_program ? idle : programs_only ? condition | cache_free : 0u;
  constexpr unsigned k = kStartBits;
  accept_[die_index(d)] = read << (k * static_cast<unsigned>(FlashOp::Read)) |
             program << (k * static_cast<unsigned>(FlashOp::Program)) |
             idle << (k * static_cast<unsigned>(FlashOp::Erase));
}

// The readiness rules of a die in a suspension (docs/nand-timing.md, "Suspend and
// resume"): nothing from a SUSPEND to its read's command, nor during a RESUME; with an
// operation held, reads (in a program suspend through the cache registers), programs in
// an erase suspend if the key allows, and the RESUME once nothing else is under way.
std::uint32_t ChannelEngine::held_accept(const Die& d, std::uint32_t data_free, std::uint32_t cache_free) const {
  if (d.suspending || d.resuming) return 0;
  constexpr std::uint32_t all = (1u << kStartBits) - 1, condition = 1u << kMaxPlanes;
  constexpr unsigned k = kStartBits;
  const bool erase = d.parked->c->op == FlashOp::Erase;
  // The commands under way apart from the held one (and, in a program suspend, the
  // programs waiting in cache registers, which wait for the resume).
  const unsigned busy = d.inflight - 1 - (erase ? 0u : d.waiting_programs);
  std::uint32_t read = 0, program = 0;
  if (erase) {
    const bool reads_only = !d.array_op && !d.in_cmd_phase && busy == d.inflight_reads;
    read = !cfg_.cache_read ? (busy == 0 ? all : 0u) : reads_only ? condition | data_free : 0u;
    if (cfg_.program_in_erase_suspend) {
      const bool programs_only =
          busy == d.inflight_programs && !d.waiting_programs && !(d.in_cmd_phase && d.array_op);
      program = !cfg_.cache_program ? (busy == 0 ? all : 0u) : programs_only ? condition | cache_free : 0u;
    }
  } else {  // the held program keeps its data registers: reads use the cache registers
    const bool no_other = !d.array_op && !d.in_cmd_phase;
    read = no_other && (cfg_.cache_read ? busy == d.inflight_reads : busy == 0) ? condition | cache_free : 0u;
  }
  const std::uint32_t resume = busy == 0 && !d.in_cmd_phase ? kResumeNeed : 0u;
  return read << (k * static_cast<unsigned>(FlashOp::Read)) | program << (k * static_cast<unsigned>(FlashOp::Program)) |
         resume;
}

// A program suspend: a program waits in the cache register of one of the planes `c` reads
// (it starts only after the held one ends, so the read could never start before the RESUME).
bool ChannelEngine::cached_behind_held(const Die& d, const FlashCommand& c) const {
  if (d.parked->c->op != FlashOp::Program) return false;
  bool blocked = false;
  for_planes(c.plane_mask, [&](unsigned p) {
    const Job* x = d.planes[p].cache;
    blocked = blocked || (x && x->c->op == FlashOp::Program && x->stage == WaitArray);
  });
  return blocked;
}

std::uint32_t ChannelEngine::suspend_offer(const Die& d) const {
  const Job* t = d.array_op;
  if (!t || t->stage != Array || d.suspend_state() || d.in_cmd_phase || t->c->op == FlashOp::Read ||
      t->c->suspends >= cfg_.max_suspends)
    return 0;
  constexpr std::uint32_t condition = 1u << kMaxPlanes, all_planes = (1u << kMaxPlanes) - 1;
  if (t->c->op == FlashOp::Erase) return condition | all_planes;  // an erase holds no register
  // A program holds its data registers (and a cached program its cache registers): the
  // read senses into, and moves out of, the cache registers.
  std::uint32_t cache_free = all_planes & ~((1u << cfg_.planes_per_die) - 1);
  for (unsigned p = 0; p < cfg_.planes_per_die; ++p) cache_free |= std::uint32_t{d.planes[p].cache == nullptr} << p;
  return condition | cache_free;
}

bool ChannelEngine::suspend_eligible(const Die& d, const FlashCommand& c) const {
  if (c.op == FlashOp::Resume) return !d.parked && !d.suspending;  // nothing to resume: goes, to fail
  if (d.parked && !d.resuming) {  // a command the held state never takes goes, to fail
    if (c.op == FlashOp::Erase) return true;
    if (c.op == FlashOp::Program && (d.parked->c->op == FlashOp::Program || !cfg_.program_in_erase_suspend))
      return true;
    if (c.op == FlashOp::Read && cached_behind_held(d, c)) return true;
  }
  return c.suspend && c.op == FlashOp::Read && accepts(suspend_offer(d), c.start_need());
}

std::string ChannelEngine::suspend_error(const Die& d, const FlashCommand& c, bool by_suspension) const {
  std::ostringstream os;
  const Job* held = d.parked ? d.parked : by_suspension ? d.array_op : nullptr;
  if (c.op == FlashOp::Resume) {
    if (!d.parked) os << "RESUME while its die holds no suspended program or erase";
    return os.str();
  }
  if (!held) return std::string();
  const FlashCommand& h = *held->c;
  if (d.parked && c.op == FlashOp::Read && cached_behind_held(d, c)) {
    os << "its die holds a suspended PROGRAM, and the cache register of a plane it reads holds a PROGRAM that "
          "waits for it: the read cannot start before the RESUME";
    return os.str();
  }
  if (d.parked && (c.op == FlashOp::Erase ||
                   (c.op == FlashOp::Program && (h.op == FlashOp::Program || !cfg_.program_in_erase_suspend)))) {
    os << "its die holds a suspended " << to_string(h.op) << " (" << h.describe() << "), which takes no "
       << to_string(c.op) << " until it is resumed";
    return os.str();
  }
  for_planes(c.plane_mask, [&](unsigned p) {
    if (os.tellp() != 0) return;
    if (h.op == FlashOp::Erase && (h.plane_mask >> p & 1) && h.block[p] == c.block[p]) {
      os << "block " << c.block[p] << " on plane " << p << " is being erased (its ERASE is suspended)";
      return;
    }
    if (c.op != FlashOp::Read) return;
    for (const Job* x : {d.planes[p].data, d.planes[p].cache})
      if (x && x->c->op == FlashOp::Program && writes_page(*x->c, c, p) && os.tellp() == 0)
        os << "reading page " << c.page << " of block " << c.block[p] << " on plane " << p
           << ", whose PROGRAM has not ended (" << (x == held ? "it is suspended" : "it waits in a cache register")
           << ")";
  });
  return os.str();
}

// A read's SUSPEND: its die's array works on through the suspend latency; the read's own
// command follows once the die is ready (suspend_done or suspend_void).
void ChannelEngine::start_bus_suspend(Job* j, Tick now) {
  FlashCommand* c = j->c;
  Die& d = die_of(*c);
  ++d.inflight;
  ++d.inflight_reads;
  chip_started(c->chip, now);
  j->stage = BusSuspend;
  c->t_start = now;
  d.suspending = j;
  d.sync_susp();
  d.target = d.array_op;
  refresh_accept(d);
  if (observer_) observer_->on_suspend(now, *d.target->c, SuspendPhase::Suspending);
  nseg_ = 1;
  segs_[0] = {BusPhase::CmdAddr, t_suspend_cmd_};
  start_bus(j, now);
}

// The suspended operation ended before the die held it: nothing is held, the read's
// command goes as soon as the bus is free.
void ChannelEngine::suspend_void(Die& d, Tick now) {
  Job* r = d.suspending;
  d.target = nullptr;
  d.suspend_end = kNever;
  ++counters_.suspends_void;
  r->stage = WaitCmd;
  r->ready_at = now;
  r->c->t_suspend_done = now;
  waiting_cmd_.push_back(r);
}

// The suspend latency is over: the operation is held with its remaining array time.
void ChannelEngine::suspend_done(Die& d, Tick now) {
  Job* t = d.array_op;
  Job* r = d.suspending;
  d.parked = t;
  d.sync_susp();
  ++held_dies_;
  d.left = d.array_end - now;
  d.parked_at = now;
  d.array_op = nullptr;
  d.array_end = kNever;
  d.target = nullptr;
  d.suspend_end = kNever;
  const std::uint32_t i = die_index(d);
  in_array_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
  t->stage = Held;
  // The die's work is no longer the held operation's (the attribution's split of waits).
  meter_.release(t->c->chip, t->c->die, t->seq, now, bus_clock(now));
  ++t->c->suspends;
  ++counters_.suspends[t->c->op == FlashOp::Erase ? 1 : 0];
  if (observer_) {
    observer_->on_array(now, *t->c, ArrayState::Idle);
    observer_->on_suspend(now, *t->c, SuspendPhase::Suspended);
  }
  r->stage = WaitCmd;
  r->ready_at = now;
  r->c->t_suspend_done = now;
  waiting_cmd_.push_back(r);
  refresh_accept(d);
}

void ChannelEngine::start_bus_resume(Job* j, Tick now) {
  FlashCommand* c = j->c;
  Die& d = die_of(*c);
  j->stage = BusResume;
  c->t_start = now;
  c->bus_cmd_ticks += t_suspend_cmd_;
  d.resuming = j;
  d.sync_susp();
  refresh_accept(d);
  nseg_ = 1;
  segs_[0] = {BusPhase::CmdAddr, t_suspend_cmd_};
  start_bus(j, now);
}

// The RESUME is on the die: the held operation runs again for its remaining time and
// the penalty; the RESUME completes.
void ChannelEngine::finish_resume(Die& d, Tick now, std::vector<Completed>& done) {
  Job* j = d.resuming;
  Job* t = d.parked;
  d.resuming = nullptr;
  d.parked = nullptr;
  d.sync_susp();
  --held_dies_;
  const Tick held = now - d.parked_at;
  t->c->t_suspended += held;
  counters_.suspended_ticks += held;
  counters_.max_suspended_ticks = std::max(counters_.max_suspended_ticks, held);
  ++counters_.resumes;
  d.array_op = t;
  t->stage = Array;
  meter_.reoccupy(t->c->chip, t->c->die, t->seq, work_kind(*t->c), now, bus_clock(now));
  d.array_end = now + d.left + t_suspend_penalty_;
  const std::uint32_t i = die_index(d);
  in_array_[i / 64] |= std::uint64_t{1} << (i % 64);
  next_array_end_ = std::min(next_array_end_, d.array_end);
  if (observer_) {
    observer_->on_array(now, *t->c, array_state(t->c->op));
    observer_->on_suspend(now, *t->c, SuspendPhase::Resumed);
  }
  FlashCommand* c = j->c;
  j->stage = Done;
  c->status = FlashStatus::Ok;
  c->t_done = now;
  --in_flight_;
  done.push_back({c, j->owner});
  give_job(j);
  refresh_accept(d);
}

void ChannelEngine::start_bus(Job* j, Tick now) {
  if (!observer_ && nseg_ > 1) {  // nobody watches the segment boundaries: one event
    Tick total = 0;
    for (unsigned i = 0; i < nseg_; ++i) total += segs_[i].duration;
    segs_[0].duration = total;
    nseg_ = 1;
  }
  bus_op_ = j;
  bus_start_ = now;
  iseg_ = 0;
  seg_end_ = now + segs_[0].duration;
  if (observer_) observer_->on_bus(now, segs_[0].phase, j->c);
}

void ChannelEngine::start_bus_command(Job* j, Tick now) {
  FlashCommand* c = j->c;
  Die& d = die_of(*c);
  if (j->stage == WaitCmd) {  // after its SUSPEND: counted in flight since then
    d.suspending = nullptr;
    d.sync_susp();
  } else {
    ++d.inflight;
    if (c->op == FlashOp::Read) ++d.inflight_reads;
    if (c->op == FlashOp::Program) ++d.inflight_programs;
    chip_started(c->chip, now);
    c->t_start = now;
  }
  // A read while a program is held: through the cache registers (the program keeps its
  // data registers), whether it suspended the program or came after.
  if (d.susp) j->via_cache = c->op == FlashOp::Read && d.parked && d.parked->c->op == FlashOp::Program;
  j->stage = BusCmd;
  nseg_ = 0;
  switch (c->op) {
    case FlashOp::Read:
      for_planes(c->plane_mask, [&](unsigned p) {
        (j->via_cache ? d.planes[p].cache : d.planes[p].data) = j;
        segs_[nseg_++] = {BusPhase::CmdAddr, t_cmd_};
      });
      if (c->read_level) segs_[0].duration += t_retry_cmd_;  // SET FEATURES: the read-retry level, once per die
      break;
    case FlashOp::Program:
      if (bits_ == 1) {
        for_planes(c->plane_mask, [&](unsigned p) {
          const std::size_t bi = block_index(*c, p);
          if (units_ == 1) tokens_.at(bi, c->page) = c->token[p];
          else store_units(bi, *c, p, 1);
          ++pages_[bi].write_ptr;
          pages_[bi].partial = 0;
          (cfg_.cache_program ? d.planes[p].cache : d.planes[p].data) = j;
          segs_[nseg_++] = {BusPhase::CmdAddr, t_cmd_};
          segs_[nseg_++] = {BusPhase::DataIn, t_data_};
        });
      } else {
        // A wordline's pages (in SLC mode one page) all go in now, unless the die's array
        // still holds the data registers: then its first page only, to the cache.
        const unsigned pages = cfg_.pages_written(*c);
        j->rest = pages > 1 && cfg_.cache_program && d.array_op;
        for_planes(c->plane_mask, [&](unsigned p) {
          const std::size_t bi = block_index(*c, p);
          store_units(bi, *c, p, pages);
          pages_[bi].write_ptr = static_cast<std::uint16_t>(pages_[bi].write_ptr + pages);
          pages_[bi].partial = 0;
          (cfg_.cache_program ? d.planes[p].cache : d.planes[p].data) = j;
        });
        program_segments(*c, 0, j->rest ? 1 : pages);
      }
      break;
    case FlashOp::Erase:
      for_planes(c->plane_mask, [&](unsigned p) {
        const std::size_t bi = block_index(*c, p);
        erase_block(bi);
        pages_[bi].slc = c->slc;  // its mode until its next erase
        segs_[nseg_++] = {BusPhase::CmdAddr, t_erase_cmd_};
      });
      break;
    case FlashOp::Resume:  // start_bus_resume()
      break;
  }
  set_regs(d, *c, now);
  d.in_cmd_phase = true;
  refresh_accept(d);
  bus_segments_started(j, now);
  start_bus(j, now);
}

// A data-out phase is all data; a command phase per plane: command and address cycles,
// then a program's page of data-in.
void ChannelEngine::bus_segments_started(Job* j, Tick now) {
  FlashCommand* c = j->c;
  if (j->stage == BusOut) {
    c->t_out_start = now;
    return;
  }
  // Command (and a program's data) phases: one per plane, and with n-bit cells per page a
  // program moves (its wordline's, or the part this phase moves).
  Tick n = c->plane_count();
  if (bits_ > 1) {
    n *= j->stage == BusRest ? bits_ - 1 : j->rest ? 1 : cfg_.pages_written(*c);
    if (j->stage == BusRest) {  // since its first phase: waiting for registers, then for the bus
      c->t_wordline_wait = j->ready_at - c->t_bus_end;
      c->t_wordline_bus_wait = now - j->ready_at;
    }
  }
  const Tick cmd = n * (c->op == FlashOp::Erase ? t_erase_cmd_ : t_cmd_) +
                   (c->op == FlashOp::Read && c->read_level ? t_retry_cmd_ : 0);
  c->bus_cmd_ticks += cmd;
  c->t_bus_end = now + cmd + (c->op == FlashOp::Program ? n * t_data_ : 0);
}

void ChannelEngine::program_segments(const FlashCommand& c, unsigned from, unsigned to) {
  for (unsigned k = from; k < to; ++k)
    for_planes(c.plane_mask, [&](unsigned) {
      segs_[nseg_++] = {BusPhase::CmdAddr, t_cmd_};
      segs_[nseg_++] = {BusPhase::DataIn, t_data_};
    });
}

// A wordline program's later pages, now that its first page has moved on to the data
// registers: their command and data phases, the cache registers still its own.
void ChannelEngine::start_bus_rest(Job* j, Tick now) {
  Die& d = die_of(*j->c);
  j->stage = BusRest;
  d.in_cmd_phase = true;
  nseg_ = 0;
  program_segments(*j->c, 1, bits_);
  refresh_accept(d);
  bus_segments_started(j, now);
  start_bus(j, now);
}

void ChannelEngine::start_bus_dataout(Job* j, Tick now) {
  FlashCommand* c = j->c;
  j->stage = BusOut;
  nseg_ = 0;
  Tick t = c->out_bytes ? cfg_.bus_ticks(c->out_bytes) : t_data_;  // a partial read moves its bytes only
  if (soft(*c)) t *= soft_senses_;  // the hard page and its soft-information pages
  for_planes(c->plane_mask, [&](unsigned) { segs_[nseg_++] = {BusPhase::DataOut, t}; });
  bus_segments_started(j, now);
  start_bus(j, now);
}

void ChannelEngine::start_array(Die& d, Job* j, Tick now) {
  FlashCommand* c = j->c;
  if (indep_ && c->op == FlashOp::Read && !d.susp) {
    start_sensing(d, j, now);
    return;
  }
  d.array_op = j;
  const std::uint32_t i = die_index(d);
  in_array_[i / 64] |= std::uint64_t{1} << (i % 64);
  j->stage = Array;
  c->t_array_start = now;
  d.array_end = now + array_ticks(*c);
  next_array_end_ = std::min(next_array_end_, d.array_end);
  if (observer_) observer_->on_array(now, *c, array_state(c->op));
}

void ChannelEngine::finish_bus_segment(Tick now, std::vector<Completed>& done) {
  Job* j = bus_op_;
  FlashCommand* c = j->c;
  if (++iseg_ < nseg_) {
    seg_end_ = now + segs_[iseg_].duration;
    if (observer_) observer_->on_bus(now, segs_[iseg_].phase, c);
    return;
  }
  counters_.bus_busy += now - bus_start_;
  bus_op_ = nullptr;
  seg_end_ = kNever;
  if (observer_) observer_->on_bus(now, BusPhase::Idle, nullptr);
  Die& d = die_of(*c);
  if (j->stage >= BusSuspend) {  // a SUSPEND or a RESUME
    if (j->stage == BusResume) {
      finish_resume(d, now, done);
    } else if (!d.target) {  // its operation ended during the SUSPEND
      suspend_void(d, now);
    } else {
      j->stage = Suspending;
      d.suspend_end = now + (d.target->c->op == FlashOp::Erase ? t_suspend_erase_ : t_suspend_program_);
      suspending_dies_.push_back(die_index(d));
      next_suspend_end_ = std::min(next_suspend_end_, d.suspend_end);
    }
    return;
  }
  if (j->stage == BusOut) {  // a read's data is out
    for_planes(c->plane_mask, [&](unsigned p) {
      (cfg_.cache_read || j->via_cache ? d.planes[p].cache : d.planes[p].data) = nullptr;
    });
    set_regs(d, *c, now);
    complete(j, now, done);
    register_moves(d, now);
    refresh_accept(d);
    return;
  }
  // End of a command phase: the array operation follows.
  d.in_cmd_phase = false;
  if (j->stage == BusRest) {  // a wordline's later pages are in: its cache registers free, tPROG
    d.resting = nullptr;
    for_planes(c->plane_mask, [&](unsigned p) { d.planes[p].cache = nullptr; });
    set_regs(d, *c, now);
    start_array(d, j, now);
  } else if (c->op == FlashOp::Program && cfg_.cache_program) {
    j->stage = WaitArray;
    ++d.waiting_programs;
    register_moves(d, now);
  } else {
    start_array(d, j, now);
  }
  refresh_accept(d);
}

void ChannelEngine::start_sensing(Die& d, Job* j, Tick now) {
  FlashCommand* c = j->c;
  j->stage = Array;
  c->t_array_start = now;
  j->sense_end = now + array_ticks(*c);
  d.sensing[d.nsensing++] = j;
  d.array_end = std::min(d.array_end, j->sense_end);
  const std::uint32_t i = die_index(d);
  in_array_[i / 64] |= std::uint64_t{1} << (i % 64);
  next_array_end_ = std::min(next_array_end_, d.array_end);
  if (observer_) observer_->on_array(now, *c, ArrayState::Read);  // the die's array signal: its newest read
}

void ChannelEngine::finish_sensing(Die& d, Tick now) {
  std::array<Job*, kMaxPlanes> ended{};
  unsigned nend = 0, left = 0;
  Tick next = kNever;
  for (unsigned k = 0; k < d.nsensing; ++k) {
    Job* j = d.sensing[k];
    if (j->sense_end <= now) {
      ended[nend++] = j;
    } else {
      d.sensing[left++] = j;
      next = std::min(next, j->sense_end);
    }
  }
  d.nsensing = left;
  d.array_end = next;
  if (!left) {
    const std::uint32_t i = die_index(d);
    in_array_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
  }
  for (unsigned k = 0; k < nend; ++k) {
    Job* j = ended[k];
    j->c->t_array_end = now;
    if (faults_) array_faults(*j->c, now);
    read_sensed(j, now);
  }
  // Each read's tR end, then (the die's array signal) the newest read still sensing.
  if (observer_ && nend) {
    for (unsigned k = 0; k < nend; ++k) observer_->on_array(now, *ended[k]->c, ArrayState::Idle);
    if (left) observer_->on_array(now, *d.sensing[left - 1]->c, ArrayState::Read);
  }
  register_moves(d, now);
  refresh_accept(d);
}

inline void ChannelEngine::read_sensed(Job* j, Tick now) {
  FlashCommand* c = j->c;
  for_planes(c->plane_mask, [&](unsigned p) { c->token[p] = page_token(block_index(*c, p), c->page, c->unit); });
  if (cfg_.cache_read && !j->via_cache) {
    j->stage = WaitReg;  // register_moves() copies it to the cache register
  } else {
    j->stage = WaitOut;
    j->ready_at = now;
    c->t_out_ready = now;
    waiting_out_.push_back(j);
  }
}

void ChannelEngine::finish_array(Die& d, Tick now, std::vector<Completed>& done) {
  if (!d.array_op) {  // independent plane reads (a read completes when its data is out)
    finish_sensing(d, now);
    return;
  }
  Job* j = d.array_op;
  FlashCommand* c = j->c;
  d.array_op = nullptr;
  d.array_end = kNever;
  const std::uint32_t i = die_index(d);
  in_array_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
  c->t_array_end = now;
  if (faults_) array_faults(*c, now);
  if (observer_) {
    observer_->on_array(now, *c, ArrayState::Idle);
    if (c->suspends) observer_->on_suspend(now, *c, SuspendPhase::None);
  }
  if (d.target == j) {  // it ended within the suspend latency of a SUSPEND asked for it
    if (observer_ && !c->suspends) observer_->on_suspend(now, *c, SuspendPhase::None);
    if (d.suspending->stage == Suspending) suspend_void(d, now);
    else d.target = nullptr;  // the SUSPEND is still on the bus: void at its end
  }
  switch (c->op) {
    case FlashOp::Read:
      read_sensed(j, now);
      break;
    case FlashOp::Program:
      for_planes(c->plane_mask, [&](unsigned p) { d.planes[p].data = nullptr; });
      set_regs(d, *c, now);
      complete(j, now, done);
      break;
    case FlashOp::Erase:
      complete(j, now, done);
      break;
    case FlashOp::Resume:
      break;
  }
  register_moves(d, now);
  refresh_accept(d);
}
// The fault model's verdict at a command's array end: a read's bit errors per plane, a
// program's or erase's failed planes. A factory bad block fails every operation.
void ChannelEngine::array_faults(FlashCommand& c, Tick now) {
  const FaultConfig& fc = faults_->config();
  switch (c.op) {
    case FlashOp::Read: {
      if (c.read_level) ++(soft(c) ? counters_.soft_reads : counters_.retry_reads);
      const std::uint32_t bytes = c.out_bytes ? c.out_bytes : cfg_.page_bytes;
      const std::uint32_t codewords = (bytes + fc.codeword_bytes - 1) / fc.codeword_bytes;
      for_planes(c.plane_mask, [&](unsigned p) {
        const std::size_t bi = block_index(c, p);
        const std::uint32_t plane = plane_of_block(bi), block = c.block[p];
        c.bit_errors[p] = faults_->factory_bad(plane, block)
                              ? FaultModel::kBeyond
                              : fc.bit_errors() ? faults_->read_errors(plane, block, c.page, erase_count_[bi],
                                                                       c.read_level, codewords, now)
                                                : 0;
      });
      break;
    }
    case FlashOp::Program:
      for_planes(c.plane_mask, [&](unsigned p) {
        const std::size_t bi = block_index(c, p);
        const std::uint32_t plane = plane_of_block(bi), block = c.block[p];
        if (!faults_->factory_bad(plane, block) &&
            !faults_->program_fails(plane, block, c.page, erase_count_[bi], now))
          return;
        c.failed_planes = static_cast<std::uint8_t>(c.failed_planes | 1u << p);
        // What the cells hold is no one's data: the wordline's pages all.
        for (unsigned k = 0; k < cfg_.pages_written(c); ++k) fill_page(bi, c.page + k, kFailedProgramToken);
        counters_.failed_programs += cfg_.pages_written(c);
      });
      if (c.failed_planes) c.status = FlashStatus::ProgramFailed;
      break;
    case FlashOp::Erase:
      for_planes(c.plane_mask, [&](unsigned p) {
        const std::size_t bi = block_index(c, p);
        const std::uint32_t plane = plane_of_block(bi), block = c.block[p];
        // The erase count went up when it started (erase_block): the cycles before it.
        if (!faults_->factory_bad(plane, block) && !faults_->erase_fails(plane, block, erase_count_[bi] - 1, now))
          return;
        c.failed_planes = static_cast<std::uint8_t>(c.failed_planes | 1u << p);
        ++counters_.failed_erases;
      });
      if (c.failed_planes) c.status = FlashStatus::EraseFailed;
      break;
    case FlashOp::Resume:
      break;
  }
}

void ChannelEngine::register_moves(Die& d, Tick now) {
  if (cfg_.cache_read) {
    // A read page in a data register moves to the cache register once it is free.
    for (unsigned p = 0; p < cfg_.planes_per_die; ++p) {
      Job* j = d.planes[p].data;
      if (!j || j->c->op != FlashOp::Read || j->stage != WaitReg) continue;
      FlashCommand* c = j->c;
      bool free = true;
      for_planes(c->plane_mask, [&](unsigned q) { free = free && !d.planes[q].cache; });
      if (!free) continue;
      for_planes(c->plane_mask, [&](unsigned q) {
        d.planes[q].cache = j;
        d.planes[q].data = nullptr;
      });
      j->stage = WaitOut;
      j->ready_at = now;
      c->t_out_ready = now;
      waiting_out_.push_back(j);
      set_regs(d, *c, now);
    }
  }
  // Not while a SUSPEND is under way, nor while a program is held (its data registers
  // are its own; the waiting program follows it after the resume).
  if (cfg_.cache_program && d.waiting_programs && !d.array_op && !d.resting && !d.nsensing && !d.suspending &&
      !(d.parked && d.parked->c->op == FlashOp::Program)) {
    // A program's page in a cache register moves to the data register and starts tPROG.
    for (unsigned p = 0; p < cfg_.planes_per_die; ++p) {
      Job* j = d.planes[p].cache;
      if (!j || j->c->op != FlashOp::Program || j->stage != WaitArray) continue;
      FlashCommand* c = j->c;
      bool free = true;
      for_planes(c->plane_mask, [&](unsigned q) { free = free && !d.planes[q].data; });
      if (!free) continue;
      --d.waiting_programs;
      if (j->rest) {  // a wordline's first page: on to the data registers, its later pages to follow
        for_planes(c->plane_mask, [&](unsigned q) { d.planes[q].data = j; });
        set_regs(d, *c, now);
        j->stage = WaitRest;
        j->ready_at = now;
        d.resting = j;
        waiting_cmd_.push_back(j);
        break;
      }
      for_planes(c->plane_mask, [&](unsigned q) {
        d.planes[q].data = j;
        d.planes[q].cache = nullptr;
      });
      set_regs(d, *c, now);
      start_array(d, j, now);
      break;
    }
  }
}

void ChannelEngine::complete(Job* j, Tick now, std::vector<Completed>& done) {
  FlashCommand* c = j->c;
  Die& d = die_of(*c);
  --d.inflight;
  {
    const unsigned op = static_cast<unsigned>(c->op), n = c->plane_count();
    const unsigned pages = bits_ == 1 ? 1 : cfg_.pages_written(*c);  // per plane: a wordline's
    counters_.pages_by_planes[op][n - 1] += n * pages;
    if (const std::uint8_t gc = c->gc_mask()) {
      const unsigned k = FlashCommand::bits(gc) * pages;
      counters_.gc_pages[op] += k;
      if (n > 1) counters_.gc_multiplane_pages[op] += k;
    }
  }
  switch (c->op) {
    case FlashOp::Read:
      --d.inflight_reads;
      ++counters_.reads;
      break;
    case FlashOp::Program:
      --d.inflight_programs;
      ++counters_.programs;
      break;
    case FlashOp::Erase:
      ++counters_.erases;
      break;
    case FlashOp::Resume:
      break;
  }
  chip_finished(c->chip, now);
  meter_.release(c->chip, c->die, j->seq, now, bus_clock(now));
  j->stage = Done;
  if (c->status == FlashStatus::Pending) c->status = FlashStatus::Ok;  // else a failure array_faults() found
  c->t_done = now;
  --in_flight_;
  done.push_back({c, j->owner});
  give_job(j);
}

void ChannelEngine::fail(Job* j, Tick now, std::string why, std::vector<Completed>& done) {
  FlashCommand* c = j->c;
  c->error = c->describe() + ": " + why;
  j->stage = Done;
  c->status = FlashStatus::ProtocolError;
  c->t_start = c->t_bus_end = c->t_array_start = c->t_array_end = c->t_out_ready = c->t_out_start = c->t_done = now;
  ++counters_.protocol_errors;
  --in_flight_;
  done.push_back({c, j->owner});
  give_job(j);
}

bool ChannelEngine::arbitrate(Tick now, std::vector<Completed>& done) {
  Job* best = nullptr;
  Die* best_die = nullptr;
  Tick best_t = kNever;
  int best_kind = 2;  // 0: command phase, 1: data-out phase
  auto better = [&](Tick t, int kind, const Job* j) {
    if (!best) return true;
    if (t != best_t) return t < best_t;
    if (kind != best_kind) return kind < best_kind;
    return j->seq < best->seq;
  };
  for (std::uint32_t i : heads_) {
    Die& d = dies_[i];
    if (!accepts(accept_[i], d.head->c->start_need()) && !(suspend_seen_ && suspend_eligible(d, *d.head->c))) {
      d.eligible_since = kNever;
      continue;
    }
    if (d.eligible_since == kNever) d.eligible_since = now;
    if (bus_op_) continue;
    if (better(d.eligible_since, 0, d.head)) {
      best = d.head;
      best_die = &d;
      best_t = d.eligible_since;
      best_kind = 0;
    }
  }
  if (bus_op_) return false;
  std::size_t best_out = 0;
  // Reads' own commands after their SUSPEND: command phases (best_die null marks them).
  for (std::size_t i = 0; i < waiting_cmd_.size(); ++i) {
    Job* j = waiting_cmd_[i];
    if (better(j->ready_at, 0, j)) {
      best = j;
      best_die = nullptr;
      best_t = j->ready_at;
      best_kind = 0;
      best_out = i;
    }
  }
  for (std::size_t i = 0; i < waiting_out_.size(); ++i) {
    Job* j = waiting_out_[i];
    if (better(j->ready_at, 1, j)) {
      best = j;
      best_die = nullptr;
      best_t = j->ready_at;
      best_kind = 1;
      best_out = i;
    }
  }
  if (!best) return false;
  if (best_kind == 1) {
    waiting_out_.erase(waiting_out_.begin() + static_cast<std::ptrdiff_t>(best_out));
    start_bus_dataout(best, now);
    return true;
  }
  if (!best_die) {  // a read's own command after its SUSPEND, or a wordline's later pages
    waiting_cmd_.erase(waiting_cmd_.begin() + static_cast<std::ptrdiff_t>(best_out));
    if (best->stage == WaitRest) {
      start_bus_rest(best, now);
      return true;
    }
  } else if (!take_head(*best_die, best, now, done)) {
    return true;  // failed, or started otherwise (a SUSPEND, a RESUME)
  }
  start_bus_command(best, now);  // one call: inlined here
  return true;
}

// The head command `best` of die `d` leaves its queue to start: false if it did not start
// as a command phase (failed with a protocol error, or a SUSPEND or RESUME started).
bool ChannelEngine::take_head(Die& d, Job* best, Tick now, std::vector<Completed>& done) {
  d.head = best->next;
  if (!d.head) {
    d.tail = nullptr;
    const std::uint32_t idx = die_index(d);
    for (std::size_t k = 0; k < heads_.size(); ++k)
      if (heads_[k] == idx) {
        heads_[k] = heads_.back();
        heads_.pop_back();
        break;
      }
  }
  best->next = nullptr;
  --d.queued;
  --queued_total_;
  d.eligible_since = kNever;
  FlashCommand& bc = *best->c;
  note_queue(d, bc.chip, bc.die, now);
  if (!dynamically_valid(bc)) {
    meter_.release(bc.chip, bc.die, best->seq, now, bus_clock(now));
    fail(best, now, dynamic_error(bc), done);
    return false;
  }
  return !suspend_seen_ || start_with_suspend(d, best, now, done);
}

// take_head()'s end once suspend commands were seen: the protocol errors against the
// die's suspension, a SUSPEND or a RESUME; true for a plain command phase.
bool ChannelEngine::start_with_suspend(Die& d, Job* best, Tick now, std::vector<Completed>& done) {
  FlashCommand& bc = *best->c;
  const bool by_suspension = !accepts(accept_[die_index(d)], bc.start_need());
  std::string why = suspend_error(d, bc, by_suspension);
  if (!why.empty()) {
    if (bc.op != FlashOp::Resume) meter_.release(bc.chip, bc.die, best->seq, now, bus_clock(now));
    fail(best, now, std::move(why), done);
    return false;
  }
  if (bc.op == FlashOp::Resume) {
    start_bus_resume(best, now);
    return false;
  }
  if (by_suspension) {
    start_bus_suspend(best, now);
    return false;
  }
  if (bc.suspend) ++counters_.suspend_ignored;
  return true;
}

void ChannelEngine::finish_lazy_bus_end() {
  lazy_bus_end_ = false;
  std::vector<Completed> none;  // a command phase's end completes nothing
  finish_bus_segment(seg_end_, none);
}

void ChannelEngine::advance(Tick now, std::vector<Completed>& done) {
  catch_up(now);
  for (Job* j : rejected_) {
    std::string why = std::move(j->c->error);
    fail(j, now, std::move(why), done);
  }
  rejected_.clear();
  bool changed = true;
  while (changed) {
    changed = false;
    if (bus_op_ && seg_end_ <= now) {
      finish_bus_segment(now, done);
      changed = true;
    }
    if (next_array_end_ <= now) {
      next_array_end_ = kNever;
      // The dies with an array operation, in die order (finishing one may start the
      // next operation of the same die, never of another).
      for (std::size_t w = 0; w < in_array_.size(); ++w) {
        for (std::uint64_t bits = in_array_[w]; bits; bits &= bits - 1) {
          Die& d = dies_[w * 64 + static_cast<unsigned>(__builtin_ctzll(bits))];
          if (d.array_end <= now) {
            finish_array(d, now, done);
            changed = true;
          }
          next_array_end_ = std::min(next_array_end_, d.array_end);
        }
      }
    }
    if (next_suspend_end_ <= now && suspend_latency_ends(now)) changed = true;
    if (arbitrate(now, done)) changed = true;
  }
  // Skip the wake at the end of a command phase that only starts the array.
  Tick bus_next = seg_end_;
  lazy_bus_end_ = false;
  // With suspend offers read, a program's or erase's array start changes the offer: not
  // skipped.
  if (bus_op_ && !observer_ && bus_op_->stage == BusCmd && iseg_ + 1 >= nseg_ &&
      (bus_op_->c->op != FlashOp::Program || !cfg_.cache_program) && queued_total_ == 0 &&
      waiting_out_.empty() && waiting_cmd_.empty() && (!suspend_offers_ || bus_op_->c->op == FlashOp::Read)) {
    lazy_bus_end_ = true;
    bus_next = seg_end_ + array_time(*bus_op_->c);  // the array end that follows (a soft read's first sensing)
  }
  next_event_ = std::min(bus_next, std::min(next_array_end_, next_suspend_end_));
}

// The suspend latencies that end at `now` (after the array ends of `now`: an operation that
// ends then was not held); whether one did.
bool ChannelEngine::suspend_latency_ends(Tick now) {
  bool any = false;
  next_suspend_end_ = kNever;
  for (std::size_t k = 0; k < suspending_dies_.size();) {
    Die& d = dies_[suspending_dies_[k]];
    if (d.suspend_end <= now) {
      suspend_done(d, now);
      any = true;
    }
    if (d.suspend_end == kNever) {  // done, or void since
      suspending_dies_[k] = suspending_dies_.back();
      suspending_dies_.pop_back();
      continue;
    }
    next_suspend_end_ = std::min(next_suspend_end_, d.suspend_end);
    ++k;
  }
  return any;
}

}  // namespace ssd::nand
