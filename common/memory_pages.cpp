// SPDX-License-Identifier: BSD-2-Clause
#include "common/memory_pages.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace j2k {

bool balloon_reports_free_pages(const char* virtio_balloon_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(virtio_balloon_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind("virtio", 0) != 0) continue;
    std::ifstream f(it->path() / "features");
    std::string bits;
    // The features as the kernel lists them, bit 0 first; bit 5 is VIRTIO_BALLOON_F_REPORTING.
    if (std::getline(f, bits) && bits.size() > 5 && bits[5] == '1') return true;
  }
  return false;
}

std::string transparent_huge_pages_setting() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(f, line);
  const size_t open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos || close < open ? "" : line.substr(open + 1, close - open - 1);
}

namespace {
// huge_pages_wanted()'s answer and why, made once.
struct HugePageChoice {
  bool wanted;
  std::string why;
};
const HugePageChoice& choice() {
  static const HugePageChoice c = []() -> HugePageChoice {
    const char* setting = std::getenv("J2KFRONT_HUGE_PAGES");
    if (setting != nullptr && (std::strcmp(setting, "0") == 0 || std::strcmp(setting, "1") == 0))
      return {setting[0] == '1', std::string("J2KFRONT_HUGE_PAGES=") + setting};
    if (balloon_reports_free_pages("/sys/bus/virtio/drivers/virtio_balloon"))
      return {false, "a virtio balloon here reports free pages; J2KFRONT_HUGE_PAGES=1 asks for huge pages"};
    return {true, ""};
  }();
  return c;
}
}  // namespace

bool huge_pages_wanted() { return choice().wanted; }

std::string huge_pages_description() {
  const HugePageChoice& c = choice();
  std::string text = c.wanted ? "huge pages asked for" : "4 KiB pages";
  if (!c.why.empty()) text += " (" + c.why + ")";
  if (c.wanted) {
    const std::string thp = transparent_huge_pages_setting();
    text += "; transparent huge pages " + (thp.empty() ? std::string("not offered here") : "'" + thp + "'");
  }
  return text;
}

}  // namespace j2k
