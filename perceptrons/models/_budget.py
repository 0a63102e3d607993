"""A kernel model's budget: its declared state and its per-call loop form.

A budgeted dual model (``budget=B`` on a kernel estimator, or the
Projectron) keeps, beside its support pool and coefficients
(:class:`~perceptrons.models._weights.DualWeights`), a
:class:`BudgetState`: the policy, B, which pool rows each group holds and
in what order they joined, each group's random stream and the
Forgetron's damage, and which pool rows are merged vectors rather than
training rows. A call turns it into the loops'
:data:`~perceptrons._loops.budget.Budget` (:func:`loop_budget`), with
the members' Gram matrix and its inverse recomputed where the policy
needs them (O(B² d) kernel values and O(B³) for the inverse per call),
and back into a state when it ends (:func:`state_after_call`).

Groups: one per weight row (a binary problem, or each one-vs-rest
problem keeps its own B), or one for all rows (the prototypes of one
model share their support set).
"""

import dataclasses

import numpy as np
from sklearn.utils import check_random_state

from .._loops.budget import (BPA_NN, FORGETRON, MERGE, POLICIES, PROJECT,
                             PROJECTRON, Budget, rebuild_groups)
from ._state import State, array, scalar

__all__ = ["BudgetState", "POLICY_CODES", "budget_seeds", "loop_budget",
           "state_after_call"]

#: Every policy a state may hold, by name, with its loop code.
POLICY_CODES = {**POLICIES, "projectron": PROJECTRON}

#: Policies whose groups keep the members' Gram matrix.
_GRAM_POLICIES = (FORGETRON, MERGE, BPA_NN)
#: Policies whose groups keep its inverse.
_INVERSE_POLICIES = (PROJECT, PROJECTRON)


@dataclasses.dataclass(frozen=True)
class BudgetState(State):
    """The budget of a dual model's support pool.

    Binds ``n_groups``.

    Attributes
    ----------
    policy : str
        How a full group makes room: a ``budget_policy`` name, or
        "projectron" (no B: a new vector within η of the span is projected).
    limit : int
        B, the most support vectors a group keeps (0 for the Projectron).
    threshold : float
        The Projectron's η (0 otherwise).
    shared : bool
        One group for every weight row (prototypes) rather than one per
        row.
    rank : ndarray of shape (n_groups, n_pool), int64
        The place of each pool row in its group's joining order (0 the
        oldest), -1 where the group does not hold it.
    rng : ndarray of shape (n_groups,), int64
        Each group's xorshift64 state (its bits; never 0).
    forget : ndarray of shape (n_groups, 2), float64
        The Forgetron's Q (damage so far) and M (the group's updates).
    merged : ndarray of shape (n_pool,), bool
        Pool rows made by merging (no training row; ``support_`` -1).
    stats : ndarray of shape (4,), int64
        Removals, projections, merges and refused steps so far.
    """

    policy: str = scalar("str", choices=tuple(POLICY_CODES))
    limit: int = scalar("int", low=0)
    threshold: float = scalar("float", low=0.0)
    shared: bool = scalar("bool")
    rank: np.ndarray = array("int", ("n_groups", "n_pool"), low=-1,
                             high="n_pool")
    rng: np.ndarray = array("int", ("n_groups",))
    forget: np.ndarray = array("float", ("n_groups", 2), low=0.0)
    merged: np.ndarray = array("bool", ("n_pool",))
    stats: np.ndarray = array("int", (4,), low=0)

    def check(self, sizes, where):
        n_groups = self.rank.shape[0]
        if self.shared and n_groups != 1:
            raise ValueError(f"{where}: a shared budget has one group")
        if not self.shared and "n_rows" in sizes and (
                n_groups != sizes["n_rows"]):
            raise ValueError(f"{where} has {n_groups} groups for "
                             f"{sizes['n_rows']} weight rows")
        if (self.policy == "projectron") != (self.limit == 0):
            raise ValueError(f"{where}: limit 0 is the Projectron's, and "
                             "only its")
        if np.any(self.rng == 0):
            raise ValueError(f"{where}.rng: a xorshift state is never 0")
        held = self.rank >= 0
        for g in range(n_groups):
            ranks = np.sort(self.rank[g][held[g]])
            if not np.array_equal(ranks, np.arange(ranks.shape[0])):
                raise ValueError(f"{where}.rank[{g}]: the ranks of a group "
                                 "are 0, 1, ... once each")
            if self.limit and ranks.shape[0] > self.limit:
                raise ValueError(f"{where}.rank[{g}]: {ranks.shape[0]} "
                                 f"members for a budget of {self.limit}")
        if n_groups and self.rank.shape[1] and not held.any(axis=0).all():
            raise ValueError(f"{where}.rank: every pool row is held by a "
                             "group")

    @classmethod
    def empty(cls, policy, limit, threshold, n_groups, shared, seeds):
        """No members yet; ``seeds`` (n_groups,) start the random streams."""
        return cls(policy=policy, limit=int(limit),
                   threshold=float(threshold), shared=bool(shared),
                   rank=np.zeros((n_groups, 0), dtype=np.int64),
                   rng=np.asarray(seeds, dtype=np.int64),
                   forget=np.zeros((n_groups, 2)),
                   merged=np.zeros(0, dtype=bool),
                   stats=np.zeros(4, dtype=np.int64))

    @property
    def code(self):
        """The loops' policy code."""
        return POLICY_CODES[self.policy]


