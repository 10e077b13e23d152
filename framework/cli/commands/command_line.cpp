// What the commands share: option parsing, running a program, running a module of the glimpse Python package.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "commands.hpp"
#include "glimpse/error.hpp"

#ifndef GLIMPSE_INSTALL_LIBDIR
#define GLIMPSE_INSTALL_LIBDIR "lib"
#endif

namespace glimpse::cli {

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& options,
                        const po::positional_options_description& positional) {
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  po::notify(vm);
  return vm;
}

ParsedCommand parse_command(const std::vector<std::string>& args, const po::options_description& options,
                            const po::positional_options_description& positional,
                            std::initializer_list<const char*> required) {
  ParsedCommand parsed{parse(args, options, positional), std::nullopt};
  const bool help = parsed.vm.count("help") > 0;
  if (help || std::any_of(required.begin(), required.end(), [&](const char* name) { return !parsed.vm.count(name); })) {
    std::cout << options << '\n';
    parsed.exit_status = help ? 0 : 2;
  }
  return parsed;
}

int run_program(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const auto& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  pid_t pid = 0;
  const int failed = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (failed || waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::filesystem::path python_package_dir() {
  const std::filesystem::path prefix =
      std::filesystem::path(boost::dll::program_location().string()).parent_path().parent_path();
  for (const auto& candidate : {prefix / "lib" / "python", prefix / GLIMPSE_INSTALL_LIBDIR / "glimpse" / "python"})
    if (std::filesystem::exists(candidate / "glimpse" / "__init__.py")) return candidate;
  throw Error((prefix / "lib" / "python").string(), "the glimpse Python package is missing (reinstall glimpse)");
}

namespace {
// The environment of a Python child: PYTHONPATH starting with the package's folder, GLIMPSE naming this executable.
void prepare_python_environment() {
  const std::string package = python_package_dir().string();
  const char* existing = std::getenv("PYTHONPATH");
  ::setenv("PYTHONPATH", existing && *existing ? (package + ":" + existing).c_str() : package.c_str(), 1);
  ::setenv("GLIMPSE", boost::dll::program_location().string().c_str(), 1);
}

std::vector<std::string> python_command(const std::string& module, const std::vector<std::string>& args) {
  std::vector<std::string> command{"/usr/bin/python3", "-m", module};
  command.insert(command.end(), args.begin(), args.end());
  return command;
}
}  // namespace

void exec_python_module(const std::string& module, const std::vector<std::string>& args) {
  prepare_python_environment();
  std::vector<std::string> command = python_command(module, args);
  std::vector<char*> argv;
  for (auto& word : command) argv.push_back(word.data());
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  throw Error("/usr/bin/python3",
              std::string("cannot be started: ") + std::strerror(errno) + " (./tools/install-deps.sh installs it)");
}

int run_python_module(const std::string& module, const std::vector<std::string>& args) {
  prepare_python_environment();
  return run_program(python_command(module, args));
}

}  // namespace glimpse::cli
