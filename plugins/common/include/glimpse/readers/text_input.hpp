// What every data reader shares: reading a file (whole, or line by line), numbers, the policy for non-finite
// values, and turning the label text of each row into classes 0..K-1 with names.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <tbb/parallel_for.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <glimpse/glimpse.hpp>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace glimpse::readers {

// A data file read through zlib: gunzipped when gzip-compressed, plain files unchanged. Errors name the file.
class GzipInput {
 public:
  explicit GzipInput(const std::filesystem::path& file) : file_(file), in_(gzopen(file.c_str(), "rb"), &gzclose) {
    if (!in_) throw Error(file.string(), "cannot open the data file");
    gzbuffer(in_.get(), 1 << 20);
  }
  // Fills `buffer` from the start with up to its size in bytes; returns how many, 0 at the end. A gzip stream
  // cut short is an error: zlib hands out what it could inflate and then reports the end as a plain one, with
  // Z_BUF_ERROR, which would otherwise load a silently shorter dataset.
  std::size_t read(std::vector<char>& buffer) {
    const int got = gzread(in_.get(), buffer.data(), static_cast<unsigned>(buffer.size()));
    int code = Z_OK;
    const char* message = got <= 0 ? gzerror(in_.get(), &code) : nullptr;
    if (got < 0 || (got == 0 && code == Z_BUF_ERROR)) {
      std::string why = message ? message : "";
      if (why.starts_with(file_.string() + ": ")) why.erase(0, file_.string().size() + 2);  // zlib names the file too
      throw Error(file_.string(), "cannot read the data file (" + why + ")");
    }
    return static_cast<std::size_t>(got);
  }

 private:
  std::filesystem::path file_;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> in_;
};

// The file's bytes (gunzipped), whole: for binary formats; text readers go line by line (for_each_file_line).
inline std::string read_whole_file(const std::filesystem::path& file) {
  GzipInput in(file);
  std::vector<char> chunk(1 << 20);
  std::string bytes;
  for (std::size_t got = in.read(chunk); got > 0; got = in.read(chunk)) bytes.append(chunk.data(), got);
  return bytes;
}

