"""Crafting hostile model files: the zip directory edited in place.

Shared by the zip-layer tests (tests/test_persistence_zip.py) and the file
fuzz suite (tests/fuzz/test_fuzz_files.py).
"""

import json
import struct
import zipfile

_CENTRAL = b"PK\x01\x02"
# Offsets in a central directory record (APPNOTE 4.3.12).
FIELDS = {"flags": (8, "<H"), "method": (10, "<H"), "crc": (16, "<I"),
          "compress_size": (20, "<I"), "file_size": (24, "<I"),
          "offset": (42, "<I")}


def central_records(raw):
    """``{name: position}`` of the central directory records of ``raw``
    (as far as it holds whole ones)."""
    out, at = {}, raw.find(_CENTRAL)
    while 0 <= at <= len(raw) - 46:  # a whole record's fixed part
        n = struct.unpack_from("<H", raw, at + 28)[0]
        out[bytes(raw[at + 46:at + 46 + n]).decode("cp437")] = at
        at = raw.find(_CENTRAL, at + 46 + n)
    return out


def patch(raw, name, **fields):
    """``raw`` with fields of ``name``'s central directory record set."""
    raw = bytearray(raw)
    at = central_records(raw)[name]
    for field, value in fields.items():
        offset, fmt = FIELDS[field]
        struct.pack_into(fmt, raw, at + offset, value)
    return bytes(raw)


def rewrite(src, dst, header=None, drop=(), add=(), replace=None,
            compression=zipfile.ZIP_STORED):
    """Copy a model zip, editing its header, dropping, adding
    (``(name, bytes)`` pairs, duplicates allowed) or replacing members."""
    import warnings

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(
            dst, "w", compression=compression) as zout:
        for name in zin.namelist():
            if name in drop:
                continue
            data = zin.read(name)
            if name == "header.json" and header is not None:
                h = json.loads(data)
                header(h)
                data = json.dumps(h).encode()
            if replace and name in replace:
                data = replace[name]
            zout.writestr(name, data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Duplicate name"
            for name, data in add:
                zout.writestr(name, data)
    return dst


def array_members(path):
    with zipfile.ZipFile(path) as zf:
        return [n for n in zf.namelist() if n.endswith(".npy")]
