// Grid neighbour search against brute force.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "neighbour_grid.h"

using namespace tidepool;

namespace {

using PairSet = std::set<std::pair<int, int>>;

// Pairs by original index (i < j) found by the grid.
PairSet grid_pairs(const std::vector<float>& x, const std::vector<float>& y, float radius) {
  Grid g;
  const int n = static_cast<int>(x.size());
  g.build(x.data(), y.data(), n, radius);
  const auto& order = g.order();
  std::vector<float> sx(n), sy(n);
  for (int k = 0; k < n; ++k) {
    sx[k] = x[order[k]];
    sy[k] = y[order[k]];
  }
  PairSet pairs;
  int visits = 0;
  g.for_each_pair(sx.data(), sy.data(), radius, [&](int a, int b) {
    ++visits;
    pairs.insert({std::min(order[a], order[b]), std::max(order[a], order[b])});
  });
  // Each unordered pair exactly once.
  CHECK(visits == static_cast<int>(pairs.size()));
  return pairs;
}

PairSet brute_pairs(const std::vector<float>& x, const std::vector<float>& y, float radius) {
  PairSet pairs;
  const float r2 = radius * radius;
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = i + 1; j < x.size(); ++j) {
      const float dx = x[i] - x[j], dy = y[i] - y[j];
      if (dx * dx + dy * dy <= r2) pairs.insert({int(i), int(j)});
    }
  return pairs;
}

}  // namespace

TEST_CASE("grid neighbours equal brute force on random sets", "[grid]") {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 20; ++trial) {
    const float radius = 0.05f + 0.05f * float(trial % 4);
    std::uniform_real_distribution<float> pos(-3.0f + trial, 2.0f + 0.5f * trial);
    const int n = 200 + 100 * trial;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      x[i] = pos(rng);
      y[i] = pos(rng) - 4.0f;  // negative coordinates
    }
    const PairSet expect = brute_pairs(x, y, radius);
    REQUIRE(expect.size() > 0);
    CHECK(grid_pairs(x, y, radius) == expect);
  }
}

TEST_CASE("grid finds pairs exactly on cell borders and at exactly the radius", "[grid]") {
  // A lattice with spacing = radius: every point sits on a cell border and
  // every axis neighbour is at distance exactly `radius`.
  const float radius = 0.25f;
  std::vector<float> x, y;
  for (int j = -6; j <= 6; ++j)
    for (int i = -6; i <= 6; ++i) {
      x.push_back(i * radius);
      y.push_back(j * radius);
    }
  const PairSet expect = brute_pairs(x, y, radius);
  CHECK(expect.size() == 2u * 13u * 12u);  // horizontal + vertical lattice bonds
  CHECK(grid_pairs(x, y, radius) == expect);
}

TEST_CASE("grid finds neighbours at the radius in every direction", "[grid]") {
  // Rings of points just inside the radius around centres at assorted
  // offsets within their cells: the pairs two rows apart (more than half a
  // radius up or down) reach only sqrt(3)/2 of the radius sideways, the
  // columns the grid scans there (Grid::kReach); a ring just outside finds
  // nothing more.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> offset(0.0f, 1.0f);
  const float radius = 0.1f;
  for (const float scale : {0.99999f, 1.00001f}) {
    std::vector<float> x, y;
    for (int ring = 0; ring < 40; ++ring) {
      const float cx = 0.5f * float(ring) + radius * offset(rng);
      const float cy = radius * offset(rng);
      x.push_back(cx);
      y.push_back(cy);
      for (int k = 0; k < 360; ++k) {
        const float a = 6.2831853f * float(k) / 360.0f;
        x.push_back(cx + scale * radius * std::cos(a));
        y.push_back(cy + scale * radius * std::sin(a));
      }
    }
    const PairSet expect = brute_pairs(x, y, radius);
    int centre_pairs = 0;
    for (const auto& pr : expect) centre_pairs += pr.first % 361 == 0 && pr.second / 361 == pr.first / 361;
    CHECK(centre_pairs == (scale < 1.0f ? 40 * 360 : 0));
    CHECK(grid_pairs(x, y, radius) == expect);
  }
}

