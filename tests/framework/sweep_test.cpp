// The orchestrator: determinism across thread counts, resume after interruption, protocol guards.
#include <sys/wait.h>

#include <array>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "hdf5.hpp"
#include "merge_traces.hpp"
#include "orchestrator.hpp"
#include "profile_print.hpp"
#include "progress_line.hpp"
#include "summary.hpp"
#include "trace_assembly.hpp"
#include "trace_schema.hpp"
#include "summary_print.hpp"
#include "support.hpp"
#include "trace_store.hpp"

namespace glimpse::test {
namespace {

const char* protocol_text = R"({
  "name": "sweep",
  "datasets": [{"name": "g", "source": "gaussians", "params": {"n_per_class": 150, "sigma": 0.3}}],
  "oracle": {"name": "full"},
  "learners": [{"name": "perceptron", "grid": {"eta": [0.5, 1]}}, {"name": "spa"}],
  "metrics": [{"name": "online_accuracy"}, {"name": "windowed_accuracy", "params": {"window": 50}}, {"name": "mistakes"}],
  "seeds": 3
})";

// Every run's round data, curves and final metrics, keyed by run id, read back from a trace file.
struct RunContent {
  std::vector<std::int32_t> y, predicted, proposed;
  std::vector<std::int64_t> row;
  std::vector<std::uint8_t> correct;
  std::vector<double> accuracy_curve;
  std::vector<std::pair<std::string, double>> metrics;
  std::string params;
  bool operator==(const RunContent&) const = default;
};
std::map<std::string, RunContent> read_runs(const std::filesystem::path& file) {
  std::map<std::string, RunContent> runs;
  const h5::Handle f = h5::open_file(file, false);
  const h5::Handle group = h5::open_group(f, "runs");
  for (const auto& id : h5::children(group)) {
    const h5::Handle run = h5::open_group(group, id);
    const h5::Handle rounds = h5::open_group(run, "rounds");
    RunContent c;
    c.y = h5::read_vector<std::int32_t>(rounds, "y");
    c.row = h5::read_vector<std::int64_t>(rounds, "row");
    c.predicted = h5::read_vector<std::int32_t>(rounds, "predicted");
    c.proposed = h5::read_vector<std::int32_t>(rounds, "proposed");
    c.correct = h5::read_vector<std::uint8_t>(rounds, "correct");
    c.accuracy_curve =
        h5::read_vector<double>(h5::open_group(h5::open_group(run, "curves"), "windowed_accuracy"), "value");
    c.params = h5::read_string_attribute(run, "params");
    const h5::Handle summary = h5::open_group(run, "summary");
    for (const auto& name : h5::attribute_names(summary))
      c.metrics.push_back({name, h5::read_double_attribute(summary, name)});
    runs.emplace(id, std::move(c));
  }
  return runs;
}

class Sweep : public ::testing::Test {
 protected:
  Protocol protocol = parse_protocol(protocol_text, "sweep.json", ".", registry());
  TempDir dir;
  // A quiet sweep of `protocol` into `name` in the test's folder.
  SweepOptions options_for(const std::string& name, int threads) {
    SweepOptions options;
    options.threads = threads;
    options.output = dir.path() / name;
    return options;
  }
  SweepResult run(const std::string& name, int threads, std::int64_t stop_after = -1, bool force = false) {
    SweepOptions options = options_for(name, threads);
    options.stop_after = stop_after;
    options.force = force;
    return run_sweep(protocol, options);
  }
  SweepResult run_shard(const std::string& name, Shard shard, std::int64_t stop_after = -1) {
    SweepOptions options = options_for(name, 2);
    options.stop_after = stop_after;
    options.shard = shard;
    return run_sweep(protocol, options);
  }
};

TEST_F(Sweep, TracesAreIdenticalWhateverTheThreadCount) {
  const auto one = run("one.h5", 1);
  const auto two = run("two.h5", 2);
  EXPECT_EQ(one.total_runs, 9);
  EXPECT_EQ(one.completed_now, 9);
  const auto a = read_runs(one.output), b = read_runs(two.output);
  ASSERT_EQ(a.size(), 9u);
  EXPECT_TRUE(a == b);
}

// Whether a dataset of a trace file is deflated.
bool deflated(const std::filesystem::path& file, const std::string& path) {
  const h5::Handle f = h5::open_file(file, false);
  const hid_t dataset = H5Dopen2(f.id(), path.c_str(), H5P_DEFAULT);
  const hid_t properties = H5Dget_create_plist(dataset);
  unsigned flags = 0;
  std::size_t elements = 0;
  const bool found =
      H5Pget_filter_by_id2(properties, H5Z_FILTER_DEFLATE, &flags, &elements, nullptr, 0, nullptr, nullptr) >= 0;
  H5Pclose(properties), H5Dclose(dataset);
  return found;
}

TEST_F(Sweep, CompactTracesDeflateTheFlagColumnsAndHoldTheSameValues) {
  const auto plain = run("plain.h5", 2);
  SweepOptions options = options_for("compact.h5", 2);
  options.compact_traces = true;
  const auto compact = run_sweep(protocol, options);
  EXPECT_TRUE(read_runs(plain.output) == read_runs(compact.output));
  EXPECT_FALSE(deflated(plain.output, "runs/000000/rounds/correct"));
  EXPECT_TRUE(deflated(compact.output, "runs/000000/rounds/correct"));
  EXPECT_FALSE(deflated(compact.output, "runs/000000/rounds/y"));  // labels are never worth it
}

TEST_F(Sweep, PerSeedDatasetCopiesGiveIdenticalTracesWhateverTheThreadCount) {
  protocol = parse_protocol(R"({"name": "per_seed",
      "datasets": [{"name": "g", "source": "gaussians", "params": {"n_per_class": 60, "sigma": 0.5},
        "transforms": [{"name": "gaussian_noise", "params": {"sigma": 0.2}},
                       {"name": "rbf_support", "params": {"size": 40}, "grid": {"g": [0.5, 2]}}]}],
      "oracle": {"name": "bandit"}, "learners": [{"name": "cspa"}, {"name": "banditron"}],
      "metrics": [{"name": "online_accuracy"}, {"name": "windowed_accuracy", "params": {"window": 50}}], "seeds": 3})",
                            "p.json", ".", registry());
  const auto one = read_runs(run("one.h5", 1).output);
  const auto two = read_runs(run("two.h5", 2).output);
  ASSERT_EQ(one.size(), 12u);  // 2 variants x 2 learners x 3 seeds
  EXPECT_TRUE(one == two);
  EXPECT_NE(one.at("000000").accuracy_curve, one.at("000001").accuracy_curve);  // seeds differ
}

