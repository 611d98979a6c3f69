"""coreset.build, solve and evaluate: the engine's entry points with NumPy arguments.

Keyword names follow the command's options (``--max-iter`` is ``max_iter``). The engine runs with
the GIL released; Ctrl-C stops it within one iteration (or one block of datapoints) and raises
KeyboardInterrupt. ``progress``, when given, is called as progress(stage, done, total) on the
calling thread at most every 50 ms and at the start of each stage ("laplace", "sampling",
"projection", "solve", "evaluation"; total is 0 when not known ahead); an exception it raises
stops the engine and propagates.
"""

import inspect
import json
import sys

import numpy as np

from . import _arrays, _core
from .errors import InvalidArgumentError

__all__ = ["Coreset", "Sweep", "build", "sweep", "solve", "evaluate", "info", "log_likelihood",
           "synthetic_logistic"]


class Coreset:
    """A weighted subset of the datapoints, and the report of the run that made it.

    indices: int64 array, ascending, 0-based rows of the data (columns of Phi).
    weights: float64 array, each > 0, one per index.
    report:  dict with the fields of the command's JSON report (README, "The JSON report").
    """

    __slots__ = ("indices", "weights", "report")

    def __init__(self, indices, weights, report=None):
        self.indices = np.asarray(indices, dtype=np.int64)
        self.weights = np.asarray(weights, dtype=np.float64)
        if self.indices.shape != self.weights.shape or self.indices.ndim != 1:
            raise InvalidArgumentError(
                "indices and weights: expected two 1-D arrays of the same length, got shapes %s and %s"
                % (self.indices.shape, self.weights.shape))
        self.report = report if report is not None else {}

    def __len__(self):
        return int(self.indices.size)

    def __repr__(self):
        quality = self.report.get("quality") or {}
        extra = ""
        if "symmetric_kl" in quality:
            extra = ", symmetric KL %.4g" % quality["symmetric_kl"]
        elif "relative_error" in self.report:
            extra = ", relative error %.4g" % self.report["relative_error"]
        return "Coreset(%d points, total weight %.6g%s)" % (len(self), self.weights.sum(), extra)

    def dense(self, n=None):
        """The weights as a dense vector of length n (default: the data's size from the report),
        zero off the coreset."""
        if n is None:
            n = _data_size(self.report)
            if n is None:
                raise InvalidArgumentError("dense: pass n, the number of datapoints")
        if self.indices.size and (self.indices.min() < 0 or self.indices.max() >= n):
            raise InvalidArgumentError(
                "dense: n = %d is too small for index %d" % (n, self.indices.max()))
        w = np.zeros(int(n))
        w[self.indices] = self.weights
        return w


def _data_size(report):
    source = report.get("input") or {}
    if report.get("command") == "solve":
        return source.get("cols")
    return source.get("rows")


def _check_device(device):
    if device not in ("cpu", "gpu", "auto"):
        raise InvalidArgumentError("device: expected 'cpu', 'gpu' or 'auto', got %r" % (device,))


def _device_and_gpu(device):
    _check_device(device)
    if device == "auto":
        usable, _ = _core.gpu_status()
        return "gpu" if usable else "cpu"
    return device


def _precision_name(precision, device, dtype=None):
    """'double' or 'float': as given, else (auto) the input's own dtype when there is one (solve:
    a float32 Phi is solved in float, read in place), float on the GPU and double on the CPU
    otherwise (the command's rule, which `coreset solve` applies whatever the file's dtype)."""
    if precision in ("double", "float64"):
        return "double"
    if precision in ("float", "float32"):
        return "float"
    if precision != "auto":
        raise InvalidArgumentError(
            "precision: expected 'double', 'float' or 'auto', got %r" % (precision,))
    if dtype is not None and np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.float64)):
        return "float" if np.dtype(dtype) == np.float32 else "double"
    return "float" if device == "gpu" else "double"


def _report(report_json, notes):
    report = json.loads(report_json)
    report["python"] = {"arrays": notes}
    return report


