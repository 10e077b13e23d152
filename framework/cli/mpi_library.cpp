// Loading the MPI dispatcher's library (mpi_dispatcher.cpp) when a run asks for --mpi.
#include <dlfcn.h>

#include "glimpse/error.hpp"
#include "mpi_dispatcher.hpp"

namespace glimpse {

#ifndef GLIMPSE_WITH_MPI

bool mpi_available() noexcept { return false; }

std::unique_ptr<RunDispatcher> make_mpi_dispatcher() {
  throw Error("--mpi",
              "this glimpse was built without MPI; install Open MPI (Debian: libopenmpi-dev openmpi-bin) and "
              "rebuild, or use --shard to split the sweep among processes");
}

#else

bool mpi_available() noexcept { return true; }

std::unique_ptr<RunDispatcher> make_mpi_dispatcher() {
  // By its soname, found through the CLI's own RUNPATH ($ORIGIN/../lib), in the build tree as installed. Global, so
  // the components Open MPI loads itself see libmpi's symbols. Never unloaded, as plugins are not.
  const char* library = "libglimpse_mpi.so." GLIMPSE_MPI_SOVERSION;
  void* handle = dlopen(library, RTLD_NOW | RTLD_GLOBAL);
  if (!handle) throw Error("--mpi", std::string("cannot load MPI support: ") + dlerror());
  using Make = RunDispatcher* (*)();
  const auto make = reinterpret_cast<Make>(dlsym(handle, "glimpse_mpi_dispatcher_new"));
  if (!make) throw Error("--mpi", std::string(library) + " lacks glimpse_mpi_dispatcher_new: " + dlerror());
  return std::unique_ptr<RunDispatcher>(make());
}

#endif

}  // namespace glimpse
