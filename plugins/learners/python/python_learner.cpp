// The `python` plugin family: a learner written as a Python class, named in a protocol as
// "python:FILE.py:CLASS" (docs/python.md). Each round's row reaches Python as a read-only NumPy view of the
// dataset's own memory (dense: one float32 array; sparse: a pair of index and value arrays), and the class's
// declared parameters are validated and gridded like any plugin's.
#include <dlfcn.h>
#include <pybind11/embed.h>
#include <pybind11/numpy.h>

#include <glimpse/glimpse.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <sstream>

namespace py = pybind11;

namespace {

// CPython, started once on first use by whichever thread gets here; the GIL is then released so that any run's
// thread can take it. Never finalised: objects may outlive any registry, and NumPy does not survive a restart.
void ensure_python() {
  static std::once_flag once;
  std::call_once(once, [] {
    // NumPy's C extensions expect the interpreter's symbols to be global, and this library was loaded RTLD_LOCAL.
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&Py_IsInitialized), &info) && info.dli_fname)
      ::dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
    PyConfig config;
    PyConfig_InitPythonConfig(&config);  // honours PYTHONPATH, so a learner's own modules can be found
    config.install_signal_handlers = 0;  // Ctrl-C stays glimpse's
    // The interpreter this library belongs to, found by its path rather than by `python3` on PATH (which may be
    // another Python's, whose prefix would hide Debian's NumPy).
    PyConfig_SetBytesString(&config, &config.program_name, GLIMPSE_PYTHON_EXECUTABLE);
    py::initialize_interpreter(&config, 0, nullptr, false);
    PyEval_SaveThread();
  });
}

// A Python exception as a glimpse::Error on one line: its type and message and where it was raised (the innermost
// frame's file, line and function), so a failed run's record says what to fix. Must run with the GIL held.
[[noreturn]] void rethrow(py::error_already_set& e, const std::string& doing) {
  std::string text;
  try {
    const py::module_ traceback = py::module_::import("traceback");
    for (const auto& line : traceback.attr("format_exception_only")(e.type(), e.value())) text += py::str(line);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    const py::list frames = traceback.attr("extract_tb")(e.trace());
    if (!frames.empty()) {
      const py::handle last = frames[frames.size() - 1];
      text += " (at " + py::str(last.attr("filename")).cast<std::string>() + ":" +
              py::str(last.attr("lineno")).cast<std::string>() + " in " +
              py::str(last.attr("name")).cast<std::string>() + ")";
    }
  } catch (const std::exception&) {
    text = e.what();
  }
  throw glimpse::Error("python", doing + ": " + text);
}

struct ClassRef {
  std::string file, class_name;
};
ClassRef split_argument(const std::string& argument) {
  const auto colon = argument.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == argument.size())
    throw glimpse::Error("expected FILE.py:CLASS after 'python:', got '" + argument + "'");
  return {argument.substr(0, colon), argument.substr(colon + 1)};
}

