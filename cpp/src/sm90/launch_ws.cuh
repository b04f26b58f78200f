// The host side of the warp-specialized kernels (ws_kernel.cuh): occupancy,
// the split plan and its workspace, the tensor maps, the launch (with a
// cluster where the configuration has one) and the split-K reduction behind
// it. An entry file (ws*.cu) names its configuration and calls
// launch_ws_variant / launch_ws_layout and workspace_bytes. Cfg is always
// WsTraits<config> (ws_config.cuh).
#pragma once
#include "core/workspace.h"
#include "sched/persistent.h"
#include "sm90/common.cuh"
#include "sm90/splitk_reduce.cuh"
#include "sm90/ws_config.cuh"
#include "sm90/ws_kernel.cuh"
#include "sm90/ws_streamk_kernel.cuh"

#include <algorithm>
#include <string>

namespace tcgemm::sm90 {

// The kernel of a configuration: stream-K's own walk (ws_streamk_kernel.cuh)
// or ws_kernel.cuh's, whose FP8 entry point also takes the scales
// (ScaledParams); the others take Params.
template <class Cfg, DType DT, Layout L>
constexpr auto ws_kernel_for() {
  if constexpr (Cfg::STREAM_K) return ws_streamk_kernel<Cfg, DT, L>;
  else if constexpr (Cfg::FP8) return ws_scaled_kernel<Cfg, DT, L>;
  else return ws_kernel<Cfg, DT, L>;
}

// Workers (CTAs, or clusters of `ctas` CTAs) that are resident at once, per
// device, cached. Call after the kernel's shared-memory opt-in (set_smem):
// the occupancy query sees the opt-in. A query that finds no room is an
// error, not cached.
template <class Cfg, class Kernel>
Status max_workers(Kernel kernel, int64_t* out, int ctas = Cfg::CTAS) {
  static int cache[64][sched::kMaxClusterSlices + 1] = {};
  if (ctas < 1 || ctas > sched::kMaxClusterSlices)
    return Status::Error(StatusCode::not_supported, "a cluster of " + std::to_string(ctas) + " CTAs");
  int dev = 0;
  TCGEMM_CUDA_TRY(cudaGetDevice(&dev));
  int& n = cache[dev & 63][ctas];
  if (n == 0) {
    int sms = 0;
    TCGEMM_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    int found = sms;  // one 384-thread, ~200 KB CTA per SM
    if (ctas > 1) {
      cudaLaunchConfig_t cfg = {};
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = ctas, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
      cfg.gridDim = dim3(ctas * sms), cfg.blockDim = dim3(Cfg::THREADS);
      cfg.dynamicSmemBytes = Cfg::SMEM, cfg.attrs = attr, cfg.numAttrs = 1;
      TCGEMM_CUDA_TRY(cudaOccupancyMaxActiveClusters(&found, kernel, &cfg));
    }
    if (found < 1)
      return Status::Error(StatusCode::not_supported,
                           "no cluster of " + std::to_string(ctas) + " CTAs with " +
                               std::to_string(Cfg::SMEM) + " bytes of shared memory fits on this device");
    n = found;
  }
  *out = n;
  return Status::Ok();
}

// Split-K's slices, the tail they cover and the fp32 partials they need, for
// `most` resident workers: one slice and no bytes for kernels without
// split-K, or when the policy (sched::choose_split_plan) does not split.
struct SplitK {
  int splits = 1;
  int dp_rows = 0;         // unit rows computed whole (sched::PersistentSchedule::dp_rows)
  int partial_row0 = 0;    // the first output row of the split tail
  int64_t ld_partials = 0;  // floats per partial row: N rounded up to 4 (16-byte rows)
  size_t bytes = 0;
};

// With swap-AB `a` is the swapped problem (swap_ab): every tile is split the
// decode way (all or none: no tail, whose whole tiles would not go through
// the partials), and the partials are needed even with one slice.
template <class Cfg>
SplitK splitk_for(const GemmArgs& a, int64_t most) {
  SplitK s;
  if constexpr (Cfg::CLUSTER_SPLIT) {  // no partials in memory; the slices: cluster_split below
  } else if constexpr (Cfg::SWAP_AB) {
    const int64_t tiles = ceil_div(a.M, Cfg::BM) * ceil_div(a.N, Cfg::BN) * a.batch;
    s.splits =
        sched::choose_splits(a.split_k, tiles, static_cast<int>(ceil_div(a.K, Cfg::K_STAGE)), static_cast<int>(most));
    s.ld_partials = round_up(a.N, 4);
    s.bytes = sizeof(float) * static_cast<size_t>(a.batch) * s.splits * static_cast<size_t>(a.M) *
              static_cast<size_t>(s.ld_partials);
  } else if constexpr (Cfg::SPLIT_K) {
    const sched::PersistentSchedule tiles{static_cast<int>(ceil_div(a.M, Cfg::BM)),
                                          static_cast<int>(ceil_div(a.N, Cfg::BN)),
                                          1,
                                          Cfg::CLUSTER,
                                          static_cast<int>(a.batch),
                                          1,
                                          0,
                                          Cfg::CLUSTER_N};
    // K in the kernel's stages (FP8: 128 K), which its slices divide.
    const sched::SplitPlan plan = sched::choose_split_plan(a.split_k, tiles, static_cast<int>(ceil_div(a.K, Cfg::K_STAGE)),
                                                           static_cast<int>(most));
    s.splits = plan.splits;
    if (s.splits > 1) {
      s.dp_rows = plan.dp_rows;
      s.partial_row0 = static_cast<int>(std::min<int64_t>(a.M, int64_t{plan.dp_rows} * Cfg::CLUSTER * Cfg::BM));
      s.ld_partials = round_up(a.N, 4);
      s.bytes = sizeof(float) * static_cast<size_t>(a.batch) * s.splits * static_cast<size_t>(a.M - s.partial_row0) *
                static_cast<size_t>(s.ld_partials);
    }
  }
  return s;
}

// Stream-K's plan (sched::plan_stream_k) for `most` resident CTAs, the grid
// it takes -- every resident CTA when whole waves run data-parallel, else
// only the streaming workers, else one CTA per tile -- and its workspace:
// a flag per worker and consumer warpgroup, then a 128 KB fp32 slot per
// streaming worker.
struct StreamK {
  sched::StreamKSchedule sch;
  int64_t grid = 0;
  size_t flag_bytes = 0, bytes = 0;
};

template <class Cfg>
StreamK stream_k_for(const GemmArgs& a, int64_t most) {
  StreamK r;
  sched::StreamKSchedule s{static_cast<int>(ceil_div(a.M, Cfg::BM)), static_cast<int>(ceil_div(a.N, Cfg::BN)),
                           a.grid_swizzle ? Cfg::GROUP : 1, static_cast<int>(a.batch),
                           static_cast<int>(ceil_div(a.K, Cfg::K_STAGE)), most};
  s = sched::plan_stream_k(s);
  r.grid = s.sk_tiles == 0 ? std::min(s.tiles(), most) : s.dp_tiles() > 0 ? most : s.sk_workers;
  s.workers = r.grid;  // the kernel's workers are its grid (gridDim.x)
  r.sch = s;
  r.flag_bytes = static_cast<size_t>(s.flag_bytes(Cfg::CONSUMERS));
  r.bytes = static_cast<size_t>(s.workspace_bytes(int64_t{Cfg::BM} * Cfg::BN * 4, Cfg::CONSUMERS));
  return r;
}

// The cluster split's slice count for these arguments
// (sched::choose_cluster_split), and how many clusters of that many CTAs are
// resident. The occupancy of each cluster size is queried once per device.
template <class Cfg, class Kernel>
Status cluster_split(Kernel kernel, const GemmArgs& a, int* slices, int64_t* clusters) {
  const int64_t tiles = ceil_div(a.M, Cfg::BM) * ceil_div(a.N, Cfg::BN) * a.batch;
  const int k_tiles = static_cast<int>(ceil_div(a.K, Cfg::K_STAGE));  // the kernel's stages (FP8: 128 K)
  int64_t resident[sched::kMaxClusterSlices + 1] = {};
  for (int s = 1; s <= sched::kMaxClusterSlices; ++s)
    if (!max_workers<Cfg>(kernel, &resident[s], s).ok()) resident[s] = 0;  // no cluster of s fits: not a candidate
  *slices = sched::choose_cluster_split(a.split_k, tiles, k_tiles, resident);
  *clusters = resident[*slices];
  if (*clusters < 1)
    return Status::Error(StatusCode::not_supported,
                         "no cluster of " + std::to_string(*slices) + " CTAs fits on this device");
  return Status::Ok();
}

// The workspace a launch of this configuration needs (KernelInfo::workspace).
// The occupancy behind the split count is the same for every dtype and
// layout, so one instantiation answers for all.
template <class Cfg>
Status workspace_bytes(const GemmArgs& a, size_t* bytes) {
  *bytes = 0;
  if constexpr (Cfg::STREAM_K) {
    const auto kernel = ws_kernel_for<Cfg, DType::f16, Layout::TN>();
    TCGEMM_TRY(set_smem(kernel, Cfg::SMEM));
    int64_t most = 0;
    TCGEMM_TRY((max_workers<Cfg>(kernel, &most)));
    *bytes = stream_k_for<Cfg>(a, most).bytes;
  } else if constexpr (Cfg::SPLIT_K && !Cfg::CLUSTER_SPLIT) {  // the cluster split keeps its slices in shared memory
    const auto kernel = ws_kernel_for<Cfg, DType::f16, Layout::TN>();
    TCGEMM_TRY(set_smem(kernel, Cfg::SMEM));
    int64_t most = 0;
    TCGEMM_TRY((max_workers<Cfg>(kernel, &most)));
    *bytes = splitk_for<Cfg>(Cfg::SWAP_AB ? swap_ab(a) : a, most).bytes;
  }
  return Status::Ok();
}

// The kernel's launch: <<<>>> where a CTA works alone, else with the
// cluster dimension (`ctas` CTAs, consecutive in blockIdx.x) as a launch
// attribute. P: Params, or ScaledParams for FP8.
template <class Cfg, class Kernel, class P>
Status launch_grid(Kernel kernel, unsigned grid, int ctas, cudaStream_t stream, const CUtensorMap& map_a,
                   const CUtensorMap& map_b, const CUtensorMap& map_c, const P& p) {
  if constexpr (Cfg::CTAS == 1 && !Cfg::CLUSTER_SPLIT) {
    kernel<<<grid, Cfg::THREADS, Cfg::SMEM, stream>>>(map_a, map_b, map_c, p);
    return Status::Ok();
  } else {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = ctas, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(grid), cfg.blockDim = dim3(Cfg::THREADS), cfg.dynamicSmemBytes = Cfg::SMEM;
    cfg.stream = stream, cfg.attrs = attr, cfg.numAttrs = 1;
    return cuda_status(cudaLaunchKernelEx(&cfg, kernel, map_a, map_b, map_c, p), "cudaLaunchKernelEx");
  }
}

template <class Cfg, DType DT, Layout L>
Status launch_ws(const GemmArgs& orig) {
  const auto kernel = ws_kernel_for<Cfg, DT, L>();
  // Everything up to the reduction sees the problem the kernel computes:
  // with swap-AB, D^T = B^T A^T (M and N, A and B exchanged).
  const GemmArgs a = Cfg::SWAP_AB ? swap_ab(orig) : orig;
  if constexpr (Cfg::SWAP_AB && !Cfg::CLUSTER_SPLIT) TCGEMM_TRY(transposed_reduce_fits(orig.M, orig.batch));
  CUtensorMap map_a, map_b, map_c = {};
  // A's box: the rows one CTA loads (BM, or its share with A multicast).
  // Swapped, an NN problem's maps come from the caller's operands (its B
  // read MN-major as A, its A as B).
  if constexpr (Cfg::SWAP_AB && L == Layout::NN)
    TCGEMM_TRY((encode_swapped_nn_operands<Cfg::BM, Cfg::BN>(orig, &map_a, &map_b)));
  else
    TCGEMM_TRY((encode_operands<Cfg::BM / Cfg::CLUSTER_N, Cfg::BN, Cfg::CLUSTER, Cfg::K_STAGE>(a, &map_a, &map_b)));
  if constexpr (Cfg::TMA_STORE) {
    tma::TensorMapParams pc;
    TCGEMM_TRY(tma::gemm_operand(a, tma::Operand::C, 64, 64, tma::Swizzle::b128, &pc));
    TCGEMM_TRY(tma::add_batch_dim(&pc, a.batch, a.batch_stride_c));
    TCGEMM_TRY(tma::encode(pc, &map_c));
  }
  TCGEMM_TRY(set_smem(kernel, Cfg::SMEM));
  Params p = make_params(a, Cfg::BM, Cfg::BN);
  int64_t most = 0;  // workers resident at once
  if constexpr (Cfg::PERSISTENT) TCGEMM_TRY((max_workers<Cfg>(kernel, &most)));
  const SplitK split = splitk_for<Cfg>(a, most);
  p.splits = split.splits, p.dp_rows = split.dp_rows, p.partial_row0 = split.partial_row0;
  // Cluster split: clusters of `splits` CTAs, each cluster a unit (tile).
  if constexpr (Cfg::CLUSTER_SPLIT) TCGEMM_TRY((cluster_split<Cfg>(kernel, a, &p.splits, &most)));
  const int ctas = Cfg::CLUSTER_SPLIT ? p.splits : Cfg::CTAS;
  const sched::PersistentSchedule sch{p.tiles_m, p.tiles_n, p.grouped ? Cfg::GROUP : 1, Cfg::CLUSTER, p.batches,
                                      Cfg::CLUSTER_SPLIT ? 1 : p.splits, p.dp_rows, Cfg::CLUSTER_N};
  StreamK sk;
  if constexpr (Cfg::STREAM_K) {
    sk = stream_k_for<Cfg>(a, most);
    p.sk_tiles = sk.sch.sk_tiles, p.sk_workers = static_cast<int>(sk.sch.sk_workers);
  }
  // Not persistent: one CTA per unit. Stream-K: never more than are
  // resident (its fix-up waits on other CTAs of the grid).
  const int64_t workers = Cfg::STREAM_K ? sk.grid : Cfg::PERSISTENT ? sch.grid(most) : sch.units();
  if (workers * ctas > 0x7fffffff)
    return Status::Error(StatusCode::not_supported, "too many output tiles for one grid");
  const unsigned grid = static_cast<unsigned>(workers * ctas);
  // Split-K's fp32 partials, stream-K's flags and slots: the launch's
  // workspace (core/workspace.h: the caller's, else tcgemm's pool, freed on
  // the stream once the kernels have read it).
  const size_t ws_bytes = Cfg::STREAM_K ? sk.bytes : split.bytes;
  LaunchWorkspace ws;
  if (ws_bytes) {
    p.ld_partials = split.ld_partials;
    TCGEMM_TRY(ws.acquire(a.workspace, a.workspace_bytes, ws_bytes, a.stream));
    p.partials = static_cast<float*>(ws.ptr());
  }
  // Stream-K's flags start at zero in every launch: the caller's memory
  // holds anything, and a CUDA graph replays the launch unchanged, so a
  // memset node on the stream (ordered, capturable, no allocation) clears
  // them; a publication then is always this launch's.
  if constexpr (Cfg::STREAM_K) {
    if (ws_bytes) {
      p.sk_flags = static_cast<int*>(ws.ptr());
      p.partials = reinterpret_cast<float*>(static_cast<char*>(ws.ptr()) + sk.flag_bytes);
      const Status m = cuda_status(cudaMemsetAsync(ws.ptr(), 0, sk.flag_bytes, a.stream), "cudaMemsetAsync");
      if (!m.ok()) return ws.release(m);
    }
  }
  Status launched;
  if constexpr (Cfg::FP8) {
    ScaledParams sp;
    static_cast<Params&>(sp) = p;
    sp.scales = kernel_scales(a.scales);
    launched = launch_grid<Cfg>(kernel, grid, ctas, a.stream, map_a, map_b, map_c, sp);
  } else {
    launched = launch_grid<Cfg>(kernel, grid, ctas, a.stream, map_a, map_b, map_c, p);
  }
  if (!launched.ok()) return ws.release(launched);
  Status s = check_launch("ws_kernel");
  // (The cluster split and stream-K sum in the kernel; of the FP8 configurations only the split tail splits.)
  if constexpr (!Cfg::CLUSTER_SPLIT && !Cfg::STREAM_K && (!Cfg::FP8 || Cfg::SPLIT_K)) {
    if (s.ok() && (p.splits > 1 || Cfg::SWAP_AB)) {
      const ReduceParams r{p.partials,       p.ld_partials,   p.splits,   p.batches,
                           static_cast<int>(orig.M), static_cast<int>(orig.N), p.partial_row0, p.C,
                           orig.ldc,         p.stride_c,      p.ep,       Cfg::SWAP_AB};
      s = launch_splitk_reduce<DT>(r, a.stream);
    }
  }
  return ws.release(s);
}

// One layout's kernels (both element types): a translation unit that
// calls this for one layout builds only that layout's instantiations.
template <class Cfg, Layout L>
Status launch_ws_layout(const GemmArgs& a) {
  if (a.accum != Accum::f32)
    return Status::Error(StatusCode::not_supported, "the sm90 kernels accumulate in f32 only");
  if (a.layout != L) return Status::Error(StatusCode::not_supported, "these kernels were built for the other layout");
  if (a.dtype == DType::f16) return launch_ws<Cfg, DType::f16, L>(a);
  return launch_ws<Cfg, DType::bf16, L>(a);
}

// An FP8 kernel configuration Cfg (WsTraits, its pair chosen) for the
// arguments' output type: bf16, fp16, fp32 -- fp32 only where the epilogue
// stores 32-bit values (not the TMA store's 16-bit boxes, nor the swap's
// transposed 16-bit pairs).
template <class Cfg>
Status launch_ws_scaled_out(const GemmArgs& a) {
  switch (a.c_type()) {
    case DType::bf16: return launch_ws<Cfg, DType::bf16, Layout::TN>(a);
    case DType::f16: return launch_ws<Cfg, DType::f16, Layout::TN>(a);
    case DType::f32:
      if constexpr (Cfg::TMA_STORE || Cfg::SWAP_AB)
        return Status::Error(StatusCode::not_supported, "float32 output from a kernel that stores 16-bit values only");
      else return launch_ws<Cfg, DType::f32, Layout::TN>(a);
    default: return Status::Error(StatusCode::not_supported, "FP8 outputs are float16, bfloat16 or float32");
  }
}

// What every FP8 launch checks first: the accumulation the kernel keeps
// (fp32 sums need promotion; a promoting kernel also serves a caller who
// allows the fast sum), TN only -- FP8 wgmma reads both operands K-major
// from shared memory (PTX ISA: wgmma.mma_async, no imm-trans for
// .e4m3/.e5m2), and an NN B (K x N, N contiguous) would need a transposing
// copy, which is the caller's to make (docs/fp8.md) -- and the scale mode the
// kernel is built for (block or not).
inline Status check_scaled_launch(const GemmArgs& a, bool block, bool promoted) {
  if (a.accum == Accum::f16 || (a.accum == Accum::f32 && !promoted))
    return Status::Error(StatusCode::not_supported,
                         promoted ? "the sm90 FP8 kernels accumulate in f32"
                                  : "this kernel sums in FP8 wgmma's accumulator (accumulate='fast'): fp32 "
                                    "accumulation needs a promoting kernel");
  if (a.layout != Layout::TN)
    return Status::Error(StatusCode::not_supported,
                         "FP8 wgmma reads B K-major only: layout NN (B stored K x N) is not supported; pass B "
                         "stored N x K (layout TN, e.g. w.T of a row-major N x K weight w)");
  if ((a.scales.mode == ScaleMode::block) != block)
    return Status::Error(StatusCode::not_supported, std::string("scale mode '") + to_string(a.scales.mode) +
                                                        "' on a kernel for " + (block ? "block" : "tensor/row-wise") +
                                                        " scales");
  return Status::Ok();
}

// An FP8 configuration (C: its config, any pair) for the arguments' operand
// pair and output type: 3 pairs x 3 outputs.
template <WsConfig C>
Status launch_ws_scaled(const GemmArgs& a) {
  TCGEMM_TRY(check_scaled_launch(a, C.scaling == Scaling::block, WsTraits<C>::PROMOTED));
  if (a.dtype == DType::e5m2) return launch_ws_scaled_out<WsTraits<with_fp8(C, Fp8::e5m2_e4m3)>>(a);
  if (a.b_type() == DType::e5m2) return launch_ws_scaled_out<WsTraits<with_fp8(C, Fp8::e4m3_e5m2)>>(a);
  return launch_ws_scaled_out<WsTraits<with_fp8(C, Fp8::e4m3_e4m3)>>(a);
}

// Both layouts. The swap's configurations are launched one layout at a time
// (swap.cuh), so that each translation unit builds only its own.
template <class Cfg>
Status launch_ws_variant(const GemmArgs& a) {
  static_assert(!Cfg::SWAP_AB, "swap-AB configurations: launch_ws_layout, per layout (swap.cuh)");
  return a.layout == Layout::TN ? launch_ws_layout<Cfg, Layout::TN>(a) : launch_ws_layout<Cfg, Layout::NN>(a);
}

}  // namespace tcgemm::sm90