def _dataset_keywords(X, y, keywords):
    """X and y as the engine takes them, and the names and descriptions for the report."""
    x_array, x_note = _arrays.matrix_for_copy(X, "X")
    names = getattr(X, "columns", None)
    if names is not None and keywords.get("covariate_names") is None:
        keywords["covariate_names"] = [str(name) for name in names]
    y_array = None
    if y is not None:
        y_array, _ = _arrays.as_host_array(y, "y")
        if y_array.ndim != 1:
            raise InvalidArgumentError("y: expected a 1-D array, got shape %s" % (y_array.shape,))
        # float64 whatever X's dtype: the dataset holds double, and a float32 y would round a
        # response (a count above 2^24, a value near 1000 to 6e-5) before the engine saw it.
        y_array = np.ascontiguousarray(y_array, dtype=np.float64)
        if keywords.get("response_name") is None and getattr(y, "name", None) is not None:
            keywords["response_name"] = str(y.name)
    keywords["data_description"] = "%s array %s from Python" % (x_array.dtype, x_array.shape)
    for key in ("prior_covariance", "noise_covariance", "pihat_samples"):
        if keywords.get(key) is not None:
            keywords[key] = np.asarray(keywords[key], dtype=np.float64)
    notes = {"X": _arrays.describe(x_array, (x_note + ", " if x_note else "")
                                   + "copied once into the dataset (column-major float64)")}
    return x_array, y_array, notes


def _check_callback(progress):
    if progress is not None and not callable(progress):
        raise InvalidArgumentError("progress: expected a callable(stage, done, total) or None")


def build(X, y=None, *, model, k=100, samples=500, algorithm="a-iht-2", device="auto",
          precision="auto", seed=0, max_iter=300, tol=1e-5, step_rule="exact", pihat="auto",
          pihat_samples=None, prior_sd=1.0, prior_covariance=None, noise_sd=1.0,
          noise_covariance=None, intercept=True, rbf=False, rbf_centers=50,
          rbf_scales=(0.2, 0.4, 0.8, 1.2, 1.6, 2.0), rbf_constant_scale=100.0, threads=0,
          batch_fraction=0.0, sync_every=0, refit=False, sparsevi_steps=0,
          sparsevi_learning_rate=0.0,
          sparsevi_samples=100, sparsevi_optimizer="adam", covariate_names=None,
          response_name=None, target_kl=None, target_error=None, progress=None):
    """A coreset of the dataset (X, y) for `model`, as `coreset build` makes it.

    X: n x D covariates (any float or integer dtype, any order; a pandas DataFrame's column names
       name the parameters). Copied once into the engine's column-major float64 dataset.
    y: n responses (labels in {-1, 1} or {0, 1} for logistic, counts for poisson, values for
       linear; None for gaussian). Copied with X.
    model: "logistic", "poisson", "gaussian" or "linear". The other keywords are the command's
       options of the same names (README, "coreset build"); device="auto" runs on a usable GPU,
       else the CPU, and precision="auto" is float on the GPU, double on the CPU.
    k="auto" with target_kl (the symmetrised KL) or target_error (the relative projection
       error): the smallest budget whose coreset reaches the target, as `build -k auto` finds
       it (README, "Choosing k"); report["choose_k"] lists the budgets tried.
       TargetNotReachedError when no k <= n reaches it.
    Returns a Coreset whose report is the command's `--report` JSON (as a dict). The same data,
    options and seed give the command's coreset.
    """
    options = {name: value for name, value in locals().items() if name not in ("X", "y")}
    target = _target(options["k"], options.pop("target_kl"), options.pop("target_error"))
    keywords, progress, notes = _prepare_build(X, y, options)
    x_array, y_array = keywords.pop("_x"), keywords.pop("_y")
    if target is None:
        indices, weights, report = _core.build(x_array, y_array, keywords, progress)
    else:
        indices, weights, report = _core.build_auto(x_array, y_array, keywords, target[0],
                                                    target[1], progress)
    return Coreset(indices, weights, _report(report, notes))