TEST_CASE("grid handles empty, single and far-apart sets", "[grid]") {
  std::vector<float> none;
  CHECK(grid_pairs(none, none, 0.1f).empty());
  std::vector<float> one{1.0f};
  CHECK(grid_pairs(one, one, 0.1f).empty());
  // A huge extent makes the grid coarsen instead of allocating 10^12 cells.
  std::vector<float> x{-1e6f, -1e6f + 0.05f, 1e6f, 0.0f}, y{0.0f, 0.0f, 1e6f, 0.0f};
  CHECK(grid_pairs(x, y, 0.1f) == brute_pairs(x, y, 0.1f));
}

TEST_CASE("the bounding box holds every point wherever the extreme one lies", "[grid]") {
  // Grid::bounds keeps a running box per SIMD lane and takes the points
  // past the last whole group one by one: an extreme point in any lane,
  // in the tail or as the first point must set the box.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int n : {1, 3, 8, 9, 15, 16, 17, 31, 40}) {
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      x[i] = u(rng);
      y[i] = u(rng);
    }
    for (int at = 0; at < n; ++at) {
      for (int corner = 0; corner < 4; ++corner) {
        std::vector<float> px = x, py = y;
        (corner & 1 ? px : py)[at] = corner & 2 ? 5.0f : -5.0f;  // far outside the others
        const Grid::Bounds b = Grid::bounds(px.data(), py.data(), 0, n);
        INFO(n << " points, extreme point " << at << ", corner " << corner);
        CHECK(b.xmin == *std::min_element(px.begin(), px.end()));
        CHECK(b.xmax == *std::max_element(px.begin(), px.end()));
        CHECK(b.ymin == *std::min_element(py.begin(), py.end()));
        CHECK(b.ymax == *std::max_element(py.begin(), py.end()));
      }
    }
  }
}

TEST_CASE("the sort gives the same grid however its passes are split", "[grid]") {
  // World::sort_and_bin runs Grid::sort's passes on the thread pool, which
  // splits each into pieces run in any order: the grid must not depend on
  // it. Clustered points (many share a cell) over enough cells for
  // several of the sort's blocks of cells.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  const int n = 6000;
  const float radius = 0.04f;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    const float cx = float(i % 7) * 0.3f, cy = float(i % 5) * 0.5f;  // 35 clusters
    x[i] = cx + 0.1f * u(rng) * u(rng);
    y[i] = cy + 0.1f * u(rng);
  }
  // Each grid's order and each sorted point's neighbour ranges, from a grid
  // that sorted other points first (as World's does every step: nothing
  // may be left over from the last sort).
  int blocks = 0;  // the last grid's blocks of cells
  auto grid_of = [&](auto&& parallel) {
    Grid g;
    std::vector<uint32_t> rank(n);
    auto sort = [&](const std::vector<float>& px) {
      g.shape(n, radius, Grid::bounds(px.data(), y.data(), 0, n));
      parallel(n, [&](int begin, int end) { g.bin(px.data(), y.data(), begin, end); });
      g.sort(rank.data(), parallel);
    };
    std::vector<float> shifted(x);
    for (int i = 0; i < n; i += 3) shifted[i] = x[(i + n / 2) % n];
    sort(shifted);
    sort(x);
    blocks = g.cell_blocks();
    const auto& order = g.order();
    std::vector<float> sx(n), sy(n);
    for (int k = 0; k < n; ++k) {
      sx[k] = x[order[k]];
      sy[k] = y[order[k]];
    }
    g.bin(sx.data(), sy.data(), 0, n);
    std::vector<int> out(order.begin(), order.end());
    for (int k = 0; k < n; ++k)
      g.for_each_range(k, [&](int begin, int end) {
        out.push_back(begin);
        out.push_back(end);
      });
    return out;
  };
  const std::vector<int> serial = grid_of([](int count, auto&& body) { body(0, count); });
  // Pieces of 1 to 3 units, the last piece first.
  const std::vector<int> split = grid_of([&](int count, auto&& body) {
    std::vector<int> cuts{0};
    while (cuts.back() < count) cuts.push_back(std::min(count, cuts.back() + 1 + int(rng() % 3)));
    for (size_t p = cuts.size() - 1; p > 0; --p) body(cuts[p - 1], cuts[p]);
  });
  CHECK(split == serial);
  // The splits cut between blocks of cells only if there are several.
  CHECK(blocks >= 3);
}
