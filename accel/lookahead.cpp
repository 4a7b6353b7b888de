#include "accel/lookahead.h"

#include "accel/prefetch.h"

#include <thread>
#include <utility>

namespace ssd::accel {

Lookahead::Lookahead(host::HostDriver& host, ctrl::FirmwareCore& firmware,
                     std::unique_ptr<host::RequestSource> replica, const LookaheadConfig& cfg)
    : host_(host), firmware_(firmware), replica_(std::move(replica)), cfg_(cfg),
      spp_(static_cast<std::uint32_t>(firmware.sectors_per_page())) {
  host_.set_listener(this);
  firmware_.set_listener(this);
}

Lookahead::~Lookahead() {
  if (progress_) progress_->cancelled.store(true, std::memory_order_relaxed);
  worker_.reset();
  if (results_) firmware_.ftl().image()->set_results(nullptr);
  host_.set_listener(nullptr);
  firmware_.set_listener(nullptr);
}

void Lookahead::start() {
  // Only where a second core can run it: on one core it would take the simulation's time
  // (host.lookahead_thread=auto asks more: accel/cpu_share.h).
  if (worker_ || !cfg_.hints || !cfg_.thread || !replica_ || drawn_ != 0 || std::thread::hardware_concurrency() < 2)
    return;
  ctrl::Ftl& ftl = firmware_.ftl();
  ctrl::SteadyImage* image = ftl.image();
  if (!image) return;  // no image: nothing to compute ahead
  results_ = ImageResultTable::make(*image, 17);
  if (!results_) return;
  image->set_results(results_.get());
  const ImageResultTable* table = results_.get();
  progress_ = std::make_shared<ReplicaStream::Progress>();
  // The thread's own copies of what it needs: it reads nothing the simulation writes (a
  // line shared with the simulation's hot data would cost both threads).
  const std::uint64_t spp = spp_, logical_pages = ftl.logical_pages();
  worker_ = std::make_unique<LookaheadWorker>(
      std::make_unique<ReplicaStream>(std::move(replica_), progress_, cfg_.window),
      [spp, logical_pages, table](HostOp op, std::uint64_t lba, std::uint32_t sectors) {
        ctrl::HostSplitter::pages_looked_up(op, lba, sectors, spp, logical_pages,
                                            [table](std::uint64_t lpn) { table->precompute(lpn); });
      },
      [table](std::uint64_t ppa) {  // a GC copy's page, its owner wanted at its read's end
        table->precompute_page(static_cast<std::uint32_t>(ppa));
      });
}

void Lookahead::drawn(const host::HostRequest& r) {
  ++drawn_;
  if (progress_) progress_->read.store(drawn_, std::memory_order_relaxed);
  // The lines of its pages' shadow entries (a random line of a table of megabytes each).
  const PageSpan span = page_span(r.lba, r.sectors, spp_);
  const host::TokenShadow& shadow = host_.shadow();
  for (std::uint64_t lpn = span.first; lpn < span.end() && lpn < span.first + 4; ++lpn)
    prefetch(shadow.entry_address(lpn));
  if (!cfg_.hints) return;
  // The lines the FTL's lookups will read: the run's map, then the image's (or, with the
  // thread, its result in the table: the thread computes it).
  const ctrl::Ftl& ftl = firmware_.ftl();
  const ctrl::SteadyImage* image = ftl.image();
  const ImageResultTable* table = results_.get();
  if (firmware_.firmware().pages_looked_up(r.op, r.lba, r.sectors, [&ftl, image, table](std::uint64_t lpn) {
        prefetch(ftl.map_entry(lpn));
        if (!image || lpn >= image->fill()) return;
        if (table) prefetch(table->l2p_address(lpn));
        else image->l2p_reads(lpn, prefetch);
      }))
    ++hints_;
}

void Lookahead::copy_read_issued(std::uint32_t ppa) {
  const ctrl::Ftl& ftl = firmware_.ftl();
  if (!ftl.image_page(ppa)) prefetch(ftl.written_owner_entry(ppa));
  else if (worker_) worker_->post(ppa);
}

void Lookahead::program_issued(std::uint64_t lpn, std::uint32_t replaces) {
  // The mapping of lpn, which map() or relocate() change at its end ...
  const ctrl::Ftl& ftl = firmware_.ftl();
  prefetch(ftl.map_entry(lpn));
  if (results_ && lpn < ftl.image()->fill()) prefetch(results_->l2p_address(lpn));
  // ... and what the page it replaces reads when it is invalidated.
  if (replaces != ctrl::kUnmapped) ftl.invalidation_reads(replaces, prefetch);
}

}  // namespace ssd::accel
