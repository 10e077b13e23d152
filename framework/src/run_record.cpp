// RoundColumn's storage (run_record.hpp).
#include "run_record.hpp"

#include <cstring>
#include <new>

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

}  // namespace glimpse
