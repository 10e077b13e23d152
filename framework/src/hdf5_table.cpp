// Writing tables (compound datasets: /summary, /curve_summary); presentation/trace_reading.cpp reads them.
#include <hdf5.h>

#include <cstring>

#include "hdf5.hpp"
#include "hdf5_checks.hpp"

namespace glimpse::h5 {
using detail::check;
using detail::check_status;
using detail::string_type;

namespace {
// Every cell is 8 bytes: an int64, a double, or a char* (variable-length strings).
constexpr std::size_t cell_size = 8;
static_assert(sizeof(char*) == cell_size);
}  // namespace

void write_table_rows(const Handle& parent, const std::string& name, const std::vector<TableColumn>& columns,
                      const void* rows, std::size_t count) {
  const Handle text_type = string_type();
  const Handle memory_type(check(H5Tcreate(H5T_COMPOUND, cell_size * columns.size()), "creating a table type"));
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const hid_t type = columns[i].type == TableColumn::Type::text      ? text_type.id()
                       : columns[i].type == TableColumn::Type::integer ? H5T_NATIVE_INT64
                                                                       : H5T_NATIVE_DOUBLE;
    check_status(H5Tinsert(memory_type.id(), columns[i].name.c_str(), i * cell_size, type),
                 "adding table column '" + columns[i].name + "'");
  }
  const hsize_t size = count;
  const Handle space(check(H5Screate_simple(1, &size, nullptr), "creating a dataspace"));
  const Handle dataset(
      check(H5Dcreate2(parent.id(), name.c_str(), memory_type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            "creating table '" + name + "'"));
  // On file a text cell is a 16-byte heap reference, twice its 8 bytes in memory.
  const Handle transfer = detail::conversion_transfer(count, 2 * cell_size * columns.size());
  if (count > 0)
    check_status(H5Dwrite(dataset.id(), memory_type.id(), H5S_ALL, H5S_ALL, transfer.id(), rows),
                 "writing table '" + name + "'");
}

void write_table(const Handle& parent, const std::string& name, const std::vector<TableColumn>& columns,
                 std::size_t rows) {
  const std::size_t row_size = cell_size * columns.size();
  std::vector<unsigned char> buffer(row_size * rows);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      unsigned char* cell = buffer.data() + r * row_size + i * cell_size;
      const auto& c = columns[i];
      if (c.type == TableColumn::Type::text) {
        const char* text = c.texts[r].c_str();
        std::memcpy(cell, &text, sizeof text);
      } else if (c.type == TableColumn::Type::integer) {
        std::memcpy(cell, &c.integers[r], cell_size);
      } else {
        std::memcpy(cell, &c.reals[r], cell_size);
      }
    }
  }
  write_table_rows(parent, name, columns, buffer.data(), rows);
}

}  // namespace glimpse::h5
