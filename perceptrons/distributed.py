"""Training on more than one machine: iterative parameter mixing on Dask.

:class:`ParameterMixing` runs Algorithm 2 ("iterative parameter mixing") of
McDonald, Hall & Mann [1]_ around any primal linear estimator of the package
whose state is a weight vector: the data is split into S shards; each epoch,
every shard runs one pass of the estimator's own compiled loop on its rows,
starting from the current mixed weights, and the S results are mixed,
``w = Σ_i μ_i w_i``, then handed to every shard for the next epoch.

Shards run as tasks on a ``dask.distributed`` cluster (a scheduler address,
``"local:N"`` or a ``Client``), or in this process when there is none, so
the algorithm is the same code either way. The data never travels through
the client: a shard file is read by the worker that trains on it, a Dask
array's blocks stay where they are computed, and only the model (the
estimator's declared state) goes to and from the workers. Every task is a
pure function of its inputs, so a shard whose worker dies is re-run
elsewhere by the scheduler and the result does not change.

References
----------
.. [1] R. McDonald, K. Hall and G. Mann. Distributed training strategies for
   the structured perceptron. NAACL-HLT 2010, 456-464.
   https://aclanthology.org/N10-1069/
"""

import copy
import operator
import os
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import (BaseEstimator, ClassifierMixin, MetaEstimatorMixin,
                          clone)
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .models._driver import OnlineClassifier, mixing
from .utils._param_validation import HasMethods, Interval, StrOptions
from .utils.random import draw_order
from .utils.validation import check_sparse_structure

__all__ = ["ParameterMixing"]

class _Shard:
    """One shard's rows and a name for messages (a file path or a number)."""

    def __init__(self, X, y, name):
        self.X, self.y, self.name = X, y, name


def _read_shard(path, n_features, zero_based):
    """Read a shard file on the worker that trains on it."""
    from .datasets import load_svmlight

    X, y, info = load_svmlight(path, n_features=n_features,
                               zero_based=zero_based, return_info=True)
    shard = _Shard(X, y, os.fspath(path))
    shard.zero_based = info.zero_based
    return shard


def _as_shard(X, y, name):
    X = X if sp.issparse(X) else np.asarray(X)
    return _Shard(X, np.asarray(y), name)


def _prepare_shard(template, shard):
    """The shard validated once, as every epoch's pass reads it.

    The estimator's own input validation (types, finiteness, ``<x, x>``,
    label encoding) runs here, on the worker that holds the shard, instead
    of once per epoch; its :class:`~perceptrons.models._driver.TrainingCall`
    is kept with the rows.
    """
    est = clone(template)
    try:
        X, y, call = mixing.prepared_shard(est, shard.X, shard.y)
    except ValueError as exc:
        raise ValueError(f"shard {shard.name}: {exc}") from None
    prepared = _Shard(X, y, shard.name)
    prepared.zero_based = getattr(shard, "zero_based", None)
    prepared.call = call
    return prepared


def _shard_facts(shard):
    """What the client checks before training: rows, columns, classes and
    ``Σ <x, x>``."""
    call = shard.call
    return {"name": shard.name, "n_rows": call.X.shape[0],
            "n_features": call.X.shape[1], "sq_norm_sum": call.sq_norm_sum,
            "labels": np.unique(shard.y), "zero_based": shard.zero_based}


def _shard_epoch(template, start, shard, rng, scratch, facts):
    """One epoch of one shard: the estimator's pass from the mixed state.

    A pure function: its inputs are copied before the loop mutates them,
    so a re-run (after a worker died) gives the same bits.

    Returns
    -------
    state : State
        The estimator's state after the pass
        (:mod:`perceptrons.models._state`).
    rng : numpy.random.RandomState or None
        The shard's generator of row orders, advanced by one epoch.
    scratch : dict
        The per-example scratch for this shard's next epoch.
    """
    est = clone(template)
    if start is not None:
        # The mixed state, validated where it was mixed.
        mixing.adopt(est, copy.deepcopy(start))
    n = shard.X.shape[0]
    if template.shuffle:
        # As fit's epoch_orders: one generator per shard, one order per
        # epoch.
        rng = check_random_state(copy.deepcopy(rng))
    order = draw_order(rng, n, template.shuffle)
    scratch = mixing.shard_pass(
        est, shard.call, shard.y, order, classes=facts["classes"],
        mean_sq_norm=facts["mean_sq_norm"], carry=copy.deepcopy(scratch))
    return est.state_, rng, scratch


