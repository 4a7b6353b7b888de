#include "accel/lookahead.h"

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
  host_.set_listener(nullptr);
  firmware_.set_listener(nullptr);
}

void Lookahead::start() {
  // Only where a second core can run it: on one core it would take the simulation's time.
  if (worker_ || !cfg_.hints || !cfg_.thread || !replica_ || drawn_ != 0 || std::thread::hardware_concurrency() < 2)
    return;
  ctrl::Ftl& ftl = firmware_.ftl();
  if (!ftl.share_image_results(17)) return;  // no image: nothing to compute ahead
  const ctrl::SteadyImage* image = ftl.image();
  progress_ = std::make_shared<ReplicaStream::Progress>();
  // The thread's own copies of what it needs: it reads nothing the simulation writes (a
  // line shared with the simulation's hot data would cost both threads).
  const std::uint64_t spp = spp_, logical_pages = ftl.logical_pages();
  worker_ = std::make_unique<LookaheadWorker>(
      std::make_unique<ReplicaStream>(std::move(replica_), progress_, cfg_.window),
      [spp, logical_pages, image](HostOp op, std::uint64_t lba, std::uint32_t sectors) {
        ctrl::FirmwareCore::pages_looked_up(op, lba, sectors, spp, logical_pages,
                                            [image](std::uint64_t lpn) { image->precompute(lpn); });
      },
      [image](std::uint64_t ppa) {  // a GC copy's page, its owner wanted at its read's end
        image->precompute_page(static_cast<std::uint32_t>(ppa));
      });
}

void Lookahead::drawn(const host::HostRequest& r) {
  ++drawn_;
  if (progress_) progress_->read.store(drawn_, std::memory_order_relaxed);
  // The lines of its pages' shadow entries (a random line of a table of megabytes each).
  const PageSpan span = page_span(r.lba, r.sectors, spp_);
  const host::TokenShadow& shadow = host_.shadow();
  for (std::uint64_t lpn = span.first; lpn < span.end() && lpn < span.first + 4; ++lpn) shadow.prefetch(lpn);
  if (!cfg_.hints) return;
  const ctrl::Ftl& ftl = firmware_.ftl();
  if (firmware_.pages_looked_up(r.op, r.lba, r.sectors, [&ftl](std::uint64_t lpn) { ftl.prefetch_lookup(lpn); }))
    ++hints_;
}

void Lookahead::program_issued(std::uint64_t lpn, std::uint32_t replaces) {
  const ctrl::Ftl& ftl = firmware_.ftl();
  ftl.prefetch_mapping(lpn);                                      // map() or remap_if() at its end
  if (replaces != ctrl::kUnmapped) ftl.prefetch_invalidation(replaces);  // ... and what it invalidates
}

}  // namespace ssd::accel
