// SPDX-License-Identifier: BSD-2-Clause
// j2kfront: the JPEG 2000 codec and its front stage from the command line.
// Exit codes: 0 success, 1 failure while running (bad input file, I/O, device), 2 bad arguments.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <utility>

#include "common/error.hpp"
#include "common/memory_pages.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tools/commands.hpp"
#include "tools/heap_tuning.hpp"
#include "tools/temp_files.hpp"

namespace {

// `j2kfront --version`: the library's version, then each backend: the device it would use
// (what plans and `--backend auto` get), or why it cannot run here; then the pages the large
// buffers get (common/memory_pages.hpp).
std::string version_text() {
  std::string text = std::string("j2kfront ") + j2k_version();
  for (j2k_backend b : {J2K_BACKEND_CPU, J2K_BACKEND_CUDA, J2K_BACKEND_OPENCL}) {
    text += std::string("\n  ") + j2k_backend_name(b) + ": ";
    const char* why = nullptr;
    if (!j2k_backend_available(b, &why)) {
      text += std::string("unavailable (") + (why ? why : "no reason given") + ")";
      continue;
    }
    try {
      j2kfront::Settings s;
      s.backend = b;
      text += j2kfront::Dwt(s).description();
    } catch (const std::exception& e) {
      text += std::string("unavailable (") + e.what() + ")";
    }
  }
  return text + "\n  memory: " + j2k::huge_pages_description();
}

}  // namespace

int main(int argc, char** argv) {
  j2k::tools::tune_heap_for_workers(std::getenv("GLIBC_TUNABLES"));
  // Before any file is written: a signal that ends the run takes its temporary files with it.
  j2k::tools::install_temp_file_cleanup();
  CLI::App app{"j2kfront: a JPEG 2000 codec (compress, decompress, transcode) with a GPU front stage (tiling, DC shift, RCT/ICT, DWT on the CPU, CUDA or OpenCL)"};
  app.name("j2kfront");
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text, "Print the version and the backends this machine can run, then exit");
  // The commands, each set up by its add_*_command: only the one named first where it names
  // one (the others' options had cost every run 0.4 ms of its first 0.5; a 16-thread decode
  // of a 4096^2 grey image takes about 20), all of them otherwise (--help lists them).
  using Add = std::function<int()> (*)(CLI::App&);
  const std::pair<const char*, Add> commands[] = {
      {"transform", j2k::tools::add_transform_command}, {"bench", j2k::tools::add_bench_command},
      {"compress", j2k::tools::add_compress_command},   {"decompress", j2k::tools::add_decompress_command},
      {"info", j2k::tools::add_info_command},           {"check", j2k::tools::add_check_command},
      {"transcode", j2k::tools::add_transcode_command}};
  const std::string first = argc > 1 ? argv[1] : "";
  const bool named = std::any_of(std::begin(commands), std::end(commands), [&](const auto& c) { return first == c.first; });
  std::map<std::string, std::function<int()>> run;
  for (const auto& [name, add] : commands)
    if (!named || first == name) run[name] = add(app);
  // A usage error in two lines: what is wrong (CLI11 names the flag), and where the options
  // are; the whole help page only on --help.
  auto usage_error = [&](const CLI::ParseError& e) {
    const CLI::App* sub = app.get_subcommands().empty() ? nullptr : app.get_subcommands().front();
    const std::string name = sub ? "j2kfront " + sub->get_name() : std::string("j2kfront");
    std::cerr << "j2kfront: " << e.what() << "\n"
              << "Usage: " << name << (sub ? " [OPTIONS] ..." : " transform|compress|decompress|transcode|info|check|bench [OPTIONS] ...") << "; see '" << name
              << " --help'\n";
    return 2;
  };
  // `j2kfront help` is --help; a first word that is no command is named as such (CLI11 would
  // only say that a subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    const std::string command = argv[1];
    if (command == "help") {
      std::cout << app.help();
      return 0;
    }
    if (!named) {
      std::cerr << "j2kfront: unknown command '" << command << "'\n"
                << "Usage: j2kfront transform|compress|decompress|transcode|info|check|bench [OPTIONS] ...; see 'j2kfront --help'\n";
      return 2;
    }
  }
  try {
    std::vector<std::string> args = j2k::tools::opj_style_arguments(argc, argv);
    std::reverse(args.begin() + 1, args.end());  // CLI11 takes a vector last argument first
    args.erase(args.begin());
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(e);
  }
  try {
    return run.at(app.get_subcommands().front()->get_name())();
  } catch (const CLI::ParseError& e) {  // option values checked after parsing (e.g. X,Y pairs)
    return usage_error(e);
  } catch (const j2kfront::Error& e) {  // the library
    std::cerr << "j2kfront: error: " << e.what() << "\n";
    return e.status() == J2K_INVALID_ARGUMENT ? 2 : 1;
  } catch (const j2k::Error& e) {  // the image readers and the bench
    std::cerr << "j2kfront: error: " << e.what() << "\n";
    return e.code() == j2k::ErrorCode::InvalidArgument ? 2 : 1;
  } catch (const std::exception& e) {
    std::cerr << "j2kfront: error: " << e.what() << "\n";
    return 1;
  }
}