def budget_seeds(random_state, n_groups):
    """One nonzero xorshift64 state per group, drawn from ``random_state``
    (scikit-learn's habit: drawn before any group runs)."""
    rng = check_random_state(random_state)
    return rng.randint(1, np.iinfo(np.int32).max, size=n_groups).astype(
        np.int64)


def needs_spare_rows(state, n_rows):
    """Rows the call's X needs beyond its own for merged vectors: one per
    member a group may hold, and one more."""
    if state is None or state.code != MERGE:
        return 0
    return state.rank.shape[0] * (state.limit + 1) + 1


def loop_budget(state, kc, n_rows, track_norms, bias=None, capacity=None):
    """The loops' :data:`~perceptrons._loops.budget.Budget` for a call.

    Parameters
    ----------
    state : BudgetState
    kc : KernelCall
        The call's support set (the pool's rows in slots 0 .. n_pool - 1)
        and kernel values.
    n_rows : int
        Weight rows.
    track_norms : bool
        The loop keeps ``‖w‖²`` (the groups keep their Gram matrix).
    bias : tuple, optional
        ``(coord, factor, offsets, offsets_sum)``: each loop row's bias
        coordinate (an array, or a number for every row), and the rows'
        thresholds or intercepts, which follow the coefficients
        (:mod:`perceptrons._loops.budget`'s notes); None: no bias.
    capacity : int, optional
        Members a group has room for (default B + 1; the Projectron's
        grows).

    Returns
    -------
    Budget
    """
    code = state.code
    n_groups = state.rank.shape[0]
    n_slots = kc.support.rows.shape[0]
    held = state.rank >= 0
    n_held = held.sum(axis=1)
    if capacity is None:
        capacity = (state.limit + 1 if state.limit
                    else max(16, 2 * int(n_held.max(initial=0)) + 1))
    # A group holds no more members than there are rows to hold.
    capacity = min(capacity, n_slots)
    if bias is None:
        bias = (0.0, 0.0, np.zeros(n_rows), np.zeros(0))
    coord, factor, offsets, offsets_sum = bias
    coord = np.broadcast_to(np.asarray(coord, dtype=np.float64),
                            (n_slots,)).copy()
    gram = code in _GRAM_POLICIES or (
        track_norms and code not in _INVERSE_POLICIES)
    inverse = code in _INVERSE_POLICIES
    members = np.zeros((n_groups, capacity), dtype=np.int64)
    local = np.full((n_groups, n_slots), -1, dtype=np.int64)
    refs = np.zeros(n_slots, dtype=np.int64)
    for g in range(n_groups):
        cols = np.flatnonzero(held[g])
        cols = cols[np.argsort(state.rank[g, cols], kind="stable")]
        members[g, :cols.shape[0]] = cols
        local[g, cols] = np.arange(cols.shape[0])
        refs[cols] += 1
    positions = np.tile(np.arange(capacity, dtype=np.int64), (n_groups, 1))
    width = max(capacity, n_rows)
    n_spare = kc.n_spare
    synth = np.zeros(n_spare + 1, dtype=np.int64)
    synth[0] = n_spare
    # Free rows for merged vectors, taken from the end.
    synth[1:] = np.arange(n_slots - 1, n_slots - 1 - n_spare, -1)
    budget = Budget(
        policy=code,
        limit=int(state.limit) if state.limit else np.iinfo(np.int64).max,
        shared=bool(state.shared), threshold=float(state.threshold),
        members=members, pos=positions.copy(), owner=positions,
        count=n_held.astype(np.int64), local=local, refs=refs,
        rng=state.rng.view(np.uint64).copy(), forget=state.forget.copy(),
        gram=np.zeros((n_groups, capacity, capacity) if gram
                      else (n_groups, 0, 0)),
        hinv=np.zeros((n_groups, capacity, capacity) if inverse
                      else (n_groups, 0, 0)),
        nn=np.full((n_groups, capacity if code == BPA_NN else 0), -1,
                   dtype=np.int64),
        nnd=np.zeros((n_groups, capacity if code == BPA_NN else 0)),
        trial=np.zeros(n_slots), pending=np.zeros(n_groups + 1,
                                                  dtype=np.int64),
        work=np.zeros((6, width)), iwork=np.zeros((2, width),
                                                  dtype=np.int64),
        synth=synth, n_real=n_slots - n_spare, stats=state.stats.copy(),
        gfac=np.ones(n_rows), dG=np.zeros((n_rows, n_rows)), coord=coord,
        offsets=offsets, offsets_sum=offsets_sum, factor=float(factor),
        scale=np.ones(n_rows))
    if n_held.any() and (gram or inverse):
        provider, support = kc.loop_args
        rebuild_groups(budget, provider, support)
    return budget


