"""The Python peers of `make paper`: PyTorch and SciPy, run the paper's way.

bench/paper starts this script once per system and talks to it over pipes:
one JSON request per line on standard input, one JSON answer per line on
standard output. Requests:

  {"op": "versions"}
      -> {"python": "3.11.2", "torch": "1.13.0a0" or null, "scipy": ..., "numpy": ...,
          "torch_threads": 1}
  {"op": "run", "system": "torch-dense" | "torch-sparse" | "scipy",
   "kernel": "batax" | "smmm" | "smvm" | "vva" | "vvd" | "vsm" | "smmm-sparse"
             | "least_squares" | "ridge" | "logistic" | "laplacian" | "mlp2" | "factorization",
   "n": N, "files": {"A": "A.mtx", "V2": "v.mtx", "x": "x.mtx", ...},
   "scalars": {"beta": 0.7, ...}, "reps": 5, "max_seconds": 1, "only_seconds": 10}
      -> {"status": "ok", "times": [seconds of each timed run], "setup_s": s,
          "first_s": f, "peak_bytes": b, "sum": s, "sumsq": q}
      or {"status": "unsupported" | "not installed" | "out of memory" | "error",
          "detail": "..."}

Every input is a Matrix Market file (matrices and sparse vectors as
coordinate files, dense workload vectors as array files); a dense input the
request does not name (x, B, V1 of the six kernels) is all ones, as in the Go
harness: none of the six gradients depends on it.

A run builds the system's representation of the inputs (setup, not timed:
PyTorch's dense systems densify the sparse matrix here), runs the gradient
once (its peak memory and checksum), then times up to `reps` more runs,
stopping early once they take `max_seconds` (at least one); a first run that
took `only_seconds` (default `max_seconds`) is the only one, and its time the
cell's. The first run's time is answered apart as `first_s`: a cold run. Peak memory is Linux's
high-water mark of resident memory (VmHWM) above the resident memory after
the files were loaded, reset through /proc/self/clear_refs, as the Go
harness measures it. The checksum is the sum and the sum of squares of the
gradient's values, which do not depend on whether zeros are stored.

PyTorch runs on one thread in float64. "torch-dense" is the paper's PyTorch:
dense tensors and torch.autograd.functional.jacobian (reverse mode, one
backward pass per output). "torch-sparse" keeps the sparse matrices as
torch.sparse COO tensors wherever an operation has autograd support
(torch.sparse.mm with a dense argument); where it has none the answer is
"unsupported" with PyTorch's message. "scipy" computes the closed-form
gradients with scipy.sparse and numpy.
"""

import ctypes
import gc
import gzip
import json
import math
import os
import sys
import time

try:
    import numpy as np
except ImportError:  # pragma: no cover - reported as "not installed"
    np = None
try:
    import scipy
    import scipy.sparse as sp
except ImportError:
    scipy = None
    sp = None
try:
    import torch
    from torch.autograd.functional import jacobian

    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
except ImportError:
    torch = None


def versions():
    return {
        "python": "%d.%d.%d" % sys.version_info[:3],
        "torch": torch.__version__ if torch else None,
        "scipy": scipy.__version__ if scipy else None,
        "numpy": np.__version__ if np is not None else None,
        "torch_threads": torch.get_num_threads() if torch else None,
    }


# ---------------------------------------------------------------- files


_cache = {}


def keep_cached(paths):
    """Forgets the files read for earlier requests but those in paths (a
    run's cells over one input read the same files many times)."""
    for p in list(_cache):
        if p not in paths:
            del _cache[p]


def read_mtx(path):
    st = os.stat(path)
    hit = _cache.get(path)
    if hit is not None and hit[0] == (st.st_mtime_ns, st.st_size):
        return hit[1]
    m = _read_mtx(path)
    _cache[path] = ((st.st_mtime_ns, st.st_size), m)
    return m


