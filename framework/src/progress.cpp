// A sweep's progress line.
#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "summary.hpp"

namespace glimpse {
using Clock = std::chrono::steady_clock;

Progress::Progress(bool enabled, std::int64_t total, std::int64_t already_complete, SelectionRule selection)
    : runs_done(already_complete),
      enabled_(enabled),
      terminal_(::isatty(STDERR_FILENO) != 0),
      total_(total),
      already_complete_(already_complete),
      selection_(std::move(selection)) {
  if (enabled_) thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
}

Progress::~Progress() {
  if (enabled_) {
    thread_.request_stop();
    thread_.join();
    if (terminal_) std::fprintf(stderr, "\r\033[K");
  }
}

void Progress::record(const RunRecord& run) {
  if (!enabled_) return;
  for (const auto& [name, value] : run.scalars)
    if (name == selection_.metric && std::isfinite(value)) {
      std::lock_guard lock(mutex_);
      latest_dataset_ = run.dataset;
      auto& point = points_[run.dataset][run.label][run.params_json + run.query_rule + run.query_rule_params];
      point.first += value;
      ++point.second;
    }
}

std::string Progress::best_so_far() {
  std::lock_guard lock(mutex_);
  std::string text;
  for (const auto& [label, points] : points_[latest_dataset_]) {
    double best = selection_.maximize ? -HUGE_VAL : HUGE_VAL;
    for (const auto& [point, sum_count] : points) {
      const double mean = sum_count.first / static_cast<double>(sum_count.second);
      best = selection_.maximize ? std::max(best, mean) : std::min(best, mean);
    }
    text += " " + label + " " + format_metric(selection_.metric, best, false);
  }
  return text.empty() ? text : " | " + latest_dataset_ + " best " + selection_.metric + ":" + text;
}

void Progress::loop(const std::stop_token& stop) {
  const auto start = Clock::now();
  auto last_line = start;
  while (!stop.stop_requested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const auto now = Clock::now();
    if (!terminal_ && now - last_line < std::chrono::seconds(30)) continue;
    last_line = now;
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const auto done = runs_done.load();
    // Batch fits count no rounds: their rate is in runs.
    const auto rounds = rounds_done.load();
    const double rate = static_cast<double>(rounds > 0 ? rounds : done - already_complete_) / std::max(elapsed, 1e-9);
    const double eta = eta_seconds(elapsed, done, already_complete_, total_);
    std::fprintf(stderr, "%sruns %lld/%lld | %.3g %s/s | ETA %s%s%s", terminal_ ? "\r\033[K" : "",
                 static_cast<long long>(done), static_cast<long long>(total_), rate, rounds > 0 ? "rounds" : "runs",
                 eta >= 0.0 ? (std::to_string(static_cast<long long>(eta)) + "s").c_str() : "?", best_so_far().c_str(),
                 terminal_ ? "" : "\n");
    std::fflush(stderr);
  }
}

}  // namespace glimpse
