"""The test suite: a package, so that tests import ``tests.reference`` and
``tests._pairwise`` by name (no ``sys.path`` edits)."""
