// The IDX reader on hand-made files, plain and gzipped, and on malformed headers.
#include <zlib.h>

#include <fstream>
#include <glimpse/testing_gtest.hpp>

namespace glimpse::testing {
namespace {

std::string idx_bytes(std::vector<std::uint32_t> shape, const std::vector<unsigned char>& data) {
  std::string b{0, 0, 0x08, static_cast<char>(shape.size())};
  for (auto s : shape)
    for (int shift : {24, 16, 8, 0}) b += static_cast<char>((s >> shift) & 0xff);
  b.append(data.begin(), data.end());
  return b;
}

class Idx : public ::testing::Test {
 protected:
  TempDir dir;
  void write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir.path() / name, std::ios::binary) << bytes;
  }
  void write_gz(const std::string& name, const std::string& bytes) {
    gzFile f = gzopen((dir.path() / name).c_str(), "wb");
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
  }
  Dataset load(const std::string& images, const std::string& labels) {
    return make<DataSource>("idx",
                            {{"images", (dir.path() / images).string()}, {"labels", (dir.path() / labels).string()}})
        ->load();
  }
};

TEST_F(Idx, ReadsImagesAndLabelsPlainOrGzipped) {
  write("img", idx_bytes({3, 2, 2}, {0, 1, 2, 3, 10, 11, 12, 13, 255, 0, 0, 0}));
  write_gz("lab.gz", idx_bytes({3}, {7, 2, 7}));
  const Dataset d = load("img", "lab.gz");
  EXPECT_EQ(d.size(), 3);
  EXPECT_EQ(d.dim(), 4);
  EXPECT_EQ(d.class_names, (std::vector<std::string>{"2", "7"}));
  EXPECT_EQ(d.label(0), 1);
  EXPECT_EQ(std::vector<float>(d.row(1).values, d.row(1).values + 4), (std::vector<float>{10, 11, 12, 13}));
  EXPECT_EQ(d.row(2).values[0], 255.0f);
}

TEST_F(Idx, MalformedFilesAreRefusedWithTheByteOffset) {
  write("lab", idx_bytes({2}, {1, 2}));
  write("wrongmagic", std::string("\x01\x00\x08\x03", 4) + std::string(12, '\0'));
  EXPECT_EQ(
      error_of([&] { load("wrongmagic", "lab"); }),
      (dir.path() / "wrongmagic").string() +
          ": byte offset 0: expected the IDX magic number 0x0000TTDD, the file does not start with two zero bytes");
  write("dims", idx_bytes({2, 1}, {1, 2}));
  EXPECT_EQ(error_of([&] { load("dims", "lab"); }),
            (dir.path() / "dims").string() + ": byte offset 3: expected 3 dimensions, got 2");
  write("short", idx_bytes({2, 2, 2}, {1, 2, 3}));
  EXPECT_EQ(error_of([&] { load("short", "lab"); }),
            (dir.path() / "short").string() + ": the header's sizes 2 x 2 x 2 need 8 data bytes, the file has 3");
  // Found by fuzzing: sizes whose product passes 2^63 (formerly a signed overflow).
  write("huge", idx_bytes({0xfdfdffff, 0x01003200, 0x00000101}, {1, 2}));
  EXPECT_EQ(error_of([&] { load("huge", "lab"); }),
            (dir.path() / "huge").string() +
                ": the header's sizes 4261281791 x 16790016 x 257 need more data bytes, the file has 2");
  write("none", idx_bytes({0, 70000, 70000}, {}));
  write("nolabels", idx_bytes({0}, {}));
  EXPECT_EQ(error_of([&] { load("none", "nolabels"); }), (dir.path() / "none").string() + ": holds no images");
  write("img", idx_bytes({3, 1, 1}, {1, 2, 3}));
  EXPECT_EQ(error_of([&] { load("img", "lab"); }), (dir.path() / "lab").string() + ": holds 2 labels, but " +
                                                       (dir.path() / "img").string() + " holds 3 images");
}

}  // namespace
}  // namespace glimpse::testing
