"""Kernel learners under a budget, transcribed line by line (test oracle).

Slow on purpose: every support vector is a dense vector of its own, every
kernel value is computed from the vectors when it is needed
(:func:`tests.reference.kernels.kernel_value`), every Gram matrix and
inverse is built afresh with numpy, and the averaged hypothesis is the sum
of the coefficient vectors after every step, kept as it goes. Nothing is
imported from ``perceptrons``.

The budget (:class:`Support`) follows the papers as the package reads
them (``perceptrons._loops.budget``'s notes):

* one group of support vectors per weight row (a binary or one-vs-rest
  problem), or one shared by all rows (prototypes); a group holds at most
  B vectors once its step is over;
* "stop" (the Stoptron): a full group takes no new vector, the step is not
  made;
* "random" (Cavallanti, Cesa-Bianchi & Gentile 2007): one of the old
  vectors, uniformly, by a xorshift64 stream per group;
* "oldest": the oldest vector;
* "forgetron" (Dekel, Shalev-Shwartz & Singer 2008, self-tuned): shrink by
  the largest φ ≤ 1 with ``Q + Ψ(φ) <= 15/32 M``, then the oldest leaves;
* "smallest" (BSGD's removal): the vector, the new one included, of least
  ``‖α‖² k(x, x)``;
* "project" (BSGD's projection, BPA-P): the old vector of least
  ``‖α_p‖² dist(φ_p, span of the others)²`` leaves, projected onto the
  others; a new vector that lies in the others' span (to √ε, 1.49e-8, of
  its ``k(x, x)``: below it δ² carries fewer than half its digits) is
  projected at once;
* "merge" (BSGD, Gaussian kernel): the vector of least ‖α‖ (new one
  included) and the partner of least degradation become
  ``z = h x_m + (1 - h) x_n``, h by BudgetedSVM's golden-section search;
* "bpa-s", "bpa-nn" (Wang & Vucetic 2010): the old vector r of least
  ``‖α_r‖² dist(φ_r, V)²`` leaves, projected onto V = {new} or {new,
  nearest vector to r};
* "projectron" (Orabona, Keshet & Caputo 2009): a new vector within η of
  the span of the others is projected onto it at once.

Every change of the coefficients a policy makes is applied to the running
sum of the averaged hypothesis as well; ties between candidates go to the
oldest.
"""

import numpy as np

from tests.reference.kernels import kernel_value

MASK = (1 << 64) - 1
LOSS_ROUNDING = 2.0 ** -40
SPAN_ROUNDING = float(np.sqrt(np.finfo(np.float64).eps))


def xorshift_index(state, n):
    """One step of xorshift64 (13, 7, 17) from ``state``; returns the new
    state and the index ``(x >> 1) mod n``."""
    x = state
    x ^= (x << 13) & MASK
    x ^= x >> 7
    x ^= (x << 17) & MASK
    return x, (x >> 1) % n


def budget_seeds(random_state, n_groups):
    """The groups' first states, as the estimators draw them."""
    rng = np.random.RandomState(random_state)
    return [int(s) for s in rng.randint(1, np.iinfo(np.int32).max,
                                        size=n_groups)]


def forgetron_phi(a, b, c):
    """The largest φ in (0, 1] with a φ² + b φ + c <= 0, as DOGMA solves
    it (``k_forgetron_st_train.m``)."""
    d = b * b - 4.0 * a * c
    if a > 0 or (a < 0 and d > 0 and (-b - np.sqrt(abs(d))) / (2 * a) > 1):
        return min(1.0, (-b + np.sqrt(d)) / (2 * a))
    if a == 0 and b > 0:
        return min(1.0, -c / b)
    return 1.0


