// Frame statistics and the state hash (stats.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tidepool/types.h"

namespace tidepool {

struct WorldState;

// Fills the particle count, time, density errors, speed, kinetic energy and
// mean neighbour count of st from the state after a frame.
void compute_stats(const WorldState& s, FrameStats& st);
// FNV-1a over positions, velocities, ids and time.
uint64_t state_hash(const WorldState& s);
// Bytes held per particle by the particles, the solver and the shared stages.
size_t bytes_per_particle(const WorldState& s);

}  // namespace tidepool
