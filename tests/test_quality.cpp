// Auto quality's law (src/app/quality.h), fed frames of a device whose cost
// the test sets: what it measures is the test's, never the machine's.
#include <catch2/catch.hpp>

#include <cmath>

#include "quality.h"

using tidepool::app::AutoQuality;
using Method = AutoQuality::Method;

namespace {

// A device on which a substep of `count` particles costs `ms_per_substep`
// and a tick takes `substeps`; frames of 1/60 s from `*now`. Returns the
// first count auto quality asks for, or 0 after `seconds`.
struct Device {
  AutoQuality q;
  double now = 0.0;
  Device() { q.on = true; }
  int run(double seconds, int count, double ms_per_substep, int substeps, Method method = Method::Sph,
          bool touching = false) {
    for (const double end = now + 1000.0 * seconds; now < end;) {
      now += 1000.0 / 60.0;
      const int next = q.record(now, ms_per_substep * substeps, 1, substeps, {count, method}, touching);
      if (next != 0) return next;
    }
    return 0;
  }
};

}  // namespace

TEST_CASE("auto quality lowers a late count at once, by the N^1.5 law, and caps rises for half a minute",
          "[quality]") {
  Device d;
  // 8 000 SPH particles at 4 ms a substep, 4 substeps a tick: 16 ms, twice
  // the 8 ms budget. The first judged window (half a second) asks for the
  // count that would cost 0.8 of the budget: 8 000 (6.4 / 16)^(2/3).
  const int lowered = d.run(1.0, 8000, 4.0, 4);
  CHECK(lowered == static_cast<int>(8000 * std::pow(6.4 / 16.0, 1.0 / 1.5)));
  CHECK(d.now < 700.0);
  // On a cheap device each rise waits for three quiet windows, is at most
  // 1.5x, and stays at or under the late count less a tenth (nine tenths
  // of the 8 000 it ran at) while that is under half a minute old.
  int count = lowered;
  for (int k = 0; k < 6; ++k) {
    const int next = d.run(10.0, count, 0.1, 4);
    REQUIRE(next > count);
    CHECK(next <= count * 3 / 2);
    CHECK(next <= 7200);
    count = next;
    if (count == 7200) break;
  }
  CHECK(count == 7200);
  CHECK(d.now < 30000.0);
  // Half a minute after, the cap lifts.
  CHECK(d.run(40.0, count, 0.1, 4) > 7200);
}

TEST_CASE("auto quality judges a window by its medians and never rises under a finger", "[quality]") {
  Device d;
  REQUIRE(d.run(0.1, 4000, 0.5, 4) == 0);  // the method seen, the first frames skipped
  // One frame in ten at 50 ms (a garbage collection) in windows of 2 ms a
  // tick: nothing moves.
  for (int frame = 0; frame < 600; ++frame) {
    d.now += 1000.0 / 60.0;
    const double ms = frame % 10 == 0 ? 50.0 : 0.5;
    REQUIRE(d.q.record(d.now, ms * 4, 1, 4, {4000, Method::Sph}, true) == 0);
  }
  // A finger on the water: no rise however cheap; lifted: a rise.
  CHECK(d.run(10.0, 4000, 0.1, 4, Method::Sph, true) == 0);
  CHECK(d.run(10.0, 4000, 0.1, 4) > 4000);
}

TEST_CASE("auto quality scales the count at once when the method changes", "[quality]") {
  Device d;
  REQUIRE(d.run(1.0, 2000, 0.5, 4) == 0);
  // FLIP holds kFlipPerSph (8) times SPH's count on the same budget.
  CHECK(d.run(0.1, 2000, 0.5, 4, Method::Flip) == 16000);
  CHECK(d.run(0.1, 16000, 0.5, 4, Method::Sph) == 2000);
  // At most FLIP's largest count, at least SPH's smallest.
  CHECK(d.run(0.1, 8000, 0.5, 4, Method::Flip) == AutoQuality::kMaxFlipParticles);
  CHECK(d.run(0.1, 1000, 0.5, 4, Method::Sph) == AutoQuality::kMinParticles);
}
