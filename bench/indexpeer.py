"""NumPy/SciPy closed forms of the index-arithmetic workloads (bench/workloads).

bench (indexpeer.go) runs this script once per cell: one JSON request on
standard input, one JSON answer on standard output.

  {"workload": "conv1d" | "stencil2d" | "tv" | "downsample" | "toeplitz",
   "wrt": "" | "x" | "K" | "t" | "U",
   "files": {"x": "x.f64", ...},          raw little-endian float64 arrays
   "ints": {"n": ..., "m": ..., "b": ...}, "reals": {"eps": ...},
   "reps": 5}
  -> {"status": "ok", "times": [seconds of each run], "sum": s, "sumsq": q,
      "numpy": "1.24.2", "scipy": "1.10.1" or null}
  or {"status": "not installed" | "error", "detail": "..."}

The closed forms are the ones the workloads' comments state, written the way
a NumPy user writes them: np.correlate / np.convolve for the 1-D ones,
scipy.ndimage.correlate for the stencil (its gradient the same correlation of
2ΔU, the kernel being symmetric). NumPy and SciPy run on one thread
(OMP_NUM_THREADS=1 and kin are set by the caller). The checksum is the sum and
the sum of squares of the result's values.
"""

import json
import sys
import time

try:
    import numpy as np
except ImportError:  # reported as "not installed"
    np = None
try:
    import scipy
    from scipy import ndimage
except ImportError:
    scipy = None
    ndimage = None


def conv1d(x, K, n, wrt):
    y = np.correlate(x, K, "valid")[:n]
    if wrt == "":
        return np.array([y @ y])
    if wrt == "x":
        g = np.zeros(len(x))
        g[: n + len(K) - 1] = np.convolve(2 * y, K, "full")
        return g
    return np.correlate(x[: n + len(K) - 1], 2 * y, "valid")


LAPLACE = None


def stencil(U, n, m, wrt):
    global LAPLACE
    if LAPLACE is None:
        LAPLACE = np.array([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])
    lap = ndimage.correlate(U, LAPLACE, mode="constant")
    d = np.zeros_like(U)
    d[1 : n - 1, 1 : m - 1] = lap[1 : n - 1, 1 : m - 1]
    if wrt == "":
        inner = d[1 : n - 1, 1 : m - 1]
        return np.array([np.sum(inner * inner)])
    return ndimage.correlate(2 * d, LAPLACE, mode="constant")


def tv(x, n, eps, wrt):
    d = np.diff(x[:n])
    r = np.sqrt(d * d + eps)
    if wrt == "":
        return np.array([r.sum()])
    g = np.zeros(len(x))
    c = d / r
    g[1:n] += c
    g[: n - 1] -= c
    return g


def downsample(x, K, n, wrt):
    y = np.correlate(x, K, "valid")[: 2 * n : 2]
    if wrt == "":
        return np.array([y @ y])
    u = np.zeros(2 * n - 1)
    u[::2] = 2 * y
    if wrt == "x":
        g = np.zeros(len(x))
        g[: 2 * n - 1 + len(K) - 1] = np.convolve(u, K, "full")
        return g
    return np.correlate(x[: 2 * n - 1 + len(K) - 1], u, "valid")


def toeplitz(x, t, n, b, wrt):
    xp = np.concatenate([np.zeros(b), x, np.zeros(len(t))])
    y = np.correlate(xp, t, "valid")[:n]
    if wrt == "":
        return np.array([y @ y])
    if wrt == "x":
        full = np.convolve(2 * y, t, "full")
        g = np.zeros(len(x))
        hi = min(len(x), len(full) - b)
        g[:hi] = full[b : b + hi]
        return g
    return np.correlate(xp[: n + len(t) - 1], 2 * y, "valid")


def main():
    req = json.loads(sys.stdin.readline())
    if np is None:
        print(json.dumps({"status": "not installed", "detail": "NumPy not installed"}))
        return
    if req["workload"] == "stencil2d" and ndimage is None:
        print(json.dumps({"status": "not installed", "detail": "SciPy not installed"}))
        return
    a = {k: np.fromfile(v, dtype="<f8") for k, v in req["files"].items()}
    ints, reals, wrt = req.get("ints", {}), req.get("reals", {}), req["wrt"]
    w = req["workload"]
    if w == "conv1d":
        f = lambda: conv1d(a["x"], a["K"], ints["n"], wrt)
    elif w == "stencil2d":
        U = a["U"].reshape(ints["n"], ints["m"])
        f = lambda: stencil(U, ints["n"], ints["m"], wrt)
    elif w == "tv":
        f = lambda: tv(a["x"], ints["n"], reals["eps"], wrt)
    elif w == "downsample":
        f = lambda: downsample(a["x"], a["K"], ints["n"], wrt)
    elif w == "toeplitz":
        f = lambda: toeplitz(a["x"], a["t"], ints["n"], ints["b"], wrt)
    else:
        print(json.dumps({"status": "error", "detail": "unknown workload " + w}))
        return
    r = f()  # a first run, not timed
    # the wall clock, or (cpu) the process's processor time
    clock = time.process_time if req.get("cpu") else time.perf_counter
    times = []
    for _ in range(req.get("reps", 5)):
        t0 = clock()
        r = f()
        times.append(clock() - t0)
    r = np.asarray(r, dtype=float).ravel()
    print(json.dumps({"status": "ok", "times": times, "sum": float(r.sum()), "sumsq": float((r * r).sum()),
                      "numpy": np.__version__, "scipy": scipy.__version__ if scipy else None}))


if __name__ == "__main__":
    main()
