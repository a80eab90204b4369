// Parameter validation: every bad field is named, and rejected input never
// changes the simulation.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "tidepool/params.h"
#include "tidepool/scenes.h"
#include "tidepool/world.h"

using namespace tidepool;

namespace {

bool mentions(const std::vector<std::string>& problems, const std::string& field) {
  for (const std::string& p : problems)
    if (p.rfind(field + " = ", 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("defaults and every preset are valid", "[params]") {
  CHECK(validate(Params{}).empty());
  for (const PresetInfo& preset : presets()) {
    Params p;
    REQUIRE(apply_preset(p, preset.name));
    CHECK(validate(p).empty());
  }
}

TEST_CASE("validate names each bad field with its value and range", "[params]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (const ParamInfo& info : param_table()) {
    for (float bad : {nan, inf, -inf, info.min - 1.0f, info.max * 2.0f + 1.0f}) {
      Params p;
      info.set(p, bad);
      if (info.type != ParamInfo::Type::Real && info.get(p) >= info.min && info.get(p) <= info.max)
        continue;  // a bool cannot hold the bad value: the conversion made it valid
      const auto problems = validate(p);
      INFO(info.name << " = " << bad);
      REQUIRE(problems.size() == 1);
      CHECK(mentions(problems, info.name));
      CHECK(problems[0].find("must be") != std::string::npos);
    }
  }
  Params p;
  p.h = 0.0f;
  p.mass = -1.0f;
  p.dt = 0.0f;
  p.viscosity = -0.1f;
  const auto problems = validate(p, kMaxParticles + 1);
  CHECK(problems.size() == 5);
  CHECK(mentions(problems, "h"));
  CHECK(mentions(problems, "mass"));
  CHECK(mentions(problems, "dt"));
  CHECK(mentions(problems, "viscosity"));
  CHECK(mentions(problems, "particles"));
  // h in its range but too wide for the particles' spacing.
  Params wide;
  wide.h = (kMaxSupportPerSpacing + 0.5f) * std::sqrt(wide.mass / wide.rest_density);
  const auto too_wide = validate(wide);
  REQUIRE(too_wide.size() == 1);
  CHECK(mentions(too_wide, "h"));
  CHECK(too_wide[0].find("spacings") != std::string::npos);
  wide.h = (kMaxSupportPerSpacing - 0.5f) * std::sqrt(wide.mass / wide.rest_density);
  CHECK(validate(wide).empty());
}

TEST_CASE("invalid params are rejected and the world keeps its last good state", "[params]") {
  World w;
  std::string err;
  REQUIRE(load_scene(w, "dam-break", SceneSetup{500}, &err));
  w.advance(1.0f / 60.0f);
  const Params good = w.params();
  const uint64_t before = w.state_hash();
  Params bad = good;
  bad.h = std::numeric_limits<float>::quiet_NaN();
  bad.rest_density = -5.0f;
  const auto problems = w.set_params(bad);
  CHECK(problems.size() == 2);
  CHECK(w.params().h == good.h);
  CHECK(w.params().rest_density == good.rest_density);
  CHECK(w.state_hash() == before);
  w.advance(1.0f / 60.0f);  // still steps with the good parameters
  CHECK(w.last_stats().particles == w.count());
  CHECK(std::isfinite(w.last_stats().max_speed));
}

TEST_CASE("load_scene reports every problem and leaves the world untouched", "[params]") {
  World w;
  std::string err;
  REQUIRE(load_scene(w, "drop", SceneSetup{400}, &err));
  const uint64_t before = w.state_hash();
  const int count = w.count();
  SceneSetup bad{kMaxParticles + 1, "", {{"viscosity", -1.0f}, {"nonsense", 1.0f}}};
  CHECK_FALSE(load_scene(w, "drop", bad, &err));
  CHECK(err.find("particles") != std::string::npos);
  CHECK(err.find("viscosity") != std::string::npos);
  CHECK(err.find("nonsense") != std::string::npos);
  CHECK_FALSE(load_scene(w, "no-such-scene", SceneSetup{400}, &err));
  CHECK(err.find("no-such-scene") != std::string::npos);
  CHECK(w.state_hash() == before);
  CHECK(w.count() == count);
}

TEST_CASE("parameter text parses numbers, booleans and choice names", "[params]") {
  float v = 0.0f;
  std::string err;
  REQUIRE(parse_param_value(*find_param("eos"), "tait", &v, &err));
  CHECK(v == 1.0f);
  REQUIRE(parse_param_value(*find_param("solver"), "muller2003", &v, &err));
  CHECK(v == 0.0f);
  REQUIRE(parse_param_value(*find_param("adaptive_dt"), "false", &v, &err));
  CHECK(v == 0.0f);
  REQUIRE(parse_param_value(*find_param("viscosity"), "2.5", &v, &err));
  CHECK(v == 2.5f);
  CHECK_FALSE(parse_param_value(*find_param("viscosity"), "2.5x", &v, &err));
  CHECK(err.find("viscosity") != std::string::npos);
  CHECK(format_param_value(*find_param("eos"), 0.0f) == "ideal");
}

TEST_CASE("bad shapes and pointers are refused, not stored", "[params]") {
  World w;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(w.add_circle({0.0f, 0.0f}, -1.0f) == -1);
  CHECK(w.add_capsule({nan, 0.0f}, {1.0f, 0.0f}, 0.1f) == -1);
  CHECK(w.add_particle({nan, 0.0f}) == -1);
  CHECK(w.obstacles().empty());
  CHECK(w.count() == 0);
  const int id = w.add_circle({0.5f, 0.5f}, 0.1f);
  CHECK(id > 0);
  CHECK(w.remove_obstacle(id));
  CHECK_FALSE(w.remove_obstacle(id));
}

TEST_CASE("a frame's ticks add up by FrameStats' field table", "[params]") {
  FrameStats a, b, sum;
  a.substeps = 2, a.time = 1.0, a.max_density_error = 0.05f, a.work = 100.0, a.work_limit = 1000.0, a.cap_hits = 3;
  a.substep_cap_hit = true, a.stage_ms[kStageForces] = 1.5;
  b.substeps = 3, b.time = 1.5, b.max_density_error = 0.02f, b.work = 50.0, b.work_limit = 1000.0, b.cap_hits = 1;
  b.work_cap_hit = true, b.stage_ms[kStageForces] = 0.5, b.max_speed = 2.0f;
  add_frame_stats(sum, a);  // an empty sum becomes the first
  CHECK(sum.work_limit == 1000.0);
  add_frame_stats(sum, b);
  CHECK(sum.substeps == 5);
  CHECK(sum.time == 1.5);                 // the later
  CHECK(sum.max_density_error == 0.05f);  // the larger
  CHECK(sum.work == 150.0);
  CHECK(sum.work_limit == 2000.0);
  CHECK(sum.cap_hits == 4);
  CHECK(sum.substep_cap_hit);
  CHECK(sum.work_cap_hit);
  CHECK(sum.max_speed == 2.0f);
  CHECK(sum.stage_ms[kStageForces] == 2.0);
  // Every field is named once.
  std::set<std::string> names;
  for (const FrameStatField& f : frame_stat_fields()) CHECK(names.insert(f.name).second);
}
