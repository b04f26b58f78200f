"""tcgemm: hand-written tensor-core GEMM kernels behind a NumPy API.

>>> import numpy as np, tcgemm
>>> a = np.random.rand(1000, 700).astype(np.float16)
>>> w = np.random.rand(300, 700).astype(np.float16)
>>> y = tcgemm.matmul(a, w.T)        # x @ w.T: the TN kernel, no transpose copy
"""
from ._api import (DeviceArray, bfloat16, build_info, device_info, empty_pinned, float16, from_dlpack, kernels,
                   matmul, release_memory, scaled_matmul, set_staging_limit, to_device)
from ._fp8 import quantize_fp8

__version__ = build_info()["version"]

__all__ = ["matmul", "scaled_matmul", "DeviceArray", "to_device", "from_dlpack", "kernels", "build_info",
           "device_info", "float16", "bfloat16", "empty_pinned", "release_memory", "set_staging_limit", "quantize_fp8",
           "__version__"]
