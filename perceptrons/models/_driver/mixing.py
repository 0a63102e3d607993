"""Iterative parameter mixing (McDonald, Hall & Mann 2010), the model side.

:class:`~perceptrons.distributed.ParameterMixing` runs the shards' epochs
and mixes their states; what an epoch on a shard is and what a mix of
states is are written here, once for every estimator: a shard's epoch is
the estimator's own pass (:func:`shard_pass`), a mix adds up the shards'
counters and asks the algorithm to mix its arrays
(:meth:`~perceptrons.models._driver.protocol.Algorithm.mix_arrays`, with
the helpers below for weight rows and their running sums).
"""

import numpy as np

from .inputs import call_targets, validate_input
from .training import start, train

__all__ = ["adopt", "mix", "mix_states", "mixed_rows_and_offset",
           "mixing_refusal", "pooled_accumulator", "pooled_sum",
           "prepared_shard", "shard_pass"]


def mixing_refusal(est):
    """Why ``est`` cannot be trained by parameter mixing with its current
    parameters (None when it can)."""
    return est._algorithm_of_params(validate=False).mixing_refusal()


def prepared_shard(est, X, y):
    """A shard's rows validated once, as every epoch's pass reads them.

    Returns
    -------
    X, y
        The validated data.
    call : TrainingCall
        With ``feature_names_in``, the names validation read (given to
        the estimator on the first epoch).
    """
    algo = est._algorithm_of_params(validate=False)
    X, y, call = validate_input(est, algo, X, y, reset=True)
    call.feature_names_in = getattr(est, "feature_names_in_", None)
    return X, y, call


def adopt(est, state):
    """Make ``state`` (a mixed state, validated where it was mixed) the
    model a shard's epoch continues."""
    est._adopt_state(state)


def mix(arrays, mu):
    """``Σ_i μ_i a_i`` (Algorithm 2 of McDonald, Hall & Mann 2010), in
    shard order so that the result does not depend on where shards ran."""
    total = mu[0] * arrays[0]
    for weight, array in zip(mu[1:], arrays[1:]):
        total += weight * array
    return total


def pooled_sum(start, sums):
    """The running sum of every hypothesis visited by any shard.

    Each shard's sum ``sums[i]`` continues the sum it started from,
    ``start`` (None: zero); the pool adds what every shard added to it.
    """
    if start is None:
        total = sums[0].copy()
        for s in sums[1:]:
            total += s
        return total
    total = start.copy()
    for s in sums:
        total += s - start
    return total


def pooled_accumulator(start, states, t, mixed, value, acc):
    """The accumulator of a mixed state that keeps ``Σ_t w_t = t·w - A``.

    Parameters
    ----------
    start : State or None
        The state every shard started the epoch from.
    states : list of State
        Each shard's state after its epoch.
    t : int
        The mixed state's step count.
    mixed : ndarray
        The mixed w.
    value, acc : callable
        A state's w and A.

    Returns
    -------
    ndarray
        ``t·w - Σ`` with Σ the pooled sum of every hypothesis any shard
        visited (:func:`pooled_sum`), so that the mixed state's average is
        the average of all of them.
    """
    before = (start.t * value(start) - acc(start) if start is not None
              else None)
    return t * mixed - pooled_sum(before, [s.t * value(s) - acc(s)
                                           for s in states])


def mixed_rows_and_offset(start, states, mu, counted, averaged, offset,
                          offset_acc):
    """The mixed arrays of states of weight rows and per-row offsets.

    The states hold weight rows, an offset per row (θ, b) and, averaged,
    their accumulators ``A`` with ``Σ_t w_t = t·w - A`` (the Perceptron's
    and PA's states).

    Parameters
    ----------
    start : State or None
        The state every shard started the epoch from.
    states : list of State
        Each shard's state after its epoch.
    mu : ndarray of shape (n_shards,)
        The mixing weights.
    counted : State
        The first shard's state with the counters added up
        (:func:`mix_states`).
    averaged : bool
        Whether the states keep the accumulators.
    offset, offset_acc : str
        The state fields of the offset and its accumulator.

    Returns
    -------
    dict
        The replaced fields: ``weights`` (current rows mixed by μ,
        accumulator pooled), the offset and its accumulator,
        ``n_updates_per_problem`` (added up).
    """
    current = mix([s.weights.current for s in states], mu)
    off = mix([getattr(s, offset) for s in states], mu)
    summed = counted.weights.summed
    off_acc = getattr(counted, offset_acc)
    if averaged:
        summed = pooled_accumulator(
            start, states, counted.t, current, lambda s: s.weights.current,
            lambda s: s.weights.summed)
        off_acc = pooled_accumulator(
            start, states, counted.t, off, lambda s: getattr(s, offset),
            lambda s: getattr(s, offset_acc))
    n_updates = pooled_sum(
        start.n_updates_per_problem if start is not None else None,
        [s.n_updates_per_problem for s in states])
    return {"weights": counted.weights.replace(current=current,
                                               summed=summed),
            offset: off, offset_acc: off_acc,
            "n_updates_per_problem": n_updates}