TEST_F(Sweep, RunsSharingDatasetAndSeedSeeTheSameOrderAndOthersDoNot) {
  const auto runs = read_runs(run("t.h5", 2).output);
  // Run ids: perceptron eta 0.5 seeds 0-2 (000000-000002), eta 1 (000003-000005), spa (000006-000008).
  EXPECT_EQ(runs.at("000000").y, runs.at("000003").y);
  EXPECT_EQ(runs.at("000000").y, runs.at("000006").y);
  EXPECT_NE(runs.at("000000").y, runs.at("000001").y);
  EXPECT_EQ(runs.at("000000").y.size(), 600u);
  // Labels are stored 1..K and `correct` agrees with them.
  for (std::size_t t = 0; t < 600; ++t) {
    const auto& r = runs.at("000006");
    ASSERT_GE(r.y[t], 1);
    ASSERT_LE(r.y[t], 4);
    ASSERT_EQ(r.correct[t], r.proposed[t] == r.y[t]);
  }
}

TEST_F(Sweep, AnInterruptedSweepKeepsFinishedRunsAndResumes) {
  const auto whole = read_runs(run("whole.h5", 2).output);
  const auto first = run("resumed.h5", 2, 4);
  EXPECT_TRUE(first.interrupted);
  EXPECT_EQ(first.completed_now, 4);
  EXPECT_EQ(read_runs(first.output).size(), 4u);  // readable, with the finished runs only
  const auto second = run("resumed.h5", 1);
  EXPECT_FALSE(second.interrupted);
  EXPECT_EQ(second.already_complete, 4);
  EXPECT_EQ(second.completed_now, 5);
  EXPECT_TRUE(read_runs(second.output) == whole);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "resumed.h5.parts"));
  const auto written = std::filesystem::last_write_time(second.output);
  const auto third = run("resumed.h5", 2);  // nothing left to do
  EXPECT_EQ(third.completed_now, 0);
  EXPECT_EQ(std::filesystem::last_write_time(second.output), written);  // and the output is not written again
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "resumed.h5.parts"));
  EXPECT_EQ(run("resumed.h5", 2, -1, true).completed_now, 9);  // --force starts afresh
}

// A parts-log record as TraceStore appends it (docs/trace-schema.md): a 24-byte header, the run id, `payload`; the
// header may claim more payload than follows, as a write a kill cut short leaves it.
std::string log_record(char kind, const std::string& id, const std::string& payload, std::uint64_t claimed = 0) {
  std::string record = std::string("GLOG") + kind + std::string(3, '\0');
  const auto put = [&](std::uint64_t value, int bytes) {
    for (int b = 0; b < bytes; ++b) record += static_cast<char>((value >> (8 * b)) & 0xff);
  };
  put(id.size(), 4);
  put(0, 4);
  put(claimed ? claimed : payload.size(), 8);
  return record + id + payload;
}

TEST_F(Sweep, TornPartsLeftByAKilledSweepAreDiscardedOnResume) {
  run("killed.h5", 1, 3);
  const std::filesystem::path output = dir.path() / "killed.h5";
  const std::filesystem::path parts(output.string() + ".parts");
  std::filesystem::create_directories(parts);
  {
    std::ofstream log(parts / "1-0.log", std::ios::binary);
    log << log_record('P', "", protocol_hash_text(protocol) + log_format_tag) << log_record('B', "000005", "")
        << log_record('W', "000007", "torn", 4096);
  }
  const auto resumed = run("killed.h5", 2);
  EXPECT_EQ(resumed.already_complete, 3);
  EXPECT_EQ(resumed.completed_now, 6);
  EXPECT_EQ(resumed.in_flight_before.size(), 1u);  // 000005 began and never ended
  EXPECT_TRUE(read_runs(output) == read_runs(run("reference.h5", 1).output));
}

TEST_F(Sweep, APartsLogKeepsItsWholeRecordsBeforeATornTail) {
  const std::filesystem::path output = dir.path() / "logged.h5";
  {
    TraceStore store(output, protocol, TraceStore::Helper{});
    std::filesystem::create_directories(store.parts_folder());
    for (const std::string id : {"000000", "000001", "000002"}) {
      store.begin(id);
      RunRecord record;
      record.id = id;
      record.rounds = 10;
      record.scalars = {{"online_accuracy", 0.5}};
      if (id != "000002") store.write(record);
    }
  }
  std::filesystem::path log;
  for (const auto& item : std::filesystem::directory_iterator(output.string() + ".parts")) log = item.path();
  std::ofstream(log, std::ios::binary | std::ios::app) << log_record('W', "000003", "cut short", 1 << 20);
  const auto contents = read_trace_contents(output, protocol_hash_text(protocol), "");
  EXPECT_EQ(contents.complete.size(), 2u);
  EXPECT_TRUE(contents.complete.count("000001"));
  EXPECT_EQ(contents.in_flight, std::set<std::string>{"000002"});
  EXPECT_TRUE(contents.failed.empty());
}

