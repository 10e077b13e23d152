// The installed datasets (`glimpse datasets install NAME`): a protocol's {"name": "vehicle"} entry is this source with
// dataset = vehicle. Dense rows are mapped from the file where they lie (glimpse/dataset_file.hpp), so loading copies
// nothing and the prepared cache keeps no second copy.
#include <glimpse/dataset_file.hpp>
#include <glimpse/glimpse.hpp>

namespace {

class Installed final : public glimpse::DataSource {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "installed",
            .kind = glimpse::PluginKind::data_source,
            .summary = "a dataset installed with `glimpse datasets install` (a protocol's {\"name\": NAME} entry)",
            .params = {glimpse::ParamSpec::text("dataset", "", "the installed dataset's name (glimpse datasets list)")
                           .mandatory()
                           .into(&Installed::dataset_)},
            .serves_dataset_names = true};
  }

  glimpse::Dataset load() override { return glimpse::load_cached_dataset(dataset_, ""); }
  // Reinstalling rewrites the file: a prepared cache entry made from the old one must miss.
  std::string identity() const override { return glimpse::file_identity(glimpse::cached_dataset_file(dataset_)); }
  bool loads_prepared_file() const override { return true; }

 private:
  std::string dataset_;
};

}  // namespace

GLIMPSE_PLUGIN(Installed)