def golden_section(k12, a1, a2, lo, hi, tolerance=1e-4):
    """BudgetedSVM's goldenSectionSearch of the merging parameter h."""
    def objective(h):
        return -(a1 * k12 ** ((1 - h) * (1 - h)) + a2 * k12 ** (h * h))
    gamma = (np.sqrt(5.0) - 1.0) / 2.0
    p = hi - gamma * (hi - lo)
    q = lo + gamma * (hi - lo)
    fp, fq = objective(p), objective(q)
    while hi - lo >= 2.0 * tolerance:
        if fp <= fq:
            hi, q, fq = q, p, fp
            p = hi - gamma * (hi - lo)
            fp = objective(p)
        else:
            lo, p, fp = p, q, fq
            q = lo + gamma * (hi - lo)
            fq = objective(q)
    return (lo + hi) / 2.0


class Vector:
    """A support vector: its input-space point and where it came from."""

    def __init__(self, x, row):
        self.x = np.array(x, dtype=np.float64)
        self.row = row  # training row, or None for a merged vector


class Kernel:
    """The kernel of the feature vectors ``[φ(x), c]``: ``k(x, z) + c²``
    (``c`` a bias coordinate: ``√C`` for Figure 2's threshold, 1 for
    Passive-Aggressive's intercept, 0 without), or ALMA's normalised
    ``(k(x, z) + ρ²) / (n_x n_z)``, ``n = sqrt(k(x, x) + ρ²)`` (``rho``)."""

    def __init__(self, kernel, degree, gamma, coef0, rho=None, coord=0.0):
        self.params = (kernel, degree, gamma, coef0)
        self.rho = rho
        self.coord = coord

    def raw(self, x, z):
        kernel, degree, gamma, coef0 = self.params
        return kernel_value(x, z, kernel, degree, gamma, coef0)

    def norm(self, x):
        return np.sqrt(self.raw(x, x) + self.rho ** 2)

    def __call__(self, x, z):
        value = self.raw(x, z)
        if self.rho is None:
            return value + self.coord ** 2
        r = self.norm(x) * self.norm(z)
        return (value + self.rho ** 2) / r if r > 0 else 0.0