namespace detail {
// The value of 8 decimal digits at p, if they are 8 digits (SWAR: all eight at once).
inline bool eight_digits(const char* p, std::uint64_t& value) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  if (((v & 0xF0F0F0F0F0F0F0F0ULL) | (((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) !=
      0x3333333333333333ULL)
    return false;
  v = (v & 0x0F0F0F0F0F0F0F0FULL) * 2561 >> 8;
  v = (v & 0x00FF00FF00FF00FFULL) * 6553601 >> 16;
  value = (v & 0x0000FFFF0000FFFFULL) * 42949672960001ULL >> 32;
  return true;
}
inline const char* digits_into(const char* p, const char* last, std::uint64_t& mantissa, int& digits) {
  for (std::uint64_t eight = 0; last - p >= 8 && digits <= 11 && eight_digits(p, eight); p += 8, digits += 8)
    mantissa = mantissa * 100000000 + eight;
  for (; p != last && static_cast<unsigned>(*p - '0') < 10 && digits < 20; ++p, ++digits)
    mantissa = 10 * mantissa + static_cast<unsigned>(*p - '0');
  return p;
}
}  // namespace detail

// Plain decimals ("-0.0491093732"), the common case in data files, without std::from_chars' generality: with m
// the digits as an integer and f the number after the point, m <= 2^53 and f <= 22 make m and 10^f exact
// doubles, so m / 10^f rounds correctly: the double from_chars gives (Clinger's fast path). nullptr otherwise
// (exponents, more digits, inf, nan), for from_chars to read.
inline const char* parse_plain_decimal(const char* p, const char* last, double& out) {
  static constexpr double powers_of_ten[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const bool negative = *p == '-';
  if (negative) ++p;
  std::uint64_t mantissa = 0;
  int digits = 0;
  p = detail::digits_into(p, last, mantissa, digits);
  const int whole_digits = digits;
  if (p != last && *p == '.') p = detail::digits_into(p + 1, last, mantissa, digits);
  const int fraction = digits - whole_digits;
  if (digits == 0 || digits > 19 || mantissa > (std::uint64_t{1} << 53) || fraction > 22) return nullptr;
  if (p != last && (*p == 'e' || *p == 'E' || static_cast<unsigned>(*p - '0') < 10)) return nullptr;
  const double value = static_cast<double>(mantissa) / powers_of_ten[fraction];
  out = negative ? -value : value;
  return p;
}

// The number at the start of [first, last) ("+1", "-2.5e3", "nan", "inf" included): the position after it, or
// nullptr when the text does not start with one.
inline const char* parse_number_prefix(const char* first, const char* last, double& out) {
  if (first != last && *first == '+') {
    ++first;
    if (first != last && *first == '-') return nullptr;  // "+-2" (found by fuzzing)
  }
  if (first == last) return nullptr;
  if (const char* end = parse_plain_decimal(first, last, out)) return end;
  const auto [end, error] = std::from_chars(first, last, out);
  return error == std::errc() ? end : nullptr;
}

// The whole text must be a number (as parse_number_prefix reads it).
inline bool parse_number(std::string_view text, double& out) {
  const char* end = parse_number_prefix(text.data(), text.data() + text.size(), out);
  return end != nullptr && end == text.data() + text.size();
}

inline std::string format_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

// What separates the fields of a line: a space or a tab.
inline bool is_field_gap(char c) noexcept { return c == ' ' || c == '\t'; }

// `s` without field gaps, nor a '\r' of a CRLF file, at either end.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (is_field_gap(s.front()) || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (is_field_gap(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Calls f(line_number, line) for every line of the file, gunzipped when compressed (1-based numbers; the line
// without its "\n" or "\r\n"; no empty last line after a final end of line), or until f returns true when it
// returns a bool. The file is read in chunks and only a line running across two of them is copied, so a reader
// holds what it parsed, not the text as well: a 0.7 GB VW text file of fashion-mnist read whole cost 0.7 GB beside
// the dataset.
template <class F>
void for_each_file_line(const std::filesystem::path& file, F&& f) {
  GzipInput in(file);
  std::vector<char> chunk(1 << 20);
  std::string pending;  // the start of a line the last chunk cut
  std::int64_t number = 0;
  const auto emit = [&](std::string_view line) {  // true: stop
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if constexpr (std::is_same_v<decltype(f(number, line)), bool>) {
      return f(++number, line);
    } else {
      f(++number, line);
      return false;
    }
  };
  for (std::size_t got = in.read(chunk); got > 0; got = in.read(chunk)) {
    const std::string_view text(chunk.data(), got);
    std::size_t pos = 0;
    for (std::size_t end = text.find('\n'); end != std::string_view::npos; end = text.find('\n', pos)) {
      if (pending.empty()) {
        if (emit(text.substr(pos, end - pos))) return;
      } else {
        pending.append(text.substr(pos, end - pos));
        if (emit(pending)) return;
        pending.clear();
      }
      pos = end + 1;
    }
    pending.append(text.substr(pos));
  }
  if (!pending.empty()) emit(pending);
}

// The first line for which keep(line_number, line) holds, with its number (lines as for_each_file_line gives
// them), reading no further into the file than the chunk holding that line; nullopt if none does.
template <class Keep>
std::optional<std::pair<std::int64_t, std::string>> first_line_where(const std::filesystem::path& file, Keep&& keep) {
  std::optional<std::pair<std::int64_t, std::string>> found;
  for_each_file_line(file, [&](std::int64_t number, std::string_view line) {
    if (keep(number, line)) found.emplace(number, std::string(line));
    return found.has_value();
  });
  return found;
}

// Whether a value read as a double can be stored as a feature (a 32-bit float): finite, and within float's range
// (1e39 is a finite double but an infinite float). Readers test this, so that a value out of range is named at its
// file and line like a NaN, and their non_finite parameter applies to it.
inline bool representable(double value) noexcept {
  return std::isfinite(value) && std::isfinite(static_cast<float>(value));
}
// Why a value is not representable, for a reader's message.
inline std::string unrepresentable_reason(double value) {
  return std::isfinite(value) ? "is beyond a 32-bit float's range" : "is not finite";
}

// What to do with NaN, Inf, missing values and values beyond float's range: refuse them (default), read them as 0,
// drop their rows (rows_to_dataset notes how many), or keep them as missing (NaN) for the impute transform, which
// fills them from the training rows (Dataset::validate refuses a NaN that reaches the runs).
enum class NonFinite { error, zero, drop, keep };  // the choices' order
inline ParamSpec non_finite_param() {
  return ParamSpec::choice("non_finite", "error", {"error", "zero", "drop", "keep"},
                           "NaN, Inf, missing feature values or values beyond a 32-bit float's range: refuse the "
                           "file, read them as 0, drop their rows, or keep them as missing for the impute transform");
}
// A value a reader cannot store as it is, under `policy`: false under error (the reader then throws, naming the
// file and line); otherwise `value` becomes what is stored (0, or NaN under keep), and `drop_row` is set under drop.
inline bool accept_unusable(NonFinite policy, double& value, bool& drop_row) noexcept {
  switch (policy) {
    case NonFinite::error: return false;
    case NonFinite::zero: value = 0; return true;
    case NonFinite::drop: value = 0; drop_row = true; return true;
    case NonFinite::keep: value = std::numeric_limits<double>::quiet_NaN(); return true;
  }
  return false;
}
// The same, bound to the reader's field (ParamSpec::into).
template <class Reader>
ParamSpec non_finite_param(NonFinite Reader::*field) {
  return non_finite_param().into(field);
}

// How a reader of sparse text formats stores what it read.
inline ParamSpec layout_param() {
  return ParamSpec::choice("layout", "auto", {"auto", "dense", "sparse"},
                           "storage: auto is dense when at least half the entries are stored");
}
template <class Reader>
ParamSpec layout_param(std::string Reader::*field) {
  return layout_param().into(field);
}

// Rows' label texts and the lines they came from, for class assignment after the whole file is read.
struct RawLabels {
  std::vector<std::string> texts;
  std::vector<std::int64_t> lines;
  void add(std::string_view text, std::int64_t line) {
    texts.emplace_back(text);
    lines.push_back(line);
  }
};

// A problem found on a line by a parser that does not know the line's number in the file (parse_lines_in_parallel
// parses pieces of the file at once); it is reported as "FILE:LINE: what".
struct LineProblem {
  std::string what;
};

// What one piece of a file parsed into, and where the piece starts.
template <class Part>
struct ParsedPiece {
  Part part;
  std::int64_t lines_before = 0;  // lines of the file before this piece's first
};

// How parse_lines_in_parallel cuts a file: gzip files are inflated `block_bytes` at a time (a plain file is
// mapped whole), and each block is cut at line ends into pieces of about `piece_bytes`, parsed in parallel.
struct TextCuts {
  std::size_t block_bytes = std::size_t{64} << 20;
  std::size_t piece_bytes = std::size_t{4} << 20;
  std::int64_t skip_lines = 0;  // lines at the start counted but not parsed (a header read beforehand)
};

namespace detail {
// A plain regular file's bytes mapped read-only, or nothing (gzip-compressed, not a regular file, empty).
class MappedText {
 public:
  explicit MappedText(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;  // GzipInput reports it
    struct stat info {};
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
      void* bytes = ::mmap(nullptr, static_cast<std::size_t>(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (bytes != MAP_FAILED) {
        const auto* text = static_cast<const unsigned char*>(bytes);
        const bool gzip = info.st_size >= 2 && text[0] == 0x1f && text[1] == 0x8b;
        if (gzip) {
          ::munmap(bytes, static_cast<std::size_t>(info.st_size));
        } else {
          data_ = static_cast<const char*>(bytes);
          size_ = static_cast<std::size_t>(info.st_size);
        }
      }
    }
    ::close(fd);
  }
  ~MappedText() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedText(const MappedText&) = delete;
  MappedText& operator=(const MappedText&) = delete;
  [[nodiscard]] bool mapped() const { return data_ != nullptr; }
  [[nodiscard]] std::string_view text() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

// Pieces of `text` (which ends at a line end or at the file's end) of about `piece_bytes`, each ending at a line end.
inline std::vector<std::string_view> cut_at_line_ends(std::string_view text, std::size_t piece_bytes) {
  std::vector<std::string_view> pieces;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.size();
    if (text.size() - pos > piece_bytes) {
      const std::size_t newline = text.find('\n', pos + piece_bytes - 1);
      if (newline != std::string_view::npos) end = newline + 1;
    }
    pieces.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return pieces;
}
}  // namespace detail

// Parses a text file's lines in parallel pieces: parse(part, line_in_piece, line) for every line of a piece, in
// order, into that piece's own `Part` (lines as for_each_file_line gives them; line_in_piece counts from 1). The
// parts come back in file order with the lines before each, so a reader can merge them into exactly what a
// serial pass gives, whatever the cuts and thread count. A LineProblem thrown by parse is an Error naming the
// file and line (the first in the file, when several pieces have one).
template <class Part, class Parse>
std::vector<ParsedPiece<Part>> parse_lines_in_parallel(const std::filesystem::path& file, Parse&& parse,
                                                       const TextCuts& cuts = {}) {
  struct Piece {
    std::string_view text;
    Part part{};
    std::int64_t lines = 0;
    std::optional<LineProblem> problem;
  };
  std::vector<ParsedPiece<Part>> parsed;
  std::int64_t lines_before = 0, to_skip = cuts.skip_lines;
  const auto parse_block = [&](std::string_view block) {
    for (; to_skip > 0 && !block.empty(); --to_skip, ++lines_before)
      block.remove_prefix(std::min(block.find('\n'), block.size() - 1) + 1);
    std::vector<Piece> pieces;
    for (const auto text : detail::cut_at_line_ends(block, std::max<std::size_t>(cuts.piece_bytes, 1)))
      pieces.push_back(Piece{.text = text});
    tbb::parallel_for(std::size_t{0}, pieces.size(), [&](std::size_t i) {
      Piece& piece = pieces[i];
      if constexpr (requires { piece.part.reserve_for(piece.text.size()); }) piece.part.reserve_for(piece.text.size());
      const char* at = piece.text.data();
      const char* const end = at + piece.text.size();
      try {
        while (at < end) {
          const auto* newline = static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
          const char* line_end = newline ? newline : end;
          std::string_view line(at, static_cast<std::size_t>(line_end - at));
          if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
          parse(piece.part, ++piece.lines, line);
          at = newline ? newline + 1 : end;
        }
      } catch (LineProblem& problem) {
        piece.problem = std::move(problem);
      }
    });
    for (auto& piece : pieces) {
      if (piece.problem)
        throw Error(file.string() + ":" + std::to_string(lines_before + piece.lines), piece.problem->what);
      parsed.push_back({std::move(piece.part), lines_before});
      lines_before += piece.lines;
    }
  };
  if (const detail::MappedText mapped(file); mapped.mapped()) {
    parse_block(mapped.text());
    return parsed;
  }
  GzipInput in(file);
  std::vector<char> chunk(std::min<std::size_t>(cuts.block_bytes, std::size_t{1} << 20));
  std::string block;  // whole lines, and the start of the line the last read cut
  for (std::size_t got = in.read(chunk); got > 0; got = in.read(chunk)) {
    block.append(chunk.data(), got);
    if (block.size() < cuts.block_bytes) continue;
    const std::size_t whole = block.rfind('\n');
    if (whole == std::string::npos) continue;
    parse_block(std::string_view(block).substr(0, whole + 1));
    block.erase(0, whole + 1);
  }
  parse_block(block);
  return parsed;
}

struct Classes {
  std::vector<std::int32_t> labels;  // 0-based, one per row
  std::vector<std::string> names;    // K names
  std::string note;                  // how labels became classes, when not the identity on 1..K (for Dataset::notes)
};

// "a=1, b=2, c=3", or its first and last entries when there are many.
inline std::string class_mapping_text(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names.size() > 12 && i == 6) {
      text += ", ...";
      i = names.size() - 3;
    }
    text += (text.empty() ? "" : ", ") + names[i] + "=" + std::to_string(i + 1);
  }
  return text;
}

// num_classes == 0: the distinct labels, sorted (numerically when all are numbers, else as text), become
// classes 1..K, and Classes::note says how unless they were the integers 1..K already; a numeric label that is
// not an integer is refused at its line. num_classes == K > 0: labels must be the integers 1..K and keep their
// numbers; a class with no rows is noted.
inline Classes assign_classes(const RawLabels& raw, std::int64_t num_classes, const std::string& file) {
  Classes result;
  result.labels.resize(raw.texts.size());
  const auto refuse = [&](std::size_t i, const std::string& what) {
    throw Error(file + ":" + std::to_string(raw.lines[i]), "label " + raw.texts[i] + " " + what);
  };
  if (num_classes > 0) {
    std::vector<std::int64_t> rows(static_cast<std::size_t>(num_classes));
    for (std::size_t i = 0; i < raw.texts.size(); ++i) {
      double y = 0;
      if (!parse_number(raw.texts[i], y) || !std::isfinite(y)) refuse(i, "is not a number (num_classes wants 1..K)");
      if (y != std::floor(y))
        refuse(i, "is not an integer (num_classes wants the integers 1.." + std::to_string(num_classes) + ")");
      if (y < 1 || y > static_cast<double>(num_classes))
        refuse(i, "is outside 1.." + std::to_string(num_classes) + " (num_classes)");
      result.labels[i] = static_cast<std::int32_t>(y) - 1;
      ++rows[static_cast<std::size_t>(result.labels[i])];
    }
    for (std::int64_t k = 1; k <= num_classes; ++k) result.names.push_back(std::to_string(k));
    std::string empty;
    for (std::int64_t k = 1; k <= num_classes; ++k)
      if (rows[static_cast<std::size_t>(k - 1)] == 0) empty += (empty.empty() ? "" : ", ") + std::to_string(k);
    if (!empty.empty()) result.note = "class(es) " + empty + " of 1.." + std::to_string(num_classes) + " have no rows";
    return result;
  }
  // Numeric labels are ordered by value, with the text read exactly as the check read it (std::stod would
  // differ: it throws on what parse_number refuses or underflows).
  std::vector<double> numbers(raw.texts.size());
  bool numeric = true;
  for (std::size_t i = 0; numeric && i < raw.texts.size(); ++i)
    numeric = parse_number(raw.texts[i], numbers[i]) && std::isfinite(numbers[i]);
  if (numeric) {
    for (std::size_t i = 0; i < numbers.size(); ++i)
      if (numbers[i] != std::floor(numbers[i]))
        refuse(i, "is not an integer: numeric labels name classes (0-based, -1/+1 and any integers are mapped)");
    std::map<double, std::int32_t> classes;
    for (const double v : numbers) classes.emplace(v, 0);
    std::int32_t k = 0;
    bool identity = true;
    for (auto& [value, index] : classes) {
      index = k++;
      identity = identity && value == k;
      result.names.push_back(format_number(value));
    }
    for (std::size_t i = 0; i < raw.texts.size(); ++i) result.labels[i] = classes[numbers[i]];
    if (!identity)
      result.note =
          "labels mapped to classes 1.." + std::to_string(k) + " in sorted order: " + class_mapping_text(result.names);
  } else {
    std::map<std::string, std::int32_t> classes;
    for (const auto& t : raw.texts) classes.emplace(t, 0);
    std::int32_t k = 0;
    for (auto& [name, index] : classes) {
      index = k++;
      result.names.push_back(name);
    }
    for (std::size_t i = 0; i < raw.texts.size(); ++i) result.labels[i] = classes[raw.texts[i]];
    result.note = "text labels mapped to classes 1.." + std::to_string(k) +
                  " in sorted order: " + class_mapping_text(result.names);
  }
  return result;
}

// Gives the dataset the classes' names and the note of how they were assigned.
inline void take_class_names(Dataset& data, Classes& classes) {
  data.class_names = std::move(classes.names);
  if (!classes.note.empty()) data.notes.push_back(std::move(classes.note));
}

// A reader's rows in CSR form (sorted column indices) with their label texts: what one piece of a text file
// parses into (parse_lines_in_parallel), made one dataset by rows_to_dataset.
struct CsrRows {
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int32_t> indices;
  std::vector<Feature> values;
  RawLabels labels;

  // Room for the entries of `bytes` of text (at least 6 bytes each, as "1:0.5 "), reserved as address space:
  // pages never written are never touched, and the vectors do not copy themselves as they grow.
  void reserve_for(std::size_t bytes) {
    indices.reserve(bytes / 6 + 16);
    values.reserve(bytes / 6 + 16);
  }
  std::int64_t dropped = 0, first_dropped_line = 0;  // rows dropped (NonFinite::drop) and the first one's line

  void end_row(std::string_view label, std::int64_t line) {
    offsets.push_back(static_cast<std::int64_t>(values.size()));
    labels.add(label, line);
  }
  // Forgets the entries stored since the last end_row: the row on `line` is dropped.
  void drop_row(std::int64_t line) {
    indices.resize(static_cast<std::size_t>(offsets.back()));
    values.resize(static_cast<std::size_t>(offsets.back()));
    if (dropped++ == 0) first_dropped_line = line;
  }
  [[nodiscard]] std::size_t rows() const { return offsets.size() - 1; }
};

inline bool no_rows(const std::vector<ParsedPiece<CsrRows>>& pieces) {
  return std::all_of(pieces.begin(), pieces.end(), [](const auto& piece) { return piece.part.rows() == 0; });
}

// The note a reader adds when non_finite: drop dropped rows.
inline std::string dropped_rows_note(std::int64_t dropped, std::int64_t rows, const std::string& file,
                                     std::int64_t first_line) {
  return "non_finite: drop: dropped " + std::to_string(dropped) + " of " + std::to_string(rows) +
         " rows with a missing or non-finite value (the first at " + file + ":" + std::to_string(first_line) + ")";
}

// The pieces' rows in file order as one dataset of d columns, stored as `layout` (layout_param) says: auto is
// dense when at least half the entries are stored. Classes come from the label texts (assign_classes). The
// pieces are copied into place in parallel and emptied.
inline Dataset rows_to_dataset(std::vector<ParsedPiece<CsrRows>>& pieces, const std::string& layout, std::int32_t d,
                               std::int64_t num_classes, const std::string& file) {
  std::vector<std::int64_t> first_row{0}, first_entry{0};
  RawLabels labels;
  std::int64_t dropped = 0, first_dropped_line = 0;
  for (auto& piece : pieces) {
    CsrRows& part = piece.part;
    if (part.dropped > 0 && dropped == 0) first_dropped_line = piece.lines_before + part.first_dropped_line;
    dropped += part.dropped;
    first_row.push_back(first_row.back() + static_cast<std::int64_t>(part.rows()));
    first_entry.push_back(first_entry.back() + static_cast<std::int64_t>(part.values.size()));
    for (std::size_t r = 0; r < part.rows(); ++r) {
      labels.texts.push_back(std::move(part.labels.texts[r]));
      labels.lines.push_back(piece.lines_before + part.labels.lines[r]);
    }
    part.labels = RawLabels();
  }
  if (labels.texts.empty())
    throw Error(file, dropped > 0 ? "no data rows: every row had a missing or non-finite value (non_finite: drop)"
                                  : "no data rows");
  Classes classes = assign_classes(labels, num_classes, file);
  const std::int64_t n = first_row.back();
  const auto entries = static_cast<double>(first_entry.back());
  const bool dense = layout == "dense" || (layout == "auto" && 2 * entries >= static_cast<double>(n) * d);
  Dataset data;
  if (dense) {
    std::vector<Feature> matrix(static_cast<std::size_t>(n * d), 0.0f);
    tbb::parallel_for(std::size_t{0}, pieces.size(), [&](std::size_t p) {
      CsrRows& part = pieces[p].part;
      Feature* rows = matrix.data() + first_row[p] * d;
      for (std::size_t r = 0; r < part.rows(); ++r)
        for (auto e = part.offsets[r]; e < part.offsets[r + 1]; ++e)
          rows[static_cast<std::int64_t>(r) * d + part.indices[e]] = part.values[e];
      part = CsrRows();
    });
    data = Dataset::dense(n, d, std::move(matrix), std::move(classes.labels),
                          static_cast<std::int32_t>(classes.names.size()));
  } else {
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(n + 1));
    std::vector<std::int32_t> indices(static_cast<std::size_t>(first_entry.back()));
    std::vector<Feature> values(indices.size());
    tbb::parallel_for(std::size_t{0}, pieces.size(), [&](std::size_t p) {
      CsrRows& part = pieces[p].part;
      for (std::size_t r = 0; r < part.rows(); ++r)
        offsets[first_row[p] + r + 1] = first_entry[p] + part.offsets[r + 1];
      std::copy(part.indices.begin(), part.indices.end(), indices.begin() + first_entry[p]);
      std::copy(part.values.begin(), part.values.end(), values.begin() + first_entry[p]);
      part = CsrRows();
    });
    data = Dataset::sparse(d, std::move(offsets), std::move(indices), std::move(values), std::move(classes.labels),
                           static_cast<std::int32_t>(classes.names.size()));
  }
  take_class_names(data, classes);
  if (dropped > 0) data.notes.push_back(dropped_rows_note(dropped, n + dropped, file, first_dropped_line));
  return data;
}

}  // namespace glimpse::readers
