// Internal to the tidepool CLI.
#pragma once

namespace tidepool_cli {

// `tidepool bench ...` (bench.cpp).
int bench(int argc, char** argv);

}  // namespace tidepool_cli
