// The record reader (record/reader.hpp): a bad record is named by file and problem, and the
// records of a results tree are found in path order.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "record/reader.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

struct Tree {
  fs::path root = fs::temp_directory_path() /
                  ("attnlab-reader-" + std::string(::testing::UnitTest::GetInstance()
                                                       ->current_test_info()->name()));
  Tree() {
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~Tree() { fs::remove_all(root); }
  fs::path write(const fs::path& rel, const std::string& text) {
    const fs::path p = root / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
};

std::string error_of(const fs::path& p) {
  try {
    read_record(p);
  } catch (const RecordError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Reader, NamesTheFileAndTheProblem) {
  Tree t;
  const auto bad_json = t.write("4/a/run.json", "{\"schema\": ");
  EXPECT_EQ(error_of(bad_json).rfind(bad_json.string() + ": not valid JSON: ", 0), 0u)
      << error_of(bad_json);
  const auto other = t.write("4/b/run.json", R"({"schema": "attnlab.run/0"})");
  EXPECT_EQ(error_of(other), other.string() + ": /schema is \"attnlab.run/0\", expected \"attnlab.run/1\"");
  const auto empty = t.write("4/c/run.json", R"({"schema": "attnlab.run/1"})");
  EXPECT_NE(error_of(empty).find(" more)"), std::string::npos) << error_of(empty);
  EXPECT_EQ(error_of(t.root / "nothing.json"), (t.root / "nothing.json").string() + ": no such file");
}

TEST(Reader, ReadsAValidCommittedRecord) {
  const auto files = find_records(fs::path(ATTNLAB_COMMITTED_REPORTS) / "h100" / "records");
  ASSERT_FALSE(files.empty());
  const auto j = read_record(files.front());
  EXPECT_EQ(j["schema"], kRunSchema);
  EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
}

TEST(Reader, FindsRunsTwoLevelsDownOnly) {
  Tree t;
  t.write("4x/r2/run.json", "{}");
  t.write("4/r1/run.json", "{}");
  t.write("4/run.json", "{}");           // not a run directory
  t.write("4/r3/nested/run.json", "{}");  // too deep
  t.write("4/r4/other.json", "{}");
  const auto files = find_records(t.root);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0], t.root / "4" / "r1" / "run.json");
  EXPECT_EQ(files[1], t.root / "4x" / "r2" / "run.json");
  EXPECT_THROW(find_records(t.root / "absent"), RecordError);
}

// The evidence store commits records gzip-compressed: the reader takes run.json.gz as it takes
// run.json, finds either in a tree, and a path naming run.json reads run.json.gz where only
// that exists (a sweep manifest, a citation).
TEST(Reader, ReadsTheCompressedFormAsThePlainOne) {
  Tree t;
  const fs::path fixtures = ATTNLAB_FIXTURES_DIR;
  const auto plain = read_record(fixtures / "h100-phase1-run.json");
  const auto packed = read_record(fixtures / "h100-phase1-run.json.gz");
  EXPECT_EQ(plain, packed);
  fs::create_directories(t.root / "1" / "a");
  fs::copy_file(fixtures / "h100-phase1-run.json.gz", t.root / "1" / "a" / "run.json.gz");
  t.write("1/b/run.json", plain.dump(2));
  const auto files = find_records(t.root);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0], t.root / "1" / "a" / "run.json.gz");
  EXPECT_EQ(files[1], t.root / "1" / "b" / "run.json");
  EXPECT_EQ(read_record(t.root / "1" / "a" / "run.json"), plain);
  EXPECT_EQ(record_file(t.root / "1" / "a" / "run.json"), t.root / "1" / "a" / "run.json.gz");
  // Not gzip past its magic bytes: named, not parsed as garbage.
  t.write("1/c/run.json.gz", std::string("\x1f\x8b\x08\x00", 4) + "not a gzip stream");
  EXPECT_NE(error_of(t.root / "1" / "c" / "run.json.gz").find("run.json.gz"), std::string::npos);
}
