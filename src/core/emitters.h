// Emitters pour rows of particles; sinks remove the particles that enter
// them. Both run at the end of every substep (emitters.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "tidepool/types.h"

namespace tidepool {

struct WorldState;

struct Sources {
  std::vector<Emitter> emitters;
  std::vector<float> rows_owed;    // per emitter: fractional rows owed
  std::vector<uint32_t> row_slot;  // per emitter: rows emitted (odd rows are offset)
  std::vector<Sink> sinks;
  std::vector<uint8_t> keep;       // the sinks' scratch: 0 for a particle to remove

  // Adds e (or s) with id *next_id; -1 if not finite or of no size.
  int add_emitter(const Emitter& e, int* next_id);
  int add_sink(const Sink& s, int* next_id);
  bool remove_emitter(int id);
  bool remove_sink(int id);
};

// Removes the particles inside a sink, then emits the rows each emitter
// owes after dt seconds: |velocity| / spacing rows a second, so the jet
// enters at rest density.
void emit_and_sink(WorldState& s, float dt);

// Removes the element of `list` whose id is `id`; false if there is none.
template <class T>
bool remove_by_id(std::vector<T>& list, int id) {
  for (size_t k = 0; k < list.size(); ++k) {
    if (list[k].id != id) continue;
    list.erase(list.begin() + static_cast<long>(k));
    return true;
  }
  return false;
}

}  // namespace tidepool
