//===- FilesTest.cpp - outputs written safely, inputs read safely ---------===//

#include "tp/Runtime/Files.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::tp::rt;

namespace {
/// A fresh folder under TMPDIR, removed (shallowly) at the end.
class FilesTest : public ::testing::Test {
protected:
  void SetUp() override {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp ? tmp : "/tmp") + "/tp-files-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    for (const std::string &name : entries()) {
      std::string path = dir + "/" + name;
      if (::unlink(path.c_str()) != 0)
        ::rmdir(path.c_str());
    }
    ::rmdir(dir.c_str());
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    if (DIR *d = ::opendir(dir.c_str())) {
      while (dirent *e = ::readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
          names.push_back(e->d_name);
      ::closedir(d);
    }
    return names;
  }
  static std::string contents(const std::string &path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::string dir;
};
} // namespace

TEST_F(FilesTest, WritesAndReplacesRegularFiles) {
  std::string path = dir + "/out.txt", error;
  ASSERT_TRUE(writeFileAtomically(path, {"hello ", "world"}, error)) << error;
  EXPECT_EQ(contents(path), "hello world");
  ASSERT_TRUE(writeFileAtomically(path, {"again"}, error)) << error;
  EXPECT_EQ(contents(path), "again");
  // Nothing but the target is left beside it.
  EXPECT_EQ(entries(), std::vector<std::string>{"out.txt"});
}

TEST_F(FilesTest, KeepsTheModeOfTheFileItReplaces) {
  std::string path = dir + "/out.txt", error;
  ASSERT_TRUE(writeFileAtomically(path, {"a"}, error));
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  ASSERT_TRUE(writeFileAtomically(path, {"b"}, error));
  struct stat info;
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);
}

TEST_F(FilesTest, RefusesLinksAndKeepsTheirTargets) {
  std::string target = dir + "/target", link = dir + "/link", error;
  ASSERT_TRUE(writeFileAtomically(target, {"precious"}, error));
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  EXPECT_FALSE(writeFileAtomically(link, {"overwritten"}, error));
  EXPECT_EQ(error, "'" + link + "' is a symbolic link; only regular files are "
                                "replaced");
  EXPECT_EQ(contents(target), "precious");
}

TEST_F(FilesTest, RefusesFoldersDevicesAndFifos) {
  std::string error;
  EXPECT_FALSE(writeFileAtomically(dir, {"x"}, error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
  EXPECT_FALSE(writeFileAtomically("/dev/null", {"x"}, error));
  EXPECT_NE(error.find("is a device"), std::string::npos) << error;
  std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(writeFileAtomically(fifo, {"x"}, error));
  EXPECT_NE(error.find("is a FIFO"), std::string::npos) << error;
}

TEST_F(FilesTest, AFailedWriteRemovesNothing) {
  std::string error;
  EXPECT_FALSE(writeFileAtomically(dir + "/missing/out.txt", {"x"}, error));
  EXPECT_NE(error.find("cannot create a file beside it"), std::string::npos)
      << error;
  EXPECT_FALSE(writeFileAtomically(dir + "/", {"x"}, error));
  EXPECT_TRUE(entries().empty());
}

TEST_F(FilesTest, MakesFoldersWithoutFollowingLinks) {
  std::string sub = dir + "/sub", link = dir + "/link", error;
  ASSERT_TRUE(makeDirectoryNoFollow(sub, error)) << error;
  // Existing folders are fine.
  ASSERT_TRUE(makeDirectoryNoFollow(sub, error)) << error;
  ASSERT_EQ(::symlink(sub.c_str(), link.c_str()), 0);
  EXPECT_FALSE(makeDirectoryNoFollow(link, error));
  EXPECT_NE(error.find("it exists and is a symbolic link"), std::string::npos)
      << error;
}

TEST_F(FilesTest, InputsMustBeRegularFiles) {
  std::string file = dir + "/in", fifo = dir + "/fifo", error;
  ASSERT_TRUE(writeFileAtomically(file, {"x"}, error));
  EXPECT_EQ(checkRegularInput(file), "");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(checkRegularInput(fifo),
            "'" + fifo + "' is a FIFO, not a regular file");
  EXPECT_EQ(checkRegularInput(dir), "'" + dir + "' is a directory, not a "
                                                "regular file");
  EXPECT_NE(checkRegularInput(dir + "/none").find("cannot open"),
            std::string::npos);
}
