// The Hopper family's launch functions, one per registry entry (defined in
// the .cu files beside this, compiled only for sm_90a).
#pragma once
#include "tcgemm/status.h"
#include "tcgemm/types.h"

#include <cstddef>

namespace tcgemm::sm90 {

Status launch_tma_wgmma(const GemmArgs& a);       // tma_wgmma.cu
Status launch_tma_wgmma_pipe_s4(const GemmArgs& a);  // tma_wgmma_pipe_s4.cu
Status launch_ws(const GemmArgs& a);              // ws.cu
Status launch_ws_persistent(const GemmArgs& a);   // ws_persistent.cu
Status launch_ws_mcast(const GemmArgs& a);        // ws_mcast.cu
Status workspace_ws_mcast(const GemmArgs& a, size_t* bytes);   // its split tail's partials
Status launch_ws_mcast_2x2(const GemmArgs& a);    // ws_mcast_2x2.cu
Status workspace_ws_mcast_2x2(const GemmArgs& a, size_t* bytes);
Status launch_ws_mcast_m256(const GemmArgs& a);   // ws_mcast_m256.cu
Status workspace_ws_mcast_m256(const GemmArgs& a, size_t* bytes);
Status launch_ws_splitk(const GemmArgs& a);       // ws_splitk.cu
Status workspace_ws_splitk(const GemmArgs& a, size_t* bytes);  // its split-K partials
Status launch_ws_splitk_swap(const GemmArgs& a);  // ws_splitk_swap.cu
Status workspace_ws_splitk_swap(const GemmArgs& a, size_t* bytes);
Status launch_ws_splitk_swap_dsmem(const GemmArgs& a);  // ws_splitk_swap_dsmem.cu
Status workspace_ws_splitk_swap_dsmem(const GemmArgs& a, size_t* bytes);  // none: the slices meet in shared memory
Status launch_ws_splitk_swap_dsmem_nn(const GemmArgs& a);  // ws_splitk_swap_dsmem_nn.cu: its NN problems
Status launch_ws_splitk_dsmem(const GemmArgs& a);  // ws_splitk_dsmem.cu
Status workspace_ws_splitk_dsmem(const GemmArgs& a, size_t* bytes);  // none: the slices meet in shared memory
Status launch_ws_pingpong(const GemmArgs& a);     // ws_pingpong.cu
Status launch_ws_streamk(const GemmArgs& a);      // ws_streamk.cu
Status workspace_ws_streamk(const GemmArgs& a, size_t* bytes);  // its flags and partial tiles
Status launch_ws_splitk_n192(const GemmArgs& a);  // ws_splitk_n192.cu
Status workspace_ws_splitk_n192(const GemmArgs& a, size_t* bytes);
Status launch_ws_mcast_n192(const GemmArgs& a);   // ws_mcast_n192.cu
Status workspace_ws_mcast_n192(const GemmArgs& a, size_t* bytes);
Status launch_ws_fp8(const GemmArgs& a);         // ws_fp8.cu
Status launch_ws_fp8_block(const GemmArgs& a);   // ws_fp8_block.cu
Status launch_ws_fp8_mcast(const GemmArgs& a);   // ws_fp8_mcast.cu
Status launch_ws_fp8_wide(const GemmArgs& a);    // ws_fp8_wide.cu
Status launch_ws_fp8_wide_tma_store(const GemmArgs& a);  // ws_fp8_wide_tma_store.cu
Status launch_ws_fp8_tile192(const GemmArgs& a);  // ws_fp8_tile192.cu
Status launch_ws_fp8_splitk(const GemmArgs& a);   // ws_fp8_splitk.cu
Status workspace_ws_fp8_splitk(const GemmArgs& a, size_t* bytes);  // its split tail's partials
Status launch_ws_fp8_dsmem(const GemmArgs& a);        // ws_fp8_dsmem.cu
Status launch_ws_fp8_pingpong(const GemmArgs& a);     // ws_fp8_pingpong.cu
Status launch_ws_fp8_swap(const GemmArgs& a);         // ws_fp8_swap.cu
Status launch_ws_fp8_promoted_swap(const GemmArgs& a);  // ws_fp8_promoted_swap.cu
Status launch_ws_fp8_block_dsmem(const GemmArgs& a);  // ws_fp8_block_dsmem.cu
Status launch_ws_fp8_promoted(const GemmArgs& a);        // ws_fp8_promoted.cu
Status launch_ws_fp8_promoted_dsmem(const GemmArgs& a);  // ws_fp8_promoted_dsmem.cu
Status launch_ws_fp8_promoted_overlap(const GemmArgs& a);  // ws_fp8_promoted_overlap.cu
Status launch_ws_fp8_block_overlap(const GemmArgs& a);     // ws_fp8_block_overlap.cu
Status launch_ws_fp8_promoted_wide(const GemmArgs& a);    // ws_fp8_promoted_wide.cu
Status launch_ws_fp8_block_wide(const GemmArgs& a);       // ws_fp8_block_wide.cu
Status launch_ws_fp8_promoted_mcast(const GemmArgs& a);   // ws_fp8_promoted_mcast.cu
Status launch_ws_fp8_block_mcast(const GemmArgs& a);      // ws_fp8_block_mcast.cu
Status launch_ws_fp8_block_overlap_scale_warp(const GemmArgs& a);  // ws_fp8_block_overlap_scale_warp.cu
Status launch_ws_fp8_pingpong_mcast(const GemmArgs& a);  // ws_fp8_pingpong_mcast.cu
// Four of the entries above, their operands first copied to rows of whole 128-byte lines (lines.h);
// their workspace: workspace_ws_fp8_lines (lines.h).
Status launch_ws_fp8_pingpong_lines(const GemmArgs& a);          // ws_fp8_pingpong_lines.cu
Status launch_ws_fp8_wide_lines(const GemmArgs& a);              // ws_fp8_wide_lines.cu
Status launch_ws_fp8_promoted_overlap_lines(const GemmArgs& a);  // ws_fp8_promoted_overlap_lines.cu
Status launch_ws_fp8_promoted_wide_lines(const GemmArgs& a);     // ws_fp8_promoted_wide_lines.cu

}  // namespace tcgemm::sm90
