// The glimpse command line: one function per command (each in a file of its own here), the table main.cpp
// dispatches through, and what the commands share: parsing their options, running a program or a module of the
// glimpse Python package.
#pragma once

#include <boost/program_options.hpp>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace glimpse::cli {

namespace po = boost::program_options;

// A command: its name, its line in `glimpse --help`, and what runs it (returns the exit status).
struct Command {
  const char* name;
  const char* usage;  // "PROTOCOL [options]   run a protocol ..." (may span lines, indented as the help shows it)
  int (*run)(const std::vector<std::string>& args);
};
// Every command, in the order `glimpse --help` lists them.
const std::vector<Command>& commands();

int command_run(const std::vector<std::string>& args);
int command_merge(const std::vector<std::string>& args);
int command_status(const std::vector<std::string>& args);
int command_summary(const std::vector<std::string>& args);
int command_select(const std::vector<std::string>& args);
int command_report(const std::vector<std::string>& args);
int command_export(const std::vector<std::string>& args);
int command_reproduce(const std::vector<std::string>& args);
int command_datasets(const std::vector<std::string>& args);
int command_plugins(const std::vector<std::string>& args);
int command_new(const std::vector<std::string>& args);
int command_describe(const std::vector<std::string>& args);

// Options and positional arguments, parsed (Boost.Program_options errors propagate: main reports them).
po::variables_map parse(const std::vector<std::string>& args, const po::options_description& options,
                        const po::positional_options_description& positional);

// A command's arguments. When --help is asked for, or one of the `required` arguments is missing, the help is
// printed and `exit_status` is what the command returns (0 or 2).
struct ParsedCommand {
  po::variables_map vm;
  std::optional<int> exit_status;
};
ParsedCommand parse_command(const std::vector<std::string>& args, const po::options_description& options,
                            const po::positional_options_description& positional,
                            std::initializer_list<const char*> required);

// Runs a program (no shell) with its standard output sent to our standard error; its exit status, or -1.
int run_program(const std::vector<std::string>& command);

// The folder holding the glimpse Python package beside this executable: build/lib/python in the build tree,
// PREFIX/LIBDIR/glimpse/python in the install tree.
std::filesystem::path python_package_dir();
// `/usr/bin/python3 -m MODULE ARGS...` with the package on PYTHONPATH: replaces this process (reproduce), or
// runs it as a child with its standard output on our standard error (report's figures; returns its status).
[[noreturn]] void exec_python_module(const std::string& module, const std::vector<std::string>& args);
int run_python_module(const std::string& module, const std::vector<std::string>& args);

}  // namespace glimpse::cli
