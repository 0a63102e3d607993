"""The zip layer of a model file: the archive's directory checked before
anything is decompressed, each array member read only once its ``.npy``
header matches the header's manifest, and the archive written (see
:mod:`perceptrons.persistence` for what is checked and why).
"""

import io
import math
import os
import re
import zipfile
import zlib

import numpy as np

from ..utils.output import atomic_write

# An array member may exceed its declared data by its .npy header only.
_NPY_HEADER_SLACK = 1 << 16
# Bytes of a member's data read at a time.
_READ_BYTES = 1 << 23
# The members a model file holds: its header and a<N>.npy arrays.
_ARRAY_MEMBER = re.compile(r"a[0-9]{1,9}\.npy")
# General-purpose flag bits of an encrypted member (traditional PKWARE,
# strong encryption).
_ENCRYPTED_FLAGS = 0x1 | 0x40
# Smallest local file header: 30 bytes before the name.
_LOCAL_HEADER = 30

_HEADER = "header.json"


def _fail(path, why):
    return ValueError(f"{os.fspath(path)!s} is not a valid perceptrons model "
                      f"file: {why}")


# What reading a hostile archive may raise besides our own ValueErrors.
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError,
               RuntimeError, NotImplementedError, zlib.error,
               UnicodeDecodeError, ValueError, OverflowError)


def _zip_error(exc):
    """Why a zip archive could not be read, in a phrase."""
    if isinstance(exc, zlib.error):
        return f"corrupt compressed data ({exc})"
    if isinstance(exc, UnicodeDecodeError):
        # zipfile decodes member names; flipped bytes there land here.
        return f"corrupt zip directory ({exc})"
    return f"not a readable zip archive ({exc})"


class _Archive:
    """An open model file: the zip directory checked, the header parsed.

    Parameters
    ----------
    path : Path
    parse_header : callable
        ``parse_header(zf, path)``: the checked header.
    max_bytes, max_ratio : int
        The limits of :func:`_check_directory`.

    Attributes
    ----------
    zf : zipfile.ZipFile
    header : dict
    size : int
        Bytes of the file.
    """

    def __init__(self, path, parse_header, max_bytes, max_ratio):
        self.path = path
        self._fh = open(path, "rb")
        try:
            self.size = os.fstat(self._fh.fileno()).st_size
            try:
                self.zf = zipfile.ZipFile(self._fh)
            except _ZIP_ERRORS as exc:
                raise _fail(path, _zip_error(exc)) from exc
            _check_directory(self.zf, path, self.size, max_bytes, max_ratio)
            self.header = parse_header(self.zf, path)
        except BaseException:
            self._fh.close()
            raise

    def close(self):
        self._fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _check_directory(zf, path, size, max_bytes, max_ratio):
    """Refuse, from the zip directory alone, an archive that is not laid out
    as :func:`~perceptrons.persistence.save_model` writes one, before
    anything is decompressed.

    Every member must be ``header.json`` or ``a<N>.npy`` (so no path
    separator, no ``..``), named once, neither encrypted nor compressed
    otherwise than stored or deflated, within the file and overlapping no
    other; its declared size at most ``max_ratio`` times its compressed size
    (:data:`~perceptrons.persistence.MAX_COMPRESSION_RATIO`); all of them
    together at most ``max_bytes``
    (:data:`~perceptrons.persistence.MAX_MODEL_BYTES`).
    """
    infos = zf.infolist()
    if _HEADER not in {info.filename for info in infos}:
        raise _fail(path, "no header.json member (a plain .npz or another "
                          "zip archive, not written by "
                          "perceptrons.persistence.save_model)")
    seen, spans, total = set(), [], 0
    for info in infos:
        name = info.orig_filename
        if name != _HEADER and not _ARRAY_MEMBER.fullmatch(name):
            raise _fail(path, f"member {name!r:.80} is not one a model file "
                              "holds (header.json and a<N>.npy only: no "
                              "directories, no path separators, no '..')")
        if name in seen:
            raise _fail(path, f"two members are named {name!r}; a model "
                              "file names each member once")
        seen.add(name)
        if info.flag_bits & _ENCRYPTED_FLAGS:
            raise _fail(path, f"member {name} is encrypted; model files "
                              "never are")
        if info.compress_type not in (zipfile.ZIP_STORED,
                                      zipfile.ZIP_DEFLATED):
            raise _fail(path, f"member {name} uses zip compression method "
                              f"{info.compress_type}; model files are "
                              "stored or deflated")
        if (info.compress_type == zipfile.ZIP_STORED
                and info.compress_size != info.file_size):
            raise _fail(path, f"member {name} is stored uncompressed but "
                              f"declares {info.file_size} bytes in "
                              f"{info.compress_size}")
        if info.file_size > max_ratio * max(info.compress_size, 1):
            raise _fail(path, f"member {name} declares {info.file_size} "
                              f"bytes compressed into {info.compress_size}, "
                              f"more than {max_ratio}:1 (a zip bomb, or a "
                              "damaged directory)")
        start = info.header_offset
        end = start + _LOCAL_HEADER + len(name) + info.compress_size
        if start < 0 or end > size:
            raise _fail(path, f"member {name} lies past the end of the file "
                              "(truncated or damaged)")
        spans.append((start, end, name))
        total += info.file_size
    spans.sort()
    for (_, end, name), (start, _, other) in zip(spans, spans[1:]):
        if end > start:
            raise _fail(path, f"members {name} and {other} overlap; model "
                              "files never share bytes between members")
    if total > max_bytes:
        raise _fail(path, f"its members declare {total} bytes, over the "
                          f"limit of {max_bytes} "
                          "(perceptrons.persistence.MAX_MODEL_BYTES); if you "
                          "trust the file, raise the limit with the "
                          "environment variable PERCEPTRONS_MAX_MODEL_BYTES")