// Removing a finished sweep's parts folder: gone when the call returns, the pages of its (large) logs freed by a
// process that held them, which then exits; nothing of this process's is left open.
TEST_F(Sweep, APartsFolderIsGoneAtOnceAndItsHolderExits) {
  const std::filesystem::path folder = dir.path() / "removed.h5.parts";
  std::filesystem::create_directories(folder);
  for (const char* name : {"1-0.log", "1-1.log", "2-0.log"})
    std::ofstream(folder / name, std::ios::binary) << std::string(4 << 20, 'x');
  const auto open_descriptors = [] {
    return std::distance(std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator());
  };
  const auto children = [] {  // this process's children, from every thread's list
    std::set<pid_t> pids;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
      std::ifstream list(task.path() / "children");
      for (pid_t pid; list >> pid;) pids.insert(pid);
    }
    return pids;
  };
  const auto before = children();
  const auto descriptors = open_descriptors();
  remove_parts_folder(folder);
  EXPECT_FALSE(std::filesystem::exists(folder));
  EXPECT_EQ(open_descriptors(), descriptors);
  std::set<pid_t> holders;
  for (const pid_t pid : children())
    if (!before.count(pid)) holders.insert(pid);
  EXPECT_EQ(holders.size(), 1u);  // (listed until reaped, even once it has exited)
  for (const pid_t holder : holders) {
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (::waitpid(holder, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the holder " << holder << " did not exit";
  }
  remove_parts_folder(folder);  // a folder that is not there: nothing to do
}

// A run record with every field set, columns of each width a trace uses.
RunRecord a_full_record() {
  RunRecord r;
  r.id = "000042";
  r.index = 42;
  r.dataset = "letter", r.dataset_variant = "scaled", r.learner = "cspa", r.label = "cspa (beta 0.1)";
  r.learner_version = "3", r.params_json = R"({"beta": 0.1})", r.oracle = "bandit", r.oracle_params = "{}";
  r.query_rule = "always", r.query_rule_params = "", r.dataset_notes = "two lines\nof notes";
  r.learner_revision = 7, r.seed = 0xfedcba9876543210ull, r.grid_point = 3, r.rounds = 5, r.seconds = 0.25;
  r.peak_rss_mb = 117.5;
  r.y.allocate(5, 26), r.predicted.allocate(5, 26), r.proposed.allocate(5, 26), r.row.allocate(5, 19999);
  r.correct.allocate(5, 1, false), r.queried.allocate(5, 1, false);
  for (int t = 0; t < 5; ++t) {
    r.y.set(t, t + 1), r.predicted.set(t, 26 - t), r.proposed.set(t, 1 + t % 2), r.row.set(t, 19999 - 4000 * t);
    r.correct.set(t, t % 2), r.queried.set(t, 1);
  }
  r.scalars = {{"online_accuracy", 0.5}, {"mistakes", 3.0}};
  r.curves = {{"online_accuracy", {1, 5}, {0.0, 0.4}}, {"empty", {}, {}}};
  r.matrices = {{"confusion", 2, 3, {1, 2, 3, 4, 5, 6}}};
  return r;
}
std::string concatenated(const EncodedRunRecord& encoded) {
  std::string bytes;
  for (const auto& piece : encoded.all) bytes.append(piece.data(), piece.size());
  return bytes;
}
template <class T>
std::vector<T> values_of(const RoundColumn& c) {
  const auto v = c.values<T>();
  return {v.begin(), v.end()};
}

TEST(RunRecords, DecodeGivesBackEveryFieldAndColumnEncoded) {
  const RunRecord r = a_full_record();
  EXPECT_EQ(r.row.width(), 2u);  // rows up to 19,999 in two bytes, labels in one
  const RunRecord back = decode_run_record(concatenated(encode_run_record(r)), "test");
  for (const auto& [a, b] : {std::pair{&r.id, &back.id}, {&r.dataset, &back.dataset},
                             {&r.dataset_variant, &back.dataset_variant}, {&r.learner, &back.learner},
                             {&r.label, &back.label}, {&r.learner_version, &back.learner_version},
                             {&r.params_json, &back.params_json}, {&r.oracle, &back.oracle},
                             {&r.oracle_params, &back.oracle_params}, {&r.query_rule, &back.query_rule},
                             {&r.query_rule_params, &back.query_rule_params}, {&r.dataset_notes, &back.dataset_notes},
                             {&r.error, &back.error}})
    EXPECT_EQ(*a, *b);
  EXPECT_EQ(back.index, 42);
  EXPECT_EQ(back.learner_revision, 7u);
  EXPECT_EQ(back.seed, 0xfedcba9876543210ull);
  EXPECT_EQ(back.grid_point, 3);
  EXPECT_EQ(back.rounds, 5);
  EXPECT_EQ(back.seconds, 0.25);
  EXPECT_EQ(back.peak_rss_mb, 117.5);
  EXPECT_EQ(back.scalars, r.scalars);
  EXPECT_EQ(back.curves, r.curves);
  EXPECT_EQ(back.matrices, r.matrices);
  EXPECT_EQ(back.row.width(), 2u);
  EXPECT_EQ(values_of<std::int16_t>(back.row), (std::vector<std::int16_t>{19999, 15999, 11999, 7999, 3999}));
  EXPECT_EQ(values_of<std::int8_t>(back.y), (std::vector<std::int8_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(values_of<std::int8_t>(back.predicted), (std::vector<std::int8_t>{26, 25, 24, 23, 22}));
  EXPECT_EQ(values_of<std::int8_t>(back.proposed), (std::vector<std::int8_t>{1, 2, 1, 2, 1}));
  EXPECT_FALSE(back.correct.is_signed());
  EXPECT_EQ(values_of<std::uint8_t>(back.correct), (std::vector<std::uint8_t>{0, 1, 0, 1, 0}));
  EXPECT_EQ(values_of<std::uint8_t>(back.queried), (std::vector<std::uint8_t>(5, 1)));

  RunRecord failed;  // a failed run: identity, error and round, no columns
  failed.id = "000001", failed.error = "diverged", failed.failed_round = 17;
  const RunRecord failed_back = decode_run_record(concatenated(encode_run_record(failed)), "test");
  EXPECT_EQ(failed_back.error, "diverged");
  EXPECT_EQ(failed_back.failed_round, 17);
  EXPECT_TRUE(failed_back.y.empty());
}

// The writer keeps each run's summary from its record instead of reading the run back: both must be the same,
// curves in HDF5's name order (the record lists "online_accuracy" before "empty"), metrics in creation order, the
// dataset variant and query rule in params, a failed run's error without metrics or curves.
TEST_F(Sweep, ARunsSummaryFromItsRecordEqualsTheOneReadBackFromItsGroup) {
  RunRecord plain = a_full_record();
  plain.id = "000043", plain.dataset_variant = "", plain.query_rule = "", plain.scalars = {{"b", 1.0}, {"a", 2.0}};
  RunRecord failed;
  failed.id = "000001", failed.dataset = "iris", failed.learner = "cspa", failed.label = "cspa", failed.seed = 3;
  failed.error = "diverged", failed.failed_round = 17;
  const std::vector<RunRecord> records{a_full_record(), plain, failed};
  const auto output = dir.path() / "assembled.h5";
  {
    TraceAssembly assembly(output);
    for (const auto& r : records) assembly.add(r);
    TraceHeader header;
    header.selection_metric = "online_accuracy", header.selection_goal = schema::selection::maximize;
    header.selection_per_seed = schema::selection::per_seed_no;
    assembly.finish(header);
  }
  const h5::Handle file = h5::open_file(output, false);
  for (const auto& r : records)
    EXPECT_EQ(summary_of_record(r), read_run_summary(h5::open_group(file, schema::run_group(r.id)), r.id, true))
        << r.id;
  const RunSummary full = summary_of_record(records[0]);
  ASSERT_EQ(full.curves.size(), 2u);
  EXPECT_EQ(full.curves[0].name, "empty");
  EXPECT_EQ(full.params, R"(scaled {"beta": 0.1} always)");
  EXPECT_EQ(summary_of_record(plain).metrics, (std::vector<NamedScalar>{{"b", 1.0}, {"a", 2.0}}));
  EXPECT_EQ(summary_of_record(failed).status, schema::status::failed);
}

TEST(RunRecords, BytesThatAreNotAWholeRecordAreRefusedNamingWhere) {
  const std::string bytes = concatenated(encode_run_record(a_full_record()));
  for (const std::size_t cut : {std::size_t{0}, std::size_t{3}, std::size_t{20}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_NE(error_of([&] { decode_run_record(std::string_view(bytes).substr(0, cut), "x.log"); }).find("x.log: "),
              std::string::npos)
        << "cut at " << cut;
  EXPECT_NE(error_of([&] { decode_run_record(bytes + "!", "x.log"); }).find("after its end"), std::string::npos);
  std::string other = bytes;
  other[4] = 9;  // another format version
  EXPECT_NE(error_of([&] { decode_run_record(other, "x.log"); }).find("format"), std::string::npos);
}

TEST_F(Sweep, RunsLoggedFromManyThreadsAtOnceAreAllRead) {
  const std::filesystem::path output = dir.path() / "threads.h5";
  {
    TraceStore store(output, protocol, TraceStore::Helper{});
    std::filesystem::create_directories(store.parts_folder());
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 25; ++i) {
          RunRecord record = a_full_record();
          record.id = std::to_string(1000 + 25 * t + i);
          store.begin(record.id);
          store.log(record);
        }
      });
    for (auto& thread : threads) thread.join();
  }
  const auto contents = read_trace_contents(output, protocol_hash_text(protocol), "");
  EXPECT_EQ(contents.complete.size(), 100u);
  EXPECT_TRUE(contents.in_flight.empty());
  for (const auto& [id, source] : contents.complete)  // each record whole where the log says
    EXPECT_EQ(decode_run_record(read_log_payload(source), "test").id, id);
}

TEST_F(Sweep, PartsLogsOfAnotherLayoutAreRefusedAsAnotherVersions) {
  run("old.h5", 1, 2);
  const std::filesystem::path parts(dir.path().string() + "/old.h5.parts");
  std::filesystem::create_directories(parts);
  std::ofstream(parts / "1-0.log", std::ios::binary) << log_record('P', "", protocol_hash_text(protocol));
  EXPECT_NE(error_of([&] { run("old.h5", 1); }).find("different protocol (or a different version"), std::string::npos);
}

// Runs whose curves have different rounds (and one whose rounds are out of order) average round by round as if each
// round's values were collected in a map.
TEST(CurveSummary, MergesCurvesOfDifferentRoundsRoundByRound) {
  std::vector<RunSummary> runs(3);
  const std::vector<std::vector<std::int64_t>> rounds{{10, 20, 30}, {5, 20, 40}, {40, 10}};
  const std::vector<std::vector<double>> values{{1, 2, 3}, {4, 5, 6}, {7, 8}};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i].id = std::to_string(i), runs[i].dataset = "d", runs[i].learner = runs[i].label = "l";
    runs[i].params = "{}", runs[i].status = "complete", runs[i].seed = static_cast<std::int64_t>(i);
    runs[i].metrics = {{"m", 1.0}};
    runs[i].curves = {{"c", rounds[i], values[i]}};
  }
  TempDir dir;
  {
    const h5::Handle file = h5::create_file(dir.path() / "c.h5");
    write_curve_summary(file, runs, "m", true, false);
  }
  const h5::Handle file = h5::open_file(dir.path() / "c.h5", false);
  using Type = h5::TableColumn::Type;
  const auto column = [&](const std::string& name, Type type) {
    return h5::read_table_column(file, "curve_summary", name, type);
  };
  EXPECT_EQ(column("round", Type::integer).integers, (std::vector<std::int64_t>{5, 10, 20, 30, 40}));
  EXPECT_EQ(column("runs", Type::integer).integers, (std::vector<std::int64_t>{1, 2, 2, 1, 2}));
  EXPECT_EQ(column("mean", Type::real).reals, (std::vector<double>{4, 4.5, 3.5, 3, 6.5}));
  EXPECT_EQ(column("std", Type::real).reals, (std::vector<double>{0, std::sqrt(24.5), std::sqrt(4.5), 0, std::sqrt(0.5)}));
}