def grown(budget, capacity):
    """``budget`` with room for ``capacity`` members per group (the
    Projectron's support outgrew it); every array copied over."""
    n_groups, old = budget.members.shape

    def wider(a, fill=0):
        out = np.full((n_groups, capacity) + a.shape[2:], fill, dtype=a.dtype)
        out[:, :old] = a
        return out

    def square(a):
        if a.shape[1] == 0:
            return a
        out = np.zeros((n_groups, capacity, capacity))
        out[:, :old, :old] = a
        return out

    positions = np.tile(np.arange(capacity, dtype=np.int64), (n_groups, 1))
    pos = wider(budget.pos)
    owner = wider(budget.owner)
    # Positions past the old capacity are free: their own owners.
    pos[:, old:] = positions[:, old:]
    owner[:, old:] = positions[:, old:]
    width = max(capacity, budget.work.shape[1])
    return budget._replace(
        members=wider(budget.members), pos=pos, owner=owner,
        gram=square(budget.gram), hinv=square(budget.hinv),
        nn=(wider(budget.nn, -1) if budget.nn.shape[1] else budget.nn),
        nnd=(wider(budget.nnd) if budget.nnd.shape[1] else budget.nnd),
        work=np.zeros((6, width)), iwork=np.zeros((2, width),
                                                  dtype=np.int64))


def state_after_call(state, budget, kc, slot_order, old_merged):
    """The budget's state once a call ends.

    Parameters
    ----------
    state : BudgetState
        The state the call began with.
    budget : Budget
        The loops' budget after the call.
    kc : KernelCall
    slot_order : ndarray of int64
        The call's kept slots in their new pool order.
    old_merged : ndarray of bool
        ``merged`` of the pool the call began with.

    Returns
    -------
    BudgetState
    """
    n_groups = budget.count.shape[0]
    n_pool = slot_order.shape[0]
    column = np.full(kc.support.rows.shape[0], -1, dtype=np.int64)
    column[slot_order] = np.arange(n_pool)
    rank = np.full((n_groups, n_pool), -1, dtype=np.int64)
    for g in range(n_groups):
        slots = budget.members[g, :budget.count[g]]
        rank[g, column[slots]] = np.arange(slots.shape[0])
    rows = kc.support.rows[slot_order]
    merged = rows >= budget.n_real
    from_pool = rows < old_merged.shape[0]
    merged[from_pool] = old_merged[rows[from_pool]]
    return state.replace(rank=rank, rng=budget.rng.view(np.int64).copy(),
                         forget=budget.forget.copy(), merged=merged,
                         stats=budget.stats.copy())


# ------------------------------------------------------------ parameters
#: The policies every kernel estimator takes (PassiveAggressive adds the
#: BPA ones).
COMMON_POLICIES = ("stop", "random", "oldest", "forgetron", "smallest",
                   "project", "merge")


def budget_constraints(policies=COMMON_POLICIES):
    """``_parameter_constraints`` entries of ``budget`` and
    ``budget_policy``."""
    from numbers import Integral

    from ..utils._param_validation import Interval, StrOptions
    return {"budget": [Interval(Integral, 1, None, closed="left"), None],
            "budget_policy": [StrOptions(set(policies))]}


