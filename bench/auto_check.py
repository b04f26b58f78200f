"""What `auto` picks on this device for the shape classes of its policy, and that each answer is right
(fresh random data, poisoned output, float64 reference)."""
import numpy as np
import tcgemm
from tcgemm import _core

for M, N, K in [(128, 8192, 8192), (100, 3000, 700), (1000, 1000, 1000), (16, 8192, 8192), (2048, 2048, 2048),
                (4096, 4096, 4096)]:
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, (M, K)).astype(tcgemm.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(tcgemm.float16)
    da, db = tcgemm.to_device(a), tcgemm.to_device(b)
    dc = tcgemm.DeviceArray.empty((M, N), tcgemm.float16)
    dc._buf.fill_bytes(0xFF)
    used = _core.gemm("auto", da.ptr, db.ptr, dc.ptr, M, N, K, da.pitch, db.pitch, dc.pitch, _core.DType.float16,
                      _core.Layout.NN, _core.Accum.f32, True, 0, True)
    got = dc.numpy().astype(np.float64)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    print(f"{M}x{N}x{K}: auto -> {used}, rel err {np.linalg.norm(got - ref) / np.linalg.norm(ref):.2e}, "
          f"all written: {bool(np.isfinite(got).all())}")