def _target(k, target_kl, target_error):
    """(k, None) for a budget, or None and ("symmetric_kl" | "relative_error", value) for auto."""
    if (target_kl is not None) and (target_error is not None):
        raise InvalidArgumentError("target_kl and target_error: give one of them, not both")
    given = target_kl if target_kl is not None else target_error
    if isinstance(k, str):
        if k != "auto":
            raise InvalidArgumentError("k: expected a budget >= 1 or \"auto\", got %r" % (k,))
        if given is None:
            raise InvalidArgumentError('k="auto" needs target_kl or target_error')
        return ("symmetric_kl" if target_kl is not None else "relative_error", float(given))
    if given is not None:
        raise InvalidArgumentError('target_kl and target_error are only read with k="auto"')
    return None


# build()'s keywords and their defaults: the one list of the options of build, sweep and evaluate.
_BUILD_KEYWORDS = {name: parameter.default
                   for name, parameter in inspect.signature(build).parameters.items()
                   if parameter.kind == parameter.KEYWORD_ONLY}


def _prepare_build(X, y, options):
    """build()'s options (the others at build's defaults) as the engine's keyword dict, with X
    and y prepared; shared by build, sweep and evaluate."""
    unknown = set(options) - set(_BUILD_KEYWORDS)
    if unknown:
        raise TypeError("unexpected keyword argument(s): %s" % ", ".join(sorted(unknown)))
    keywords = dict(_BUILD_KEYWORDS)
    keywords.update(options)
    for name in ("target_kl", "target_error"):
        keywords.pop(name, None)
    if isinstance(keywords["k"], str):  # "auto": every budget of the search sets its own
        keywords["k"] = None
    progress = keywords.pop("progress")
    _check_callback(progress)
    keywords["device"] = _device_and_gpu(keywords["device"])
    keywords["precision"] = _precision_name(keywords["precision"], keywords["device"])
    keywords["rbf_scales"] = list(keywords["rbf_scales"])
    x_array, y_array, notes = _dataset_keywords(X, y, keywords)
    keywords["_x"], keywords["_y"] = x_array, y_array
    return keywords, progress, notes


class Sweep:
    """The coresets of one dataset at many budgets (coreset.sweep): `ks` ascending,
    `coresets[i]` the Coreset at ks[i] (its report is the budget's entry of the sweep report),
    `report` the command's sweep report.json, and sweep[k] the coreset at budget k."""

    __slots__ = ("ks", "coresets", "report")

    def __init__(self, ks, coresets, report):
        self.ks, self.coresets, self.report = ks, coresets, report

    def __getitem__(self, k):
        return self.coresets[self.ks.index(k)]

    def __len__(self):
        return len(self.ks)

    def __repr__(self):
        return "Sweep(k = %s)" % ", ".join(map(str, self.ks))


def sweep(X, y=None, *, model, k, **options):
    """One run over many budgets, as `coreset sweep` makes it: pi-hat, the samples and Phi once,
    then each k of the list `k` in ascending order, warm-started from the previous budget's
    coreset for the IHT family (one greedy run recorded at each k for giga, fw and sparsevi;
    fresh draws for is and uniform). The other keywords are build()'s. Returns a Sweep."""
    budgets = [k] if np.isscalar(k) else list(k)
    if not budgets or any(isinstance(b, str) or int(b) != b for b in budgets):
        raise InvalidArgumentError("k: expected a list of budgets >= 1, got %r" % (k,))
    keywords, progress, notes = _prepare_build(X, y, dict(options, model=model))
    keywords["k"] = int(max(budgets))
    x_array, y_array = keywords.pop("_x"), keywords.pop("_y")
    runs, report = _core.sweep(x_array, y_array, keywords, [int(b) for b in budgets], progress)
    report = _report(report, notes)
    # Each budget's entry, with the sweep's input (the data's size for dense()).
    coresets = [Coreset(indices, weights, dict(entry, input=report.get("input")))
                for (_, indices, weights), entry in zip(runs, report["budgets"])]
    return Sweep([int(budget) for budget, _, _ in runs], coresets, report)


