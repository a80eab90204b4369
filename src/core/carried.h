// The per-particle state a solver keeps from one step to the next: it is
// the solver's own (named by what it holds), but it lives and dies with the
// particles: sized with them, reordered with them by the sort, repaired
// with them by the safety net.
#pragma once

#include <array>

#include "tidepool/array.h"

namespace tidepool {

struct Carried {
  static constexpr int kMax = 2;
  std::array<Array<float>*, kMax> fields{};  // the first `count` are used
  int count = 0;
  // The leapfrog's half-step velocity (seed 000), when the solver keeps
  // one (two of the fields): a new particle starts with it equal to its
  // velocity, and wherever a wall or the safety net sets a velocity it
  // sets this one too. Every other field starts at 0.
  Array<float>* half_vx = nullptr;
  Array<float>* half_vy = nullptr;

  void add(Array<float>* field) { fields[count++] = field; }
  Array<float>* const* begin() const { return fields.data(); }
  Array<float>* const* end() const { return fields.data() + count; }
};

}  // namespace tidepool
