// Deterministic random streams keyed by meaning (seed, dataset, purpose), never by thread.
//
// Engines and transforms are written here rather than taken from <random>, whose distributions are
// not specified bit for bit: traces must match across standard libraries.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>

namespace glimpse {

__extension__ using Uint128 = unsigned __int128;  // for Lemire's bounded draw

// SplitMix64 finaliser: a bijective mixer with good avalanche.
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Combines a key with one more component; order matters: key(a, b) != key(b, a).
constexpr std::uint64_t derive_key(std::uint64_t key, std::uint64_t component) noexcept {
  return mix64(key ^ mix64(component + 0x632be59bd9b4e019ULL));
}

// Stable 64-bit hash of a name (FNV-1a, then mixed), for keys derived from strings.
constexpr std::uint64_t hash_name(std::string_view text) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return mix64(h);
}

// xoshiro256++ seeded through SplitMix64. Cheap to construct, so a stream per (key, round) is fine.
class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) noexcept { reseed(seed); }

  void reseed(std::uint64_t seed) noexcept {
    for (auto& word : state_) {
      seed += 0x9e3779b97f4a7c15ULL;
      word = mix64(seed);
    }
  }

  std::uint64_t next() noexcept {
    const std::uint64_t result = rotl(state_[0] + state_[3], 23) + state_[0];
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n), n > 0, without modulo bias (Lemire's multiply-and-reject).
  std::uint64_t below(std::uint64_t n) noexcept {
    Uint128 m = static_cast<Uint128>(next()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<Uint128>(next()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  // Standard normal by the Box-Muller transform; two uniforms per call, no cached state.
  double normal() noexcept {
    const double u1 = 1.0 - uniform();  // in (0, 1]: log is finite
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  // Samples an index from a probability vector: the smallest k with p_0 + ... + p_k > u, u ~ U[0,1);
  // the last index when rounding leaves none. One uniform per call.
  int sample(std::span<const double> probabilities) noexcept {
    const double u = uniform();
    double cumulative = 0.0;
    for (std::size_t k = 0; k < probabilities.size(); ++k) {
      cumulative += probabilities[k];
      if (cumulative > u) return static_cast<int>(k);
    }
    return static_cast<int>(probabilities.size()) - 1;
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4]{};
};

}  // namespace glimpse
