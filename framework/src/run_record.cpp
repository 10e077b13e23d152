// RoundColumn's storage (run_record.hpp).
#include "run_record.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <new>
#include <type_traits>

#include "glimpse/error.hpp"

namespace glimpse {

RoundColumn& RoundColumn::operator=(const RoundColumn& other) {
  if (this == &other) return *this;
  allocate(0, 0);
  size_ = other.size_;
  width_ = other.width_;
  is_signed_ = other.is_signed_;
  if (size_ > 0) {
    const auto bytes = static_cast<std::size_t>(size_) * width_;
    bytes_.reset(static_cast<std::byte*>(std::malloc(bytes)));
    if (!bytes_) throw std::bad_alloc();
    std::memcpy(bytes_.get(), other.bytes_.get(), bytes);
  }
  return *this;
}

void RoundColumn::allocate(std::int64_t size, std::int64_t bound, bool is_signed) {
  is_signed_ = is_signed;
  width_ = !is_signed || bound <= INT8_MAX ? 1 : bound <= INT16_MAX ? 2 : bound <= INT32_MAX ? 4 : 8;
  size_ = size;
  bytes_.reset(size > 0 ? static_cast<std::byte*>(std::malloc(static_cast<std::size_t>(size) * width_)) : nullptr);
  if (size > 0 && !bytes_) throw std::bad_alloc();
}

namespace {
constexpr char record_magic[4] = {'G', 'R', 'U', 'N'};
constexpr std::uint32_t record_format = 1;
static_assert(std::endian::native == std::endian::little);  // the format is little-endian

// The per-round columns in the order the format stores them.
template <class Record>
auto round_columns(Record& r) {
  return std::array{&r.y, &r.predicted, &r.proposed, &r.row, &r.correct, &r.queried};
}

struct Writer {
  std::vector<char>& out;
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* bytes = reinterpret_cast<const char*>(&value);
    out.insert(out.end(), bytes, bytes + sizeof value);
  }
  template <class T>
  void put_all(const std::vector<T>& values) {
    put(static_cast<std::uint64_t>(values.size()));
    const auto* bytes = reinterpret_cast<const char*>(values.data());
    out.insert(out.end(), bytes, bytes + values.size() * sizeof(T));
  }
  void put(const std::string& text) {
    put(static_cast<std::uint64_t>(text.size()));
    out.insert(out.end(), text.begin(), text.end());
  }
};

struct Reader {
  std::span<const char> in;
  const std::string& where;
  std::size_t at = 0;
  std::span<const char> take(std::uint64_t bytes) {
    if (bytes > in.size() - at) throw Error(where, "a run's record is cut short or not a run record");
    const auto piece = in.subspan(at, bytes);
    at += bytes;
    return piece;
  }
  template <class T>
  T get() {
    T value;
    std::memcpy(&value, take(sizeof value).data(), sizeof value);
    return value;
  }
  template <class T>
  std::vector<T> get_all() {
    const auto count = get<std::uint64_t>();
    if (count > in.size() / sizeof(T)) throw Error(where, "a run's record is cut short or not a run record");
    const auto bytes = take(count * sizeof(T));
    std::vector<T> values(count);
    if (count > 0) std::memcpy(values.data(), bytes.data(), bytes.size());  // (an empty vector's data() may be null)
    return values;
  }
  std::string text() {
    const auto bytes = take(get<std::uint64_t>());
    return {bytes.begin(), bytes.end()};
  }
};
}  // namespace

