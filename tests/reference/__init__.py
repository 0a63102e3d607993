"""Slow, line-by-line transcriptions of the papers' pseudo-code (test oracles).

One API: every algorithm module exposes ``fit(X, y, **params) -> state``, with
the estimator's public parameter names (and defaults), the rows presented in
their given order (the estimator's ``shuffle=False``), and ``state`` a small
documented dataclass of what the tests compare, under the estimator's
attribute names without the trailing underscore:

* ``khardon_wachman.fit`` (``Perceptron``, ``KernelPerceptron``; a ``kernel``
  selects the dual form) -> ``Figure2State``;
* ``ballseptron.fit`` (``Ballseptron``, primal or ``kernel``) ->
  ``BallseptronState``;
* ``pdm.fit`` (``PDM`` with ``epsilon``, ``PFM`` with ``beta``) and
  ``romma.fit`` (``ROMMA``) -> ``pdm.MarginState``;
* ``higher_order.fit`` (``HigherOrderPerceptron``) and ``second_order.fit``
  (``SecondOrderPerceptron``), which also take the presentation ``orders``
  and the ``X_test`` a kernel run scores -> ``higher_order.OvRResult``;
* ``parameter_mixing.fit`` (``ParameterMixing`` of a binary ``Perceptron``)
  -> ``MixingState``.

``streams`` generates the random streams the agreement tests run on and
``kernels`` the Gram matrices of the dual forms. Nothing here imports
``perceptrons``. The lower-level pieces (one binary run, one step, the
brute-force dual loops) stay public for tests that need them.
"""