class Support:
    """Weight rows as coefficients over support vectors, under a budget."""

    def __init__(self, n_rows, kernel, policy=None, limit=None,
                 shared=False, seeds=(), threshold=0.0, averaged=False,
                 reading="paper"):
        self.n_rows = n_rows
        self.k = kernel
        self.policy = policy
        self.limit = limit
        self.shared = shared
        self.threshold = threshold
        n_groups = 1 if shared else n_rows
        self.groups = [[] for _ in range(n_groups)]  # Vectors, in order
        self.rng = list(seeds)
        self.Q = [0.0] * n_groups
        self.M = [0.0] * n_groups
        self.coef = [dict() for _ in range(n_rows)]   # id(Vector) -> c
        self.summed = [dict() for _ in range(n_rows)] if averaged else None
        self.pending = []
        self.by_row = {}
        self.refused = 0
        # DOGMA's Projectron: η against δ², not δ.
        self.reading = reading

    # ----------------------------------------------------------- basics
    def group(self, r):
        return 0 if self.shared else r

    def rows(self, g):
        return range(self.n_rows) if self.shared else [g]

    def score(self, r, x):
        total = 0.0
        for v in self.groups[self.group(r)]:
            c = self.coef[r].get(id(v), 0.0)
            if c != 0.0:
                total += c * self.k(v.x, x)
        return total

    def c(self, r, v):
        return self.coef[r].get(id(v), 0.0)

    def alpha_sq(self, g, v):
        return sum(self.c(r, v) ** 2 for r in self.rows(g))

    def admits(self, r, i):
        """The Stoptron's test (always True for the other policies)."""
        g = self.group(r)
        if self.policy != "stop" or len(self.groups[g]) < self.limit:
            return True
        if any(v.row == i for v in self.groups[g]):
            return True
        self.refused += 1
        return False

    def add(self, r, i, x, amount):
        """``w_r += amount φ(x_i)``, x_i joining the group of row r."""
        g = self.group(r)
        self.M[g] += 1.0
        member = next((v for v in self.groups[g] if v.row == i), None)
        if member is None:
            member = self.by_row.get(i) or Vector(x, i)
            self.by_row[i] = member
            self.groups[g].append(member)
            if self.policy is not None:
                self.pending.append(g)
        self.coef[r][id(member)] = self.coef[r].get(id(member), 0.0) + amount
        return member

    def add_pair(self, r, o, i, x, amount):
        """``w_r += amount φ(x_i)``, ``w_o -= amount φ(x_i)``: one update
        of the shared group."""
        self.add(r, i, x, amount)
        self.add(o, i, x, -amount)
        self.M[0] -= 1.0

    def scale_coef(self, g, c):
        """The rows of group g times c: an update of the rows (the
        Ballseptron's shrink, ALMA's normalisation), not of their sum."""
        for r in self.rows(g):
            for key in self.coef[r]:
                self.coef[r][key] *= c

    def map(self, g, changes):
        """Apply a linear map on group g's columns to the coefficients and
        the running sums: ``changes`` maps each target Vector to a list of
        ``(source Vector, factor)``; sources not listed are dropped."""
        for table in ([self.coef] + ([self.summed] if self.summed else [])):
            for r in self.rows(g):
                old = dict(table[r])
                new = {}
                for target, sources in changes.items():
                    new[target] = sum(old.get(id(s), 0.0) * f
                                      for s, f in sources)
                for m in self.groups[g]:
                    table[r].pop(id(m), None)
                for target, value in new.items():
                    table[r][id(target)] = value

    def remove(self, g, v):
        changes = {m: [(m, 1.0)] for m in self.groups[g] if m is not v}
        self.map(g, changes)
        self.groups[g] = [m for m in self.groups[g] if m is not v]

    def scale(self, g, phi):
        self.map(g, {m: [(m, phi)] for m in self.groups[g]})

    def gram(self, vectors):
        return np.array([[self.k(a.x, b.x) for b in vectors]
                         for a in vectors]).reshape(len(vectors),
                                                    len(vectors))

    # ----------------------------------------------------------- settling
    def settle(self):
        for g in self.pending:
            self._settle(g)
        self.pending = []

    def _settle(self, g):
        members = self.groups[g]
        new = members[-1]
        if self.policy in ("projectron", "project"):
            if self._in_span(g, new):
                return
        if self.limit is None or len(members) <= self.limit:
            return
        old = members[:-1]
        if self.policy == "random":
            self.rng[g], j = xorshift_index(self.rng[g], len(old))
            self.remove(g, old[j])
        elif self.policy == "oldest":
            self.remove(g, members[0])
        elif self.policy == "forgetron":
            self._forget(g)
        elif self.policy == "smallest":
            values = [self.alpha_sq(g, v) * self.k(v.x, v.x)
                      for v in members]
            self.remove(g, members[int(np.argmin(values))])
        elif self.policy == "project":
            self._project(g)
        elif self.policy == "merge":
            self._merge(g)
        elif self.policy in ("bpa-s", "bpa-nn"):
            self._bpa(g, self.policy == "bpa-nn")
        else:
            raise ValueError(self.policy)

    def _project_onto(self, g, v, onto):
        """v leaves group g, ``φ_v`` replaced by its projection onto the
        span of ``onto``: each ``c_q += c_v d_q``, ``d = K⁻¹ k``."""
        if onto:
            K = self.gram(onto)
            k = np.array([self.k(q.x, v.x) for q in onto])
            d = np.linalg.solve(K, k)
        changes = {m: [(m, 1.0)] for m in self.groups[g] if m is not v}
        for q, dq in zip(onto, d if onto else []):
            changes[q] = changes[q] + [(v, dq)]
        self.map(g, changes)
        self.groups[g] = [m for m in self.groups[g] if m is not v]

    def _in_span(self, g, new):
        others = self.groups[g][:-1]
        ktt = self.k(new.x, new.x)
        if not ktt > 0:
            self.remove(g, new)
            return True
        if others:
            K = self.gram(others)
            k = np.array([self.k(q.x, new.x) for q in others])
            dsq = max(ktt - k @ np.linalg.solve(K, k), 0.0)
        else:
            dsq = ktt
        if self.policy == "projectron":
            delta = dsq if self.reading == "dogma" else np.sqrt(dsq)
            inside = delta <= self.threshold
        else:
            inside = dsq <= SPAN_ROUNDING * ktt
        if inside:
            self._project_onto(g, new, others)
        return inside

    def _forget(self, g):
        members = self.groups[g]
        r = members[0]
        rows = list(self.rows(g))
        # f'(x_r) per row, the new vector included.
        F = [sum(self.c(a, v) * self.k(v.x, r.x) for v in members)
             for a in rows]
        a2 = sum(self.c(a, r) ** 2 for a in rows)
        af = sum(self.c(a, r) * F[n] for n, a in enumerate(rows))
        phi = forgetron_phi(a2 - 2 * af, 2 * np.sqrt(a2),
                            self.Q[g] - 15.0 / 32.0 * self.M[g])
        if phi != 1.0:
            self.scale(g, phi)
        e2 = phi * phi * a2
        self.Q[g] += e2 + 2.0 * np.sqrt(e2) - 2.0 * phi * phi * af
        self.remove(g, r)

    def _project(self, g):
        members = self.groups[g]
        H = np.linalg.inv(self.gram(members))
        values = [self.alpha_sq(g, v) / H[j, j]
                  for j, v in enumerate(members[:-1])]
        j = int(np.argmin(values))
        v = members[j]
        self._project_onto(g, v, [m for m in members if m is not v])

    def _bpa(self, g, nearest):
        members = self.groups[g]
        t = members[-1]
        best = None
        for r in members[:-1]:
            V = [t]
            if nearest:
                dist = [(self.k(r.x, r.x) + self.k(q.x, q.x)
                         - 2.0 * self.k(r.x, q.x)) for q in members]
                candidates = [(d, n) for n, (d, q) in
                              enumerate(zip(dist, members)) if q is not r]
                n = min(candidates, key=lambda p: (p[0], p[1]))[1]
                o = members[n]
                if o is not t:
                    ktt, knn = self.k(t.x, t.x), self.k(o.x, o.x)
                    ktn = self.k(t.x, o.x)
                    if ktt * knn - ktn * ktn > SPAN_ROUNDING * ktt * knn:
                        V = [t, o]
            K = self.gram(V)
            k = np.array([self.k(q.x, r.x) for q in V])
            d = np.linalg.solve(K, k)
            residual = max(self.k(r.x, r.x) - k @ d, 0.0)
            value = self.alpha_sq(g, r) * residual
            if best is None or value < best[0]:
                best = (value, r, V, d)
        _, r, V, d = best
        changes = {m: [(m, 1.0)] for m in members if m is not r}
        for q, dq in zip(V, d):
            changes[q] = changes[q] + [(r, dq)]
        self.map(g, changes)
        self.groups[g] = [m for m in members if m is not r]

    def _merge(self, g):
        members = self.groups[g]
        rows = list(self.rows(g))
        m = members[int(np.argmin([self.alpha_sq(g, v) for v in members]))]
        best = None
        for v in members:
            if v is m:
                continue
            # The Gaussian kernel's own value (a normalised kernel's norms
            # are the same for every point of the Gaussian kernel).
            k12 = min(1.0, self.k.raw(m.x, v.x))
            a1 = a2 = 0.0
            for a in rows:
                s = self.c(a, m) + self.c(a, v)
                s = 0.0001 if s == 0 else s
                a1 += self.c(a, m) / s
                a2 += self.c(a, v) / s
            if a1 * a2 > 0:
                h = golden_section(k12, a1, a2, 0.0, 1.0)
            elif a1 > 0:
                h = golden_section(k12, a1, a2, 1.0, 6.0)
            else:
                h = golden_section(k12, a1, a2, -5.0, 0.0)
            kz1 = k12 ** ((1 - h) * (1 - h))
            kz2 = k12 ** (h * h)
            loss = sum(self.c(a, m) ** 2 + self.c(a, v) ** 2
                       + 2 * k12 * self.c(a, m) * self.c(a, v)
                       - (self.c(a, m) * kz1 + self.c(a, v) * kz2) ** 2
                       for a in rows)
            if best is None or loss < best[0]:
                best = (loss, v, h, kz1, kz2)
        _, n, h, kz1, kz2 = best
        z = Vector(h * m.x + (1 - h) * n.x, None)
        changes = {q: [(q, 1.0)] for q in members if q is not m
                   and q is not n}
        changes[z] = [(m, kz1), (n, kz2)]
        self.map(g, changes)
        self.groups[g] = [q for q in members if q is not m and q is not n]
        self.groups[g].append(z)

    # ----------------------------------------------------------- results
    def accumulate(self):
        """The running sum gains the coefficients after this step."""
        for r in range(self.n_rows):
            for key, value in self.coef[r].items():
                self.summed[r][key] = self.summed[r].get(key, 0.0) + value

    def vectors(self):
        seen, out = set(), []
        for members in self.groups:
            for v in members:
                if id(v) not in seen:
                    seen.add(id(v))
                    out.append(v)
        return out

    def decision(self, X, table=None, scale=1.0):
        """``Σ_v c_{r, v} k(v, x)`` for every row x of X and weight row r."""
        table = self.coef if table is None else table
        vecs = self.vectors()
        out = np.zeros((X.shape[0], self.n_rows))
        for n, x in enumerate(X):
            for r in range(self.n_rows):
                out[n, r] = scale * sum(
                    table[r].get(id(v), 0.0) * self.k(v.x, x) for v in vecs)
        return out

    def sizes(self):
        return [len(members) for members in self.groups]