def evaluate(X, y=None, *, model, indices, weights, samples=500, device="auto", precision="auto",
             seed=0, pihat="auto", pihat_samples=None, prior_sd=1.0, prior_covariance=None,
             noise_sd=1.0, noise_covariance=None, intercept=True, rbf=False, rbf_centers=50,
             rbf_scales=(0.2, 0.4, 0.8, 1.2, 1.6, 2.0), rbf_constant_scale=100.0, threads=0,
             covariate_names=None, response_name=None, progress=None):
    """The quality of any coreset (0-based `indices`, positive `weights`) of (X, y), as
    `coreset evaluate` reports it: the same pi-hat, samples and Phi that build uses for these
    options. Returns a Coreset (sorted by index) whose report["quality"] holds the relative
    projection error, the forward, reverse and symmetric KL and the MAP distance."""
    # The keywords first, before any other local exists.
    options = {name: value for name, value in locals().items()
               if name not in ("X", "y", "indices", "weights")}
    rows, values = _rows_to_score(indices, weights)
    keywords, progress, notes = _prepare_build(X, y, options)
    x_array, y_array = keywords.pop("_x"), keywords.pop("_y")
    out_indices, out_weights, report = _core.evaluate(
        x_array, y_array, keywords, rows.tolist(), values.tolist(), progress)
    return Coreset(out_indices, out_weights, _report(report, notes))


def _rows_to_score(indices, weights):
    """evaluate()'s coreset sorted by row: whole row numbers (1.7 is refused, not truncated),
    each once, as a coreset CSV must have them."""
    given = Coreset(_arrays.row_indices(indices, "indices"), _arrays.as_array(weights, "weights"))
    order = np.argsort(given.indices, kind="stable")
    rows, values = given.indices[order], given.weights[order]
    repeated = rows[1:][np.diff(rows) == 0]
    if repeated.size:
        raise InvalidArgumentError(
            "indices: each row may appear once (a coreset CSV's indices are strictly ascending), "
            "got %d more than once" % repeated[0])
    return rows, values


def _loglik_as_n_by_s(array, samples_axis):
    """The log-likelihoods (a NumPy array, or an _arrays.DeviceArray, which reads alike) as an
    (n, S) view: n x S (samples_axis=1), S x n (samples_axis=0) or ArviZ's (chain, draw, n)
    flattened to S = chain * draw draws (a view when it can be; on a GPU it must be)."""
    if array.ndim == 3:
        if samples_axis not in (None, 0):
            raise InvalidArgumentError(
                "samples_axis: a 3-D loglik is (chain, draw, n); leave samples_axis at its default")
        flat = array.reshape(array.shape[0] * array.shape[1], array.shape[2])
        note = "(chain, draw, n) flattened to S = %d draws" % flat.shape[0]
        # NumPy copies when the draws cannot be merged in place (a Fortran-ordered or sliced
        # array): the report says so, as for every copy.
        if isinstance(array, np.ndarray) and not np.may_share_memory(flat, array):
            note += " (copied: its layout cannot be flattened in place)"
        return flat.T, note
    if array.ndim != 2:
        raise InvalidArgumentError(
            "loglik: expected n x S, S x n (samples_axis=0) or (chain, draw, n), got shape %s"
            % (array.shape,))
    if samples_axis in (None, 1):
        return array, None
    if samples_axis == 0:
        return array.T, None
    raise InvalidArgumentError("samples_axis: expected 0 or 1, got %r" % (samples_axis,))