def shard_pass(est, call, y, order, *, classes, mean_sq_norm, carry=None):
    """One epoch of iterative parameter mixing on one shard.

    Continues the fitted state when there is one; else starts afresh as
    ``fit`` would on the union of the shards, whose average ``<x, x>``
    (``mean_sq_norm``) resolves the "auto" quantities and whose classes
    are ``classes``. With one shard, the epochs of this function are those
    of ``fit`` bit for bit.

    Parameters
    ----------
    est : OnlineClassifier
    call : TrainingCall
        The shard as :func:`prepared_shard` returned it (validated once,
        read by every epoch; each pass adds its scratch afresh).
    y : ndarray
        The shard's validated labels.
    order : ndarray of int64
        The rows to present.
    classes : ndarray
        Every class of the union of the shards.
    mean_sq_norm : float
        The average ``<x_i, x_i>`` over the union of the shards.
    carry : dict, default=None
        What the previous call on this shard returned.

    Returns
    -------
    carry : dict
        The per-example scratch to pass to the next call on this shard.
    """
    if call.X.shape[0] == 0:
        raise ValueError("cannot fit on zero samples")
    if est.class_weight is not None:
        # Its weights would need every shard's labels; refused rather
        # than silently left out.
        raise ValueError(
            f"parameter mixing does not apply class_weight="
            f"{est.class_weight!r} yet: train without it, or weigh the "
            "rows with fit(sample_weight=...) on one machine")
    call.mean_sq_norm = float(mean_sq_norm)
    call.classes = np.asarray(classes)
    first = not hasattr(est, "state_")
    algo = est._algorithm_of_params(validate=first)
    if first:
        est.n_features_in_ = call.X.shape[1]
        if call.feature_names_in is not None:
            est.feature_names_in_ = call.feature_names_in
        start(est, algo, call)
    return train(est, algo, call, call_targets(call, y), [order], 1, carry)


def mix_states(est, start_state, states, mu):
    """Set ``est`` to the mix of the shards' states (Algorithm 2 of
    McDonald, Hall & Mann 2010), validated.

    Parameters
    ----------
    est : OnlineClassifier
    start_state : State or None
        The state every shard started the epoch from (None for the
        first epoch).
    states : list of State
        Each shard's state after its epoch.
    mu : ndarray of shape (n_shards,)
        The mixing weights, summing to one.

    The counters (the algorithm's ``mixed_totals`` and ``mixed_per_epoch``)
    add up what each shard did in the epoch; the model's own arrays are
    mixed by the algorithm's ``mix_arrays``.
    """
    algo = est._algorithm_of_params(validate=False)
    start = start_state
    first = states[0]
    t0 = start.t if start is not None else 0
    changes = {"t": t0 + sum(s.t - t0 for s in states),
               "n_iter": (start.n_iter if start is not None else 0) + 1}
    for name in algo.mixed_totals:
        before = getattr(start, name) if start is not None else 0
        changes[name] = before + sum(getattr(s, name) - before
                                     for s in states)
    for name in algo.mixed_per_epoch:
        before = (getattr(start, name) if start is not None
                  else np.zeros(0, dtype=np.int64))
        epoch = sum(int(getattr(s, name)[-1]) for s in states)
        changes[name] = np.append(before, epoch).astype(np.int64)
    est._set_state(algo.mix_arrays(start, states, mu,
                                   first.replace(**changes)))
