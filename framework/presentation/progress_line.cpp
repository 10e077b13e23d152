// glimpse run's progress line.
#include "progress_line.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "summary.hpp"
#include "text_table.hpp"

namespace glimpse {
using Clock = std::chrono::steady_clock;

ProgressLine::ProgressLine(SelectionRule selection)
    : terminal_(::isatty(STDERR_FILENO) != 0), selection_(std::move(selection)) {}

ProgressLine::~ProgressLine() { end(); }

void ProgressLine::end() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
  if (terminal_) std::fprintf(stderr, "\r\033[K");
}

void ProgressLine::begin(std::int64_t total, std::int64_t already_complete,
                         const std::atomic<std::int64_t>& rounds_played) {
  total_ = total;
  already_complete_ = already_complete;
  runs_done_ = already_complete;
  rounds_played_ = &rounds_played;
  thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
}

void ProgressLine::run_completed(const RunRecord& run) {
  ++runs_done_;
  for (const auto& [name, value] : run.scalars)
    if (name == selection_.metric && std::isfinite(value)) {
      std::lock_guard lock(mutex_);
      latest_dataset_ = run.dataset;
      auto& point = points_[run.dataset][run.label][run.params_json + run.query_rule + run.query_rule_params];
      point.first += value;
      ++point.second;
    }
}

std::string ProgressLine::best_so_far() {
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

void ProgressLine::loop(const std::stop_token& stop) {
  const auto start = Clock::now();
  auto last_line = start;
  while (!stop.stop_requested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const auto now = Clock::now();
    if (!terminal_ && now - last_line < std::chrono::seconds(30)) continue;
    last_line = now;
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const auto done = runs_done_.load();
    // Batch fits count no rounds: their rate is in runs.
    const auto rounds = rounds_played_->load();
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
