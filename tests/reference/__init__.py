"""Slow, line-by-line transcriptions of the papers' pseudo-code (test oracles).

One API: every algorithm module exposes ``fit(X, y, **params) -> state``, with
the estimator's public parameter names (and defaults), the rows presented in
their given order (the estimator's ``shuffle=False``), and ``state`` a small
documented dataclass of what the tests compare:

=====================  =======================  ============================
module                 estimators               state
=====================  =======================  ============================
``khardon_wachman``    ``Perceptron``,          ``Figure2State``
                       ``KernelPerceptron``
``ballseptron``        ``Ballseptron``          ``BallseptronState``
``pdm``                ``PDM``, ``PFM``         ``MarginState``
``romma``              ``ROMMA``                ``pdm.MarginState``
``higher_order``       ``HigherOrderPerceptron`` ``OvRResult``
``second_order``       ``SecondOrderPerceptron`` ``higher_order.OvRResult``
``parameter_mixing``   ``ParameterMixing``      ``MixingState``
=====================  =======================  ============================

``streams`` generates the random streams the agreement tests run on and
``kernels`` the Gram matrices of the dual forms. Nothing here imports
``perceptrons``. The lower-level pieces (one binary run, one step, the
brute-force dual loops) stay public for tests that need them.
"""
