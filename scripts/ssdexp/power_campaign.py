"""The power-cut campaign (SOAK_SET=power bash scripts/soak.sh): seeded power cuts
(power.cut_mode = probe) over small devices, every write cache mode, the scheduler block's
IOS and HOS, SOS in the firmware with its write-hit cancels on hot pages, and a NAND whose
programs and erases fail. Each run makes its cuts at drawn instants after drawn requests;
at each the host's ledger is audited against what would survive (docs/controller.md,
"Power loss"); then with the map log (ftl.map_persist = journal) at three checkpoint
intervals. Prints a row per run and the totals, writes campaign.csv, recovery.png (the
recovery scan's time against the device's size) and recovery_journal.png (recovery and the
log's write amplification against the checkpoint interval) into the output folder,
and exits 1 unless every run held the contract: no durable write lost, no page off the
contract, no read mismatch, and with the cache off or plp nothing acknowledged lost and
nothing out of order.

    python -m ssdexp.power_campaign SSDSIM OUT [SCALE]
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The devices: 2 channels x 2 chips x 1 die x 2 planes, 4 KiB pages, blocks of 8, 32 and
# 64 pages (the scan reads the open blocks' pages: its time grows with the block), half
# full, 25 % over-provisioning so that GC runs all the time.
DEVICES = {
    "tiny_8": ["--set", "nand.blocks_per_plane=16", "--set", "nand.pages_per_block=8"],
    "small_32": ["--set", "nand.blocks_per_plane=32", "--set", "nand.pages_per_block=32"],
    "mid_64": ["--set", "nand.blocks_per_plane=32", "--set", "nand.pages_per_block=64",
               "--set", "nand.chips_per_channel=4"],
}
COMMON = ["--set", "nand.channels=2", "--set", "nand.chips_per_channel=2", "--set", "nand.dies_per_chip=1",
          "--set", "nand.planes_per_die=2", "--set", "nand.page_bytes=4096", "--set", "ftl.overprovisioning=0.25",
          "--set", "ftl.precondition=0.5", "--set", "workload.read_ratio=0.5", "--set", "workload.size_bytes=512",
          "--set", "workload.size_max_bytes=32768", "--set", "workload.align_bytes=512",
          "--set", "workload.fua_ratio=0.1", "--set", "workload.flush_every=64", "--set", "workload.trim_ratio=0.05",
          "--set", "power.cut_window_us=2000", "--set", "host.lookahead_thread=false"]
SCHEDULERS = {
    "ios": ["--set", "controller.scheduler=ios"],
    "hos": ["--set", "controller.scheduler=hos"],
    "sos": ["--set", "controller.scheduler=pass", "--set", "controller.firmware_sched=sos",
            "--set", "workload.zipf_theta=0.9"],
    "hos_faults": ["--set", "controller.scheduler=hos", "--set", "nand.fault.program_fail_new=0.01",
                   "--set", "nand.fault.erase_fail_new=0.02"],
}
CACHES = ["off", "volatile", "plp"]
# The map log (ftl.map_persist = journal; docs/controller.md, "The map log") on the two larger
# devices with 30 % over-provisioning (room for its 4 blocks per plane), a failing NAND, at
# three checkpoint intervals (mapping updates): recovery reads the last checkpoint and the
# journal since it began, then scans.
JOURNAL_DEVICES = ["small_32", "mid_64"]
INTERVALS = [100, 1000, 10000]
JOURNAL = ["--set", "ftl.map_persist=journal", "--set", "ftl.overprovisioning=0.3"]
CUTS, REQUESTS = 500, 6000
FIELDS = ["cuts", "durable_lost", "volatile_lost", "in_flight_lost", "torn_writes", "order_violations",
          "pages_off_contract", "writes_checked"]


def run_one(ssdsim: str, out: str, device: str, sched: str, cache: str, interval: int, scale: float) -> dict:
    """One run; `interval` > 0: with the map log, a checkpoint every `interval` updates."""
    name = f"{device}_{sched}_{cache}" + (f"_journal{interval}" if interval else "")
    d = os.path.join(out, name)
    journal = [*JOURNAL, "--set", f"ftl.checkpoint_interval_updates={interval}"] if interval else []
    args = [ssdsim, *COMMON, *DEVICES[device], *SCHEDULERS[sched], *journal,
            "--set", f"controller.write_cache={cache}",
            "--set", f"workload.requests={max(1, int(REQUESTS * scale))}",
            "--set", f"power.cuts={max(1, int(CUTS * scale))}", "--out", d]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    with open(d + ".log", "w") as log:
        rc = subprocess.call(args, stdout=log, stderr=subprocess.STDOUT, env=env)
    row = {"device": device, "scheduler": sched, "cache": cache, "interval": interval, "name": name, "rc": rc}
    if rc != 0 or not os.path.exists(os.path.join(d, "stats.json")):
        return row
    with open(os.path.join(d, "stats.json")) as f:
        s = json.load(f)
    p = s["power"]
    row.update({k: p[k] for k in FIELDS})
    row["recovery_mean_us"] = p["recovery_us"]["mean"]
    row["recovery_max_us"] = p["recovery_us"]["max"]
    row["scan_pages_max"] = p["scan_pages"]["max"]
    row["mismatches"] = s["integrity"]["mismatches"] if "integrity" in s else 0
    row["log_pages_mean"] = p["log_pages"]["mean"] if "log_pages" in p else 0
    row["scan_pages_mean"] = p["scan_pages"]["mean"]
    m = s["ftl"].get("map_log")
    row["checkpoints"] = m["checkpoints"] if m else 0
    row["wa_with_log"] = m["write_amplification"] if m else s["ftl"]["write_amplification"]
    return row


def broken(r: dict) -> list[str]:
    if r["rc"] != 0 or "cuts" not in r:
        return [f"ssdsim exit {r['rc']}"]
    why = []
    for k in ("durable_lost", "pages_off_contract", "mismatches"):
        if r[k]:
            why.append(f"{k} = {r[k]}")
    if r["cache"] != "volatile":
        for k in ("volatile_lost", "order_violations"):
            if r[k]:
                why.append(f"{k} = {r[k]}")
    if r["cuts"] < 1:
        why.append("no cut made")
    return why


def main(argv: list[str]) -> int:
    ssdsim, out = argv[0], argv[1]
    scale = float(argv[2]) if len(argv) > 2 else 1.0
    os.makedirs(out, exist_ok=True)
    jobs = [(d, s, c, 0) for d in DEVICES for s in SCHEDULERS for c in CACHES]
    jobs += [(d, "hos_faults", c, i) for d in JOURNAL_DEVICES for i in INTERVALS for c in CACHES]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        rows = list(pool.map(lambda j: run_one(ssdsim, out, *j, scale), jobs))
    head = ["device", "scheduler", "cache", "interval", *FIELDS, "mismatches", "recovery_mean_us", "recovery_max_us",
            "scan_pages_mean", "scan_pages_max", "log_pages_mean", "checkpoints", "wa_with_log"]
    with open(os.path.join(out, "campaign.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=head, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    print(f"{'device':9} {'scheduler':10} {'cache':8} {'journal':>7} {'cuts':>5} {'durable':>7} {'volatile':>8} "
          f"{'inflight':>8} {'torn':>6} {'order':>6} {'off':>4} {'mism':>4} {'rec_mean':>9} {'rec_max':>9}")
    failed = 0
    totals = {k: 0 for k in FIELDS}
    for r in rows:
        why = broken(r)
        if "cuts" in r:
            for k in FIELDS:
                totals[k] += r[k]
            print(f"{r['device']:9} {r['scheduler']:10} {r['cache']:8} {r['interval'] or '-':>7} {r['cuts']:5} "
                  f"{r['durable_lost']:7} "
                  f"{r['volatile_lost']:8} {r['in_flight_lost']:8} {r['torn_writes']:6} {r['order_violations']:6} "
                  f"{r['pages_off_contract']:4} {r['mismatches']:4} {r['recovery_mean_us']:9.0f} "
                  f"{r['recovery_max_us']:9.0f}")
        if why:
            failed += 1
            print(f"  {r['name']}: FAILED: {', '.join(why)} ({os.path.join(out, r['name'])}.log)")
    print("power campaign: " + ", ".join(f"{k} {v}" for k, v in totals.items()) +
          f"; {failed} of {len(rows)} runs broke the contract")
    plot([r for r in rows if not r["interval"]], os.path.join(out, "recovery.png"))
    plot_journal([r for r in rows if r["interval"]], os.path.join(out, "recovery_journal.png"))
    print(f"power campaign: wrote {os.path.join(out, 'campaign.csv')}, {os.path.join(out, 'recovery.png')} and "
          f"{os.path.join(out, 'recovery_journal.png')}")
    return 1 if failed else 0


def plot(rows: list[dict], path: str) -> None:
    """The recovery scan's time (mean and max over a run's cuts) against the pages per block
    of each device: one point per run, every cache mode and scheduler."""
    ppb = {"tiny_8": 8, "small_32": 32, "mid_64": 64}
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    marks = {"off": "o", "volatile": "s", "plp": "^"}
    for cache in CACHES:
        pts = [r for r in rows if r["cache"] == cache and "cuts" in r]
        ax.scatter([ppb[r["device"]] for r in pts], [r["recovery_mean_us"] / 1000 for r in pts], marker=marks[cache],
                   label=f"{cache}: mean", alpha=0.7)
        ax.scatter([ppb[r["device"]] for r in pts], [r["recovery_max_us"] / 1000 for r in pts], marker=marks[cache],
                   facecolors="none", edgecolors="gray", label=f"{cache}: max")
    ax.set_xlabel("pages per block (the scan reads the open blocks' programmed pages)")
    ax.set_ylabel("recovery scan, ms")
    ax.set_xscale("log", base=2)
    ax.set_xticks([8, 32, 64], ["8", "32", "64"])
    ax.set_ylim(bottom=0)
    ax.set_title("Recovery scan time per cut (probe mode; one point per run)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_journal(rows: list[dict], path: str) -> None:
    """With the map log: recovery time (mean over a run's cuts, the log's read and the scan)
    and the log's write amplification against the checkpoint interval, per device; one
    point per cache mode."""
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9.6, 4.0))
    marks = {"small_32": "o", "mid_64": "s"}
    for dev in JOURNAL_DEVICES:
        pts = sorted((r for r in rows if r["device"] == dev and "cuts" in r), key=lambda r: r["interval"])
        if not pts:
            continue
        ax.scatter([r["interval"] for r in pts], [r["recovery_mean_us"] / 1000 for r in pts], marker=marks[dev],
                   label=f"{dev}: mean")
        ax.scatter([r["interval"] for r in pts], [r["recovery_max_us"] / 1000 for r in pts], marker=marks[dev],
                   facecolors="none", edgecolors="gray", label=f"{dev}: max")
        ax2.scatter([r["interval"] for r in pts], [r["wa_with_log"] for r in pts], marker=marks[dev], label=dev)
    for a in (ax, ax2):
        a.set_xscale("log")
        a.set_xlabel("checkpoint interval, mapping updates")
        a.set_ylim(bottom=0)
        a.legend(fontsize=7)
    ax.set_ylabel("recovery (map log read, then scan), ms")
    ax.set_title("Recovery per cut with the map log", fontsize=9)
    ax2.set_ylabel("write amplification with the log's pages")
    ax2.set_title("The log's cost (window)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