def _labels_of(y):
    classes = np.unique(y)
    return classes, np.searchsorted(classes, y)


def _signs(targets, r, n_rows):
    return np.where(targets == (1 if n_rows == 1 else r), 1.0, -1.0)


def online_mistake(scores, t, n_rows, o=None):
    """The online mistake before the step: ``y f(x) <= 0`` for one problem;
    another class scoring at least the true one otherwise (``o`` the best
    other, for prototypes)."""
    if o is not None:
        return scores[o] >= scores[t]
    if n_rows == 1:
        return (1 if t == 1 else -1) * scores[0] <= 0
    return any(scores[r] >= scores[t] for r in range(n_rows) if r != t)


def best_other(scores, target):
    best = None
    for r in range(len(scores)):
        if r != target and (best is None or scores[r] > scores[best]):
            best = r
    return best


class Run:
    """What a reference run returns: online counts, the final hypothesis's
    decision values on test rows, the groups' sizes."""

    def __init__(self, n_mistakes, n_updates, decision, sizes, support):
        self.n_mistakes = n_mistakes
        self.n_updates = n_updates
        self.decision = decision
        self.sizes = sizes
        self.support = support


def _final(support, X_test, averaged, T, offsets, offsets_sum):
    if averaged:
        scores = support.decision(X_test, support.summed, 1.0 / T)
        return scores + np.asarray(offsets_sum) / T
    return support.decision(X_test) + np.asarray(offsets)


