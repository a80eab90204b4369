// The safety net (safety.cpp).
#pragma once

namespace tidepool {

struct WorldState;

// Repairs every particle that is not finite, too fast (params.max_speed) or
// outside the box; returns how many needed more than the box.
int contain(WorldState& s);

}  // namespace tidepool
