// Tidepool — the arrays of per-particle fields, spread over the cache's sets.
//
// A pass reads and writes a dozen fields at the same index i (the forces
// pass: positions, velocities, 1/rho, p/rho, and five sums of neighbour j),
// so it needs a dozen cache lines at once, all of them at the same offset
// from their array's start. When those starts share an offset modulo 4 KiB
// the lines all fall into one set of the 8-way L1 cache, where no more than
// eight of them fit: they evict one another at every index. Equal offsets
// are the rule, not bad luck: glibc maps a block of 128 KiB or more to
// fresh pages (offset 16 for every array), and arrays of one size allocated
// in a row, as Particles' are, sit one size plus a header apart, which
// moves the offset by the header alone when the size is a multiple of
// 4 KiB. Large worlds step markedly faster with their arrays spread
// (docs/performance.md).
//
// So an array of at least kSpreadBytes starts at one of 16 cache-line
// offsets within a 1 KiB window, picked from the address its block got
// (deterministic, no shared state): 1 KiB more per array, counted in
// World::bytes_per_particle (footprint()). Smaller arrays (worlds of under
// 4 096 particles) are allocated as usual: the window would cost them up to
// a quarter of their bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace tidepool {

template <class T>
struct SpreadAllocator {
  using value_type = T;
  static constexpr size_t kSpreadBytes = 16384;
  static constexpr size_t kLine = 64, kSlots = 16;
  // Room for the pointer to the block, the alignment to a line and the
  // largest offset.
  static constexpr size_t kSlack = sizeof(void*) + kLine - 1 + (kSlots - 1) * kLine;

  SpreadAllocator() = default;
  template <class U>
  SpreadAllocator(const SpreadAllocator<U>&) {}

  // Whether an array of capacity n gets a spread start.
  static bool spread(size_t n) { return n * sizeof(T) >= kSpreadBytes; }
  // The bytes an array of capacity n takes.
  static size_t footprint(size_t n) { return n * sizeof(T) + (spread(n) ? kSlack : 0); }

  // The offset, in lines, of the array whose block starts at `raw`: the top
  // bits of a hash of the block's line number (splitmix64's finalizer), so
  // that blocks a page apart (glibc's mapped ones) or an equal size apart (a
  // run of allocations) land on different offsets. A multiplicative hash
  // alone put all of a run on one offset for some sizes (tests/test_alloc.cpp).
  static size_t slot_of(uintptr_t raw) {
    uint64_t z = static_cast<uint64_t>(raw / kLine);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<size_t>((z ^ (z >> 31)) >> 60);
  }

  T* allocate(size_t n) {
    if (!spread(n)) return static_cast<T*>(::operator new(n * sizeof(T)));
    void* block = ::operator new(footprint(n));
    const uintptr_t raw = reinterpret_cast<uintptr_t>(block);
    const uintptr_t line = (raw + sizeof(void*) + kLine - 1) / kLine * kLine;
    const uintptr_t start = line + slot_of(raw) * kLine;
    reinterpret_cast<void**>(start)[-1] = block;  // for deallocate
    return reinterpret_cast<T*>(start);
  }

  void deallocate(T* p, size_t n) {
    ::operator delete(spread(n) ? reinterpret_cast<void**>(p)[-1] : p);
  }

  friend bool operator==(SpreadAllocator, SpreadAllocator) { return true; }
  friend bool operator!=(SpreadAllocator, SpreadAllocator) { return false; }
};

static_assert(uint64_t{1} << (64 - 60) == SpreadAllocator<float>::kSlots, "slot_of's shift makes kSlots slots");

// A per-particle field.
template <class T>
using Array = std::vector<T, SpreadAllocator<T>>;

// The bytes an array holds, its offset's window included.
template <class T>
size_t bytes_of(const Array<T>& a) {
  return SpreadAllocator<T>::footprint(a.capacity());
}

}  // namespace tidepool