def _binary(scores):
    return scores[:, 0] if scores.shape[1] == 1 else scores


# ------------------------------------------------------------ Figure 2
def figure2(X, y, X_test, *, kernel, gamma, degree=3, coef0=1.0, eta=0.1,
            theta_init=0.0, threshold_step=0.0, margin=0.0, lam=0.0,
            alpha_bound=None, hypothesis="last", multiclass="ovr",
            n_epochs=1, budget=None, policy="random", random_state=0):
    """Khardon & Wachman's Figure 2 in dual form (rows in order), under a
    budget. θ = θ_Init - C Σ_j c_j is carried by the support vectors: each
    is ``[φ(x_j), √C]``, so a score is ``Σ_j c_j (k(x_j, x) + C) - θ_Init``.
    """
    classes, targets = _labels_of(y)
    K = len(classes)
    prototype = multiclass == "prototype"
    n_rows = K if (prototype or K > 2) else 1
    n_counters = 1 if prototype else n_rows
    averaged = hypothesis == "averaged"
    k = Kernel(kernel, degree, gamma, coef0, coord=np.sqrt(threshold_step))
    n_groups = 1 if prototype else n_rows
    S = Support(n_rows, k, policy if budget else None, budget, prototype,
                budget_seeds(random_state, n_groups), averaged=averaged)
    alpha = np.zeros((n_counters, X.shape[0]), dtype=np.int64)
    bound = np.inf if alpha_bound is None else alpha_bound
    n_mistakes = n_updates = T = 0
    for _ in range(n_epochs):
        for i in range(X.shape[0]):
            x, t = X[i], int(targets[i])
            scores = [S.score(r, x) - theta_init for r in range(n_rows)]
            o = best_other(scores, t) if prototype else None
            n_mistakes += online_mistake(scores, t, n_rows, o)
            for c in range(n_counters):
                if prototype:
                    m = scores[t] - scores[o]
                else:
                    yk = 1.0 if t == (1 if n_rows == 1 else c) else -1.0
                    m = yk * scores[c]
                if lam != 0.0 and alpha[c, i] != 0:
                    m += lam * k.raw(x, x)
                if m <= margin and alpha[c, i] < bound and S.admits(c, i):
                    if prototype:
                        S.add_pair(t, o, i, x, eta)
                    else:
                        S.add(c, i, x, eta * yk)
                    alpha[c, i] += 1
                    n_updates += 1
            S.settle()
            T += 1
            if averaged:
                S.accumulate()
    zero = [-theta_init] * n_rows
    scores = _final(S, X_test, averaged, T, zero, [T * z for z in zero])
    if prototype and K == 2:
        scores = scores[:, 1:] - scores[:, :1]
    return Run(n_mistakes, n_updates, _binary(scores), S.sizes(), S)


