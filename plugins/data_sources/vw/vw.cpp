// Vowpal Wabbit's text format with multiclass labels: "label [importance] ['tag]|ns[:w] f[:v] f2 ...|ns2 ...".
// Namespaces are flattened: feature "f" of namespace "ns" becomes the column named "ns^f" (columns numbered in
// order of first appearance); values default to 1 and are multiplied by the namespace weight; repeated
// features in a row are summed.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <glimpse/glimpse.hpp>
#include <glimpse/readers/text_input.hpp>
#include <tuple>
#include <unordered_map>

namespace {

using glimpse::Error;
namespace readers = glimpse::readers;

class VwSource final : public glimpse::DataSource {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "vw",
            .kind = glimpse::PluginKind::data_source,
            .summary = "reads Vowpal Wabbit text files with multiclass labels (namespaces flattened)",
            .params = {glimpse::ParamSpec::path("path", "the data file (gzip-compressed or plain)")
                           .mandatory()
                           .into(&VwSource::path_),
                       glimpse::ParamSpec::integer("num_classes", "0",
                                                   "0: the sorted distinct labels become classes 1..K; K > 0: labels "
                                                   "must be the integers 1..K (VW's --oaa K convention)")
                           .at_least(0)
                           .into(&VwSource::num_classes_),
                       readers::layout_param(&VwSource::layout_), readers::non_finite_param(&VwSource::non_finite_)}};
  }

  glimpse::Dataset load() override {
    const std::string name = path_.string();
    auto pieces = readers::parse_lines_in_parallel<Piece>(
        path_, [this](Piece& piece, std::int64_t line_number, std::string_view line) {
          parse_line(piece, line_number, line);
        });
    // Each piece numbered its columns in order of first appearance in it; in file order, the pieces' new names
    // extend the file's numbering, which is then the numbering of a single pass.
    std::unordered_map<std::string, std::int32_t> columns;
    std::vector<std::vector<std::int32_t>> renumber(pieces.size());
    for (std::size_t i = 0; i < pieces.size(); ++i)
      for (auto& column : pieces[i].part.columns.names())
        renumber[i].push_back(
            columns.emplace(std::move(column), static_cast<std::int32_t>(columns.size())).first->second);
    tbb::parallel_for(std::size_t{0}, pieces.size(),
                      [&](std::size_t i) { renumber_columns(pieces[i].part, renumber[i]); });
    std::vector<readers::ParsedPiece<readers::CsrRows>> rows_of_pieces;
    for (auto& piece : pieces) rows_of_pieces.push_back({std::move(piece.part.rows), piece.lines_before});
    pieces.clear();
    if (columns.empty())
      throw Error(name, readers::no_rows(rows_of_pieces) ? "no data rows" : "no feature appears in the file");
    return readers::rows_to_dataset(rows_of_pieces, layout_, static_cast<std::int32_t>(columns.size()), num_classes_,
                                    name);
  }

 private:
  // Column numbers by "namespace^feature" name, in order of first appearance: open addressing over the names'
  // hashes. Rows tend to list features in the same order, so the column after the last one found is tried first.
  class Columns {
   public:
    std::int32_t find_or_add(std::string_view name) {
      const auto guess = static_cast<std::size_t>(last_ + 1);
      if (guess < names_.size() && same(names_[guess], name)) return last_ = static_cast<std::int32_t>(guess);
      if (4 * (names_.size() + 1) > 3 * slots_.size()) grow();
      const std::uint64_t hash = hash_of(name);
      for (std::size_t i = hash & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
        Slot& slot = slots_[i];
        if (slot.column < 0) {
          slot = {hash, static_cast<std::int32_t>(names_.size())};
          names_.emplace_back(name);
          return last_ = slot.column;
        }
        if (slot.hash == hash && same(names_[static_cast<std::size_t>(slot.column)], name)) return last_ = slot.column;
      }
    }
    std::vector<std::string>& names() { return names_; }

   private:
    struct Slot {
      std::uint64_t hash = 0;
      std::int32_t column = -1;
    };
    // Names are a few bytes: a loop beats a call to memcmp (15% of the parse when it was one).
    static bool same(std::string_view a, std::string_view b) {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
      return true;
    }
    static std::uint64_t hash_of(std::string_view name) {  // FNV-1a, then mixed: names are short
      std::uint64_t h = 1469598103934665603ULL;
      for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
      return h ^ (h >> 29);
    }
    void grow() {
      std::vector<Slot> slots(std::max<std::size_t>(64, 2 * slots_.size()));
      for (const Slot& slot : slots_)
        if (slot.column >= 0)
          for (std::size_t i = slot.hash & (slots.size() - 1);; i = (i + 1) & (slots.size() - 1))
            if (slots[i].column < 0) {
              slots[i] = slot;
              break;
            }
      slots_ = std::move(slots);
    }
    std::vector<Slot> slots_;
    std::vector<std::string> names_;
    std::int32_t last_ = -1;
  };

  // What one piece of the file parses into: its rows, with columns numbered in order of first appearance in
  // the piece, and buffers reused from row to row.
  struct Piece {
    readers::CsrRows rows;
    Columns columns;
    std::vector<std::pair<std::int32_t, double>> row;
    std::string key;
  };

  // One line into `piece` (called on several threads at once: reads only the source's settings).
  void parse_line(Piece& piece, std::int64_t line_number, std::string_view line) const {
    using readers::LineProblem;
    if (readers::trim(line).empty()) return;
    const auto bar = line.find('|');
    if (bar == std::string_view::npos) throw LineProblem{"expected '|' before the features"};
    // Header: label, optional importance weight, optional tag.
    std::string_view header = readers::trim(line.substr(0, bar));
    const std::string_view label = header.substr(0, header.find_first_of(" \t"));
    if (label.empty() || label.front() == '\'') throw LineProblem{"expected a label before '|'"};
    if (label.find(':') != std::string_view::npos)
      throw LineProblem{"label '" + std::string(label) + "' is cost-sensitive (label:cost); expected a class number"};
    double number = 0;
    if (!readers::parse_number(label, number) || number != std::floor(number))
      throw LineProblem{"expected an integer class label, got '" + std::string(label) + "'"};
    auto& row = piece.row;
    row.clear();
    bool drop = false;
    std::size_t pos = bar;
    while (pos < line.size()) {
      const std::size_t next = line.find('|', pos + 1);
      const std::string_view segment =
          line.substr(pos + 1, next == std::string_view::npos ? std::string_view::npos : next - pos - 1);
      pos = next == std::string_view::npos ? line.size() : next;
      std::string_view space = " ";
      double weight = 1.0;
      std::size_t p = 0;
      if (!segment.empty() && segment.front() != ' ' && segment.front() != '\t') {
        const std::size_t end = std::min(segment.find_first_of(" \t"), segment.size());
        space = segment.substr(0, end);
        if (const auto colon = space.find(':'); colon != std::string_view::npos) {
          if (!readers::parse_number(space.substr(colon + 1), weight))
            throw LineProblem{"namespace '" + std::string(space) + "': expected a number after ':'"};
          space = space.substr(0, colon);
        }
        p = end;
      }
      piece.key.assign(space).push_back('^');
      const std::size_t prefix = piece.key.size();
      const char* at = segment.data() + p;
      const char* const end = segment.data() + segment.size();
      while (true) {
        while (at < end && readers::is_field_gap(*at)) ++at;
        if (at == end) break;
        const char* const start = at;
        while (at < end && !readers::is_field_gap(*at) && *at != ':') ++at;
        std::string_view feature(start, static_cast<std::size_t>(at - start));
        double value = 1.0;
        if (at < end && *at == ':') {
          // Fast path: "name:number" with one colon; anything else is read as before, the name being what
          // precedes the last colon.
          const char* after = readers::parse_number_prefix(at + 1, end, value);
          if (after == nullptr || (after < end && !readers::is_field_gap(*after))) {
            while (at < end && !readers::is_field_gap(*at)) ++at;
            feature = std::string_view(start, static_cast<std::size_t>(at - start));
            const auto colon = feature.rfind(':');
            if (!readers::parse_number(feature.substr(colon + 1), value))
              throw LineProblem{"feature '" + std::string(feature) + "': expected a number after ':'"};
            feature = feature.substr(0, colon);
          } else {
            at = after;
          }
        }
        double stored = value * weight;
        if (!readers::representable(stored) && !readers::accept_unusable(non_finite_, stored, drop))
          throw LineProblem{"feature '" + std::string(feature) + "' " + readers::unrepresentable_reason(stored) +
                            " (the source's non_finite parameter can read it as 0)"};
        piece.key.resize(prefix);
        piece.key.append(feature);
        row.emplace_back(piece.columns.find_or_add(piece.key), stored);
      }
    }
    if (!std::is_sorted(row.begin(), row.end())) std::sort(row.begin(), row.end());
    if (drop) return piece.rows.drop_row(line_number);
    add_row(piece.rows, row);
    piece.rows.end_row(label, line_number);
  }

  // A row's (column, value) pairs, sorted, into `rows`: repeated columns summed.
  static void add_row(readers::CsrRows& rows, const std::vector<std::pair<std::int32_t, double>>& row) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0 && row[i].first == row[i - 1].first) {
        rows.values.back() = static_cast<glimpse::Feature>(rows.values.back() + row[i].second);
        continue;
      }
      rows.indices.push_back(row[i].first);
      rows.values.push_back(static_cast<glimpse::Feature>(row[i].second));
    }
  }

  // The piece's column numbers made the file's; rows whose order this changes are sorted again.
  static void renumber_columns(Piece& piece, const std::vector<std::int32_t>& file_column) {
    auto& rows = piece.rows;
    std::vector<std::pair<std::int32_t, glimpse::Feature>> entries;
    for (std::size_t r = 0; r + 1 < rows.offsets.size(); ++r) {
      const auto begin = static_cast<std::size_t>(rows.offsets[r]), end = static_cast<std::size_t>(rows.offsets[r + 1]);
      bool sorted = true;
      for (std::size_t e = begin; e < end; ++e) {
        rows.indices[e] = file_column[static_cast<std::size_t>(rows.indices[e])];
        sorted = sorted && (e == begin || rows.indices[e - 1] < rows.indices[e]);
      }
      if (sorted) continue;
      entries.clear();
      for (std::size_t e = begin; e < end; ++e) entries.emplace_back(rows.indices[e], rows.values[e]);
      std::sort(entries.begin(), entries.end());
      for (std::size_t e = begin; e < end; ++e) std::tie(rows.indices[e], rows.values[e]) = entries[e - begin];
    }
  }

  std::filesystem::path path_;
  std::int64_t num_classes_ = 0;
  std::string layout_;
  readers::NonFinite non_finite_ = readers::NonFinite::error;
};

}  // namespace

GLIMPSE_PLUGIN(VwSource)
