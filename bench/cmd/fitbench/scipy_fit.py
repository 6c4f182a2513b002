"""SciPy's side of bench/cmd/fitbench: one fit of a workload with
scipy.optimize.minimize(method='L-BFGS-B') and the closed-form value and
gradient, from the start bench/cmd/fitbench wrote.

  python3 scipy_fit.py DIR WORKLOAD TOL MAXITER

DIR holds the workload data as .npy files (bench.WorkloadData.WriteNpy):
A's CSR arrays, x, b, y, U, W and lambda. The fit starts from x (from U
and W for the factorization) and stops once the gradient's largest
magnitude is at most TOL times the start's (L-BFGS-B's pgtol, the
projected gradient's largest magnitude, with no bounds), or after MAXITER
iterations; ftol is 0, so that the loss's progress does not stop it
first, and the history is L-BFGS-B's default, 10. It prints one JSON
object: {"status": "ok", "loss0", "loss", "gnorm0", "gnorm", "nit",
"nfev", "seconds", "cpu", "message", "converged", "versions"}, or {"status":
"not installed", "detail": ...} without NumPy or SciPy. The fit runs on
one thread (OMP_NUM_THREADS and the like are set to 1 by the caller).
"""

import json
import sys
import time

try:
    import numpy as np
    import scipy
    import scipy.optimize
    import scipy.special
    import scipy.sparse as sp
except ImportError as e:  # reported, not raised: the benchmark runs without Python's peers
    print(json.dumps({"status": "not installed", "detail": str(e)}))
    sys.exit(0)


def load(d, name):
    return np.load(d + "/" + name + ".npy")


def main():
    d, workload, tol, maxiter = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    m, n = (int(v) for v in load(d, "A_shape"))
    A = sp.csr_matrix((load(d, "A_data"), load(d, "A_indices"), load(d, "A_indptr")), shape=(m, n))
    AT = A.T.tocsr()
    b, y, lam = load(d, "b"), load(d, "y"), float(load(d, "lambda")[0])

    if workload == "least_squares":
        x0 = load(d, "x")

        def fun(x):
            r = A @ x - b
            return 0.5 * (r @ r), AT @ r
    elif workload == "ridge":
        x0 = load(d, "x")

        def fun(x):
            r = A @ x - b
            return 0.5 * (r @ r) + 0.5 * lam * (x @ x), AT @ r + lam * x
    elif workload == "logistic" or workload == "logistic_ridge":
        x0 = load(d, "x")
        ridge = lam if workload == "logistic_ridge" else 0.0

        def fun(x):
            z = A @ x
            # log(1 + exp(z)) as the program writes it, without overflow
            return (np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * ridge * (x @ x),
                    AT @ (scipy.special.expit(z) - y) + ridge * x)
    elif workload == "factorization" or workload == "factorization_ridge":
        U0, W0 = load(d, "U"), load(d, "W")
        ridge = lam if workload == "factorization_ridge" else 0.0
        k = U0.shape[1]
        C = A.tocoo()
        rows, cols, vals = C.row, C.col, C.data
        x0 = np.concatenate([U0.ravel(), W0.ravel()])

        def fun(x):
            U = x[: m * k].reshape(m, k)
            W = x[m * k:].reshape(n, k)
            e = vals - np.einsum("ij,ij->i", U[rows], W[cols])
            E = sp.csr_matrix((e, (rows, cols)), shape=(m, n))
            gU = -2.0 * (E @ W) + 2.0 * ridge * U
            gW = -2.0 * (E.T @ U) + 2.0 * ridge * W
            loss = e @ e + ridge * (np.sum(U * U) + np.sum(W * W))
            return loss, np.concatenate([gU.ravel(), gW.ravel()])
    else:
        print(json.dumps({"status": "error", "detail": "unknown workload " + workload}))
        return

    f0, g0 = fun(x0)
    gnorm0 = float(np.abs(g0).max())
    counted = {"nfev": 0}

    def counting(x):
        counted["nfev"] += 1
        return fun(x)

    start, cpu0 = time.perf_counter(), time.process_time()
    res = scipy.optimize.minimize(counting, x0, jac=True, method="L-BFGS-B",
                                  options={"gtol": tol * gnorm0, "ftol": 0.0, "maxiter": maxiter,
                                           "maxfun": 1 << 30, "maxcor": 10})
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu0
    gnorm = float(np.abs(res.jac).max())
    print(json.dumps({
        "status": "ok", "loss0": float(f0), "loss": float(res.fun), "gnorm0": gnorm0, "gnorm": gnorm,
        "nit": int(res.nit), "nfev": counted["nfev"], "seconds": seconds, "cpu": cpu,
        "message": res.message if isinstance(res.message, str) else res.message.decode(),
        "converged": gnorm <= tol * gnorm0,
        "versions": {"python": "%d.%d.%d" % sys.version_info[:3], "numpy": np.__version__, "scipy": scipy.__version__},
    }))


if __name__ == "__main__":
    main()
