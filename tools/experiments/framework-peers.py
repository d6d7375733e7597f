"""The peers of kernel-candidates.cu, each alone on this machine's GPU (triton.testing.do_bench
medians, hot L2), and one-time costs under a few settings. Not the harness: a quick map for P31.

  python3 tools/experiments/framework-peers.py triton    the triton layer's transpose, reduce and
      matmul kernels (variants/triton/_triton_layer.py, without its harness glue), torch.compile's
      transpose and sum, torch.mm; each autotuned configuration's speed at each size
  python3 tools/experiments/framework-peers.py tronly    the transposes alone, two launches each (for ncu)
  python3 tools/experiments/framework-peers.py inductor  torch.compile's first and second compile in a
      process (TORCHINDUCTOR_COMPILE_THREADS as the environment says)
  python3 tools/experiments/framework-peers.py jax       XLA's first call of each default matmul, under
      the XLA_FLAGS of the environment"""
import os
import sys
import time

part = sys.argv[1] if len(sys.argv) > 1 else ""
if part not in ("triton", "tronly", "inductor", "jax"):
    sys.exit(__doc__)
t0 = time.perf_counter()

def stamp(msg):
    print(f"[{time.perf_counter() - t0:7.2f} s] {msg}", flush=True)

if part == "jax":
    # XLA's one-time cost of the fp32 matmuls under the flags given in the environment
    import jax, jax.numpy as jnp
    stamp(f"import jax, XLA_FLAGS={os.environ.get('XLA_FLAGS','')!r}")
    for s in (512, 1024, 2048, 4096):
        a = jnp.ones((s, s), jnp.float32); b = jnp.ones((s, s), jnp.float32)
        f = jax.jit(lambda x, y: jnp.matmul(x, y, precision=jax.lax.Precision.HIGHEST))
        t = time.perf_counter(); c = f(a, b).block_until_ready(); ct = time.perf_counter() - t
        reps = 20; t = time.perf_counter()
        for _ in range(reps): c = f(a, b)
        c.block_until_ready(); per = (time.perf_counter() - t) / reps
        stamp(f"jax matmul {s}: first call {ct:.2f} s, then {2*s**3/per/1e12:.1f} TFLOP/s (host-timed)")
    sys.exit(0)

import torch, triton, triton.language as tl
from triton.testing import do_bench
torch.backends.cuda.matmul.allow_tf32 = False
stamp("import torch, triton")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

