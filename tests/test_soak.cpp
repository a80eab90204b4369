// The soak driver (src/cli/soak*.cpp) in-process: a violation planted at a
// frame leaves a reproducer that replays to the same violation, at the same
// frame, in the same state; a reproducer is read back line by line; and a
// short random game keeps every promise.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "soak.h"
#include "tidepool/params.h"
#include "tidepool/scenes.h"
#include "tidepool/world.h"

using namespace tidepool_cli;

namespace {

// The debug build (the sanitizers' preset, -O0) steps some 30 times slower:
// shorter games there.
#ifdef NDEBUG
constexpr double kSeconds = 3.0;
constexpr int kParticles = 3000;
constexpr long kPlant = 100;
#else
constexpr double kSeconds = 1.0;
constexpr int kParticles = 600;
constexpr long kPlant = 40;
#endif

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("soak: a planted violation writes a reproducer that replays to it", "[soak]") {
  SoakOptions o;
  o.seeds = {7};
  o.seconds = kSeconds;
  o.max_particles = kParticles;
  o.plant_frame = kPlant;
  o.only_planted = true;
  o.out_dir = ".";
  o.log = nullptr;
  const SoakReport r = run_soak(o);
  REQUIRE(r.seeds.size() == 1);
  const SeedReport& s = r.seeds[0];
  INFO(s.violation);
  REQUIRE(r.violations == 1);
  CHECK(s.violation_frame == kPlant);
  CHECK(s.violation.find("planted") != std::string::npos);
  CHECK(s.frames == kPlant + 1);
  REQUIRE(!s.repro_path.empty());
  const std::string text = read_all(s.repro_path);
  CHECK(text.find("\nseed 7\n") != std::string::npos);
  CHECK(text.find("\nplant " + std::to_string(kPlant) + "\n") != std::string::npos);
  CHECK(text.find(" load ") != std::string::npos);  // it starts at the last scene load
  // Every parameter, in one action ahead of the load: a grid scene carries
  // the spacing over, and its reproducer replays to its hash only with the
  // rest density that set it.
  const size_t at = text.find(" params ");
  REQUIRE(at != std::string::npos);
  const std::string params = text.substr(at, text.find('\n', at) - at);
  for (const tidepool::ParamInfo& info : tidepool::param_table()) {
    INFO(info.name);
    CHECK(params.find(std::string(" ") + info.name + "=") != std::string::npos);
  }
  CHECK(at < text.find(" load "));

  const ReplayReport p = replay_soak(s.repro_path, nullptr);
  INFO(p.error);
  REQUIRE(p.loaded);
  CHECK(p.seed == 7);
  CHECK(p.violated);
  CHECK(p.violation_frame == kPlant);
  CHECK(p.violation == s.violation);
  CHECK(p.recorded_frame == kPlant);
  CHECK(p.recorded_violation == s.violation);
  CHECK(p.hash == p.recorded_hash);  // the same state as when it was found
  std::remove(s.repro_path.c_str());
}

TEST_CASE("soak: a reproducer is read line by line, and checked as it runs", "[soak]") {
  const std::string path = "soak-test-handmade.txt";
  {
    std::ofstream f(path);
    f << "# made by hand\n"
         "seed 0\n"
         "end 40\n"
         "10 load dam-break 600 -\n"
         "10 set viscosity nan\n"        // refused, nothing changes
         "10 set gravity_x -12\n"        // taken
         "12 circle 2 1 0.2\n"
         "12 pointers 1 0.5 0.5 0.3 40 1 0 2\n"
         "15 tank 0.5\n"                // the phone turned: portrait, water kept
         "16 tank 9\n"                  // no screen is that wide: refused
         "20 load stir 600 -\n"          // a grid scene takes no particle count: refused
         "20 remove-obstacle 999\n"      // none such: false
         "30 set solver 2\n"
         "30 dye 0 0 1 1 0.5 0.5 0.5\n"
         "32 tank 1.5\n";               // a grid's fields keep their box: refused
  }
  ReplayReport r = replay_soak(path, nullptr);
  INFO(r.error << " " << r.violation);
  REQUIRE(r.loaded);
  CHECK_FALSE(r.violated);
  CHECK(r.frames == 31);   // frames 10 to 40
  CHECK(r.actions == 12);

  {
    std::ofstream f(path);
    f << "seed 0\nend 40\nplant 25\n10 load drop 500 -\n";
  }
  r = replay_soak(path, nullptr);
  REQUIRE(r.loaded);
  CHECK(r.violated);
  CHECK(r.violation_frame == 25);

  {
    std::ofstream f(path);
    f << "seed 0\nend 40\n10 load drop 500 -\n11 teleport 1 2\n";
  }
  r = replay_soak(path, nullptr);
  CHECK_FALSE(r.loaded);  // an unknown action is an unreadable file, not a violation
  std::remove(path.c_str());
}

TEST_CASE("soak: a few seconds of random play keep every promise", "[soak]") {
  SoakOptions o;
  o.seeds = {1, 2};
  o.seconds = kSeconds;
  o.max_particles = kParticles;
  o.out_dir = ".";
  o.log = nullptr;
  const SoakReport r = run_soak(o);
  for (const SeedReport& s : r.seeds) {
    INFO("seed " << s.seed << ": " << s.violation);
    CHECK_FALSE(s.violated);
    CHECK(s.frames == static_cast<long>(kSeconds * 60));
    CHECK(s.actions > 5);
  }
  CHECK(r.violations == 0);
}

// The promises World::problem words, which the soak checks after every
// frame and the page's fuzz after every action: they hold through play,
// and a state that breaks one is named, not passed.
TEST_CASE("soak: World::problem holds through play and names a particle outside the box", "[soak]") {
  tidepool::World w;
  std::string err;
  REQUIRE(tidepool::load_scene(w, "float", tidepool::SceneSetup{800, "water", {}}, &err));
  REQUIRE_FALSE(w.bodies().empty());
  for (int k = 0; k < 30; ++k) w.advance(1.0f / 60.0f);
  CHECK(w.problem().empty());
  const tidepool::Box b = w.box();
  REQUIRE(w.add_particle({b.max.x + 1.0f, b.min.y}) >= 0);
  const std::string why = w.problem();
  INFO(why);
  CHECK(why.find("is outside the box") != std::string::npos);
  CHECK(why.find("id ") != std::string::npos);

  tidepool::World grid;
  REQUIRE(tidepool::load_scene(grid, "stir", tidepool::SceneSetup{}, &err));
  for (int k = 0; k < 5; ++k) grid.advance(1.0f / 60.0f);
  CHECK(grid.field() != nullptr);
  CHECK(grid.problem().empty());
}
