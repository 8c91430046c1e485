//===- Files.cpp - outputs written safely, inputs read safely -------------===//

#include "tp/Runtime/Files.h"
#include "tp/Runtime/Interrupts.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::tp::rt;

static std::string quoted(const std::string &path) { return "'" + path + "'"; }

static std::string systemError() { return std::strerror(errno); }

/// What kind of thing a non-regular `mode` is, for messages.
static const char *kindOf(mode_t mode) {
  if (S_ISLNK(mode))
    return "a symbolic link";
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

bool mlir::tp::rt::writeFileAtomically(
    const std::string &path, const std::vector<std::string_view> &pieces,
    std::string &error) {
  struct stat existing;
  bool exists = ::lstat(path.c_str(), &existing) == 0;
  if (exists && !S_ISREG(existing.st_mode)) {
    error = quoted(path) + " is " + kindOf(existing.st_mode) +
            "; only regular files are replaced";
    return false;
  }
  if (path.empty() || path.back() == '/') {
    error = quoted(path) + " names no file";
    return false;
  }
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (dir.empty())
    dir = "/";
  std::string temp = dir + "/." + base + ".tmp-XXXXXX";
  // mkstemp creates with O_EXCL: it never opens an existing file or link.
  int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    error = quoted(path) + ": cannot create a file beside it: " + systemError();
    return false;
  }
  // An interrupted run removes it (Interrupts.h).
  trackTemporaryPath(temp);
  // The mode a plain create would give: 0666 less the umask, or the mode of
  // the file replaced.
  mode_t mask = ::umask(0);
  ::umask(mask);
  mode_t mode = exists ? existing.st_mode & 07777 : 0666 & ~mask;
  // The first failure names what went wrong; later steps only clean up.
  std::string failure;
  auto failed = [&](const char *what) {
    if (failure.empty())
      failure = std::string(what) + ": " + systemError();
  };
  if (::fchmod(fd, mode) != 0)
    failed("cannot set its mode");
  for (std::string_view piece : pieces) {
    const char *bytes = piece.data();
    size_t left = piece.size();
    while (failure.empty() && left > 0) {
      ssize_t written = ::write(fd, bytes, left);
      if (written < 0 && errno == EINTR)
        continue;
      if (written <= 0) {
        failed("cannot write");
        break;
      }
      bytes += written;
      left -= static_cast<size_t>(written);
    }
  }
  // close() can still report a write error that was deferred (NFS, quotas).
  if (::close(fd) != 0)
    failed("cannot write");
  if (failure.empty() && ::rename(temp.c_str(), path.c_str()) != 0)
    failed("cannot replace it");
  if (!failure.empty()) {
    error = quoted(path) + ": " + failure;
    ::unlink(temp.c_str());
  }
  untrackTemporaryPath(temp);
  return failure.empty();
}

bool mlir::tp::rt::makeDirectoryNoFollow(const std::string &path,
                                         std::string &error) {
  if (::mkdir(path.c_str(), 0777) == 0)
    return true;
  if (errno != EEXIST) {
    error = "cannot create " + path + ": " + systemError();
    return false;
  }
  struct stat existing;
  if (::lstat(path.c_str(), &existing) != 0) {
    error = "cannot create " + path + ": " + systemError();
    return false;
  }
  if (!S_ISDIR(existing.st_mode)) {
    error = "cannot create " + path + ": it exists and is " +
            kindOf(existing.st_mode);
    return false;
  }
  return true;
}

std::string mlir::tp::rt::checkRegularInput(const std::string &path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0)
    return quoted(path) + ": cannot open: " + systemError();
  if (!S_ISREG(info.st_mode))
    return quoted(path) + " is " + kindOf(info.st_mode) +
           ", not a regular file";
  return "";
}
