// GraphRows: where a graph's nodes keep their vectors, handed from Conifer's hnswlib
// binding (native/hnsw-index.cc, its own module: conifer_hnsw) to the exact scan
// (native/exact-scan.cc, in conifer_native) as a JavaScript External, so the scan can
// score a record whose only copy of the vector is its graph node (src/engine/vectors/
// arena.ts: the arena keeps a vector only while no graph node holds it).
//
// The two modules are separate shared objects and share no code; they share this layout.
// `magic` and `size` let the scan refuse anything else passed in its place.
//
// Validity: the pointers are into the graph's memory as it was when rows() made the
// External. Any call that changes the graph (an insert, a resize, a load, close) may move
// or free that memory, so the engine asks for a fresh External for each scan call and
// never keeps one (src/engine/vectors/exact-scan.ts). Both run on the thread that owns
// the graph, so nothing changes the graph during the call that reads it.
#ifndef CONIFER_GRAPH_ROWS_H
#define CONIFER_GRAPH_ROWS_H

#include <cstddef>
#include <cstdint>

namespace conifer_graph {

constexpr uint64_t kGraphRowsMagic = 0x434e46524f575331ull;  // "CNFROWS1"
constexpr uint32_t kNoNode = 0xffffffffu;

struct GraphRows {
  uint64_t magic = kGraphRowsMagic;
  size_t size = sizeof(GraphRows);
  // Node i's vector: dim floats at base + i * stride (hnswlib's node array plus the
  // vector's offset in a node); nodes: how many nodes exist.
  const char* base = nullptr;
  size_t stride = 0;
  size_t nodes = 0;
  size_t dim = 0;
  // nodeOf[label]: the node of a label, kNoNode when it has none (nodeOfLength labels).
  const uint32_t* nodeOf = nullptr;
  size_t nodeOfLength = 0;

  // The vector of `label`'s node, or null when it has none.
  const float* Row(uint32_t label) const {
    if (label >= nodeOfLength) return nullptr;
    const uint32_t node = nodeOf[label];
    if (node == kNoNode || node >= nodes) return nullptr;
    return reinterpret_cast<const float*>(base + size_t(node) * stride);
  }
};

}  // namespace conifer_graph

#endif