if part in ("triton", "tronly"):
    import inspect
    print("triton.autotune", inspect.signature(triton.autotune), flush=True)
    src = open(os.path.join(ROOT, "variants/triton/_triton_layer.py")).read()
    # the layer's kernels without its harness glue: everything before `class Session`
    code = src[:src.index("class Session")].replace("import lb_torch\nimport lb_variant\n", "")
    # @triton.jit reads its function's source from a file (inspect.getsourcelines): exec'd text is
    # refused, so the kernels go through a file of their own.
    import importlib.util
    import tempfile
    kernels = os.path.join(tempfile.mkdtemp(), "triton_layer_kernels.py")
    with open(kernels, "w") as f:
        f.write(code)
    spec = importlib.util.spec_from_file_location("triton_layer_kernels", kernels)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ns = vars(module)
    dev = "cuda"
    for side in (4096, 8192):
        a = torch.randn(side, side, device=dev); b = torch.empty_like(a)
        T = ns["TR_BLOCK"]
        grid = (triton.cdiv(side, T), triton.cdiv(side, T))
        f = lambda: ns["transpose_kernel"][grid](a, b, side, side, BLOCK=T)
        f(); torch.cuda.synchronize(); assert torch.equal(b, a.t())
        if part == "tronly":
            fc = torch.compile(lambda x: x.t().contiguous()); fc(a); fc(a); torch.cuda.synchronize()
            continue
        ms = do_bench(f, warmup=25, rep=200, return_mode="median")
        stamp(f"triton transpose {side}: {ms:.4f} ms {2*4*side*side/ms/1e6:.0f} GB/s")
        fc = torch.compile(lambda x: x.t().contiguous())
        fc(a); torch.cuda.synchronize()
        ms = do_bench(lambda: fc(a), warmup=25, rep=200, return_mode="median")
        stamp(f"torch.compile transpose {side}: {ms:.4f} ms {2*4*side*side/ms/1e6:.0f} GB/s")
    if part == "tronly":
        sys.exit(0)
    for n in (1 << 20, 1 << 24, 1 << 26):
        x = torch.randn(n, device=dev)
        fc = torch.compile(lambda v: v.sum())
        fc(x); torch.cuda.synchronize()
        ms = do_bench(lambda: fc(x), warmup=25, rep=200, return_mode="median")
        stamp(f"torch.compile reduce {n}: {ms:.4f} ms {4*n/ms/1e6:.0f} GB/s")
        RB = ns["REDUCE_BLOCK"]; progs = max(1, min(triton.cdiv(n, RB), 4 * torch.cuda.get_device_properties(0).multi_processor_count))
        parts = torch.empty(progs, device=dev); out = torch.empty(1, device=dev)
        def tr():
            ns["block_sum_kernel"][(progs,)](x, parts, n, BLOCK=RB)
            ns["block_sum_kernel"][(1,)](parts, out, progs, BLOCK=RB)
        tr(); ms = do_bench(tr, warmup=25, rep=200, return_mode="median")
        stamp(f"triton reduce {n}: {ms:.4f} ms {4*n/ms/1e6:.0f} GB/s")
    mk = ns["matmul_kernel"]
    for s in (512, 1024, 2048, 4096):
        a = torch.randn(s, s, device=dev); b = torch.randn(s, s, device=dev); c = torch.empty(s, s, device=dev)
        grid = lambda meta: (triton.cdiv(s, meta["BLOCK_M"]) * triton.cdiv(s, meta["BLOCK_N"]),)
        t = time.perf_counter(); mk[grid](a, b, c, s, s, s); torch.cuda.synchronize(); tune = time.perf_counter() - t
        ms = do_bench(lambda: mk[grid](a, b, c, s, s, s), warmup=25, rep=200, return_mode="median")
        stamp(f"triton matmul {s}: autotune+first {tune:.2f} s, best {mk.best_config}, {2*s**3/ms/1e9:.1f} TFLOP/s")
        cfg_times = getattr(mk, "configs_timings", None) or {}
        for cfg, tms in sorted(cfg_times.items(), key=lambda kv: (kv[1][0] if isinstance(kv[1], (list, tuple)) else kv[1])):
            v = tms[0] if isinstance(tms, (list, tuple)) else tms
            print(f"    {cfg}: {2*s**3/v/1e9:.1f} TFLOP/s")
        ms = do_bench(lambda: torch.mm(a, b, out=c), warmup=25, rep=200, return_mode="median")
        stamp(f"cublas(torch.mm) matmul {s}: {2*s**3/ms/1e9:.1f} TFLOP/s")
    sys.exit(0)

if part == "inductor":
    # torch.compile's first compile in a process, one compile thread (as the layer sets)
    x = torch.randn(1 << 20, device="cuda"); y = torch.randn(1 << 20, device="cuda")
    t = time.perf_counter(); f = torch.compile(lambda a, b: a + b, fullgraph=True, dynamic=False); f(x, y); torch.cuda.synchronize()
    stamp(f"first torch.compile (vector add): {time.perf_counter() - t:.2f} s, TORCHINDUCTOR_COMPILE_THREADS={os.environ.get('TORCHINDUCTOR_COMPILE_THREADS')}")
    t = time.perf_counter(); g = torch.compile(lambda a: a.sum(), fullgraph=True, dynamic=False); g(x); torch.cuda.synchronize()
    stamp(f"second torch.compile (sum): {time.perf_counter() - t:.2f} s")
    sys.exit(0)