class BudgetAlgorithm:
    """The budget of a kernel algorithm's parameters ``budget`` and
    ``budget_policy`` (for an :class:`~perceptrons.models._driver.Algorithm`
    with a ``kernel``): checked, made into a state, kept when continued."""

    def budget_refusal(self):
        """Why the parameters cannot run under their budget (None when they
        can, or when there is none)."""
        if getattr(self, "budget", None) is None:
            return None
        if self.kernel is None:
            return (f"budget={self.budget} bounds the support vectors of "
                    "the kernel form; set a kernel (kernel=None is the "
                    "primal form, whose model is one weight vector)")
        if self.budget_policy == "merge" and self.kernel != "rbf":
            return ("budget_policy='merge' merges two support vectors into "
                    "one point of the input space, which keeps the "
                    "Gaussian kernel's value exact (BSGD, Wang et al. 2012, "
                    f"Sec. 4.3): kernel='rbf' is required, got {self.kernel!r}")
        hypothesis = getattr(self, "hypothesis", "last")
        if hypothesis not in ("last", "averaged"):
            return (f"hypothesis={hypothesis!r} replays or keeps past "
                    "hypotheses whose support vectors a budget removes; use "
                    "'last' or 'averaged' with a budget")
        return None

    def new_budget(self, n_rows, shared):
        """The :class:`BudgetState` of a fresh start (None without a
        budget).

        Raises
        ------
        ValueError
            With the reason of :meth:`budget_refusal`.
        """
        refusal = self.budget_refusal()
        if refusal:
            raise ValueError(refusal)
        if getattr(self, "budget", None) is None:
            return None
        n_groups = 1 if shared else n_rows
        return BudgetState.empty(self.budget_policy, self.budget, 0.0,
                                 n_groups, shared,
                                 budget_seeds(self.random_state, n_groups))

    def check_continued(self, state):
        super().check_continued(state)
        self.check_budget_continued(state)

    @staticmethod
    def budget_growth_refusal(state):
        """Why a budgeted model takes no class after its first call (None
        without a budget): its groups, their random streams, Gram matrices
        and the Forgetron's damage are the problems' it was made with."""
        budget = getattr(getattr(state, "weights", None), "budget", None)
        if budget is None or budget.policy == "projectron":
            return None
        return (f"a model under budget_policy={budget.policy!r} keeps one "
                "support group per problem (or one for its prototypes), "
                "with its own random stream and Gram matrix; a new class's "
                "group is not written: fit again with every class")

    def budget_mixing_refusal(self):
        """Why parameter mixing refuses a budgeted model (None without a
        budget)."""
        if getattr(self, "budget", None) is None:
            return None
        return (f"with budget={self.budget} each shard keeps the support "
                "vectors its own run chose; an average of the shards' "
                "models would hold their union, up to the shards times the "
                "budget")

    def kernel_mixing_refusal(self):
        """Why parameter mixing refuses a kernel model (the budget's
        reason first; None without a kernel)."""
        if getattr(self, "kernel", None) is None:
            return None
        return self.budget_mixing_refusal() or (
            f"with kernel={self.kernel!r} the model is dual coefficients "
            "over each shard's own support vectors, not a weight vector the "
            "shards share")

    def check_budget_continued(self, state):
        """Refuse to continue a model under other budget parameters than
        the ones its state was made with (ValueError)."""
        weights = getattr(state, "weights", None)
        kept = getattr(weights, "budget", None)
        asked = getattr(self, "budget", None)
        if kept is None and asked is None:
            return
        if kept is None or asked is None or kept.limit != asked or (
                kept.policy != self.budget_policy):
            was = ("no budget" if kept is None else
                   f"budget={kept.limit}, budget_policy={kept.policy!r}")
            raise ValueError(
                f"the fitted model was made with {was}, which it keeps "
                "while continuing; set budget and budget_policy back, or "
                "fit afresh (warm_start=False)")


#: The two parameters' entries of a class docstring (numpydoc).
BUDGET_PARAMETERS_DOC = """\
    budget : int or None, default=None
        Kernel form: the most support vectors a problem keeps (B; one-vs-rest
        problems keep B each, prototypes share B), or None for no bound. With
        B above the number of updates the model is the unbudgeted one, bit
        for bit. See the user guide's *Kernel models under a budget*.
    budget_policy : str, default="random"
        How a full problem makes room for a new support vector: "stop"
        (the Stoptron: no new vector, the step is not made), "random"
        (Cavallanti et al.'s Random Budget Perceptron: an old vector,
        uniformly, seeded by ``random_state``), "oldest", "forgetron" (the
        self-tuned Forgetron of Dekel et al.: shrink by the largest φ <= 1
        with Q + Ψ(φ) <= 15/32 M, then the oldest; its analysis is the
        perceptron's), "smallest" (BSGD's removal: least
        ‖α‖ sqrt(k(x, x))), "project" (BSGD's projection, BPA-P for
        PassiveAggressive: the least degradation, projected on the others)
        or "merge" (BSGD's merging of two vectors, Gaussian kernel only);
        PassiveAggressive also takes "bpa-s" and "bpa-nn" (Wang & Vucetic's
        BPA: the vector projected on the new example, and its nearest
        neighbour). Every change is applied to the averaged hypothesis's
        running sum too, and the thresholds or intercepts leave with their
        vectors (:mod:`perceptrons.models._budget`).
"""


def with_budget_docs(cls):
    """Class decorator: the docstring's ``%(budget_parameters)s`` line
    becomes :data:`BUDGET_PARAMETERS_DOC`."""
    from ..utils.docstrings import with_doc_fragments

    return with_doc_fragments(
        {"    %(budget_parameters)s\n": BUDGET_PARAMETERS_DOC})(cls)