def _read_mtx(path):
    """Reads a Matrix Market file: ("coordinate", rows, cols, r, c, v) with
    0-based int64 coordinates (symmetric files expanded), or ("array", rows,
    cols, values in column-major order)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    pos = 0
    banner = None
    while True:
        end = data.index(b"\n", pos)
        line = data[pos:end].strip()
        pos = end + 1
        if banner is None:
            banner = line.lower().split()
            if len(banner) < 5 or banner[0] != b"%%matrixmarket":
                raise ValueError("%s:1: not a Matrix Market banner" % path)
            continue
        if not line or line.startswith(b"%"):
            continue
        size = [int(t) for t in line.split()]
        break
    fmt, field, symmetry = banner[2], banner[3], banner[4]
    if field == b"complex":
        raise ValueError("%s: complex matrices are not supported" % path)
    nums = np.fromstring(data[pos:].decode("ascii"), dtype=np.float64, sep=" ")
    if fmt == b"array":
        rows, cols = size[0], size[1]
        return ("array", rows, cols, nums)
    rows, cols, nnz = size
    width = 2 if field == b"pattern" else 3
    nums = nums.reshape(-1, width)
    if nums.shape[0] != nnz:
        raise ValueError("%s: %d entries, the size line says %d" % (path, nums.shape[0], nnz))
    r = nums[:, 0].astype(np.int64) - 1
    c = nums[:, 1].astype(np.int64) - 1
    v = nums[:, 2].copy() if width == 3 else np.ones(nnz)
    if symmetry in (b"symmetric", b"skew-symmetric", b"hermitian"):
        off = r != c
        sign = -1.0 if symmetry == b"skew-symmetric" else 1.0
        r, c, v = np.concatenate([r, c[off]]), np.concatenate([c, r[off]]), np.concatenate([v, sign * v[off]])
    return ("coordinate", rows, cols, r, c, v)


def sparse_matrix(m):
    _, rows, cols, r, c, v = m
    return sp.csr_matrix((v, (r, c)), shape=(rows, cols))


def sparse_vector(m):
    """A coordinate n x 1 file as (n, indices, values), sorted."""
    _, rows, _, r, _, v = m
    order = np.argsort(r, kind="stable")
    return rows, r[order], v[order]


def dense_array(m):
    _, rows, cols, vals = m
    return vals.reshape(cols, rows).T.copy() if cols > 1 else vals.copy()


# --------------------------------------------------------------- memory

_libc = None


def _trim():
    global _libc
    gc.collect()
    try:
        if _libc is None:
            _libc = ctypes.CDLL("libc.so.6")
        _libc.malloc_trim(0)
    except OSError:
        pass


def _status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    return -1


def reset_peak():
    """Returns the resident memory after resetting the high-water mark, or
    -1 where /proc cannot do it."""
    _trim()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return -1
    return _status("VmRSS:")


def peak_since(baseline):
    if baseline < 0:
        return -1
    return max(_status("VmHWM:") - baseline, 0)


# -------------------------------------------------------------- kernels


def checksum(g):
    if torch is not None and isinstance(g, torch.Tensor):
        if g.is_sparse:
            g = g.coalesce().values()
        g = g.detach().reshape(-1).double()
        return float(g.sum()), float((g * g).sum())
    if sp is not None and sp.issparse(g):
        g = g.tocsr().data
    g = np.asarray(g, dtype=np.float64).reshape(-1)
    return float(g.sum()), float(np.dot(g, g))


class Unsupported(Exception):
    pass


def torch_coo(csr):
    coo = csr.tocoo()
    idx = torch.from_numpy(np.vstack([coo.row, coo.col]).astype(np.int64))
    return torch.sparse_coo_tensor(idx, torch.from_numpy(coo.data), csr.shape).coalesce()


def setup_six(system, kernel, n, files, scalars):
    """Builds the inputs of one of the paper's six kernels and returns the
    gradient's computation as a function of no arguments."""
    beta = scalars.get("beta", 0.7)
    s = scalars.get("s", 1.5)
    if kernel in ("batax", "smmm", "smvm", "smmm-sparse"):
        A = sparse_matrix(read_mtx(files["A"]))
        m, n = A.shape
        prepare = lambda: A
    else:
        n, idx, vals = sparse_vector(read_mtx(files["V2" if kernel != "vsm" else "V"]))
        prepare = lambda: (idx, vals)
    loaded = prepare()
    return loaded, n, beta, s


