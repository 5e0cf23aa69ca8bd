// Large allocations advised for transparent huge pages (THP), for hnswlib's node array
// while a graph file is read.
//
// Why: hnswlib keeps every node (its vector and level-0 links) in one malloc'd array,
// 168 MB at 100k × 384, which loadIndex fills straight from the file. Each first touch of
// a 4 KiB page is a page fault, and on the VM the benchmarks run on one costs ~3–11 µs:
// reading one such graph file spent ~0.5 s of its ~1.2 s in faults. Advised before the
// first touch, the kernel fills the range 2 MiB at a time (measured: 256 MiB
// first-touched in 0.73 s with 4 KiB pages, 0.02–0.47 s advised), and the same graph
// file loads in 0.6–0.7 s.
//
// Only inside an AdviseScope (ReadGraph opens one), not for graphs built in memory:
// advised there too, paired 100k × 384 ingests built the graph in the same time, but the
// first queries after it ran slower (first pass p50 3.2–3.6 ms against 1.6–2.2 ms); a
// graph read from a file answers at the same speed either way.
//
// The advice is only advice: with THP "never" (or off Linux) nothing changes, and the
// kernel falls back to 4 KiB pages whenever no huge page is free. Only blocks of at least
// kAdviseBytes are advised: glibc serves those from a mapping of their own (above its
// mmap threshold, at most 32 MiB), so advising the pages a block lies on advises no other
// allocation's memory; a smaller block gains little. Resident memory: a huge page is
// resident whole, so a block may hold up to 2 MiB more than it has touched (its last,
// partly used huge page).
#ifndef CONIFER_HUGE_PAGES_H
#define CONIFER_HUGE_PAGES_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace conifer_memory {

constexpr size_t kAdviseBytes = size_t(32) << 20;

// Whether this thread's large allocations are advised now (AdviseScope sets it).
inline thread_local bool adviseHere = false;

// Advises this thread's large allocations while it lives.
class AdviseScope {
 public:
  AdviseScope() : outer_(adviseHere) { adviseHere = true; }
  ~AdviseScope() { adviseHere = outer_; }
  AdviseScope(const AdviseScope&) = delete;
  AdviseScope& operator=(const AdviseScope&) = delete;

 private:
  bool outer_;
};

// Inside an AdviseScope, advises the pages holding [p, p + size) for huge pages; errors
// are ignored (the memory works the same without the advice).
inline void AdviseHugePages(void* p, size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (!adviseHere || p == nullptr || size < kAdviseBytes) return;
  // The whole mapping, glibc's chunk header in its first page included: advising only
  // the pages inside the block would split the mapping in three, and glibc's realloc,
  // which grows a mapping with mremap, cannot move a range spanning several mappings, so
  // every later resize would copy the whole graph instead.
  const uintptr_t page = 4096;
  const uintptr_t from = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  const uintptr_t to = (reinterpret_cast<uintptr_t>(p) + size + page - 1) & ~(page - 1);
  madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
#else
  (void)p;
  (void)size;
#endif
}

// malloc and realloc, advising large blocks. realloc of a block glibc mapped on its own
// moves or grows the mapping (mremap), which keeps the advice; a block that was copied
// into a new mapping gets it here, after the copy, so only its later growth gains.
inline void* AllocateAdvised(size_t size) {
  void* p = std::malloc(size);
  AdviseHugePages(p, size);
  return p;
}

inline void* ReallocateAdvised(void* old, size_t size) {
  void* p = std::realloc(old, size);
  AdviseHugePages(p, size);
  return p;
}

}  // namespace conifer_memory

#endif  // CONIFER_HUGE_PAGES_H
