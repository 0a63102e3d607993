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


def field_key(header, *path):
    """The member key of a state field (``field_key(h, "weights",
    "current")`` is ``state_.weights.current``'s)."""
    node = header["state"]
    for name in path:
        node = node["fields"][name]
    return node["key"]


def resized(src, dst, shapes, dtypes=None):
    """Copy a model zip, deflated, with members given new shapes (and
    dtypes): each ``key`` of ``shapes`` declared so in the manifest and
    its ``.npy`` header, its data zeros, written 16 MiB at a time (so a
    member of any size costs no more memory to craft)."""
    import numpy as np

    dtypes = dtypes or {}
    with zipfile.ZipFile(src) as zin:
        header = json.loads(zin.read("header.json"))
        for key, shape in shapes.items():
            entry = header["arrays"][key]
            entry["shape"] = list(shape)
            entry["dtype"] = dtypes.get(key, entry["dtype"])
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
            for name in zin.namelist():
                key = name[:-4]
                if name == "header.json":
                    zout.writestr(name, json.dumps(header))
                elif key not in shapes:
                    zout.writestr(name, zin.read(name))
            for key, shape in shapes.items():
                dtype = np.dtype(header["arrays"][key]["dtype"])
                with zout.open(f"{key}.npy", "w") as fh:
                    np.lib.format.write_array_header_1_0(fh, {
                        "descr": dtype.str, "fortran_order": False,
                        "shape": tuple(shape)})
                    left = dtype.itemsize * int(np.prod(shape))
                    zeros = bytes(min(left, 2**24))
                    while left:
                        fh.write(zeros[:min(left, len(zeros))])
                        left -= min(left, len(zeros))
    return dst
