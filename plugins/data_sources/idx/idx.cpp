// IDX files as MNIST and Fashion-MNIST ship them: an images file (unsigned bytes, n x rows x cols) and a
// labels file (unsigned bytes, n), gzip-compressed or not. Pixels are read as their raw values 0..255.
#include <glimpse/glimpse.hpp>
#include <glimpse/readers/text_input.hpp>
#include <string>

namespace {

using glimpse::Error;
namespace readers = glimpse::readers;

struct IdxArray {
  std::vector<std::int64_t> shape;
  std::string bytes;  // the whole file; the data starts at `offset`
  std::size_t offset = 0;
};

IdxArray read_idx(const std::filesystem::path& file, std::size_t expected_dims) {
  IdxArray a;
  a.bytes = readers::read_whole_file(file);
  const auto& b = a.bytes;
  const std::string name = file.string();
  if (b.size() < 4 || b[0] != 0 || b[1] != 0)
    throw Error(name,
                "byte offset 0: expected the IDX magic number 0x0000TTDD, the file does not start with two zero bytes");
  if (static_cast<unsigned char>(b[2]) != 0x08)
    throw Error(name, "byte offset 2: expected data type 0x08 (unsigned byte), got 0x" +
                          std::to_string(static_cast<unsigned char>(b[2])));
  const std::size_t dims = static_cast<unsigned char>(b[3]);
  if (dims != expected_dims)
    throw Error(
        name, "byte offset 3: expected " + std::to_string(expected_dims) + " dimensions, got " + std::to_string(dims));
  if (b.size() < 4 + 4 * dims) throw Error(name, "the header is truncated");
  a.offset = 4 + 4 * dims;
  const auto available = static_cast<std::int64_t>(b.size() - a.offset);
  std::string shape_text;
  for (std::size_t i = 0; i < dims; ++i) {
    const auto* p = reinterpret_cast<const unsigned char*>(b.data() + 4 + 4 * i);
    a.shape.push_back((std::int64_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3]);
    shape_text += (i ? " x " : "") + std::to_string(a.shape.back());
  }
  // The product of the sizes, or -1 once it passes 2^63 (three sizes of up to 2^32 each can).
  std::int64_t count = 1;
  for (const std::int64_t size : a.shape)
    if (count >= 0 && __builtin_mul_overflow(count, size, &count)) count = -1;
  if (count != available)
    throw Error(name, "the header's sizes " + shape_text + " need " +
                          (count < 0 ? std::string("more") : std::to_string(count)) + " data bytes, the file has " +
                          std::to_string(available));
  return a;
}

class IdxSource final : public glimpse::DataSource {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "idx",
            .kind = glimpse::PluginKind::data_source,
            .summary = "reads an IDX images file and its labels file (MNIST, Fashion-MNIST; .gz or not)",
            .params = {
                glimpse::ParamSpec::path("images", "the images file (n x rows x cols bytes)")
                    .mandatory()
                    .into(&IdxSource::images_),
                glimpse::ParamSpec::path("labels", "the labels file (n bytes)").mandatory().into(&IdxSource::labels_)}};
  }

  glimpse::Dataset load() override {
    const auto &images_file = images_, &labels_file = labels_;
    const IdxArray images = read_idx(images_file, 3);
    const IdxArray labels = read_idx(labels_file, 1);
    const std::int64_t n = images.shape[0];
    if (labels.shape[0] != n)
      throw Error(labels_file.string(), "holds " + std::to_string(labels.shape[0]) + " labels, but " +
                                            images_file.string() + " holds " + std::to_string(n) + " images");
    if (n == 0) throw Error(images_file.string(), "holds no images");
    const std::int64_t d = images.shape[1] * images.shape[2];  // at most the file's size, as n >= 1
    std::vector<glimpse::Feature> values(static_cast<std::size_t>(n * d));
    const auto* pixels = reinterpret_cast<const unsigned char*>(images.bytes.data() + images.offset);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = pixels[i];
    readers::RawLabels raw;
    const auto* y = reinterpret_cast<const unsigned char*>(labels.bytes.data() + labels.offset);
    for (std::int64_t i = 0; i < n; ++i) raw.add(std::to_string(y[i]), i + 1);
    auto classes = readers::assign_classes(raw, 0, labels_file.string());
    auto data = glimpse::Dataset::dense(n, static_cast<std::int32_t>(d), std::move(values), std::move(classes.labels),
                                        static_cast<std::int32_t>(classes.names.size()));
    readers::take_class_names(data, classes);
    return data;
  }

 private:
  std::filesystem::path images_, labels_;
};

}  // namespace

GLIMPSE_PLUGIN(IdxSource)