# ------------------------------------------------------------ PA
def passive_aggressive(X, y, X_test, *, kernel, gamma, degree=3, coef0=1.0,
                       variant="PA-I", C=1.0, fit_intercept=True,
                       hypothesis="last", multiclass="ovr", n_epochs=1,
                       budget=None, policy="random", random_state=0):
    """Crammer et al.'s Figure 1 (and its multi-prototype form) in kernel
    form, under a budget; the intercept b = Σ_j c_j is carried by the
    support vectors (each ``[φ(x_j), 1]``)."""
    classes, targets = _labels_of(y)
    K = len(classes)
    n_rows = 1 if K == 2 else K
    prototype = multiclass == "prototype" and n_rows > 1
    averaged = hypothesis == "averaged"
    k = Kernel(kernel, degree, gamma, coef0,
               coord=1.0 if fit_intercept else 0.0)
    n_groups = 1 if prototype else n_rows
    S = Support(n_rows, k, policy if budget else None, budget, prototype,
                budget_seeds(random_state, n_groups), averaged=averaged)
    n_mistakes = n_updates = T = 0
    for _ in range(n_epochs):
        for i in range(X.shape[0]):
            x, t = X[i], int(targets[i])
            scores = [S.score(r, x) for r in range(n_rows)]
            o = best_other(scores, t) if prototype else None
            n_mistakes += online_mistake(scores, t, n_rows, o)
            sq = k(x, x) * (2.0 if prototype else 1.0)
            if sq > 0.0:
                for c in range(1 if prototype else n_rows):
                    if prototype:
                        yk, loss = 1.0, 1.0 - (scores[t] - scores[o])
                    else:
                        yk = 1.0 if t == (1 if n_rows == 1 else c) else -1.0
                        loss = 1.0 - yk * scores[c]
                    if loss > LOSS_ROUNDING and S.admits(c, i):
                        if variant == "PA":
                            tau = loss / sq
                        elif variant == "PA-I":
                            tau = min(C, loss / sq)
                        else:
                            tau = loss / (sq + 0.5 / C)
                        if prototype:
                            S.add_pair(t, o, i, x, tau)
                        else:
                            S.add(c, i, x, tau * yk)
                        n_updates += 1
            S.settle()
            T += 1
            if averaged:
                S.accumulate()
    zero = [0.0] * n_rows
    scores = _final(S, X_test, averaged, T, zero, zero)
    return Run(n_mistakes, n_updates, _binary(scores), S.sizes(), S)


