#include "sort.h"

#include "simd.h"

namespace tidepool {
namespace {

// Fewest particles in a band of for_bands: at least a lane group, so a
// group shifted back from a band's limit stays within the band after it;
// more keeps a band worth a task.
constexpr int kMinBand = 64;
static_assert(kMinBand >= Lanes::kWidth, "a band holds at least a lane group");

}  // namespace

void NeighbourSearch::sort(Particles& p, const Carried& carried, float h,
                           const Box& box, bool obstacles, const Loops& loops,
                           std::vector<uint8_t>* near_wall) {
  const int n = p.size();
  // Grid::build, on the thread pool where it can be: the bounding box,
  // every particle's cell (min and max are exact, so any split gives the
  // same grid) and the sort, all of it but its histogram.
  const float* x = p.x.data();
  const float* y = p.y.data();
  const Grid::Bounds bounds = loops.reduce(
      n, Grid::bounds(x, y, 0, std::min(n, 1)),  // particle 0's box: merging it changes nothing
      [&](int begin, int end) { return Grid::bounds(x, y, begin, end); },
      [](const Grid::Bounds& a, const Grid::Bounds& b) { return a.merge(b); }, block_bounds_);
  grid_.reserve(n, h, {box.min.x, box.max.x, box.min.y, box.max.y});
  grid_.shape(n, h, bounds);
  loops.parallel(n, [&](int begin, int end) { grid_.bin(x, y, begin, end); });
  // The ranks in tmp_id_, which reorder() fills only after the sort.
  tmp_id_.resize(static_cast<size_t>(n));
  grid_.sort(tmp_id_.data(), [&](int count, auto&& body) { loops.parallel(count, body); });
  cut_bands();
  reorder(p, carried, loops);
  // From the sorted positions, in one parallel loop: the cells, which the
  // grid's queries read, and which particles are near a wall, for the
  // density pass: the wall's density reaches only within h of it (the same
  // d >= h tests), and any particle may be near an obstacle. As bytes, with
  // `&` for `&&`, in a loop that vectorises, so that the loops over them
  // test a byte instead of four distances.
  const float x0 = box.min.x, x1 = box.max.x, y0 = box.min.y, y1 = box.max.y;
  near_wall->resize(static_cast<size_t>(n));
  auto away = [=](float xi, float yi) {
    return !obstacles & (xi - x0 >= h) & (x1 - xi >= h) & (yi - y0 >= h) & (y1 - yi >= h);
  };
  loops.parallel(n, [&](int begin, int end) {
    // Copies in locals: the byte stores could alias anything the loop
    // reached through a pointer, which would reload it every particle.
    const auto away_from_walls = away;
    const float* const xs = p.x.data();
    const float* const ys = p.y.data();
    grid_.bin(xs, ys, begin, end);
    uint8_t* const near = near_wall->data();
    for (int i = begin; i < end; ++i) near[i] = !away_from_walls(xs[i], ys[i]);
  });
}

void NeighbourSearch::cut_bands() {
  grid_.bands(kMinBand, &bands_);
  if (band_offset_.capacity() < bands_.capacity()) band_offset_.reserve(bands_.capacity());  // as bands_
  band_offset_.resize(bands_.size() - 1);
  int round_points[2] = {0, 0};
  for (size_t b = 0; b < band_offset_.size(); ++b) {
    band_offset_[b] = round_points[b % 2];
    round_points[b % 2] += bands_[b + 1] - bands_[b];
  }
}

// Moves entry order[k] to position k in x, y, vx, vy, the carried fields
// and id, in one parallel loop that reads order[k] once for all of them.
void NeighbourSearch::reorder(Particles& p, const Carried& carried, const Loops& loops) {
  constexpr int kMaxMoved = 4 + Carried::kMax;
  Array<float>* moved[kMaxMoved] = {&p.x, &p.y, &p.vx, &p.vy};
  Array<float>* spare[kMaxMoved] = {&p.x_prev, &p.y_prev, &p.ax, &p.ay, &p.density, &p.pressure};
  int count = 4;
  for (Array<float>* field : carried) moved[count++] = field;
  const int n = p.size();
  const int* order = grid_.order().data();
  with_constant<kMaxMoved + 1>(count, [&](auto fields) {
    constexpr int kMoved = decltype(fields)::value;
    if constexpr (kMoved >= 4) loops.parallel(n, [&](int begin, int end) {
      const float* src[kMoved];
      float* dst[kMoved];
      for (int f = 0; f < kMoved; ++f) {
        src[f] = moved[f]->data();
        dst[f] = spare[f]->data();
      }
      const uint32_t* const id = p.id.data();
      uint32_t* const id_out = tmp_id_.data();
      for (int k = begin; k < end; ++k) {
        const int from = order[k];
        for (int f = 0; f < kMoved; ++f) dst[f][k] = src[f][from];
        id_out[k] = id[from];
      }
    });
  });
  for (int f = 0; f < count; ++f) moved[f]->swap(*spare[f]);
  p.id.swap(tmp_id_);
}

size_t NeighbourSearch::bytes() const {
  return grid_.bytes() + bytes_of(tmp_id_) + (bands_.capacity() + band_offset_.capacity()) * sizeof(int);
}

}  // namespace tidepool