EncodedRunRecord encode_run_record(const RunRecord& r) {
  EncodedRunRecord encoded;
  Writer w{encoded.head};
  encoded.head.insert(encoded.head.end(), std::begin(record_magic), std::end(record_magic));
  w.put(record_format);
  for (const std::string* text : {&r.id, &r.dataset, &r.dataset_variant, &r.learner, &r.label, &r.learner_version,
                                  &r.params_json, &r.oracle, &r.oracle_params, &r.query_rule, &r.query_rule_params,
                                  &r.dataset_notes, &r.error})
    w.put(*text);
  w.put(r.index);
  w.put(r.learner_revision);
  w.put(r.seed);
  w.put(r.grid_point);
  w.put(r.rounds);
  w.put(r.seconds);
  w.put(r.peak_rss_mb);
  w.put(r.failed_round);
  w.put(static_cast<std::uint64_t>(r.scalars.size()));
  for (const auto& s : r.scalars) w.put(s.name), w.put(s.value);
  w.put(static_cast<std::uint64_t>(r.curves.size()));
  for (const auto& c : r.curves) w.put(c.name), w.put_all(c.rounds), w.put_all(c.values);
  w.put(static_cast<std::uint64_t>(r.matrices.size()));
  for (const auto& m : r.matrices) w.put(m.name), w.put(m.rows), w.put(m.cols), w.put_all(m.values);
  for (const RoundColumn* c : round_columns(r)) {
    w.put(static_cast<std::uint8_t>(c->width()));
    w.put(static_cast<std::uint8_t>(c->is_signed()));
    w.put(c->size());
  }
  encoded.all.push_back(encoded.head);
  for (const RoundColumn* c : round_columns(r))
    if (!c->empty())
      encoded.all.push_back({reinterpret_cast<const char*>(c->data()),
                             static_cast<std::size_t>(c->size()) * c->width()});
  return encoded;
}

RunRecord decode_run_record(std::span<const char> bytes, const std::string& where) {
  Reader in{bytes, where};
  const auto magic = in.take(sizeof record_magic);
  if (std::memcmp(magic.data(), record_magic, sizeof record_magic) != 0 || in.get<std::uint32_t>() != record_format)
    throw Error(where, "holds a run in a format this glimpse does not read (another version wrote it); rerun with "
                       "--force to start afresh");
  RunRecord r;
  for (std::string* text : {&r.id, &r.dataset, &r.dataset_variant, &r.learner, &r.label, &r.learner_version,
                            &r.params_json, &r.oracle, &r.oracle_params, &r.query_rule, &r.query_rule_params,
                            &r.dataset_notes, &r.error})
    *text = in.text();
  r.index = in.get<std::int64_t>();
  r.learner_revision = in.get<std::uint32_t>();
  r.seed = in.get<std::uint64_t>();
  r.grid_point = in.get<std::int64_t>();
  r.rounds = in.get<std::int64_t>();
  r.seconds = in.get<double>();
  r.peak_rss_mb = in.get<double>();
  r.failed_round = in.get<std::int64_t>();
  const auto count = [&] {
    const auto n = in.get<std::uint64_t>();
    if (n > bytes.size()) throw Error(where, "a run's record is cut short or not a run record");
    return n;
  };
  r.scalars.resize(count());
  for (auto& s : r.scalars) s.name = in.text(), s.value = in.get<double>();
  r.curves.resize(count());
  for (auto& c : r.curves) c.name = in.text(), c.rounds = in.get_all<std::int64_t>(), c.values = in.get_all<double>();
  r.matrices.resize(count());
  for (auto& m : r.matrices)
    m.name = in.text(), m.rows = in.get<std::int64_t>(), m.cols = in.get<std::int64_t>(),
    m.values = in.get_all<double>();
  struct Shape {
    std::uint8_t width, is_signed;
    std::int64_t size;
  };
  std::array<Shape, 6> shapes{};
  for (auto& shape : shapes) {
    shape.width = in.get<std::uint8_t>();
    shape.is_signed = in.get<std::uint8_t>();
    shape.size = in.get<std::int64_t>();
    if ((shape.width != 1 && shape.width != 2 && shape.width != 4 && shape.width != 8) || shape.size < 0 ||
        static_cast<std::uint64_t>(shape.size) > bytes.size())
      throw Error(where, "a run's record is cut short or not a run record");
  }
  const auto columns = round_columns(r);
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const Shape& shape = shapes[i];
    // A width's bound: allocate() picks the width from it.
    const std::int64_t bound = shape.width == 1 ? (shape.is_signed ? INT8_MAX : UINT8_MAX)
                               : shape.width == 2 ? INT16_MAX
                               : shape.width == 4 ? INT32_MAX
                                                  : INT64_MAX;
    columns[i]->allocate(shape.size, bound, shape.is_signed != 0);
    if (shape.size == 0) continue;
    const auto stored = in.take(static_cast<std::uint64_t>(shape.size) * shape.width);
    std::memcpy(columns[i]->data(), stored.data(), stored.size());
  }
  if (in.at != bytes.size()) throw Error(where, "a run's record has bytes after its end: not a run record");
  return r;
}

}  // namespace glimpse
