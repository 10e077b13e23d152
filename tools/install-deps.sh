#!/usr/bin/env bash
# Installs the Debian 12 packages glimpse needs, only those missing (idempotent; no network when none is).
set -euo pipefail
packages=(cmake g++ make libboost-dev libboost-filesystem-dev libboost-program-options-dev libeigen3-dev
          libtbb-dev libhdf5-dev zlib1g-dev libgtest-dev libbenchmark-dev hdf5-tools libopenmpi-dev openmpi-bin
          clang-14 libclang-rt-14-dev llvm-14 python3-h5py python3-matplotlib python3-pandas python3-scipy
          r-cran-hdf5r pybind11-dev python3-dev python3-numpy)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo > /dev/null || { echo "need root (or sudo) to apt-get install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
