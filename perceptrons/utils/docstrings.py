"""Docstring fragments written once and shared by several classes."""

__all__ = ["with_doc_fragments"]


def with_doc_fragments(fragments):
    """A class decorator that writes shared text into the docstring.

    Parameters
    ----------
    fragments : dict
        Each marker (an exact line or line start of the docstring, e.g.
        ``"    %(attributes)s\\n"``) and the text that replaces it.

    Returns
    -------
    callable
        The decorator.
    """
    def decorate(cls):
        doc = cls.__doc__
        for marker, text in fragments.items():
            doc = doc.replace(marker, text)
        cls.__doc__ = doc
        return cls

    return decorate
