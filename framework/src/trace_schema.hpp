// Every name a trace file uses, declared once (docs/trace-schema.md says what each holds). The writer
// (trace_store.cpp, trace_assembly.cpp, summary.cpp), the C++ readers (presentation/) and, through the Python twin
// generated from this file at build time (glimpse/trace_schema.py, by cmake/trace_schema_python.cmake), the Python
// package and the page generator take the names from here. A ground-level file of the core: it includes only <string>.
// Keep each name on one line, `inline constexpr char NAME[] = "text";`, inside the namespaces below, and each list of
// names on one line, `inline constexpr const char* NAME[] = {space::name, ...};`, after them: the generator reads
// exactly those forms.
#pragma once

#include <string>
#include <string_view>

namespace glimpse::schema {

inline constexpr char version[] = "1.7.0";

// Attributes of the root group.
namespace root {
inline constexpr char schema_version[] = "schema_version";
inline constexpr char glimpse_version[] = "glimpse_version";
inline constexpr char created[] = "created";
inline constexpr char updated[] = "updated";
inline constexpr char protocol_name[] = "protocol_name";
inline constexpr char protocol_file[] = "protocol_file";
inline constexpr char protocol_hash[] = "protocol_hash";
inline constexpr char selection_metric[] = "selection_metric";
inline constexpr char selection_goal[] = "selection_goal";
inline constexpr char selection_per_seed[] = "selection_per_seed";
inline constexpr char runs_total[] = "runs_total";
inline constexpr char runs_complete[] = "runs_complete";
inline constexpr char runs_failed[] = "runs_failed";
inline constexpr char shard[] = "shard";
// Datasets and groups under the root.
inline constexpr char protocol[] = "protocol";
inline constexpr char summary[] = "summary";
inline constexpr char curve_summary[] = "curve_summary";
inline constexpr char runs[] = "runs";
}  // namespace root

// Values of the selection attributes.
namespace selection {
inline constexpr char maximize[] = "max";
inline constexpr char minimize[] = "min";
inline constexpr char per_seed_yes[] = "true";
inline constexpr char per_seed_no[] = "false";
}  // namespace selection

// Attributes of a run's group, runs/<id>, and its subgroups.
namespace run {
inline constexpr char status[] = "status";
inline constexpr char error[] = "error";
inline constexpr char failed_round[] = "failed_round";
inline constexpr char run_index[] = "run_index";
inline constexpr char dataset[] = "dataset";
inline constexpr char dataset_variant[] = "dataset_variant";
inline constexpr char dataset_notes[] = "dataset_notes";
inline constexpr char learner_revision[] = "learner_revision";
inline constexpr char learner[] = "learner";
inline constexpr char learner_version[] = "learner_version";
inline constexpr char label[] = "label";
inline constexpr char params[] = "params";
inline constexpr char grid_point[] = "grid_point";
inline constexpr char seed[] = "seed";
inline constexpr char oracle[] = "oracle";
inline constexpr char oracle_params[] = "oracle_params";
inline constexpr char query_rule[] = "query_rule";
inline constexpr char query_rule_params[] = "query_rule_params";
inline constexpr char rounds[] = "rounds";
inline constexpr char seconds[] = "seconds";
inline constexpr char rounds_per_second[] = "rounds_per_second";
inline constexpr char peak_rss_mb[] = "peak_rss_mb";
// Subgroups: the per-round columns, the curves, the matrices, the final scalars.
inline constexpr char rounds_group[] = "rounds";
inline constexpr char curves_group[] = "curves";
inline constexpr char matrices_group[] = "matrices";
inline constexpr char summary_group[] = "summary";
// What a learner reports about itself is named with this prefix.
inline constexpr char learner_prefix[] = "learner_";
}  // namespace run

// Values of a run's status.
namespace status {
inline constexpr char complete[] = "complete";
inline constexpr char failed[] = "failed";
inline constexpr char incomplete[] = "incomplete";  // in /summary: a run whose group was never finished
}  // namespace status

// The per-round columns, runs/<id>/rounds/.
namespace rounds {
inline constexpr char row[] = "row";
inline constexpr char y[] = "y";
inline constexpr char predicted[] = "predicted";
inline constexpr char proposed[] = "proposed";
inline constexpr char correct[] = "correct";
inline constexpr char queried[] = "queried";
}  // namespace rounds

// A curve's datasets, runs/<id>/curves/<name>/.
namespace curve {
inline constexpr char round[] = "round";
inline constexpr char value[] = "value";
}  // namespace curve

// Columns of /summary besides the run attributes of the same name, and of /curve_summary.
namespace table {
inline constexpr char run[] = "run";
inline constexpr char chosen[] = "chosen";
inline constexpr char curve[] = "curve";
inline constexpr char round[] = "round";
inline constexpr char runs[] = "runs";
inline constexpr char mean[] = "mean";
inline constexpr char std_dev[] = "std";
}  // namespace table

// The columns of /summary before the metrics' (one real column per final scalar), in their order.
// clang-format off
inline constexpr const char* summary_identity_columns[] = {table::run, run::dataset, run::learner, run::label, run::params, run::seed, run::grid_point, run::status, run::rounds, run::seconds, run::rounds_per_second, run::peak_rss_mb};
// clang-format on

// The path of a run's group, runs/<id>.
inline std::string run_group(std::string_view id) { return std::string(root::runs).append("/").append(id); }

}  // namespace glimpse::schema