def _check_manifest(zf, manifest):
    """The header's array manifest, checked against the archive's members:
    one ``<key>.npy`` member per entry and no other, each of the size its
    entry declares (plus a .npy header). Nothing is decompressed.

    Returns
    -------
    dict of str to (dtype, shape)
    """
    if not isinstance(manifest, dict):
        raise ValueError("header lacks params/attributes/arrays")
    members = {info.filename: info for info in zf.infolist()}
    out = {}
    for key, spec in manifest.items():
        dtype, shape, nbytes = _manifest_entry(spec, key)
        info = members.get(f"{key}.npy")
        if info is None:
            raise ValueError(f"array member {key!s:.40}.npy is missing")
        if info.file_size > nbytes + _NPY_HEADER_SLACK:
            raise ValueError(f"array member {key}.npy holds "
                             f"{info.file_size} bytes, more than its "
                             "manifest entry declares")
        if info.file_size <= nbytes:
            raise ValueError(f"array member {key}.npy holds "
                             f"{info.file_size} bytes, fewer than its "
                             f"manifest entry declares ({nbytes} of data)")
        out[key] = dtype, shape
    extra = sorted(set(members) - {_HEADER} - {f"{k}.npy" for k in out})
    if extra:
        raise ValueError(f"member {extra[0]} is not in the header's "
                         "manifest")
    return out


def _read_npy(zf, name, dtype, shape):
    """The array of a member, its .npy header checked against the manifest
    before its data is allocated (exactly its declared bytes, read in
    place)."""
    with zf.open(name) as fh:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            got = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            got = np.lib.format.read_array_header_2_0(fh)
        else:
            raise ValueError(f"member {name} is in .npy format version "
                             f"{version}, not one numpy writes for it")
        got_shape, fortran, got_dtype = got
        if got_dtype != dtype or tuple(got_shape) != shape:
            raise ValueError(
                f"array {name[:-4]} has dtype {got_dtype.str} and shape "
                f"{list(got_shape)}, the manifest says {dtype.str} and "
                f"{list(shape)}")
        buf = np.empty(dtype.itemsize * math.prod(shape), dtype=np.uint8)
        view, got_bytes = memoryview(buf), 0
        while got_bytes < len(view):
            # A zip member's readinto reads a bytes object of the length
            # asked and copies it: asked in slices, it costs a slice more,
            # not the member twice.
            n = fh.readinto(view[got_bytes:got_bytes + _READ_BYTES])
            if not n:
                raise ValueError(f"member {name} is truncated")
            got_bytes += n
        if fh.read(1):  # also reaches the end: the CRC is checked
            raise ValueError(f"member {name} holds more than its array")
    return buf.view(dtype).reshape(shape, order="F" if fortran else "C")


def _manifest_entry(spec, key):
    """``(dtype, shape, nbytes)`` of a manifest entry; ValueError if
    malformed (an object, void or zero-size dtype is never saved)."""
    shape = spec.get("shape") if isinstance(spec, dict) else None
    if not (isinstance(shape, list)
            and all(type(n) is int and n >= 0 for n in shape)):
        raise ValueError(f"array {key}: bad manifest shape {shape!r:.80}")
    text = spec.get("dtype")
    try:
        dtype = np.dtype(text) if type(text) is str else None
    except (TypeError, ValueError, SyntaxError):
        dtype = None
    if dtype is None or dtype.hasobject:
        raise ValueError(f"array {key}: manifest dtype {text!r:.40} is not "
                         "one a model file holds (object arrays are never "
                         "loaded)")
    if dtype.kind not in "biufcSU" or dtype.shape or not dtype.itemsize:
        raise ValueError(f"array {key}: manifest dtype {text!r:.40} is not "
                         "one a model file holds")
    return dtype, tuple(shape), dtype.itemsize * math.prod(shape)


def _write_zip(path, header, arrays):
    """The model archive, written to a temporary name and renamed; an
    OSError names ``path``, never the temporary name."""
    with atomic_write(path, "wb", what="model file") as fh, zipfile.ZipFile(
            fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(_HEADER, header)
        for key, arr in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, arr, allow_pickle=False)
            zf.writestr(f"{key}.npy", buf.getvalue())