TEST_F(Sweep, RefusesToResumeAFileWrittenByAnotherProtocol) {
  run("a.h5", 2);
  protocol = parse_protocol(
      std::string(protocol_text).replace(std::string(protocol_text).find("\"seeds\": 3"), 10, "\"seeds\": 4"),
      "sweep.json", ".", registry());
  const auto message = error_of([&] { run("a.h5", 2); });
  EXPECT_NE(message.find("a.h5: was written by a different protocol"), std::string::npos) << message;
  EXPECT_EQ(run("a.h5", 2, -1, true).completed_now, 12);
}

TEST_F(Sweep, ShardsPartitionTheRunsExactlyForAnyShardCount) {
  const RunList list = list_runs(protocol);
  ASSERT_EQ(list.runs.size(), 9u);
  for (std::int32_t count = 1; count <= 7; ++count) {
    std::map<std::string, int> seen;
    for (std::int32_t index = 0; index < count; ++index)
      for (const RunSpec* run : shard_runs(list, {index, count})) ++seen[run->id];
    ASSERT_EQ(seen.size(), list.runs.size()) << count << " shards";
    for (const auto& [id, times] : seen) EXPECT_EQ(times, 1) << "run " << id << " with " << count << " shards";
  }
}

TEST_F(Sweep, MergedShardsEqualTheOneMachineRun) {
  const auto whole = read_runs(run("whole.h5", 2).output);
  std::vector<std::filesystem::path> files;
  std::int64_t runs_in_shards = 0;
  for (std::int32_t i = 0; i < 3; ++i) {
    const auto result = run_shard(std::array{"s0.h5", "s1.h5", "s2.h5"}[static_cast<std::size_t>(i)], {i, 3});
    runs_in_shards += result.total_runs;
    EXPECT_FALSE(result.interrupted);
    files.push_back(result.output);
    const h5::Handle file = h5::open_file(result.output, false);
    EXPECT_EQ(h5::read_string_attribute(file, "shard"), std::to_string(i) + "/3");
    EXPECT_EQ(h5::read_int_attribute(file, "runs_total"), 9);  // the protocol's, not the shard's
  }
  EXPECT_EQ(runs_in_shards, 9);
  const auto report = merge_traces(dir.path() / "merged.h5", files);
  EXPECT_EQ(report.complete, 9);
  EXPECT_TRUE(report.missing.empty());
  EXPECT_TRUE(report.duplicates.empty());
  EXPECT_TRUE(read_runs(dir.path() / "merged.h5") == whole);
  const h5::Handle merged = h5::open_file(dir.path() / "merged.h5", false);
  EXPECT_FALSE(h5::has_attribute(merged, "shard"));
  EXPECT_EQ(h5::read_int_attribute(merged, "runs_complete"), 9);
  EXPECT_EQ(h5::read_string_attribute(merged, "protocol_hash"), protocol_hash_text(protocol));
}

