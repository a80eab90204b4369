// The benchmark's plain reference implementation (reference.cpp).
#pragma once

#include "tidepool/world.h"

namespace tidepool_cli {

class Reference {
 public:
  // Copies particles, box and parameters from `world`.
  explicit Reference(const tidepool::World& world);
  ~Reference();
  Reference(const Reference&) = delete;
  Reference& operator=(const Reference&) = delete;

  void step(float dt);
  double mean_neighbours() const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace tidepool_cli