# ------------------------------------------------------------ Ballseptron
def ballseptron(X, y, X_test, *, kernel, gamma, degree=3, coef0=1.0,
                radius=0.1, hypothesis="last", n_epochs=1, budget=None,
                policy="random", random_state=0):
    """The Ballseptron's Figure 2 (two classes) or Sec. 4 (prototypes) in
    dual form, ‖w‖ computed exactly whenever it is needed, under a
    budget."""
    classes, targets = _labels_of(y)
    K = len(classes)
    multiclass = K > 2
    n_rows = K if multiclass else 1
    averaged = hypothesis == "averaged"
    k = Kernel(kernel, degree, gamma, coef0)
    S = Support(n_rows, k, policy if budget else None, budget, multiclass,
                budget_seeds(random_state, 1), averaged=averaged)

    def dot(r1, r2):
        vecs = S.vectors()
        return sum(S.c(r1, a) * S.c(r2, b) * k(a.x, b.x)
                   for a in vecs for b in vecs)

    n_mistakes = n_margin = T = 0
    for _ in range(n_epochs):
        for i in range(X.shape[0]):
            x, t = X[i], int(targets[i])
            scores = [S.score(r, x) for r in range(n_rows)]
            if not multiclass:
                yt = 1.0 if t == 1 else -1.0
                m = yt * scores[0]
                c = None
                if m <= 0.0:
                    n_mistakes += 1
                    c = 1.0
                elif radius > 0 and m <= radius * np.sqrt(dot(0, 0)):
                    n_margin += 1
                    c = 1.0 - radius / np.sqrt(dot(0, 0))
                if c is not None and S.admits(0, i):
                    if c != 1.0:
                        S.scale_coef(0, c)
                    S.add(0, i, x, yt)
            else:
                o = best_other(scores, t)
                gap = scores[t] - scores[o]
                if gap <= 0.0:
                    n_mistakes += 1
                    if S.admits(0, i):
                        S.add_pair(t, o, i, x, 1.0)
                elif radius > 0:
                    dsq = dot(o, o) + dot(t, t) - 2.0 * dot(t, o)
                    if dsq > 0 and gap <= radius * np.sqrt(dsq):
                        n_margin += 1
                        if S.admits(0, i):
                            # w^y += r δ/‖δ‖, w^o -= r δ/‖δ‖, δ = w^o - w^y.
                            cr = radius / np.sqrt(dsq)
                            moved = {}
                            for v in S.vectors():
                                delta = S.c(o, v) - S.c(t, v)
                                moved[id(v)] = (S.c(t, v) + cr * delta,
                                                S.c(o, v) - cr * delta)
                            for key, (ct, co) in moved.items():
                                S.coef[t][key] = ct
                                S.coef[o][key] = co
                            S.add_pair(t, o, i, x, 1.0)
            S.settle()
            T += 1
            if averaged:
                S.accumulate()
    zero = [0.0] * n_rows
    scores = _final(S, X_test, averaged, T, zero, zero)
    return Run(n_mistakes, n_mistakes + n_margin, _binary(scores),
               S.sizes(), S)