TEST_F(Sweep, MergeReportsMissingAndDuplicatedRunsAndAKilledShardResumes) {
  const auto s0 = run_shard("s0.h5", {0, 3});
  const auto s1 = run_shard("s1.h5", {1, 3}, 1);  // killed after one run
  EXPECT_TRUE(s1.interrupted);
  const auto s0_runs = read_runs(s0.output);
  auto report = merge_traces(dir.path() / "m.h5", {s0.output, s1.output, s0.output});
  EXPECT_EQ(report.duplicates.size(), s0_runs.size());
  EXPECT_EQ(report.complete, static_cast<std::int64_t>(s0_runs.size()) + 1);
  std::set<std::string> expected_missing;
  const RunList list = list_runs(protocol);
  for (const RunSpec* run : shard_runs(list, {2, 3})) expected_missing.insert(run->id);
  for (const RunSpec* run : shard_runs(list, {1, 3}))
    if (!read_runs(s1.output).count(run->id)) expected_missing.insert(run->id);
  EXPECT_EQ(std::set<std::string>(report.missing.begin(), report.missing.end()), expected_missing);
  // Rerunning the killed shard (and running the last) completes the sweep.
  EXPECT_EQ(run_shard("s1.h5", {1, 3}).already_complete, 1);
  const auto s2 = run_shard("s2.h5", {2, 3});
  report = merge_traces(dir.path() / "m.h5", {s0.output, s1.output, s2.output});
  EXPECT_TRUE(report.missing.empty());
  EXPECT_TRUE(read_runs(dir.path() / "m.h5") == read_runs(run("whole.h5", 1).output));
}

TEST_F(Sweep, MergeRefusesTracesOfDifferentProtocols) {
  const auto a = run("a.h5", 2);
  protocol = parse_protocol(
      std::string(protocol_text).replace(std::string(protocol_text).find("\"seeds\": 3"), 10, "\"seeds\": 4"),
      "other.json", ".", registry());
  const auto b = run("b.h5", 2);
  const auto message = error_of([&] { merge_traces(dir.path() / "m.h5", {a.output, b.output}); });
  EXPECT_NE(message.find("b.h5: comes from protocol"), std::string::npos) << message;
  EXPECT_NE(message.find("glimpse merge combines traces of one protocol only"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "m.h5"));
}

TEST_F(Sweep, ASecondProcessWritingTheSameOutputIsRefused) {
  {
    const OutputLock held(dir.path() / "busy.h5");  // as another process would hold it
    const auto message = error_of([&] { run("busy.h5", 1); });
    EXPECT_NE(message.find("busy.h5: another glimpse process is writing this output"), std::string::npos) << message;
  }
  EXPECT_EQ(run("busy.h5", 1).completed_now, 9);  // free again once the holder is gone
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "busy.h5.lock"));
}

// The progress line's ETA runs at the rate of this invocation's runs: a resumed sweep with 90 of 100 runs already
// complete that finished 5 more in 10 s has 5 left, 10 s more (not 10 * 5 / 95).
TEST(Progress, EtaCountsOnlyTheRunsThisInvocationFinished) {
  EXPECT_DOUBLE_EQ(eta_seconds(10.0, 95, 90, 100), 10.0);
  EXPECT_DOUBLE_EQ(eta_seconds(10.0, 20, 0, 100), 40.0);
  EXPECT_LT(eta_seconds(10.0, 90, 90, 100), 0.0);  // nothing finished here yet: unknown
}

TEST(Shards, LongestRunsFirstEachToTheLightestShard) {
  // By hand: 5 goes to shard 0; then each 1 to the lightest shard, shard 1, until both carry 5.
  EXPECT_EQ(assign_shards(std::vector<double>{5, 1, 1, 1, 1, 1}, 2), (std::vector<std::int32_t>{0, 1, 1, 1, 1, 1}));
  // Equal costs go round-robin in index order.
  EXPECT_EQ(assign_shards(std::vector<double>{2, 2, 2, 2, 2}, 2), (std::vector<std::int32_t>{0, 1, 0, 1, 0}));
  // 3, 3, 2, 2, 2 on two shards: 3|3, then 2 -> shard 0, 2 -> shard 1, 2 -> shard 0.
  EXPECT_EQ(assign_shards(std::vector<double>{2, 3, 2, 3, 2}, 2), (std::vector<std::int32_t>{0, 0, 1, 1, 0}));
  EXPECT_EQ(assign_shards(std::vector<double>{1, 2}, 5), (std::vector<std::int32_t>{1, 0}));
}

