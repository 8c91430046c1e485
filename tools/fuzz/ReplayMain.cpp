//===- ReplayMain.cpp - run saved inputs through a fuzz harness -----------===//
//
// The main of the replay builds of the fuzz harnesses, which need no
// libFuzzer (and so no Clang): every file named on the command line, and
// every file in every directory named there, goes once through
// LLVMFuzzerTestOneInput. CI runs the seed corpora and the saved crash
// reproducers this way; a crash, an abort or a sanitizer report fails it.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

namespace {

/// Reads `path` into a buffer of exactly its size, so the sanitizers catch
/// a harness that reads past the input.
bool runFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "error: cannot read '%s'\n", path.c_str());
    return false;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  std::unique_ptr<uint8_t[]> input(new uint8_t[bytes.size()]);
  std::copy(bytes.begin(), bytes.end(), input.get());
  // Named before it runs: if it crashes, the last name is the culprit.
  std::fprintf(stderr, "running %s (%zu bytes)\n", path.c_str(), bytes.size());
  std::fflush(stderr);
  LLVMFuzzerTestOneInput(input.get(), bytes.size());
  return true;
}

} // namespace

int main(int argc, char **argv) {
  size_t ran = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    // libFuzzer's flags (-runs=N, ...) are accepted and ignored, so scripts
    // can run either build the same way.
    if (arg.size() > 1 && arg[0] == '-')
      continue;
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> files;
      for (const fs::directory_entry &entry : fs::directory_iterator(arg, ec))
        if (entry.is_regular_file(ec))
          files.push_back(entry.path());
      if (ec) {
        std::fprintf(stderr, "error: cannot list '%s': %s\n", arg.c_str(),
                     ec.message().c_str());
        ok = false;
      }
      // A stable order, so a failure reproduces the same way.
      std::sort(files.begin(), files.end());
      for (const fs::path &file : files)
        ran += runFile(file) ? 1 : (ok = false, 0);
      continue;
    }
    ran += runFile(arg) ? 1 : (ok = false, 0);
  }
  std::printf("%s: ran %zu inputs\n", fs::path(argv[0]).filename().c_str(),
              ran);
  return ok ? 0 : 1;
}
