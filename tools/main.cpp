// j2kfront: the JPEG 2000 encoder front stage from the command line.
// Exit codes: 0 success, 1 failure while running (bad input file, I/O, device), 2 bad arguments.
#include <cstdio>
#include <iostream>

#include "common/error.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tools/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"j2kfront: JPEG 2000 encoder front stage (tiling, DC shift, RCT/ICT, DWT)"};
  app.require_subcommand(1);
  auto transform = j2k::tools::add_transform_command(app);
  auto bench = j2k::tools::add_bench_command(app);
  auto usage_error = [&](const CLI::ParseError& e) {
    std::cerr << "j2kfront: " << e.what() << "\n\n";
    const CLI::App* sub = app.get_subcommands().empty() ? &app : app.get_subcommands().front();
    std::cerr << sub->help();
    return 2;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(e);
  }
  try {
    if (app.got_subcommand("transform")) return transform();
    return bench();
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