TEST(Shards, ParsedFromIOverNWithClearErrors) {
  EXPECT_EQ(parse_shard("2/8", "--shard").text(), "2/8");
  EXPECT_TRUE(parse_shard("0/1", "--shard").whole());
  for (const char* bad : {"8/8", "-1/4", "1", "a/4", "1/0", "1/4x", "/4"}) {
    const auto message = error_of([&] { parse_shard(bad, "--shard"); });
    EXPECT_NE(message.find("--shard: expected I/N with 0 <= I < N"), std::string::npos) << bad << ": " << message;
  }
  EXPECT_EQ(shard_output("runs/x.h5", {2, 8}), std::filesystem::path("runs/x.shard-2-of-8.h5"));
  EXPECT_EQ(shard_output("runs/x.h5", {0, 1}), std::filesystem::path("runs/x.h5"));
}

TEST_F(Sweep, SummaryTableAndSelection) {
  const auto result = run("s.h5", 2);
  const h5::Handle file = h5::open_file(result.output, false);
  EXPECT_EQ(h5::read_string_attribute(file, "schema_version"), "1.7.0");
  EXPECT_EQ(h5::read_int_attribute(file, "runs_total"), 9);
  EXPECT_EQ(h5::read_text(file, "protocol"), protocol_text);
  const auto runs = read_run_summaries(file);
  ASSERT_EQ(runs.size(), 9u);
  const auto rows = summarize(runs, "online_accuracy", true);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].learner, "perceptron");
  EXPECT_EQ(rows[0].seeds, 3);
  // The chosen eta has the larger mean accuracy of the two, and the reported mean is that mean.
  double mean[2] = {0, 0};
  for (const auto& r : runs)
    if (r.learner == "perceptron")
      for (const auto& [n, v] : r.metrics)
        if (n == "online_accuracy") mean[r.grid_point] += v / 3;
  const int best = mean[1] > mean[0] ? 1 : 0;
  EXPECT_NEAR(rows[0].means[0], mean[best], 1e-12);
  EXPECT_NE(rows[0].params.find(best ? "\"eta\":1" : "\"eta\":0.5"), std::string::npos);

  // Throughput in every run's record, in the /summary table and in the summary rows.
  using Type = h5::TableColumn::Type;
  const auto rates = h5::read_table_column(file, "summary", "rounds_per_second", Type::real).reals;
  const auto peaks = h5::read_table_column(file, "summary", "peak_rss_mb", Type::real).reals;
  ASSERT_EQ(rates.size(), runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ASSERT_GT(runs[i].seconds, 0.0);
    EXPECT_DOUBLE_EQ(rates[i], static_cast<double>(runs[i].rounds) / runs[i].seconds);
    EXPECT_GT(peaks[i], 1.0);    // a process holding a dataset and HDF5 uses more than 1 MB
    EXPECT_LT(peaks[i], 1.0e5);  // and reports MB, not KiB or bytes
    EXPECT_EQ(peaks[i], runs[i].peak_rss_mb);
  }
  double rate_sum = 0.0, peak_max = 0.0;
  for (const auto& r : runs)
    if (r.learner == "perceptron" && r.params == rows[0].params)
      rate_sum += r.rounds_per_second(), peak_max = std::max(peak_max, r.peak_rss_mb);
  EXPECT_NEAR(rows[0].rounds_per_second, rate_sum / 3, 1e-9 * rate_sum);
  EXPECT_EQ(rows[0].peak_rss_mb, peak_max);
}

TEST_F(Sweep, ProfileChargesEveryRoundToItsPhasesAndChangesNoResult) {
  SweepOptions options = options_for("profiled.h5", 2);
  options.profile = true;
  const auto profiled = run_sweep(protocol, options);
  const auto plain = run("plain.h5", 2);
  EXPECT_EQ(read_runs(profiled.output), read_runs(plain.output));
  EXPECT_TRUE(plain.profiles.empty());
  ASSERT_EQ(profiled.profiles.size(), 2u);  // (g, perceptron) and (g, spa), in protocol order
  EXPECT_EQ(profiled.profiles[0].learner, "perceptron");
  EXPECT_EQ(profiled.profiles[0].runs, 6);  // two grid points x three seeds
  EXPECT_EQ(profiled.profiles[1].learner, "spa");
  EXPECT_EQ(profiled.profiles[1].runs, 3);
  for (const auto& row : profiled.profiles) {
    SCOPED_TRACE(row.learner);
    EXPECT_EQ(row.dataset, "g");
    EXPECT_EQ(row.profile.rounds, row.runs * 600);  // 4 classes x 150 points, one pass
    EXPECT_GT(row.profile.seconds, 0.0);
    for (const auto phase : {RoundProfile::data, RoundProfile::predict, RoundProfile::oracle, RoundProfile::learn,
                             RoundProfile::metrics, RoundProfile::trace})
      EXPECT_GT(row.profile.ticks[phase], 0u) << RoundProfile::phase_names[phase];
    // No query rule and no held-out set in this protocol: nothing is charged to them.
    EXPECT_EQ(row.profile.ticks[RoundProfile::query], 0u);
    EXPECT_EQ(row.profile.ticks[RoundProfile::test], 0u);
  }
  std::ostringstream table;
  print_profile(profiled.profiles, table);
  EXPECT_NE(table.str().find("perceptron  6"), std::string::npos) << table.str();
}

TEST_F(Sweep, CurveSummaryAveragesEachGridPointsCurvesOverSeeds) {
  const auto result = run("c.h5", 2);
  const h5::Handle file = h5::open_file(result.output, false);
  using Type = h5::TableColumn::Type;
  const auto column = [&](const std::string& name, Type type) {
    return h5::read_table_column(file, "curve_summary", name, type);
  };
  const auto label = column("label", Type::text).texts, params = column("params", Type::text).texts,
             curve = column("curve", Type::text).texts;
  const auto round = column("round", Type::integer).integers, runs = column("runs", Type::integer).integers,
             chosen = column("chosen", Type::integer).integers;
  const auto mean = column("mean", Type::real).reals, std = column("std", Type::real).reals;
  const auto summaries = read_run_summaries(file);
  const auto chosen_rows = summarize(summaries, "online_accuracy", true);

  // Recompute every perceptron windowed_accuracy point by hand from the runs' own curves.
  const h5::Handle all_runs = h5::open_group(file, "runs");
  std::size_t checked = 0;
  for (std::size_t i = 0; i < label.size(); ++i) {
    if (label[i] != "perceptron" || curve[i] != "windowed_accuracy") continue;
    std::vector<double> values;
    for (const auto& s : summaries) {
      if (s.label != "perceptron" || s.params != params[i]) continue;
      const h5::Handle c = h5::open_group(all_runs, s.id + "/curves/windowed_accuracy");
      const auto rounds = h5::read_vector<std::int64_t>(c, "round");
      const auto at = std::find(rounds.begin(), rounds.end(), round[i]);
      ASSERT_NE(at, rounds.end());
      values.push_back(h5::read_vector<double>(c, "value")[static_cast<std::size_t>(at - rounds.begin())]);
    }
    ASSERT_EQ(values.size(), 3u);
    EXPECT_EQ(runs[i], 3);
    const double m = (values[0] + values[1] + values[2]) / 3;
    double squares = 0;
    for (double v : values) squares += (v - m) * (v - m);
    EXPECT_NEAR(mean[i], m, 1e-12);
    EXPECT_NEAR(std[i], std::sqrt(squares / 2), 1e-12);
    EXPECT_EQ(chosen[i] == 1, params[i] == chosen_rows[0].params);
    ++checked;
  }
  EXPECT_GT(checked, 4u);  // both grid points, several rounds each
}

