"""Type stubs for tcgemm._core, the pybind11 bindings of the C++ library."""
from typing import Any

import numpy as np

class DType:
    float16: DType
    bfloat16: DType
    float8_e4m3fn: DType  # operands only
    float8_e5m2: DType  # operands only, never both
    float32: DType  # outputs only

class ScaleMode:
    """torch._scaled_mm's scale modes: D = act(scale_a * scale_b * (A B) + bias)."""
    none: ScaleMode
    tensor: ScaleMode  # one float each
    rowwise: ScaleMode  # A: M, B: N
    block: ScaleMode  # A: M x ceil(K/128), B: ceil(N/128) x ceil(K/128)

class Layout:
    NN: Layout
    TN: Layout

class Accum:
    f32: Accum
    f16: Accum
    fast: Accum

class Activation:
    none: Activation
    relu: Activation
    gelu: Activation
    silu: Activation

class BiasType:
    float16: BiasType
    bfloat16: BiasType
    float32: BiasType

# Keyword options of gemm / time_gemm / check_args (GemmArgs' optional fields):
#   batch, stride_a, stride_b, stride_c, alpha, beta, source, ld_source, stride_source,
#   bias, bias_type (BiasType), activation (Activation), split_k,
#   dtype_b, dtype_c (DType; default: dtype), scale_mode (ScaleMode), scale_a, scale_b (fp32 device
#   pointers), scale_a_strides, scale_b_strides ((row, 128-K block) element strides)

class DeviceBuffer:
    def __init__(self, rows: int, cols: int, dtype: DType, stream: int = 0, fill: str = "all") -> None: ...
    @property
    def rows(self) -> int: ...
    @property
    def cols(self) -> int: ...
    @property
    def pitch(self) -> int: ...
    @property
    def dtype(self) -> DType: ...
    @property
    def device(self) -> int: ...
    @property
    def valid(self) -> bool: ...
    @property
    def owns(self) -> bool: ...
    @property
    def ptr(self) -> int: ...
    stream: int  # the stream its free is ordered on
    def upload(self, host: np.ndarray, stream: int = 0) -> None: ...
    def download(self, host: np.ndarray, stream: int = 0) -> None: ...
    def fill_bytes(self, value: int, stream: int = 0) -> None: ...
    def free(self) -> None: ...

def gemm(kernel: str, a: int, b: int, c: int, M: int, N: int, K: int, lda: int, ldb: int, ldc: int,
         dtype: DType, layout: Layout, accum: Accum, grid_swizzle: bool = True, stream: int = 0,
         sync: bool = False, **options: Any) -> str: ...
def time_gemm(kernel: str, rotation: list[tuple[int, int, int]], M: int, N: int, K: int, lda: int, ldb: int,
              ldc: int, dtype: DType, layout: Layout, accum: Accum, grid_swizzle: bool, warmup: int, iters: int,
              stream: int, **options: Any) -> list[float]: ...
# The planned call path: plan once per shape (cached), then run = checks + one launch.
def plan(kernel: str, M: int, N: int, K: int, dtype: DType, layout: Layout, accum: Accum, plain: bool, batch: int,
         split_k: int, device: int = -1, *, dtype_b: DType | None = None, dtype_c: DType | None = None,
         scale_mode: ScaleMode = ..., b_ragged: bool = False) -> tuple[int, str, int]: ...
class RunArgs:
    """One planned launch: the plan handle and what the plan does not fix. Built once per call."""
    plan: int
    a: int
    b: int
    c: int  # the output
    lda: int
    ldb: int
    ldc: int
    stream: int
    workspace: int  # 0: the kernel takes its own from tcgemm's pool
    workspace_bytes: int
    grid_swizzle: bool
    alpha: float  # the epilogue (defaults: the plain one)
    beta: float
    source: int
    ld_source: int
    stride_source: int
    bias: int
    bias_type: int  # BiasType's value
    activation: int  # Activation's value
    batch: int
    stride_a: int
    stride_b: int
    stride_c: int
    scale_a: int  # FP8 scales (the plan fixes the mode): fp32 device pointers, element strides
    scale_b: int
    scale_a_stride: int
    scale_a_stride_k: int
    scale_b_stride: int
    scale_b_stride_k: int
    def __init__(self, plan: int, a: int, b: int, c: int, lda: int, ldb: int, ldc: int, stream: int, workspace: int,
                 workspace_bytes: int, grid_swizzle: bool) -> None: ...
    def set_epilogue(self, alpha: float, beta: float, source: int, ld_source: int, stride_source: int, bias: int,
                     bias_type: int, activation: int) -> None: ...
    def set_batch(self, batch: int, stride_a: int, stride_b: int, stride_c: int) -> None: ...
    def set_scales(self, scale_a: int, scale_b: int, scale_a_stride: int, scale_a_stride_k: int, scale_b_stride: int,
                   scale_b_stride_k: int) -> None: ...
    # Copies (src, dst, rows, cols, batch, src_row, src_col, src_batch, dst_row, dst_col, dst_batch) of
    # 2-byte elements, element strides: in one launch before the kernel (at most 4), one after (at most 1).
    def set_staging(self, copies_in: tuple, copies_out: tuple, /) -> None: ...
    def staging(self) -> tuple[tuple, tuple]: ...