// A short fingerprint of the module's source, recorded as the member's version: traces say which code ran.
std::string source_fingerprint(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw glimpse::Error(file, std::string("cannot be read: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a
  for (const unsigned char c : text.str()) hash = (hash ^ c) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return std::string("source ") + std::string(hex, 12);
}

// The class named by an argument, its module loaded once per process (GIL held). Held as leaked references: no
// Python object may be destroyed at exit, after the interpreter's last use.
PyObject* python_class(const std::string& argument) {
  static std::map<std::string, PyObject*> classes;
  static std::map<std::string, PyObject*> modules;
  if (const auto found = classes.find(argument); found != classes.end()) return found->second;
  const auto [file, class_name] = split_argument(argument);
  PyObject*& module = modules[file];
  if (!module) {
    try {
      const py::module_ util = py::module_::import("importlib.util");
      const std::string module_name = "glimpse_learner_" + std::to_string(modules.size());
      const py::object spec = util.attr("spec_from_file_location")(module_name, file);
      if (spec.is_none()) throw glimpse::Error(file, "is not a Python file that can be imported");
      py::object loaded = util.attr("module_from_spec")(spec);
      py::module_::import("sys").attr("modules")[py::str(module_name)] = loaded;
      spec.attr("loader").attr("exec_module")(loaded);
      module = loaded.release().ptr();
    } catch (py::error_already_set& e) {
      modules.erase(file);
      rethrow(e, "importing " + file);
    }
  }
  const py::handle loaded(module);
  if (!py::hasattr(loaded, class_name.c_str()))
    throw glimpse::Error(file, "defines no class '" + class_name + "'");
  PyObject* found = py::object(loaded.attr(class_name.c_str())).release().ptr();
  classes[argument] = found;
  return found;
}

// Text of a Python default as a protocol would write it.
std::string default_text(const py::handle value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::float_>(value)) {
    return glimpse::param_value_json(glimpse::ParamValue(value.cast<double>()));
  }
  return py::str(value);
}

// One entry of the class's `params` dict: {"type": "real", "default": 1.0, "help": "...", "above": 0, ...}.
glimpse::ParamSpec declared_param(const std::string& name, const py::handle declaration) {
  if (!py::isinstance<py::dict>(declaration))
    throw glimpse::Error("params['" + name + "']: expected a dict such as {\"type\": \"real\", \"default\": 1}");
  const auto field = [&](const char* key) -> py::object {
    const py::dict d = py::reinterpret_borrow<py::dict>(declaration);
    return d.contains(key) ? py::object(d[key]) : py::object(py::none());
  };
  const std::string type = field("type").is_none() ? "real" : py::str(field("type")).cast<std::string>();
  const py::object given_default = field("default");
  const std::string help = field("help").is_none() ? "" : py::str(field("help")).cast<std::string>();
  const std::string fallback = type == "boolean" ? "false" : type == "text" ? "" : "0";
  const std::string value = given_default.is_none() ? fallback : default_text(given_default);
  glimpse::ParamSpec spec;
  if (type == "real") {
    spec = glimpse::ParamSpec::real(name, value, help);
  } else if (type == "integer") {
    spec = glimpse::ParamSpec::integer(name, value, help);
  } else if (type == "boolean") {
    spec = glimpse::ParamSpec::boolean(name, value == "true", help);
  } else if (type == "text") {
    spec = glimpse::ParamSpec::text(name, value, help);
  } else if (type == "choice") {
    std::vector<std::string> choices;
    if (!field("choices").is_none())
      for (const auto& c : field("choices")) choices.push_back(py::str(c));
    spec = glimpse::ParamSpec::choice(name, value, choices, help);
  } else {
    throw glimpse::Error("params['" + name + "']: type '" + type +
                         "' is not one of real, integer, boolean, choice, text");
  }
  const auto bound = [&](const char* key, bool open) -> std::optional<glimpse::ParamBound> {
    if (field(key).is_none()) return std::nullopt;
    return glimpse::ParamBound{field(key).cast<double>(), open};
  };
  if (auto b = bound("above", true)) spec.lower = b;
  if (auto b = bound("at_least", false)) spec.lower = b;
  if (auto b = bound("below", true)) spec.upper = b;
  if (auto b = bound("at_most", false)) spec.upper = b;
  spec.required = given_default.is_none() && !(type == "boolean" || type == "text");
  return spec;
}

glimpse::FeedbackKind feedback_kind(const std::string& name) {
  for (int k = 1; k < glimpse::feedback_kind_count; ++k) {
    const auto kind = static_cast<glimpse::FeedbackKind>(k);
    if (glimpse::feedback_kind_name(kind) == name) return kind;
  }
  throw glimpse::Error("accepts: '" + name + "' is not a feedback kind (label, correctness, complementary, "
                       "candidate_set, noisy_label)");
}

// One Python run at a time, from its reset() to its end, holding the GIL throughout. Only one thread runs Python at
// once anyway, and two runs handing the GIL back and forth at every call went 3-4x slower than one after another
// (benchmarks/python_bridge.sh). A thread may hold several turns (a learner wrapping another); other threads' C++
// runs go on meanwhile. Parallel Python runs need processes: --shard, MPI (docs/python.md).
class PythonTurn {
 public:
  void take() {
    std::unique_lock lock(mutex_);
    const auto me = std::this_thread::get_id();
    free_.wait(lock, [&] { return held_ == 0 || owner_ == me; });
    owner_ = me;
    ++held_;
  }
  void give_back() {
    {
      std::lock_guard lock(mutex_);
      --held_;
    }
    free_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable free_;
  std::thread::id owner_;
  int held_ = 0;
};
PythonTurn& python_turn() {
  static PythonTurn turn;
  return turn;
}

class PythonLearner final : public glimpse::Learner {
 public:
  static glimpse::PluginSpec spec() {
    return {.name = "python",
            .kind = glimpse::PluginKind::learner,
            .summary = "learners written in Python: name one as python:FILE.py:CLASS (docs/python.md)",
            .reference = "docs/python.md",
            .accepts = {glimpse::FeedbackKind::label, glimpse::FeedbackKind::correctness,
                        glimpse::FeedbackKind::complementary, glimpse::FeedbackKind::candidate_set}};
  }

  static glimpse::PluginSpec member_spec(const std::string& argument) {
    ensure_python();
    py::gil_scoped_acquire gil;
    const auto [file, class_name] = split_argument(argument);
    glimpse::PluginSpec spec{.name = "python:" + argument, .kind = glimpse::PluginKind::learner};
    spec.version = source_fingerprint(file);
    try {
      const py::handle cls(python_class(argument));
      if (py::hasattr(cls, "revision")) spec.revision = cls.attr("revision").cast<std::uint32_t>();
      if (!cls.attr("__doc__").is_none()) {
        const std::string doc = py::str(cls.attr("__doc__"));
        spec.summary = doc.substr(0, doc.find('\n'));
      }
      if (py::hasattr(cls, "reference")) spec.reference = py::str(cls.attr("reference"));
      if (!py::hasattr(cls, "accepts"))
        throw glimpse::Error(class_name + " declares no `accepts` (the feedback kinds it learns from, e.g. "
                             "[\"label\"])");
      for (const auto& kind : cls.attr("accepts")) spec.accepts.insert(feedback_kind(py::str(kind)));
      if (py::hasattr(cls, "params"))
        for (const auto& [name, declaration] : py::dict(cls.attr("params")))
          spec.params.push_back(declared_param(py::str(name), declaration));
    } catch (py::error_already_set& e) {
      rethrow(e, "reading the declaration of " + argument);
    } catch (const py::cast_error& e) {
      throw glimpse::Error(argument, std::string("its declaration has a value of the wrong type: ") + e.what());
    }
    return spec;
  }

  explicit PythonLearner(const glimpse::ParamValues&) {
    throw glimpse::Error("name the learner's class: python:FILE.py:CLASS (docs/python.md)");
  }

  PythonLearner(const std::string& argument, const glimpse::ParamValues& params) {
    // The class's module is loaded and its parameters were resolved and typed against member_spec() when the
    // host described this member: the values need no second reading of the declaration.
    ensure_python();
    py::gil_scoped_acquire gil;
    try {
      py::dict values;
      for (const auto& [name, value] : params.entries())
        values[name.c_str()] = std::visit([](const auto& v) { return py::cast(v); }, value);
      object_ = py::handle(python_class(argument))(values);
      reset_ = object_.attr("reset");
      predict_ = object_.attr("predict");
      learn_ = object_.attr("learn");
    } catch (py::error_already_set& e) {
      rethrow(e, "creating " + argument);
    }
    dummy_base_ = py::none();
  }

  ~PythonLearner() override {
    {
      py::gil_scoped_acquire gil;
      reset_ = predict_ = learn_ = object_ = dummy_base_ = py::object();
    }
    if (has_turn_) {
      PyGILState_Release(run_gil_);
      python_turn().give_back();
    }
  }

  void reset(const glimpse::ProblemShape& shape, std::uint64_t seed) override {
    k_ = shape.K;
    if (!has_turn_) {
      // The turn first, then the GIL, held until the run ends: a thread that takes the GIL for every call gets a
      // new Python thread state each time unless it keeps one, which made 2 threads 4x slower than 1.
      python_turn().take();
      run_gil_ = PyGILState_Ensure();
      has_turn_ = true;
    }
    py::gil_scoped_acquire gil;
    try {
      reset_(shape.n, shape.d, shape.K, seed);
    } catch (py::error_already_set& e) {
      rethrow(e, "reset");
    }
  }

  void predict(const glimpse::Instance& x, glimpse::Prediction& pred) override {
    py::gil_scoped_acquire gil;
    try {
      const py::object result = predict_(row(x));
      const bool with_proposal = py::isinstance<py::tuple>(result);
      const auto scores = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(
          with_proposal ? py::object(result.cast<py::tuple>()[0]) : result);
      if (!scores || scores.ndim() != 1 || scores.shape(0) != k_)
        throw glimpse::Error("python", "predict must return K = " + std::to_string(k_) +
                                           " scores (or a pair: scores, proposed label)");
      std::copy_n(scores.data(), k_, pred.scores.data());
      pred.predicted = glimpse::argmax(pred.scores);
      pred.proposed = with_proposal ? result.cast<py::tuple>()[1].cast<std::int32_t>() : pred.predicted;
    } catch (py::error_already_set& e) {
      rethrow(e, "predict");
    } catch (const py::cast_error& e) {
      throw glimpse::Error("python", std::string("predict returned a value of the wrong type: ") + e.what());
    }
  }

  void learn(const glimpse::Instance& x, const glimpse::Prediction& pred, const glimpse::Feedback& feedback) override {
    py::gil_scoped_acquire gil;
    try {
      learn_(row(x), pred.predicted, pred.proposed, told(feedback));
    } catch (py::error_already_set& e) {
      rethrow(e, "learn");
    }
  }

 private:
  // A read-only view of the row's own memory (no copy): dense, one float32 array of d values; sparse, a pair of
  // arrays (indices, values).
  py::object row(const glimpse::Instance& x) const {
    const auto view = [&](const auto* data, py::ssize_t n) {
      using T = std::remove_const_t<std::remove_pointer_t<decltype(data)>>;
      py::array_t<T> array({n}, {static_cast<py::ssize_t>(sizeof(T))}, data, dummy_base_);
      py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
      return array;
    };
    if (!x.sparse) return view(x.values, x.dim);
    return py::make_tuple(view(x.indices, x.nnz), view(x.values, x.nnz));
  }

  // The feedback as Python sees it: None when the query rule did not ask, else a pair (kind, value).
  static py::object told(const glimpse::Feedback& feedback) {
    using namespace glimpse;
    if (const auto* f = std::get_if<LabelFeedback>(&feedback)) return py::make_tuple("label", f->label);
    if (const auto* f = std::get_if<CorrectnessFeedback>(&feedback)) return py::make_tuple("correctness", f->correct);
    if (const auto* f = std::get_if<ComplementaryFeedback>(&feedback))
      return py::make_tuple("complementary", f->label);
    if (const auto* f = std::get_if<NoisyLabelFeedback>(&feedback)) return py::make_tuple("noisy_label", f->label);
    if (const auto* f = std::get_if<CandidateSetFeedback>(&feedback))
      return py::make_tuple("candidate_set", py::array_t<std::int32_t>(static_cast<py::ssize_t>(f->labels.size()),
                                                                        f->labels.data()));
    return py::none();
  }

  std::int32_t k_ = 0;
  bool has_turn_ = false;
  PyGILState_STATE run_gil_{};
  py::object object_, reset_, predict_, learn_, dummy_base_;
};

}  // namespace

GLIMPSE_PLUGIN_FAMILY(PythonLearner)