def _shard_seeds(random_state, n_shards):
    """One seed per shard; the estimator's own with one shard, so that one
    shard shuffles exactly as ``fit`` does."""
    if n_shards == 1:
        return [random_state]
    rng = check_random_state(random_state)
    return [int(s) for s in rng.randint(np.iinfo(np.int32).max,
                                        size=n_shards)]


class _InProcess:
    """The shards run here, one after the other (no cluster)."""

    def submit(self, func, *args):
        return func(*args)

    def gather(self, values):
        return list(values)

    def part(self, value, index):
        return value[index]


class _OnDask:
    """The shards run as tasks of a ``distributed.Client``."""

    def __init__(self, client):
        self.client = client

    def submit(self, func, *args):
        # pure=False: keys need not hash the (large) model each epoch; the
        # tasks are nonetheless deterministic, so a retry is exact.
        return self.client.submit(func, *args, pure=False)

    def gather(self, futures):
        # Straight from the workers, not through the scheduler.
        return self.client.gather(list(futures), direct=True)

    def part(self, future, index):
        return self.client.submit(operator.itemgetter(index), future,
                                  pure=False)


class ParameterMixing(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Iterative parameter mixing (McDonald, Hall & Mann 2010, Alg. 2).

    .. math::

        w^{(n)} = \\sum_{i=1}^{S} \\mu_{i,n}\\,
        \\mathrm{OneEpoch}(T_i, w^{(n-1)}),\\qquad
        \\mu_{i,n} = \\tfrac{1}{S} \\text{ (uniform) or }
        \\tfrac{k_{i,n}}{\\sum_j k_{j,n}} \\text{ (mistakes)}

    ``OneEpoch`` is one pass of ``estimator``'s compiled loop over shard
    ``T_i`` (in order, or shuffled by the estimator's ``shuffle`` and
    ``random_state``, one generator per shard), starting from the mixed
    state, with the estimator's rule (θ, η, τ, λ-trick, one-vs-rest in one
    pass or prototypes). ``k_{i,n}`` counts the updates shard i made in
    epoch n: its mistakes for the classic Perceptron, which updates only on
    mistakes (Theorem 3's weighting); with a margin, margin updates count
    too, as they move w. When no shard updated, the weights stay as they
    are.

    Everything of a weight-vector state is mixed the same way: w, the
    thresholds θ (intercepts). The averaged hypothesis is the mean of every
    hypothesis visited by any shard in any epoch: each shard adds the
    hypotheses of its pass to the running sum it started from, the mixed
    running sum is the start's plus what every shard added, over the total
    number of steps. Per-example scratch (the α counts of the λ-trick and
    of the α-bound) stays with its shard from epoch to epoch, as in ``fit``.
    θ_Init and C ("auto") are the average ⟨x, x⟩ over all shards.

    With one shard this is ``estimator.fit`` bit for bit.

    Parameters
    ----------
    estimator : estimator, default=None
        The estimator to train: ``Perceptron`` (``kernel=None``, hypothesis
        "last" or "averaged") or ``Ballseptron`` (``kernel=None``); None is
        ``Perceptron()``. Its ``max_iter``, ``shuffle`` and
        ``random_state`` apply. Others are refused when this object is made
        (and again by ``fit``), with the reason.
    mixing : {"uniform", "mistakes"}, default="uniform"
        μ: 1/S, or each shard's share of the epoch's updates.
    max_iter : int, default=None
        Epochs; None: the estimator's ``max_iter``.
    n_shards : int, default=2
        Shards of a single array passed to ``fit`` (contiguous blocks of
        rows, as ``numpy.array_split`` cuts them). A list of arrays or
        files, or a Dask array, brings its own shards.
    client : distributed.Client, str or None, default=None
        Where the shards run: a client, a scheduler address
        (``"tcp://host:8786"``) or ``"local:N"`` (a ``LocalCluster`` of N
        worker processes, closed after ``fit``). None runs them in this
        process.
    n_features : int, default=None
        Columns of shard files (default: the highest index; the files must
        agree).
    zero_based : bool or "auto", default="auto"
        Indexing of shard files (see :func:`perceptrons.datasets.load_svmlight`).
    timeout : float, default=3.0
        Seconds to wait for a scheduler address to answer.

    Attributes
    ----------
    estimator_ : estimator
        The estimator with the mixed state: predicts, saves and continues
        (``partial_fit``) like one fitted by ``fit``.
    classes_, n_features_in_, coef_, intercept_ : as ``estimator_``'s.
    n_shards_ : int
    zero_based_ : bool or None
        The indexing of shard files (None for arrays).
    n_iter_ : int
        Epochs run.
    updates_per_shard_, mistakes_per_shard_ : ndarray of shape (n_epochs, n_shards)
        Each shard's updates and online mistakes, per epoch (``n_iter_``
        rows, ``n_shards_`` columns).
    mixing_weights_ : ndarray of shape (n_epochs, n_shards)
        μ of every epoch. An epoch in which no shard made an update leaves
        every shard at the state it started from, which any weights mix to
        that state: its row is the uniform 1/S, under both rules (the
        ``"mistakes"`` rule's shares are 0/0 then).

    References
    ----------
    .. [1] R. McDonald, K. Hall and G. Mann. Distributed training strategies
       for the structured perceptron. NAACL-HLT 2010, 456-464.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from perceptrons import Perceptron
    >>> from perceptrons.distributed import ParameterMixing
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> ipm = ParameterMixing(Perceptron(random_state=0), n_shards=4,
    ...                       mixing="mistakes").fit(X, y)
    >>> ipm.mistakes_per_shard_.shape
    (10, 4)
    >>> ipm.score(X, y) > 0.95
    True
    """

    _parameter_constraints = {
        "estimator": [None, HasMethods(["fit", "partial_fit"])],
        "mixing": [StrOptions({"uniform", "mistakes"})],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "n_shards": [Interval(Integral, 1, None, closed="left")],
        "client": [None, str, object],
        "n_features": [Interval(Integral, 1, None, closed="left"), None],
        "zero_based": ["boolean", StrOptions({"auto"})],
        "timeout": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, estimator=None, *, mixing="uniform", max_iter=None,
                 n_shards=2, client=None, n_features=None, zero_based="auto",
                 timeout=3.0):
        self.estimator = estimator
        self.mixing = mixing
        self.max_iter = max_iter
        self.n_shards = n_shards
        self.client = client
        self.n_features = n_features
        self.zero_based = zero_based
        self.timeout = timeout
        # Refused here, before any data is read (and again in fit).
        self._template()

    def _template(self):
        """An unfitted clone of the estimator, checked to be mixable."""
        if self.estimator is None:
            from .models.perceptron import Perceptron

            return Perceptron()
        if not isinstance(self.estimator, OnlineClassifier):
            raise TypeError(
                f"ParameterMixing mixes the estimators of perceptrons, not "
                f"{type(self.estimator).__name__}")
        template = clone(self.estimator)
        reason = mixing.mixing_refusal(template)
        if reason is not None:
            raise ValueError(f"{type(template).__name__} cannot be trained by "
                             f"parameter mixing: {reason}")
        return template

    # ----------------------------------------------------------- training
    def fit(self, X, y=None, classes=None):
        """Train by iterative parameter mixing.

        Parameters
        ----------
        X : array-like, sparse matrix, list of them, list of svmlight file
            paths, or dask.array.Array
            A single matrix is cut into ``n_shards`` blocks of rows; a list
            gives one shard per element (files are read by the workers); a
            Dask array gives one shard per chunk of rows.
        y : array-like, list of them, or dask.array.Array, default=None
            Labels, shaped as X; None for files (their labels are inside).
        classes : array-like, default=None
            Every class. Default: the union of the shards' labels, which
            must then all hold every class.

        Returns
        -------
        self : object
        """
        self._validate_params()
        template = self._template()
        max_iter = (template.max_iter if self.max_iter is None
                    else int(self.max_iter))
        runner, owned = self._runner()
        try:
            shards = [runner.submit(_prepare_shard, template, s)
                      for s in self._shards(runner, X, y)]
            facts = self._check_shards(
                runner.gather([runner.submit(_shard_facts, s)
                               for s in shards]), classes)
            self._train(runner, template, shards, facts, max_iter)
        finally:
            for thing in reversed(owned):
                thing.close()
        return self

    def _runner(self):
        if self.client is None:
            return _InProcess(), []
        from .utils.cluster import connect

        client, owned = connect(self.client, timeout=self.timeout)
        return _OnDask(client), owned

    def _shards(self, runner, X, y):
        """The shards as the runner holds them (futures on Dask)."""
        if _is_dask_array(X):
            return self._dask_shards(runner, X, y)
        if isinstance(X, (list, tuple)) and X and all(
                isinstance(x, (str, os.PathLike)) for x in X):
            if y is not None:
                raise ValueError("shard files hold their labels: pass y=None")
            return [runner.submit(_read_shard, path, self.n_features,
                                  self.zero_based) for path in X]
        if isinstance(X, (list, tuple)):
            if y is None or len(y) != len(X):
                raise ValueError("a list of shards needs a list of as many "
                                 "label arrays in y")
            if not X:
                raise ValueError("no shards: X is an empty list")
            return [runner.submit(_as_shard, Xi, yi, str(i))
                    for i, (Xi, yi) in enumerate(zip(X, y))]
        if y is None:
            raise ValueError("y is required unless X is a list of files")
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        if len(y) != n:
            raise ValueError(f"X has {n} rows but y has {len(y)} labels")
        if self.n_shards > n:
            raise ValueError(f"n_shards={self.n_shards} is more than the "
                             f"{n} rows")
        if sp.issparse(X):
            # Slicing rows follows indptr: checked before, not after.
            check_sparse_structure(X, "X")
        else:
            X = np.asarray(X)
        y = np.asarray(y)
        bounds = np.cumsum([0, *(len(part) for part in np.array_split(
            np.arange(n), self.n_shards))])
        return [runner.submit(_as_shard, X[a:b], y[a:b], str(i))
                for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]

    def _dask_shards(self, runner, X, y):
        if not _is_dask_array(y):
            raise ValueError("a Dask array X needs a Dask array y")
        if X.ndim != 2 or len(X.chunks[1]) != 1:
            X = X.rechunk({1: -1})
        if X.chunks[0] != y.chunks[0]:
            y = y.rechunk({0: X.chunks[0]})
        xs = X.to_delayed().ravel()
        ys = y.to_delayed().ravel()
        if isinstance(runner, _OnDask):
            xs = runner.client.compute(list(xs))
            ys = runner.client.compute(list(ys))
        else:
            xs = [x.compute(scheduler="sync") for x in xs]
            ys = [b.compute(scheduler="sync") for b in ys]
        return [runner.submit(_as_shard, a, b, str(i))
                for i, (a, b) in enumerate(zip(xs, ys))]

    def _check_shards(self, facts, classes):
        """Refuse shards that disagree, before training starts."""
        first = facts[0]
        for f in facts:
            if f["n_rows"] == 0:
                raise ValueError(f"shard {f['name']} has no rows")
            if f["n_features"] != first["n_features"]:
                raise ValueError(
                    f"shard {f['name']} has {f['n_features']} features but "
                    f"shard {first['name']} has {first['n_features']}; pass "
                    "n_features= for files whose highest index differs")
            if f["zero_based"] != first["zero_based"]:
                raise ValueError(
                    f"shard {f['name']} is zero_based={f['zero_based']} but "
                    f"shard {first['name']} is {first['zero_based']}; pass "
                    "zero_based=")
        if classes is None:
            classes = first["labels"]
            for f in facts:
                if not np.array_equal(f["labels"], classes):
                    raise ValueError(
                        f"shard {f['name']} has classes "
                        f"{f['labels'].tolist()!r} but shard {first['name']} "
                        f"has {classes.tolist()!r}; pass classes= with every "
                        "class when a shard may miss some")
        else:
            classes = np.unique(np.asarray(classes))
            for f in facts:
                unseen = np.setdiff1d(f["labels"], classes)
                if unseen.size:
                    raise ValueError(f"shard {f['name']} has labels "
                                     f"{unseen.tolist()!r} not in classes")
        if classes.shape[0] < 2:
            raise ValueError(f"the shards have only one class "
                             f"({classes[0]!r}); a classifier needs two")
        self.zero_based_ = first["zero_based"]
        n_rows = sum(f["n_rows"] for f in facts)
        # Σ⟨x, x⟩ in shard order: with one shard, fit's average exactly.
        total = facts[0]["sq_norm_sum"]
        for f in facts[1:]:
            total += f["sq_norm_sum"]
        return {"classes": classes, "mean_sq_norm": total / n_rows,
                "n_rows": [f["n_rows"] for f in facts]}

    def _train(self, runner, template, shards, facts, max_iter):
        n_shards = len(shards)
        rngs = _shard_seeds(template.random_state, n_shards)
        scratch = [{} for _ in range(n_shards)]
        start = None
        model = clone(template)
        updates, mistakes, weights = [], [], []
        for _ in range(max_iter):
            results = [runner.submit(_shard_epoch, template, start, shard,
                                     rngs[i], scratch[i], facts)
                       for i, shard in enumerate(shards)]
            # Only the model and the generators come back; the per-example
            # scratch stays with its shard.
            back = runner.gather([runner.part(r, k) for r in results
                                  for k in (0, 1)])
            states, rngs = back[0::2], back[1::2]
            scratch = [runner.part(r, 2) for r in results]
            shard_updates = np.array(
                [int(s.updates_per_epoch[-1]) for s in states])
            mistakes.append([int(s.mistakes_per_epoch[-1]) for s in states])
            mu = self._mixing_weights(shard_updates)
            if n_shards == 1:
                # Σ μ w = w: the shard's state is the model, bit for bit.
                model._set_state(states[0])
            else:
                mixing.mix_states(model, start, states, mu)
            start = model.state_
            updates.append(shard_updates)
            if not shard_updates.any():
                # No shard moved, so every shard's state is the one they
                # started from and any weights mix them to it: the state is
                # taken from the first shard (bit for bit), and the epoch
                # reports the uniform weights, which is what mixing did.
                mu = np.full(n_shards, 1.0 / n_shards)
            weights.append(mu)
        self.estimator_ = model
        self.n_shards_ = n_shards
        self.n_iter_ = max_iter
        self.updates_per_shard_ = np.array(updates, dtype=np.int64)
        self.mistakes_per_shard_ = np.array(mistakes, dtype=np.int64)
        self.mixing_weights_ = np.array(weights)
        self.classes_ = model.classes_
        self.n_features_in_ = model.n_features_in_

    def _mixing_weights(self, shard_updates):
        n = shard_updates.shape[0]
        total = int(shard_updates.sum())
        if total == 0:
            # No shard moved: each returned the weights it started from.
            mu = np.zeros(n)
            mu[0] = 1.0
            return mu
        if self.mixing == "uniform":
            return np.full(n, 1.0 / n)
        return shard_updates / total

    # ----------------------------------------------------------- prediction
    @property
    def coef_(self):
        check_is_fitted(self, "estimator_")
        return self.estimator_.coef_

    @property
    def intercept_(self):
        check_is_fitted(self, "estimator_")
        return self.estimator_.intercept_

    def decision_function(self, X):
        """The mixed model's scores (see the estimator's)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.decision_function(X)

    def predict(self, X):
        """The mixed model's predictions (see the estimator's)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)


def _is_dask_array(value):
    return type(value).__module__.startswith("dask.array")