def build_six(system, kernel, loaded, n, beta, s):
    if system == "scipy":
        if kernel == "batax":
            A = loaded
            return lambda: beta * (A.T @ A)
        if kernel == "smmm":
            A = loaded

            def smmm():
                col = np.asarray(A.sum(axis=0)).ravel()
                out = np.empty((A.shape[1], A.shape[1]))
                out[:] = col[:, None]
                return out

            return smmm
        if kernel == "smmm-sparse":
            # B = A: the column sums of A on B's stored positions, row k's
            # entries getting column sum k
            A = loaded
            rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))

            def smmm_sparse():
                col = np.asarray(A.sum(axis=0)).ravel()
                return col[rows]

            return smmm_sparse
        if kernel == "smvm":
            A = loaded
            return lambda: np.asarray(A.sum(axis=0)).ravel()
        idx, vals = loaded
        if kernel == "vva":
            return lambda: sp.identity(n, format="csr")
        if kernel == "vvd":

            def vvd():
                out = np.zeros(n)
                out[idx] = vals
                return out

            return vvd
        if kernel == "vsm":
            return lambda: (2 * s) * vals
    f64 = torch.float64
    dense = system == "torch-dense"
    if kernel in ("batax", "smmm", "smvm"):
        A = loaded
        if dense:
            At = torch.from_numpy(A.toarray())
        else:
            At = torch_coo(A)
        if kernel == "batax":
            x = torch.ones(n, dtype=f64)
            if dense:
                f = lambda x: beta * (At.t() @ (At @ x))
            else:
                AT = torch_coo(A.T.tocsr())
                f = lambda x: beta * torch.sparse.mm(AT, torch.sparse.mm(At, x[:, None]))[:, 0]
            return lambda: jacobian(f, x)
        if kernel == "smmm":
            B = torch.ones(n, n, dtype=f64)
            if dense:
                f = lambda B: (At @ B).sum()
            else:
                f = lambda B: torch.sparse.mm(At, B).sum()
            return lambda: jacobian(f, B)
        x = torch.ones(n, dtype=f64)
        if dense:
            f = lambda x: (At @ x).sum()
        else:
            f = lambda x: torch.sparse.mm(At, x[:, None]).sum()
        return lambda: jacobian(f, x)
    idx, vals = loaded
    ti = torch.from_numpy(np.ascontiguousarray(idx))
    tv = torch.from_numpy(np.ascontiguousarray(vals))
    if dense:
        V = torch.zeros(n, dtype=f64)
        V[ti] = tv
    else:
        V = torch.sparse_coo_tensor(ti[None, :], tv, (n,)).coalesce()
    V1 = torch.ones(n, dtype=f64)
    if kernel == "vva":
        f = lambda V1: V1 + V if dense else torch.add(V1, V)
        return lambda: jacobian(f, V1)
    if kernel == "vvd":
        if dense:
            f = lambda V1: (V1 * V).sum()
        else:
            row = torch.sparse_coo_tensor(torch.stack([torch.zeros_like(ti), ti]), tv, (1, n)).coalesce()
            f = lambda V1: torch.sparse.mm(row, V1[:, None]).sum()
        return lambda: jacobian(f, V1)
    if kernel == "vsm":
        st = torch.tensor(s, dtype=f64)
        f = (lambda s: V * s * s) if dense else (lambda s: (V * (s * s)).to_dense())
        return lambda: jacobian(f, st)
    raise Unsupported("unknown kernel %s" % kernel)


# ------------------------------------------------------------ workloads


def load_workload(files):
    out = {}
    for name, path in files.items():
        m = read_mtx(path)
        out[name] = sparse_matrix(m) if m[0] == "coordinate" else dense_array(m)
    return out


def build_workload(system, kernel, data, scalars):
    """The workloads of ../shared/workloads: their gradient with respect to
    x (U for the factorization), by PyTorch's reverse mode over torch.sparse
    (system torch-sparse) or by the closed form each file states (scipy)."""
    lam = scalars.get("lambda", 0.1)
    if system == "scipy":
        if kernel in ("least_squares", "ridge"):
            A, x, b = data["A"], data["x"], data["b"]
            if kernel == "ridge":
                return lambda: A.T @ (A @ x - b) + lam * x
            return lambda: A.T @ (A @ x - b)
        if kernel == "logistic":
            A, x, y = data["A"], data["x"], data["y"]
            return lambda: A.T @ (1 / (1 + np.exp(-(A @ x))) - y)
        if kernel == "laplacian":
            A, x = data["A"], data["x"]
            # 0.5 sum_ij a_ij (x_i - x_j)^2: d/dx = (D_r + D_c) x - (A + A^T) x
            r = np.asarray(A.sum(axis=1)).ravel()
            c = np.asarray(A.sum(axis=0)).ravel()
            return lambda: (r + c) * x - A @ x - A.T @ x
        if kernel == "mlp2":
            A, x = data["A"], data["x"]

            def mlp2():
                h = np.tanh(A @ x)
                g = 1 - np.tanh(A @ h) ** 2
                return A.T @ ((1 - h * h) * (A.T @ g))

            return mlp2
        if kernel == "factorization":
            R, U, W = data["R"].tocoo(), data["U"], data["W"]

            def fact():
                e = R.data - np.einsum("ij,ij->i", U[R.row], W[R.col])
                E = sp.csr_matrix((e, (R.row, R.col)), shape=R.shape)
                return -2 * (E @ W)

            return fact
        raise Unsupported("no closed form for %s" % kernel)
    if system != "torch-sparse":
        raise Unsupported("the workloads run with torch-sparse and scipy only")
    f64 = torch.float64
    if kernel == "factorization":
        R = data["R"].tocoo()
        ri, ci = torch.from_numpy(R.row.astype(np.int64)), torch.from_numpy(R.col.astype(np.int64))
        rv = torch.from_numpy(R.data)
        W = torch.from_numpy(data["W"])
        U0 = torch.from_numpy(data["U"])

        def fact():
            U = U0.detach().requires_grad_(True)
            e = rv - (U[ri] * W[ci]).sum(1)
            (e * e).sum().backward()
            return U.grad

        return fact
    A = torch_coo(data["A"])
    x0 = torch.from_numpy(data["x"])
    mv = lambda M, v: torch.sparse.mm(M, v[:, None])[:, 0]
    if kernel in ("least_squares", "ridge"):
        b = torch.from_numpy(data["b"])

        def f(x):
            d = mv(A, x) - b
            out = 0.5 * (d * d).sum()
            if kernel == "ridge":
                out = out + 0.5 * lam * (x * x).sum()
            return out

    elif kernel == "logistic":
        y = torch.from_numpy(data["y"])

        def f(x):
            z = mv(A, x)
            return (torch.log(1 + torch.exp(z)) - y * z).sum()

    elif kernel == "laplacian":
        Ac = A.coalesce()
        i, j = Ac.indices()
        a = Ac.values()

        def f(x):
            d = x[i] - x[j]
            return 0.5 * (a * d * d).sum()

    elif kernel == "mlp2":

        def f(x):
            h = torch.tanh(mv(A, x))
            return torch.tanh(mv(A, h)).sum()

    else:
        raise Unsupported("no PyTorch program for %s" % kernel)

    def grad():
        x = x0.detach().requires_grad_(True)
        f(x).backward()
        return x.grad

    return grad


