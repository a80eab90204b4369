// Internal to the tidepool CLI.
#pragma once

#include "tidepool/hooks.h"

namespace tidepool_cli {

// `tidepool bench ...` (bench.cpp).
int bench(int argc, char** argv);
// `tidepool bench --solver stable` (bench_grid.cpp): the grid solver's rows.
int bench_stable(bool json, bool quick, int threads, const tidepool::ParallelFor& hook);

}  // namespace tidepool_cli
