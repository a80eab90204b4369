#include "stats.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>

#include "state.h"

namespace tidepool {

namespace {

template <auto Member>
FrameStatField field(const char* name, FrameStatField::Over over) {
  using T = std::remove_reference_t<decltype(std::declval<FrameStats&>().*Member)>;
  const FrameStatField::Type type = std::is_same_v<T, bool>       ? FrameStatField::Type::Bool
                                    : std::is_integral_v<T>        ? FrameStatField::Type::Int
                                                                   : FrameStatField::Type::Real;
  return {name, type, over, [](const FrameStats& s) { return static_cast<double>(s.*Member); },
          [](FrameStats& s, double v) { s.*Member = static_cast<T>(v); }};
}

}  // namespace

const std::vector<FrameStatField>& frame_stat_fields() {
  using O = FrameStatField::Over;
  static const std::vector<FrameStatField> fields = {
      field<&FrameStats::particles>("particles", O::Last),
      field<&FrameStats::time>("time", O::Last),
      field<&FrameStats::substeps>("substeps", O::Sum),
      field<&FrameStats::dt>("dt", O::Last),
      field<&FrameStats::max_density_error>("max_density_error", O::Max),
      field<&FrameStats::mean_density_error>("mean_density_error", O::Last),
      field<&FrameStats::spray>("spray", O::Last),
      field<&FrameStats::max_speed>("max_speed", O::Last),
      field<&FrameStats::kinetic_energy>("kinetic_energy", O::Last),
      field<&FrameStats::mean_neighbours>("mean_neighbours", O::Last),
      field<&FrameStats::solver_iterations>("solver_iterations", O::Sum),
      field<&FrameStats::divergence_iterations>("divergence_iterations", O::Sum),
      field<&FrameStats::solver_passes>("solver_passes", O::Last),
      field<&FrameStats::solver_error>("solver_error", O::Last),
      field<&FrameStats::substep_cap_hit>("substep_cap_hit", O::Any),
      field<&FrameStats::contained>("contained", O::Last),
      field<&FrameStats::contained_particles>("contained_particles", O::Last),
      field<&FrameStats::cells>("cells", O::Last),
      field<&FrameStats::max_divergence>("max_divergence", O::Last),
      field<&FrameStats::work>("work", O::Sum),
      field<&FrameStats::work_limit>("work_limit", O::Sum),
      field<&FrameStats::work_cap_hit>("work_cap_hit", O::Any),
      field<&FrameStats::cap_hits>("cap_hits", O::Sum),
      field<&FrameStats::bodies>("bodies", O::Last),
  };
  return fields;
}

void add_frame_stats(FrameStats& sum, const FrameStats& next) {
  if (sum.substeps == 0 && sum.work == 0.0) {
    sum = next;
    return;
  }
  FrameStats out = next;  // Last: the later value, for these and the rest
  for (const FrameStatField& f : frame_stat_fields()) {
    const double a = f.get(sum), b = f.get(next);
    switch (f.over) {
      case FrameStatField::Over::Last: break;
      case FrameStatField::Over::Sum: f.set(out, a + b); break;
      case FrameStatField::Over::Max: f.set(out, std::max(a, b)); break;
      case FrameStatField::Over::Any: f.set(out, a != 0.0 || b != 0.0 ? 1.0 : 0.0); break;
    }
  }
  for (int k = 0; k < kStageCount; ++k) {
    out.stage_ms[k] = sum.stage_ms[k] + next.stage_ms[k];
    out.stage_work[k] = sum.stage_work[k] + next.stage_work[k];
  }
  sum = out;
}

void compute_stats(const WorldState& s, FrameStats& st) {
  const Particles& p = s.particles;
  const int n = p.size();
  st.particles = n;
  st.bodies = static_cast<int>(s.bodies.bodies().size());
  st.time = s.time;
  const float rho0 = s.params.rest_density;
  double err_sum = 0.0, ke = 0.0;
  float err_max = 0.0f, v2max = 0.0f;
  int spray = 0;
  for (int i = 0; i < n; ++i) {
    const float ratio = p.density[i] / rho0;
    const bool sparse = ratio < 0.5f;  // FrameStats: spray
    const float e = sparse ? 0.0f : std::fabs(ratio - 1.0f);
    spray += sparse;
    err_sum += e;
    err_max = std::max(err_max, e);
    const float v2 = p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i];
    v2max = std::max(v2max, v2);
    ke += 0.5 * s.params.mass * v2;
  }
  st.max_density_error = err_max;
  st.mean_density_error = n > spray ? static_cast<float>(err_sum / (n - spray)) : 0.0f;
  st.spray = spray;
  st.max_speed = std::sqrt(v2max);
  st.kinetic_energy = ke;
  st.mean_neighbours = s.solver->mean_neighbours(n);
  if (const FieldView* g = s.solver->field()) {
    // A grid: its speeds, and 1/2 rho0 |u|^2 over the cells' areas.
    double cells_ke = 0.0;
    for (int c = 0; c < g->nx * g->ny; ++c) {
      const float v2 = g->u[c] * g->u[c] + g->v[c] * g->v[c];
      v2max = std::max(v2max, v2);
      cells_ke += 0.5 * rho0 * v2;
    }
    st.max_speed = std::sqrt(v2max);
    st.kinetic_energy = ke + cells_ke * g->cell * g->cell;
  }
}

uint64_t state_hash(const WorldState& s) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a 64
  auto mix = [&](const void* data, size_t bytes) {
    const unsigned char* b = static_cast<const unsigned char*>(data);
    for (size_t k = 0; k < bytes; ++k) {
      hash ^= b[k];
      hash *= 1099511628211ull;
    }
  };
  const Particles& p = s.particles;
  const size_t n = static_cast<size_t>(p.size());
  mix(p.x.data(), n * sizeof(float));
  mix(p.y.data(), n * sizeof(float));
  mix(p.vx.data(), n * sizeof(float));
  mix(p.vy.data(), n * sizeof(float));
  mix(p.id.data(), n * sizeof(uint32_t));
  if (const FieldView* g = s.solver->field()) {
    const size_t cells = static_cast<size_t>(g->nx) * g->ny;
    for (const float* f : {g->u, g->v, g->dye[0], g->dye[1], g->dye[2]}) mix(f, cells * sizeof(float));
  }
  // The bodies' poses and velocities, where there are any: a world without
  // bodies hashes as it did before they existed.
  for (const Body& b : s.bodies.bodies())
    for (const float f : {b.position.x, b.position.y, b.angle, b.velocity.x, b.velocity.y, b.omega}) mix(&f, sizeof f);
  mix(&s.time, sizeof s.time);
  return hash;
}

size_t bytes_per_particle(const WorldState& s) {
  const Particles& p = s.particles;
  if (p.size() == 0) return 0;
  size_t bytes = 0;
  for (const auto* v : p.floats()) bytes += bytes_of(*v);
  for (const auto* v : {&s.normal_x, &s.normal_y, &s.inv_rho, &s.colour_lap}) bytes += bytes_of(*v);
  bytes += bytes_of(p.id) + bytes_of(s.candidates) + p.surface.capacity() + s.near_wall.capacity() + s.sources.keep.capacity();
  bytes += s.search.bytes() + s.solver->bytes();
  return bytes / static_cast<size_t>(p.size());
}

}  // namespace tidepool