SIX = ("batax", "smmm", "smvm", "vva", "vvd", "vsm", "smmm-sparse")


def run(req):
    system, kernel = req["system"], req["kernel"]
    need = {"torch-dense": torch, "torch-sparse": torch, "scipy": sp}.get(system, "unknown")
    if need == "unknown":
        return {"status": "error", "detail": "unknown system %s" % system}
    if need is None or np is None or sp is None:
        return {"status": "not installed", "detail": "%s needs %s" % (system, "PyTorch" if system.startswith("torch") else "SciPy")}
    files, scalars = req.get("files", {}), req.get("scalars", {})
    keep_cached(set(files.values()))
    reps, max_s = int(req.get("reps", 5)), float(req.get("max_seconds", 10))
    only_s = float(req.get("only_seconds") or max_s)
    try:
        if kernel in SIX:
            loaded, n, beta, s = setup_six(system, kernel, req.get("n", 0), files, scalars)
        else:
            data = load_workload(files)
        base = reset_peak()
        t0 = time.perf_counter()
        if kernel in SIX:
            fn = build_six(system, kernel, loaded, n, beta, s)
        else:
            fn = build_workload(system, kernel, data, scalars)
        setup = time.perf_counter() - t0
        t1 = time.perf_counter()
        g = fn()
        first = time.perf_counter() - t1
        peak = peak_since(base)
        total, sq = checksum(g)
        del g
        if first >= only_s:
            # a slow cell: its first run is its time
            return {"status": "ok", "times": [first], "setup_s": setup, "first_s": first,
                    "peak_bytes": peak, "sum": total, "sumsq": sq}
        times = []
        spent = 0.0
        while len(times) < max(reps, 1) and (not times or spent < max_s):
            t = time.perf_counter()
            g = fn()
            dt = time.perf_counter() - t
            del g
            times.append(dt)
            spent += dt
        return {"status": "ok", "times": times, "setup_s": setup, "first_s": first,
                "peak_bytes": peak, "sum": total, "sumsq": sq}
    except Unsupported as e:
        return {"status": "unsupported", "detail": str(e)}
    except MemoryError as e:
        return {"status": "out of memory", "detail": "MemoryError %s" % e}
    except RuntimeError as e:
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        msg = msg.split(". ")[0]
        if "alloc" in msg.lower() and "memory" in msg.lower():
            return {"status": "out of memory", "detail": msg[:300]}
        return {"status": "unsupported", "detail": msg[:300]}
    except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
        return {"status": "error", "detail": ("%s: %s" % (type(e).__name__, e))[:300]}


def main():
    # the modules' objects live as long as the process: out of the
    # collector's way, so that collecting before each cell is quick
    gc.collect()
    gc.freeze()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            ans = {"status": "error", "detail": "bad request: %s" % e}
        else:
            if req.get("op") == "versions":
                ans = versions()
            elif req.get("op") == "run":
                ans = run(req)
            else:
                ans = {"status": "error", "detail": "unknown op %r" % req.get("op")}
        for k, v in list(ans.items()):
            if isinstance(v, float) and not math.isfinite(v):
                ans[k] = None
        sys.stdout.write(json.dumps(ans) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
