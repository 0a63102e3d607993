"""Randomness is resolved here, in Python, so compiled loops stay deterministic."""

from sklearn.utils import check_random_state


def epoch_orders(random_state, n_samples, n_epochs, shuffle):
    """Yield the order of the rows for each epoch.

    Parameters
    ----------
    random_state : None, int or numpy.random.RandomState
    n_samples, n_epochs : int
    shuffle : bool
        If False every epoch presents the rows in their given order.

    Yields
    ------
    ndarray of shape (n_samples,), int64
    """
    import numpy as np

    rng = check_random_state(random_state) if shuffle else None
    identity = np.arange(n_samples, dtype=np.int64)
    for _ in range(n_epochs):
        if shuffle:
            yield rng.permutation(n_samples).astype(np.int64, copy=False)
        else:
            yield identity