def run(args: RunArgs, /) -> None: ...
def capture_status(stream: int) -> str: ...
def time_tensor_map_encode(n: int = 1000) -> float: ...
def pool_stats() -> dict[str, int]: ...
def copy_bytes(dst: int, src: int, bytes: int, stream: int, /) -> None: ...

# Host memory: pinned buffers, the staging ring, the host GEMM pipeline.
class PinnedBuffer:
    def __init__(self, bytes: int) -> None: ...
    @property
    def ptr(self) -> int: ...
def is_pinned(ptr: int, bytes: int, /) -> bool: ...
def set_staging_limit(bytes: int) -> None: ...
def staging_limit() -> int: ...
def staging_held() -> int: ...
def release_memory() -> None: ...
class HostGemmArgs:
    """One NumPy-to-NumPy GEMM through the host pipeline, the argument of host_gemm(). Every field by keyword;
    a field of the wrong type is a TypeError naming it."""
    kernel: str
    a: np.ndarray | None  # M x K, 2-byte elements, contiguous rows (a, b, d: None until set)
    b: np.ndarray | None  # K x N (layout NN) or N x K (TN)
    d: np.ndarray | None  # the M x N output
    source: np.ndarray | None  # the epilogue's c, M x N
    bias: np.ndarray | None  # N values of bias_type
    M: int
    N: int
    K: int
    dtype: DType
    layout: Layout
    accum: Accum
    grid_swizzle: bool
    split_k: int  # 0: the kernel decides
    alpha: float  # the epilogue (defaults: the plain one)
    beta: float
    bias_type: int  # BiasType's value
    activation: int  # Activation's value
    stream: int
    panel_rows: int  # 0: chosen from the staging slot size
    def __init__(self, *, kernel: str = "auto", a: np.ndarray | None = None, b: np.ndarray | None = None,
                 d: np.ndarray | None = None, source: np.ndarray | None = None, bias: np.ndarray | None = None,
                 M: int = 0, N: int = 0, K: int = 0, dtype: DType = ..., layout: Layout = ..., accum: Accum = ...,
                 grid_swizzle: bool = True, split_k: int = 0, alpha: float = 1.0, beta: float = 0.0,
                 bias_type: int = 2, activation: int = 0, stream: int = 0, panel_rows: int = 0) -> None: ...
def host_gemm(args: HostGemmArgs, /) -> str: ...

def mma_sync_peak(accum: Accum, ldmatrix_fed: bool = False) -> float: ...
def time_mma_ceiling(accum: Accum, launches: int, ldmatrix_fed: bool = False) -> tuple[list[float], float]: ...
def check_args(M: int, N: int, K: int, lda: int, ldb: int, ldc: int, dtype: DType, layout: Layout, accum: Accum,
               a: int, b: int, c: int, **options: Any) -> None: ...
def kernels() -> list[dict[str, Any]]: ...
def device_info() -> dict[str, Any] | None: ...
def buffer_to_dlpack(buffer: DeviceBuffer, transposed: bool) -> Any: ...
def buffer_from_dlpack(capsule: Any, stream: int = 0) -> tuple[DeviceBuffer, bool, bool]: ...
def set_device(index: int) -> None: ...
def get_device() -> int: ...
def stream_synchronize(stream: int) -> None: ...
def device_count() -> int: ...
def pitch_for(cols: int) -> int: ...
def build_info() -> dict[str, Any]: ...
