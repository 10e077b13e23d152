// Dataset catalog parsing and installation.
#include "dataset_catalog.hpp"

#include <unistd.h>

#include <algorithm>
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>

#include "embedded_catalog.hpp"
#include "file_lock.hpp"
#include "glimpse/dataset_file.hpp"
#include "glimpse/error.hpp"
#include "glimpse/interfaces.hpp"
#include "installed_datasets.hpp"
#include "param_resolution.hpp"

namespace glimpse {
namespace fs = std::filesystem;
namespace pt = boost::property_tree;

namespace {

// Converts one data frame of an .rda file to CSV: the label (a factor) first as its 1-based level code,
// the features after it (factors written as their level text); the levels go to a second file.
constexpr const char* rda_to_csv_script = R"py(
import sys, warnings
warnings.simplefilter("ignore")
import rdata
path, name, label, out_csv, out_levels = sys.argv[1:6]
frames = rdata.conversion.convert(rdata.parser.parse_file(path))
if name not in frames:
    sys.exit(f"{path}: no object '{name}' (has: {', '.join(frames)})")
df = frames[name]
if label not in df.columns:
    sys.exit(f"{path}: {name} has no column '{label}' (has: {', '.join(map(str, df.columns))})")
y = df[label]
if str(y.dtype) != "category":
    sys.exit(f"{path}: {name}.{label} is not a factor")
features = df.drop(columns=[label])
for c in features.columns:
    if str(features[c].dtype) == "category":
        features[c] = features[c].astype(str)
features.insert(0, "__class__", y.cat.codes + 1)
features.to_csv(out_csv, index=False)
with open(out_levels, "w") as f:
    f.write("\n".join(map(str, y.cat.categories)))
)py";

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command, its output to `log_file`; returns whether it succeeded.
bool run(const std::string& command, const fs::path& log_file) {
  const std::string full = command + " >> " + shell_quote(log_file.string()) + " 2>&1";
  return std::system(full.c_str()) == 0;
}

// Runs `apt-get ARGUMENTS` (as root: it installs or updates). apt takes its locks without waiting, so two glimpse
// processes installing at once (ctest -j, two terminals) made one fail: one glimpse process runs apt at a time,
// and apt waits up to ten minutes for dpkg's lock when another program holds it.
bool run_apt(const std::string& arguments, const fs::path& log_file) {
  const fs::path lock_folder = fs::is_directory("/run/lock") ? fs::path("/run/lock") : fs::temp_directory_path();
  const FileLock lock(lock_folder / "glimpse-apt.lock", FileLock::Mode::wait);
  return run("DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 " + arguments, log_file);
}

// Runs a shell command and returns its standard output, trailing blanks removed.
std::string capture(const std::string& command) {
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
    ::pclose(pipe);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string read_text_file(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string tail(const fs::path& log_file) {
  const std::string text = read_text_file(log_file);
  return text.size() > 2000 ? "..." + text.substr(text.size() - 2000) : text;
}

class TempFolder {
 public:
  TempFolder() {
    std::string pattern = (fs::temp_directory_path() / "glimpse-datasets-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw Error("cannot create a temporary folder");
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The folder under which the package's files are: "/" when the package is installed in the right version,
// else <cache>/packages/<package> (downloaded and extracted once). Returns the package version found.
std::string provide_package(const CatalogEntry& e, fs::path& root, const fs::path& log_file, std::ostream& log) {
  const bool installed_here = std::all_of(e.files.begin(), e.files.end(), [](const auto& f) { return fs::exists(f); });
  if (installed_here) {
    root = "/";
    return capture("dpkg-query -W -f='${Version}' " + shell_quote(e.package) + " 2>/dev/null");
  }
  root = dataset_cache_dir() / "packages" / e.package;
  const fs::path version_file = root / ".version";
  if (!fs::exists(version_file)) {
    TempFolder download;
    log << "  downloading Debian package " << e.package << "\n";
    const std::string fetch =
        "cd " + shell_quote(download.path().string()) + " && apt-get download " + shell_quote(e.package);
    if (!run(fetch, log_file)) {
      // A fresh machine may have no package lists yet.
      if (::geteuid() != 0 || !run_apt("update -qq", log_file) || !run(fetch, log_file))
        throw Error("dataset '" + e.name + "'", "cannot download Debian package " + e.package +
                                                    (::geteuid() != 0 ? " (as root, run apt-get update first)" : "") +
                                                    ":\n" + tail(log_file));
    }
    fs::path deb;
    for (const auto& item : fs::directory_iterator(download.path()))
      if (item.path().extension() == ".deb") deb = item.path();
    fs::remove_all(root);
    fs::create_directories(root);
    if (deb.empty() || !run("dpkg-deb -x " + shell_quote(deb.string()) + " " + shell_quote(root.string()), log_file))
      throw Error("dataset '" + e.name + "'", "cannot unpack " + e.package + ":\n" + tail(log_file));
    std::ofstream(version_file) << capture("dpkg-deb -f " + shell_quote(deb.string()) + " Version");
  }
  return read_text_file(version_file);
}

void ensure_rdata(const fs::path& log_file, std::ostream& log) {
  if (run("/usr/bin/python3 -c 'import rdata'", log_file)) return;
  if (::geteuid() != 0)
    throw Error("converting R data needs Debian's python3-rdata; install it as root: apt-get install python3-rdata");
  log << "  installing python3-rdata (reads R .rda files)\n";
  const std::string install = "install -y -qq --no-install-recommends python3-rdata";
  if (!run_apt(install, log_file) && !(run_apt("update -qq", log_file) && run_apt(install, log_file)))
    throw Error("cannot install python3-rdata:\n" + tail(log_file));
}

// Rows of `parts` one after the other (dense only); classes matched by name, ordered as the parts list them.
Dataset concatenate(std::vector<Dataset>& parts, const std::string& where) {
  if (parts.size() == 1) return std::move(parts.front());
  std::vector<std::string> names;
  for (const auto& part : parts)
    for (const auto& name : part.class_names)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  std::vector<Feature> values;
  std::vector<std::int32_t> labels;
  for (const auto& part : parts) {
    if (!part.is_dense() || part.dim() != parts.front().dim())
      throw Error(where, "files to concatenate must be dense with the same number of features");
    for (std::int64_t i = 0; i < part.size(); ++i) {
      const auto row = part.row(i).stored_values();
      values.insert(values.end(), row.begin(), row.end());
      const std::string& name = part.class_names[static_cast<std::size_t>(part.label(i))];
      auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) it = names.insert(names.end(), name);
      labels.push_back(static_cast<std::int32_t>(it - names.begin()));
    }
  }
  const auto n = static_cast<std::int64_t>(labels.size());
  Dataset all = Dataset::dense(n, parts.front().dim(), std::move(values), std::move(labels),
                               static_cast<std::int32_t>(names.size()));
  all.class_names = std::move(names);
  return all;
}

Dataset read_with_plugin(const CatalogEntry& e, const PluginRegistry& registry,
                         const std::vector<std::pair<std::string, std::string>>& extra) {
  const std::string where = "dataset '" + e.name + "'";
  const LoadedPlugin& plugin = registry.get(e.reader, PluginKind::data_source, where);
  std::map<std::string, std::string> given(e.reader_params.begin(), e.reader_params.end());
  for (const auto& [name, text] : extra) given[name] = text;  // the files read override the catalog's entry
  const ParamValues values =
      resolve_params(plugin.spec->params, given_by_name(given, where + ": reader"), nullptr, where + ": reader");
  auto object = plugin.create(values);
  auto* source = dynamic_cast<DataSource*>(object.get());
  return source->load();
}

// The entry's files read by its reader plugin, one dataset per part (an R data file is converted to CSV first).
std::vector<Dataset> read_parts(const CatalogEntry& e, const std::vector<std::string>& files, const TempFolder& work,
                                const fs::path& log_file, const PluginRegistry& registry, std::ostream& log) {
  const std::string where = "dataset '" + e.name + "'";
  std::vector<Dataset> parts;
  if (!e.rda_object.empty()) {
    ensure_rdata(log_file, log);
    const fs::path script = work.path() / "rda_to_csv.py";
    std::ofstream(script) << rda_to_csv_script;
    for (std::size_t i = 0; i < files.size(); ++i) {
      const fs::path csv = work.path() / ("part" + std::to_string(i) + ".csv");
      const fs::path levels = work.path() / ("part" + std::to_string(i) + ".levels");
      if (!run("/usr/bin/python3 " + shell_quote(script.string()) + " " + shell_quote(files[i]) + " " +
                   shell_quote(e.rda_object) + " " + shell_quote(e.rda_label) + " " + shell_quote(csv.string()) + " " +
                   shell_quote(levels.string()),
               log_file))
        throw Error(where, "converting " + files[i] + " failed:\n" + tail(log_file));
      std::vector<std::string> names;
      std::istringstream level_lines(read_text_file(levels));
      for (std::string line; std::getline(level_lines, line);) names.push_back(line);
      Dataset part = read_with_plugin(e, registry,
                                      {{"path", csv.string()},
                                       {"label_column", "first"},
                                       {"header", "yes"},
                                       {"num_classes", std::to_string(names.size())}});
      part.class_names = names;
      parts.push_back(std::move(part));
    }
  } else if (e.file_params.size() == 1) {
    for (const auto& f : files) parts.push_back(read_with_plugin(e, registry, {{e.file_params[0], f}}));
  } else {
    if (e.file_params.size() != files.size()) throw Error(where, "catalog: file_params and files differ in number");
    std::vector<std::pair<std::string, std::string>> extra;
    for (std::size_t i = 0; i < files.size(); ++i) extra.emplace_back(e.file_params[i], files[i]);
    parts.push_back(read_with_plugin(e, registry, extra));
  }
  return parts;
}

// Error naming every way `data` differs from what the catalog recorded (n, d, K, class counts, checksum).
void check_against_catalog(const Dataset& data, const CatalogEntry& e, const std::string& version) {
  std::vector<std::string> differences;
  const auto counts = class_counts(data);
  const auto list = [](const std::vector<std::int64_t>& v) {
    std::string s;
    for (auto c : v) s += (s.empty() ? "" : ", ") + std::to_string(c);
    return "[" + s + "]";
  };
  if (data.size() != e.n)
    differences.push_back("n is " + std::to_string(data.size()) + ", expected " + std::to_string(e.n));
  if (data.dim() != e.d)
    differences.push_back("d is " + std::to_string(data.dim()) + ", expected " + std::to_string(e.d));
  if (data.num_classes() != e.k)
    differences.push_back("K is " + std::to_string(data.num_classes()) + ", expected " + std::to_string(e.k));
  if (counts != e.class_counts)
    differences.push_back("class counts are " + list(counts) + ", expected " + list(e.class_counts));
  const std::string checksum = dataset_checksum(data);
  if (checksum != e.checksum) differences.push_back("checksum is " + checksum + ", expected " + e.checksum);
  if (!differences.empty()) {
    std::string message = "the converted data differ from the catalog:";
    for (const auto& d : differences) message += "\n  " + d;
    if (version != e.package_version)
      message += "\n  (package " + e.package + " is version " + version + ", the catalog was made with " +
                 e.package_version + ")";
    throw Error("dataset '" + e.name + "'", message);
  }
}

void install_one(const CatalogEntry& e, const PluginRegistry& registry, std::ostream& log) {
  const std::string where = "dataset '" + e.name + "'";
  TempFolder work;
  const fs::path log_file = work.path() / "commands.log";
  fs::path root;
  const std::string version = provide_package(e, root, log_file, log);
  std::vector<std::string> files;
  for (const auto& f : e.files) files.push_back((root / fs::path(f).relative_path()).string());
  std::vector<Dataset> parts = read_parts(e, files, work, log_file, registry, log);
  Dataset data = concatenate(parts, where);
  if (e.first_row > 0) {
    if (e.first_row < 1 || e.last_row > data.size() || e.first_row > e.last_row)
      throw Error(where, "rows " + std::to_string(e.first_row) + ".." + std::to_string(e.last_row) + " outside the " +
                             std::to_string(data.size()) + " rows read");
    std::vector<std::int64_t> rows(static_cast<std::size_t>(e.last_row - e.first_row + 1));
    std::iota(rows.begin(), rows.end(), e.first_row - 1);
    data = data.subset(rows);
  }
  data.validate(where);
  check_against_catalog(data, e, version);
  std::string file_list;
  for (const auto& f : e.files) file_list += (file_list.empty() ? "" : ", ") + f;
  save_cached_dataset(data, e.name, {e.package, version, file_list, e.description});
}

}  // namespace

std::vector<CatalogEntry> parse_catalog(const std::string& json, const std::string& where) {
  pt::ptree root;
  try {
    std::istringstream in(json);
    pt::read_json(in, root);
  } catch (const pt::json_parser_error& e) {
    throw Error(where + ":" + std::to_string(e.line()), "invalid JSON: " + e.message());
  }
  std::vector<CatalogEntry> catalog;
  int index = 0;
  const auto datasets = root.get_child_optional("datasets");
  if (!datasets) throw Error(where, "expected a \"datasets\" list");
  for (const auto& [key, node] : *datasets) {
    const std::string at = where + ": datasets[" + std::to_string(index++) + "]";
    try {
      CatalogEntry e;
      e.name = node.get<std::string>("name");
      e.description = node.get<std::string>("description", "");
      e.note = node.get<std::string>("note", "");
      e.package = node.get<std::string>("package");
      e.package_version = node.get<std::string>("package_version");
      for (const auto& f : node.get_child("files")) e.files.push_back(f.second.data());
      e.rda_object = node.get<std::string>("rda.object", "");
      e.rda_label = node.get<std::string>("rda.label", "");
      e.reader = node.get<std::string>("reader.name");
      if (const auto params = node.get_child_optional("reader.params"))
        for (const auto& [name, value] : *params) e.reader_params.emplace_back(name, value.data());
      if (const auto file_params = node.get_child_optional("reader.file_params"))
        for (const auto& f : *file_params) e.file_params.push_back(f.second.data());
      if (const auto rows = node.get_child_optional("rows")) {
        std::vector<std::int64_t> r;
        for (const auto& v : *rows) r.push_back(std::stoll(v.second.data()));
        if (r.size() != 2) throw Error("rows: expected [first, last]");
        e.first_row = r[0];
        e.last_row = r[1];
      }
      e.n = node.get<std::int64_t>("expect.n");
      e.d = node.get<std::int32_t>("expect.d");
      e.k = node.get<std::int32_t>("expect.K");
      for (const auto& c : node.get_child("expect.class_counts")) e.class_counts.push_back(std::stoll(c.second.data()));
      e.checksum = node.get<std::string>("expect.checksum");
      catalog.push_back(std::move(e));
    } catch (const pt::ptree_error& bad) {
      throw Error(at, bad.what());
    }
  }
  return catalog;
}

const std::vector<CatalogEntry>& builtin_catalog() {
  static const std::vector<CatalogEntry> catalog = parse_catalog(embedded_catalog_json, "datasets/catalog.json");
  return catalog;
}

InstallReport install_datasets(const std::vector<CatalogEntry>& catalog, const std::vector<std::string>& names,
                               const PluginRegistry& registry, std::ostream& log) {
  std::vector<const CatalogEntry*> chosen;
  for (const auto& name : names) {
    const auto it = std::find_if(catalog.begin(), catalog.end(), [&](const auto& e) { return e.name == name; });
    if (it == catalog.end()) {
      std::string known;
      for (const auto& e : catalog) known += (known.empty() ? "" : ", ") + e.name;
      throw Error("unknown dataset '" + name + "'; the catalog has: " + known);
    }
    chosen.push_back(&*it);
  }
  if (names.empty())
    for (const auto& e : catalog) chosen.push_back(&e);
  // The cache is listed once before taking the lock and once after: what another process installed meanwhile counts.
  auto installed = list_cached_datasets();
  const auto present = [&](const CatalogEntry& e) {
    return std::any_of(installed.begin(), installed.end(), [&](const CachedDatasetInfo& info) {
      return info.name == e.name && info.checksum == e.checksum;
    });
  };
  InstallReport report;
  if (std::all_of(chosen.begin(), chosen.end(), [&](const CatalogEntry* e) { return present(*e); })) {
    for (const auto* e : chosen) report.already_installed.push_back(e->name);
    return report;
  }
  // One process installs into a cache at a time. A second one (ctest -j, a second terminal) waits, then finds what
  // the first installed; unlocked, both unpacked the same package folder and read each other's half-written files.
  const fs::path cache = dataset_cache_dir();
  std::error_code ec;
  if (!fs::create_directories(cache, ec) && ec)
    throw Error(cache.string(), "cannot create the dataset cache: " + ec.message());
  std::optional<FileLock> lock;
  lock.emplace(cache / ".install.lock", FileLock::Mode::try_once);
  if (!lock->held()) {
    log << "waiting for another glimpse process that is installing datasets into " << cache.string() << "\n";
    lock.reset();
    lock.emplace(cache / ".install.lock", FileLock::Mode::wait);
  }
  installed = list_cached_datasets();
  for (const auto* e : chosen) {
    if (present(*e)) {
      report.already_installed.push_back(e->name);
      continue;
    }
    log << e->name << ": installing from " << e->package << "\n";
    install_one(*e, registry, log);
    log << e->name << ": " << e->n << " rows, " << e->d << " features, " << e->k << " classes; checked\n";
    report.installed.push_back(e->name);
  }
  return report;
}

}  // namespace glimpse