// With "per_seed" selection the chosen curves are each seed's own best run's, averaged: rows of their own when the
// seeds chose different grid points, and then no grid point's rows are marked chosen.
TEST_F(Sweep, CurveSummaryOfAPerSeedSelectionAveragesEachSeedsChosenRun) {
  protocol = parse_protocol(R"({"name": "per_seed_selection",
      "datasets": [{"name": "g", "source": "gaussians", "params": {"n_per_class": 40, "sigma": 1.0}}],
      "oracle": {"name": "bandit"}, "learners": [{"name": "banditron", "grid": {"gamma": [0.05, 0.2, 0.6]}}],
      "metrics": [{"name": "online_accuracy"}, {"name": "windowed_accuracy", "params": {"window": 40}}],
      "selection": {"metric": "online_accuracy", "per_seed": true}, "seeds": 6})",
                            "p.json", ".", registry());
  const h5::Handle file = h5::open_file(run("p.h5", 2).output, false);
  // Each seed's best run by hand: runs are in grid point order, and a tie keeps the earlier point.
  std::map<std::int64_t, RunSummary> best;
  for (const auto& s : read_run_summaries(file)) {
    const auto incumbent = best.find(s.seed);
    if (incumbent == best.end() ||
        final_metric(s, "online_accuracy") > final_metric(incumbent->second, "online_accuracy"))
      best[s.seed] = s;
  }
  std::set<std::string> points;
  for (const auto& [seed, s] : best) points.insert(s.params);
  ASSERT_GT(points.size(), 1u) << "the seeds must disagree for this test to mean anything";
  // The mean of the chosen runs' windowed accuracy at each round they record.
  std::map<std::int64_t, double> expected;
  for (const auto& [seed, s] : best) {
    const h5::Handle c = h5::open_group(file, "runs/" + s.id + "/curves/windowed_accuracy");
    const auto rounds = h5::read_vector<std::int64_t>(c, "round");
    const auto values = h5::read_vector<double>(c, "value");
    for (std::size_t i = 0; i < rounds.size(); ++i) expected[rounds[i]] += values[i] / 6;
  }
  using Type = h5::TableColumn::Type;
  const auto column = [&](const std::string& name, Type type) {
    return h5::read_table_column(file, "curve_summary", name, type);
  };
  const auto params = column("params", Type::text).texts, curve = column("curve", Type::text).texts;
  const auto round = column("round", Type::integer).integers, runs = column("runs", Type::integer).integers,
             chosen = column("chosen", Type::integer).integers;
  const auto mean = column("mean", Type::real).reals;
  std::size_t checked = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(chosen[i] == 1, params[i].rfind("per seed; most often (", 0) == 0) << params[i];
    if (chosen[i] != 1 || curve[i] != "windowed_accuracy") continue;
    EXPECT_EQ(runs[i], 6);
    EXPECT_NEAR(mean[i], expected.at(round[i]), 1e-12);
    ++checked;
  }
  EXPECT_EQ(checked, expected.size());
  // The summary report names the same selection.
  EXPECT_EQ(choose_grid_points(read_run_summaries(file), "online_accuracy", true, true).front().params,
            params[std::find(chosen.begin(), chosen.end(), 1) - chosen.begin()]);
}

}  // namespace
}  // namespace glimpse::test

namespace glimpse::test {
namespace {

TEST(LearnerOracles, ABaselineGetsLabelsBesideCandidateSetLearnersOnPairedStreams) {
  TempDir dir;
  const Protocol protocol = parse_protocol(R"({"name": "pl",
      "datasets": [{"name": "g", "source": "gaussians", "params": {"n_per_class": 50}}],
      "oracle": {"name": "candidate_set", "params": {"size": 2}},
      "learners": [{"name": "avg_perceptron"}, {"name": "perceptron", "oracle": {"name": "full"}}],
      "metrics": [{"name": "average_error"}], "seeds": 2})",
                                           "pl.json", ".", registry());
  EXPECT_EQ(protocol.oracle_for(0).name(), "candidate_set");
  EXPECT_EQ(protocol.oracle_for(1).name(), "full");
  sweep_quietly(protocol, dir.path() / "pl.h5");
  const h5::Handle file = h5::open_file(dir.path() / "pl.h5", false);
  EXPECT_EQ(h5::read_string_attribute(h5::open_group(file, "runs/000000"), "oracle"), "candidate_set");
  EXPECT_EQ(h5::read_string_attribute(h5::open_group(file, "runs/000002"), "oracle"), "full");
  // Same seed, same order for both learners.
  const h5::Handle a = h5::open_group(file, "runs/000000/rounds"), b = h5::open_group(file, "runs/000002/rounds");
  EXPECT_EQ(h5::read_vector<std::int64_t>(a, "row"), h5::read_vector<std::int64_t>(b, "row"));
  // Without its own oracle the baseline is refused, naming the oracle it would get.
  EXPECT_EQ(error_of([] {
              parse_protocol(R"({"datasets": [{"source": "gaussians"}], "oracle": {"name": "candidate_set"},
                  "learners": [{"name": "perceptron"}], "metrics": [{"name": "average_error"}]})",
                             "pl.json", ".", registry());
            }),
            "pl.json: learners[0].name: learner 'perceptron' accepts label feedback, but oracle 'candidate_set' "
            "produces candidate_set feedback");
}

