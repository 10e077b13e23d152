// The HDF5 wrapper's own error checks, shared by its files (hdf5*.cpp) and presentation/trace_reading.cpp, which
// reads the tables back: not for other callers.
#pragma once

#include <hdf5.h>

#include <string>

#include "hdf5.hpp"

namespace glimpse::h5::detail {

// `id`, or an Error "HDF5: what (HDF5's own error stack)" when the call that made it failed.
hid_t check(hid_t id, const std::string& what);
// The same for a call on an object of a file (`location`): the Error then names that file, so a damaged trace is
// named ("HDF5: opening group 'runs/000011' in runs/x.h5 (...)").
hid_t check_in(hid_t id, hid_t location, const std::string& what);
void check_status(herr_t status, const std::string& what);
// The variable-length UTF-8 string type of every text attribute, dataset and table column.
Handle string_type();
// Transfer properties for writing `elements` values of at most `element_bytes` each (memory or file type) that HDF5
// converts, such as variable-length text: a conversion buffer that fits them, where the default is 1 MiB, allocated
// and zero-filled on every such write (a tenth of a small run's time).
Handle conversion_transfer(std::size_t elements, std::size_t element_bytes);

}  // namespace glimpse::h5::detail