def _solve_device(array, is_loglik, y, keywords, precision, samples_axis, progress):
    """solve() for phi or loglik in GPU memory: read there by the CUDA backend, never copied
    through the host; a Phi whose strides are not (1, S) is copied once on the GPU."""
    name = "loglik" if is_loglik else "phi"
    wanted = _precision_name(precision, "gpu", array.dtype)
    if (wanted == "float") != (array.dtype == np.float32):
        raise InvalidArgumentError(
            "precision: %r asks for %s but %s is a %s GPU array; convert it on the GPU or pass "
            "precision='auto'" % (precision, "float32" if wanted == "float" else "float64", name,
                                  array.dtype))
    if is_loglik:
        array, how = _loglik_as_n_by_s(array, samples_axis)
        draws = array.shape[1]
        note = ", ".join(x for x in (how, "centred into a new Phi on the GPU") if x)
    else:
        if array.ndim != 2:
            raise InvalidArgumentError(
                "phi: expected a 2-D array (S x n), got shape %s" % (array.shape,))
        draws = array.shape[0]
        in_place = array.strides[0] == 1 and (array.shape[1] <= 1 or array.strides[1] == draws)
        note = "read in place on the GPU" if in_place else \
            "copied once on the GPU to column-major (strides %s)" % (array.strides,)
    description = "%s GPU array %s via %s, %s" % (array.dtype, array.shape, array.source, note)
    keywords[name + "_description"] = description
    notes = {name: description}
    if is_loglik:
        notes["phi"] = "computed from loglik (new %s array on the GPU)" % array.dtype
    y_value = None
    if y is not None:
        y_gpu = _arrays.device_array(y, "y")
        if y_gpu is None:
            y_value = _arrays.vector(y, "y", draws, array.dtype)
            keywords["y_description"] = "%s vector (%d,)" % (array.dtype, draws)
        else:
            if y_gpu.shape != (draws,) or y_gpu.dtype != array.dtype or \
                    (draws > 1 and y_gpu.strides != (1,)):
                raise InvalidArgumentError(
                    "y: expected %d contiguous %s values on the GPU, got %s %s with strides %s"
                    % (draws, array.dtype, y_gpu.dtype, y_gpu.shape, y_gpu.strides))
            y_value = y_gpu.pointer
            keywords["y_description"] = "%s GPU vector (%d,) via %s" % (array.dtype, draws,
                                                                        y_gpu.source)
    indices, weights, report = _core.solve_device(array.spec(), is_loglik, y_value, keywords,
                                                  progress)
    return Coreset(indices, weights, _report(report, notes))


def solve(phi=None, *, loglik=None, y=None, k, algorithm="a-iht-2", device="auto",
          precision="auto", max_iter=300, tol=1e-5, seed=0, step_rule="exact", threads=0,
          batch_fraction=0.0, sync_every=0, refit=False, samples_axis=None, progress=None):
    """The sparse non-negative regression min ||y - Phi w||^2, ||w||_0 <= k, w >= 0, as
    `coreset solve` runs it.

    phi: S x n (column i = datapoint i's centred, scaled log-likelihoods). float32 or float64 in
       Fortran order (or `a.T` of a C-ordered n x S array) is read in place; anything else is
       copied once (report["python"]["arrays"] says which).
    loglik: instead of phi, raw log-likelihoods: n x S, S x n with samples_axis=0, or
       (chain, draw, n) as ArviZ's log_likelihood group holds them. Read in place in any layout
       and centred and scaled into Phi in one pass (Phi itself is new memory).
    GPU arrays (CuPy, PyTorch, JAX, Numba: __cuda_array_interface__ or CUDA __dlpack__) as phi,
    loglik or y are read in place on their GPU (device 'gpu' or 'auto'; float32 or float64 as
    they are); a GPU phi whose strides are not (1, S) is copied once on the GPU.
    y: the S-vector target (default Phi 1). precision="auto" keeps the input's dtype (float32 or
       float64). Returns a Coreset; report is the command's solve report.
    """
    _check_callback(progress)
    if (phi is None) == (loglik is None):
        raise InvalidArgumentError("solve: pass exactly one of phi and loglik")
    if phi is not None and samples_axis is not None:
        raise InvalidArgumentError("samples_axis: only read with loglik")
    keywords = dict(k=k, algorithm=algorithm, device=device, max_iter=max_iter, tol=tol,
                    seed=seed, step_rule=step_rule, threads=threads,
                    batch_fraction=batch_fraction, sync_every=sync_every, refit=refit)
    source, name = (phi, "phi") if phi is not None else (loglik, "loglik")
    memory = _arrays.device_array_kind(source, name)
    if memory is not None:
        # Settled before the array is taken over: a CUDA DLPack export is not undone.
        _check_device(device)
        if device == "cpu":
            raise InvalidArgumentError(
                "device: %s is a GPU array (%s memory), solved on its GPU; pass device='gpu' or "
                "'auto', or a host copy for the CPU" % (name, memory))
        keywords["device"] = "gpu"
        return _solve_device(_arrays.device_array(source, name), phi is None, y, keywords,
                             precision, samples_axis, progress)
    keywords["device"] = device = _device_and_gpu(device)
    if phi is not None:
        source = _arrays.as_array(phi, "phi")
        dtype = np.float32 if _precision_name(precision, device, source.dtype) == "float" else np.float64
        array, description = _arrays.column_major(source, "phi", dtype)
        keywords["phi_description"] = description
        notes = {"phi": description}
        draws = array.shape[0]
    else:
        view, how = _loglik_as_n_by_s(_arrays.as_array(loglik, "loglik"), samples_axis)
        dtype = np.float32 if _precision_name(precision, device, view.dtype) == "float" else np.float64
        array, note = _arrays.strided(view, "loglik", dtype)
        description = _arrays.describe(array.T, ", ".join(x for x in (how, note) if x))
        keywords["loglik_description"] = description
        notes = {"loglik": description, "phi": "computed from loglik (new %s array)" % array.dtype}
        draws = array.shape[1]
    y_array = None
    if y is not None:
        y_array = _arrays.vector(y, "y", draws, dtype)
        keywords["y_description"] = "%s vector (%d,)" % (y_array.dtype, draws)
    run = _core.solve_phi if phi is not None else _core.solve_loglik
    indices, weights, report = run(array, y_array, keywords, progress)
    return Coreset(indices, weights, _report(report, notes))


