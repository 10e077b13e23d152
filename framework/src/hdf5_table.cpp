// Tables (compound datasets: /summary, /curve_summary, /selection) and their columns.
#include <hdf5.h>

#include <cstring>
#include <optional>

#include "glimpse/error.hpp"
#include "hdf5.hpp"
#include "hdf5_checks.hpp"

namespace glimpse::h5 {
using detail::check;
using detail::check_status;
using detail::string_type;

void write_table(const Handle& parent, const std::string& name, const std::vector<TableColumn>& columns,
                 std::size_t rows) {
  // Row layout: each column at a fixed offset; strings as char* (variable length).
  std::vector<std::size_t> offsets;
  std::size_t row_size = 0;
  for (const auto& c : columns) {
    offsets.push_back(row_size);
    row_size += c.type == TableColumn::Type::text ? sizeof(char*) : 8;
  }
  const Handle text_type = string_type();
  const Handle memory_type(check(H5Tcreate(H5T_COMPOUND, row_size), "creating a table type"));
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const hid_t type = columns[i].type == TableColumn::Type::text      ? text_type.id()
                       : columns[i].type == TableColumn::Type::integer ? H5T_NATIVE_INT64
                                                                       : H5T_NATIVE_DOUBLE;
    check_status(H5Tinsert(memory_type.id(), columns[i].name.c_str(), offsets[i], type),
                 "adding table column '" + columns[i].name + "'");
  }
  std::vector<unsigned char> buffer(row_size * rows);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      unsigned char* cell = buffer.data() + r * row_size + offsets[i];
      const auto& c = columns[i];
      if (c.type == TableColumn::Type::text) {
        const char* text = c.texts[r].c_str();
        std::memcpy(cell, &text, sizeof text);
      } else if (c.type == TableColumn::Type::integer) {
        std::memcpy(cell, &c.integers[r], 8);
      } else {
        std::memcpy(cell, &c.reals[r], 8);
      }
    }
  }
  const hsize_t size = rows;
  const Handle space(check(H5Screate_simple(1, &size, nullptr), "creating a dataspace"));
  const Handle dataset(
      check(H5Dcreate2(parent.id(), name.c_str(), memory_type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            "creating table '" + name + "'"));
  if (rows > 0)
    check_status(H5Dwrite(dataset.id(), memory_type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()),
                 "writing table '" + name + "'");
}

TableColumn read_table_column(const Handle& parent, const std::string& table, const std::string& column,
                              TableColumn::Type type) {
  const Handle dataset(check(H5Dopen2(parent.id(), table.c_str(), H5P_DEFAULT), "opening table '" + table + "'"));
  const Handle space(check(H5Dget_space(dataset.id()), "reading the size of table '" + table + "'"));
  const auto rows = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.id()));
  // A compound memory type holding just this member: HDF5 reads the matching field of every row.
  const Handle text_type = string_type();
  const std::size_t size = type == TableColumn::Type::text ? sizeof(char*) : 8;
  const Handle memory_type(check(H5Tcreate(H5T_COMPOUND, size), "creating a table type"));
  const hid_t member = type == TableColumn::Type::text      ? text_type.id()
                       : type == TableColumn::Type::integer ? H5T_NATIVE_INT64
                                                            : H5T_NATIVE_DOUBLE;
  check_status(H5Tinsert(memory_type.id(), column.c_str(), 0, member), "adding table column '" + column + "'");
  TableColumn result{type, column, {}, {}, {}};
  if (rows == 0) return result;
  if (type == TableColumn::Type::text) {
    std::vector<char*> texts(rows, nullptr);
    check_status(H5Dread(dataset.id(), memory_type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()),
                 "reading column '" + column + "' of table '" + table + "'");
    for (const char* text : texts) result.texts.emplace_back(text ? text : "");
    H5Dvlen_reclaim(memory_type.id(), space.id(), H5P_DEFAULT, texts.data());
  } else if (type == TableColumn::Type::integer) {
    result.integers.resize(rows);
    check_status(H5Dread(dataset.id(), memory_type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, result.integers.data()),
                 "reading column '" + column + "' of table '" + table + "'");
  } else {
    result.reals.resize(rows);
    check_status(H5Dread(dataset.id(), memory_type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, result.reals.data()),
                 "reading column '" + column + "' of table '" + table + "'");
  }
  return result;
}

namespace {
// The table column type that holds an HDF5 type class; nullopt for classes no table of ours uses.
std::optional<TableColumn::Type> column_type(H5T_class_t type_class) {
  switch (type_class) {
    case H5T_STRING:
      return TableColumn::Type::text;
    case H5T_INTEGER:
      return TableColumn::Type::integer;
    case H5T_FLOAT:
      return TableColumn::Type::real;
    default:
      return std::nullopt;
  }
}
}  // namespace

std::vector<TableColumn> read_table(const Handle& parent, const std::string& table) {
  const Handle dataset(check(H5Dopen2(parent.id(), table.c_str(), H5P_DEFAULT), "opening table '" + table + "'"));
  const Handle type(check(H5Dget_type(dataset.id()), "reading the type of table '" + table + "'"));
  if (H5Tget_class(type.id()) != H5T_COMPOUND) throw Error("HDF5: '" + table + "' is not a table");
  std::vector<TableColumn> columns;
  const int members = H5Tget_nmembers(type.id());
  for (int i = 0; i < members; ++i) {
    char* raw_name = H5Tget_member_name(type.id(), static_cast<unsigned>(i));
    const std::string name = raw_name ? raw_name : "";
    H5free_memory(raw_name);
    const auto kind = column_type(H5Tget_member_class(type.id(), static_cast<unsigned>(i)));
    if (!kind) throw Error("HDF5: column '" + name + "' of table '" + table + "' is not text or a number");
    columns.push_back(read_table_column(parent, table, name, *kind));
  }
  return columns;
}

TableColumn read_column(const Handle& parent, const std::string& name) {
  const Handle dataset(check(H5Dopen2(parent.id(), name.c_str(), H5P_DEFAULT), "opening dataset '" + name + "'"));
  const Handle type(check(H5Dget_type(dataset.id()), "reading the type of '" + name + "'"));
  const auto kind = column_type(H5Tget_class(type.id()));
  if (kind == TableColumn::Type::integer) return {*kind, name, {}, read_vector<std::int64_t>(parent, name), {}};
  if (kind == TableColumn::Type::real) return {*kind, name, {}, {}, read_vector<double>(parent, name)};
  throw Error("HDF5: dataset '" + name + "' is not numeric");
}

}  // namespace glimpse::h5