# ------------------------------------------------------------ ALMA_2
def alma2(X, y, X_test, *, kernel, gamma, degree=3, coef0=1.0, alpha=0.9,
          B=None, C=np.sqrt(2.0), rho=1.0, hypothesis="last", n_epochs=1,
          budget=None, policy="random", random_state=0):
    """Gentile's ALMA_2 in kernel form on the normalised instances
    ``x̂ = [φ(x), ρ]/n``, ``n = sqrt(k(x, x) + ρ²)``: w = Σ_j c_j x̂_j
    (its bias coordinate Σ_j c_j ρ/n_j), under a budget."""
    classes, targets = _labels_of(y)
    K = len(classes)
    n_rows = 1 if K == 2 else K
    averaged = hypothesis == "averaged"
    B = 1.0 / alpha if B is None else B
    k = Kernel(kernel, degree, gamma, coef0, rho=rho)
    S = Support(n_rows, k, policy if budget else None, budget, False,
                budget_seeds(random_state, n_rows), averaged=averaged)
    corrections = [0] * n_rows

    def wsq(r):
        vecs = S.groups[r]
        return sum(S.c(r, a) * S.c(r, v) * k(a.x, v.x)
                   for a in vecs for v in vecs)

    n_mistakes = n_updates = T = 0
    for _ in range(n_epochs):
        for i in range(X.shape[0]):
            x, t = X[i], int(targets[i])
            if k.norm(x) > 0:
                for r in range(n_rows):
                    yr = 1.0 if t == (1 if n_rows == 1 else r) else -1.0
                    m = yr * S.score(r, x)
                    if m <= 0.0:
                        n_mistakes += 1
                    kk = corrections[r] + 1
                    threshold = (1 - alpha) * B / np.sqrt(kk)
                    eta = C / np.sqrt(kk)
                    if m <= threshold and S.admits(r, i):
                        S.add(r, i, x, eta * yr)
                        norm = np.sqrt(wsq(r))
                        if norm > 1.0:
                            S.scale_coef(r, 1.0 / norm)
                        corrections[r] += 1
                        n_updates += 1
                        S.settle()
            T += 1
            if averaged:
                S.accumulate()
    # The estimator's decision: Σ_j (c_j/n_j) k(x_j, x) + intercept, the
    # intercept b ρ = Σ_j c_j ρ²/n_j.
    table = S.summed if averaged else S.coef
    scale = 1.0 / T if averaged else 1.0
    out = np.zeros((X_test.shape[0], n_rows))
    vecs = S.vectors()
    for n, x in enumerate(X_test):
        for r in range(n_rows):
            out[n, r] = scale * sum(
                table[r].get(id(v), 0.0) / k.norm(v.x)
                * (k.raw(v.x, x) + rho ** 2) for v in vecs)
    return Run(n_mistakes, n_updates, _binary(out), S.sizes(), S)


# ------------------------------------------------------------ Projectron
def projectron(X, y, X_test, *, kernel, gamma, degree=3, coef0=1.0,
               eta=0.1, plus=False, hypothesis="last", n_epochs=1,
               reading="paper"):
    """Orabona, Keshet & Caputo's Projectron (Projectron++ with ``plus``),
    one problem per class (one for two classes), every projection solved
    afresh. ``reading="dogma"``: η against δ² (DOGMA's
    ``k_projectron_train.m``, ``k_projectron2_train.m``), not δ."""
    classes, targets = _labels_of(y)
    K = len(classes)
    n_rows = 1 if K == 2 else K
    averaged = hypothesis == "averaged"
    k = Kernel(kernel, degree, gamma, coef0)
    S = Support(n_rows, k, "projectron", None, False, [1] * n_rows,
                threshold=eta, averaged=averaged, reading=reading)
    n_mistakes = n_updates = T = 0
    for _ in range(n_epochs):
        for i in range(X.shape[0]):
            x, t = X[i], int(targets[i])
            scores = [S.score(r, x) for r in range(n_rows)]
            n_mistakes += online_mistake(scores, t, n_rows)
            for r in range(n_rows):
                yr = 1.0 if t == (1 if n_rows == 1 else r) else -1.0
                m = yr * scores[r]
                if m <= 0.0:
                    S.add(r, i, x, yr)
                    n_updates += 1
                elif plus and m < 1.0 and eta > 0 and S.groups[r]:
                    members = S.groups[r]
                    Kg = S.gram(members)
                    kt = np.array([k(v.x, x) for v in members])
                    d = np.linalg.solve(Kg, kt)
                    ktt = k(x, x)
                    dsq = max(ktt - kt @ d, 0.0)
                    loss = 1.0 - m
                    delta = dsq if reading == "dogma" else np.sqrt(dsq)
                    gain = loss - delta / eta
                    proj = ktt - dsq
                    if gain > 0 and proj > 0:
                        tau = min(loss / proj, 1.0, 2.0 * gain / proj)
                        for v, dq in zip(members, d):
                            S.coef[r][id(v)] = S.c(r, v) + tau * yr * dq
                        n_updates += 1
            S.settle()
            T += 1
            if averaged:
                S.accumulate()
    zero = [0.0] * n_rows
    scores = _final(S, X_test, averaged, T, zero, zero)
    return Run(n_mistakes, n_updates, _binary(scores), S.sizes(), S)