def info():
    """The build and runtime facts `coreset info` prints, as a dict (plus Python's)."""
    facts = _core.info()
    facts["python"] = sys.version.split()[0]
    facts["numpy"] = np.__version__
    return facts


def synthetic_logistic(rows=10000, seed=0):
    """The papers' synthetic logistic-regression data (spec 3.6) as (X, y): x ~ N(0, I_2), labels
    in {-1, 1} from theta = (3, 3). `coreset build` without --data uses rows=10000, seed=0, so
    build(*synthetic_logistic(), model="logistic") is the command's built-in example."""
    return _core.synthetic_logistic(int(rows), int(seed))


def log_likelihood(X, y=None, *, model, theta, intercept=True, noise_sd=1.0,
                   noise_covariance=None, rbf=False, rbf_centers=50,
                   rbf_scales=(0.2, 0.4, 0.8, 1.2, 1.6, 2.0), rbf_constant_scale=100.0, seed=0):
    """The engine's log-likelihood of every row, L_n(theta) in nats with its constants (what the
    projection evaluates before centring): theta is d values (covariates, then the intercept;
    report["parameter_names"] names them), giving n values, or P x d, giving n x P. A weighted
    model in a PPL must give sum(w * log_likelihood(X[c.indices], y[c.indices], ...)) for the
    coreset's rows (coreset.ppl's helpers are tested against it)."""
    theta_array = np.asarray(theta, dtype=np.float64)
    if theta_array.ndim not in (1, 2):
        raise InvalidArgumentError("theta: expected d values or a P x d array, got shape %s"
                                   % (theta_array.shape,))
    keywords = dict(model=model, intercept=intercept, noise_sd=noise_sd,
                    noise_covariance=noise_covariance, rbf=rbf, rbf_centers=rbf_centers,
                    rbf_scales=list(rbf_scales), rbf_constant_scale=rbf_constant_scale, seed=seed)
    x_array, y_array, _ = _dataset_keywords(X, y, keywords)
    values = _core.log_likelihoods(x_array, y_array, keywords, np.atleast_2d(theta_array).T)
    return values[:, 0] if theta_array.ndim == 1 else values