TEST(LearnerOracles, OnePluginTwiceWithTwoOraclesStaysApartByItsLabel) {
  TempDir dir;
  const Protocol protocol = parse_protocol(R"({"name": "pl",
      "datasets": [{"name": "g", "source": "gaussians", "params": {"n_per_class": 50}}],
      "oracle": {"name": "candidate_set", "params": {"size": 2}},
      "learners": [{"name": "avg_perceptron", "as": "avg_s2"},
                   {"name": "avg_perceptron", "as": "avg_s3", "oracle": {"name": "candidate_set", "params": {"size": 3}}},
                   {"name": "avg_perceptron"}],
      "metrics": [{"name": "average_error"}], "seeds": 2})",
                                           "pl.json", ".", registry());
  sweep_quietly(protocol, dir.path() / "pl.h5");
  const h5::Handle file = h5::open_file(dir.path() / "pl.h5", false);
  EXPECT_EQ(h5::read_string_attribute(h5::open_group(file, "runs/000002"), "learner"), "avg_perceptron");
  EXPECT_EQ(h5::read_string_attribute(h5::open_group(file, "runs/000002"), "label"), "avg_s3");
  EXPECT_EQ(h5::read_string_attribute(h5::open_group(file, "runs/000004"), "label"), "avg_perceptron");
  const auto rows = summarize(read_run_summaries(file), "average_error", false);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].learner, "avg_s2");
  EXPECT_EQ(rows[1].learner, "avg_s3");
  EXPECT_EQ(rows[2].learner, "avg_perceptron");
  // Same oracle, same paired streams: the unlabelled entry repeats the first one's results exactly.
  EXPECT_EQ(rows[0].means, rows[2].means);
  EXPECT_NE(rows[0].means, rows[1].means);
}

}  // namespace
}  // namespace glimpse::test

namespace glimpse::test {
namespace {

// A dataset split per seed into a training stream and a held-out test part, evaluated every 25 rounds. The
// (here neutral) imbalance transform after the split sees the split's rows, not the original ones.
std::string held_out_protocol(bool with_test) {
  const std::string source = R"("source": "gaussians", "params": {"n_per_class": 40, "sigma": 1.5})";
  std::string test;
  if (with_test)
    test = R"(, "test": {)" + source + R"(, "transforms": [{"name": "split", "params": {"keep": "test"}}]})";
  return R"({"name": "held_out", "datasets": [{"name": "g", )" + source +
         R"(, "transforms": [{"name": "split", "params": {"keep": "train"}},
                          {"name": "imbalance", "params": {"ratio": 1}}])" +
         test + R"(}],
      "oracle": {"name": "bandit"}, "learners": [{"name": "banditron"}],
      "metrics": [{"name": "confusion"}, {"name": "operator_norm"}], "seeds": 2)" +
         (with_test ? R"(, "test_every": 25})" : "}");
}

TEST(HeldOut, TestPartIsEvaluatedAtChosenRoundsWithoutChangingTraining) {
  TempDir dir;
  sweep_quietly(parse_protocol(held_out_protocol(true), "h.json", ".", registry()), dir.path() / "with.h5");
  sweep_quietly(parse_protocol(held_out_protocol(false), "h.json", ".", registry()), dir.path() / "without.h5");
  const h5::Handle with = h5::open_file(dir.path() / "with.h5", false);
  const h5::Handle without = h5::open_file(dir.path() / "without.h5", false);
  for (const std::string id : {"000000", "000001"}) {
    const h5::Handle run = h5::open_group(with, "runs/" + id);
    // Gaussians: 4 classes x 40 rows; the split keeps 70% of each class for training, 30% for testing.
    EXPECT_EQ(h5::read_int_attribute(run, "rounds"), 112);
    const h5::Handle curve = h5::open_group(run, "curves/confusion_test");
    EXPECT_EQ(h5::read_vector<std::int64_t>(curve, "round"), (std::vector<std::int64_t>{25, 50, 75, 100, 112}));
    std::int64_t rows = 0, cols = 0;
    const auto matrix = h5::read_matrix<double>(h5::open_group(run, "matrices"), "confusion_test", rows, cols);
    ASSERT_EQ(rows, 4);
    ASSERT_EQ(cols, 4);
    for (int p = 0; p < 4; ++p) {
      double sum = 0;
      for (int q = 0; q < 4; ++q) sum += matrix[static_cast<std::size_t>(p * 4 + q)];
      EXPECT_NEAR(sum, 1.0, 1e-12);
      // 12 test rows per class: every rate is a multiple of 1/12.
      for (int q = 0; q < 4; ++q)
        EXPECT_NEAR(matrix[static_cast<std::size_t>(p * 4 + q)] * 12,
                    std::round(matrix[static_cast<std::size_t>(p * 4 + q)] * 12), 1e-9);
    }
    const h5::Handle summary = h5::open_group(run, "summary");
    EXPECT_NEAR(h5::read_double_attribute(summary, "operator_norm_test"),
                h5::read_double_attribute(summary, "confusion_test"), 1e-12);
    EXPECT_DOUBLE_EQ(h5::read_double_attribute(summary, "confusion_test"),
                     h5::read_vector<double>(curve, "value").back());
    // Evaluating on the test part draws nothing from the learner's exploration stream: same training run.
    const h5::Handle a = h5::open_group(run, "rounds"), b = h5::open_group(without, "runs/" + id + "/rounds");
    EXPECT_EQ(h5::read_vector<std::int32_t>(a, "proposed"), h5::read_vector<std::int32_t>(b, "proposed"));
    EXPECT_EQ(h5::read_vector<std::int64_t>(a, "row"), h5::read_vector<std::int64_t>(b, "row"));
  }
  EXPECT_FALSE(h5::exists(without, "runs/000000/curves/confusion_test"));
  // test_every without a test part is refused.
  EXPECT_EQ(error_of([] {
              std::string text = held_out_protocol(false);
              text.insert(text.rfind('}'), R"(, "test_every": 5)");
              parse_protocol(text, "h.json", ".", registry());
            }),
            "h.json: test_every: no dataset has a \"test\" part to evaluate on");
}

}  // namespace
}  // namespace glimpse::test
