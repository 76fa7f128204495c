"""DLPack export without a compiler: the structures of dmlc/dlpack's
``dlpack.h`` in ctypes, capsules made with ``PyCapsule_New``, and the
deleters as ctypes callbacks.

Ownership: every capsule made here carries one reference of an *owner*
(:class:`DLPackOwner`). The owner hears :meth:`DLPackOwner.dlpack_done`
exactly once per capsule: from the DLPack deleter when a consumer (numpy,
torch, cupy) frees its tensor, or from the capsule's destructor when the
capsule was never consumed. The deleter may run on any thread (torch frees
tensors where it likes); owners must only queue work there.
"""
from __future__ import annotations

import ctypes
import sys
import threading
from typing import Dict, Optional, Protocol, Tuple

__all__ = [
    "DLDevice", "DLDataType", "DLTensor", "DLManagedTensor",
    "DLPackVersion", "DLManagedTensorVersioned", "kDLCPU", "kDLCUDA",
    "kDLUInt", "DLPACK_VERSION", "FLAG_READ_ONLY", "FLAG_IS_COPIED",
    "DLPackOwner", "make_capsule", "outstanding",
]

kDLCPU = 1
kDLCUDA = 2
kDLUInt = 1

#: The DLPack version this producer implements (the versioned struct).
DLPACK_VERSION: Tuple[int, int] = (1, 0)

FLAG_READ_ONLY = 1 << 0
FLAG_IS_COPIED = 1 << 1

CAPSULE_NAME = b"dltensor"
CAPSULE_NAME_VERSIONED = b"dltensor_versioned"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    """The unversioned struct ("dltensor" capsule; DLPack < 1.0)."""
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),   # void (*)(DLManagedTensor *)
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    """The versioned struct ("dltensor_versioned" capsule; DLPack >= 1.0)."""
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),   # void (*)(DLManagedTensorVersioned *)
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


class _Export(ctypes.Structure):
    """One allocation per capsule: the managed tensor, then shape and
    strides (1-D), so that everything the consumer reads lives as long as
    this object (kept in the registry until the deleter runs)."""
    _fields_ = [
        ("u", DLManagedTensor),
        ("v", DLManagedTensorVersioned),
        ("shape", ctypes.c_int64),
        ("strides", ctypes.c_int64),
    ]


class DLPackOwner(Protocol):
    def dlpack_done(self) -> None:
        """One capsule of this owner is gone (any thread; queue work only)."""


class _Entry:
    __slots__ = ("mem", "owner", "keep")

    def __init__(self, mem: _Export, owner: Optional[DLPackOwner],
                 keep: object) -> None:
        self.mem = mem
        self.owner = owner
        self.keep = keep


# Struct address -> entry; an entry leaves exactly once (pop under the lock).
_registry: Dict[int, _Entry] = {}
_lock = threading.Lock()


def outstanding() -> int:
    """Capsules made and not yet deleted (consumed or not)."""
    with _lock:
        return len(_registry)


def _finish(addr: int) -> None:
    with _lock:
        e = _registry.pop(addr, None)
    if e is not None and e.owner is not None:
        e.owner.dlpack_done()


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _deleter_py(ptr: Optional[int]) -> None:
    if ptr is None or sys is None:
        return
    try:
        _finish(ptr)
    except Exception:   # never propagate into the consumer's C code
        pass


# Both struct kinds start their address at the struct, which is what the
# registry keys on; one callback serves both (the deleter is given the
# struct's own address).
_deleter = _DELETER(_deleter_py)

_PyCapsule_IsValid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                       ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_PyCapsule_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p,
                                          ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


def _destructor_py(cap: Optional[int]) -> None:
    """Capsule destructor: a capsule still named "dltensor[_versioned]" was
    never consumed, so its deleter is ours to call. A consumed capsule is
    renamed "used_dltensor[_versioned]" and left alone (its consumer calls
    the deleter)."""
    if cap is None or sys is None:
        return
    try:
        for name in (CAPSULE_NAME, CAPSULE_NAME_VERSIONED):
            if _PyCapsule_IsValid(cap, name):
                p = _PyCapsule_GetPointer(cap, name)
                if p:
                    _finish(p)
                return
    except Exception:
        pass


_destructor = _DESTRUCTOR(_destructor_py)

_PyCapsule_New = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p,
                                   ctypes.c_void_p, _DESTRUCTOR)(
    ("PyCapsule_New", ctypes.pythonapi))

# A capsule keeps a pointer to its name: names in buffers that are never
# freed (a bytes constant would go with the module at shutdown).
_NAME_BUF = ctypes.create_string_buffer(CAPSULE_NAME)
_NAME_BUF_VERSIONED = ctypes.create_string_buffer(CAPSULE_NAME_VERSIONED)

# The callbacks must outlive every tensor, also those freed while the
# interpreter shuts down (module globals are cleared then): one reference
# each that is never given back.
for _cb in (_deleter, _destructor, _NAME_BUF, _NAME_BUF_VERSIONED):
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(_cb))
_DELETER_ADDR = ctypes.cast(_deleter, ctypes.c_void_p).value


def make_capsule(data: int, nbytes: int, device: Tuple[int, int],
                 owner: Optional[DLPackOwner], *, versioned: bool = False,
                 read_only: bool = True, copied: bool = False,
                 keep: object = None) -> object:
    """A capsule of a 1-D uint8 tensor of @p nbytes bytes at address @p data.

    :param data: device (kDLCUDA) or CPU (kDLCPU) address of byte 0; the
        capsule's ``byte_offset`` is 0 (what torch and numpy honour alike).
    :param device: (device_type, device_id), e.g. ``(kDLCPU, 0)``.
    :param owner: told :meth:`DLPackOwner.dlpack_done` once when the capsule
        or its tensor is gone; None: nobody to tell.
    :param versioned: a ``DLManagedTensorVersioned`` ("dltensor_versioned",
        version :data:`DLPACK_VERSION`) instead of a ``DLManagedTensor``.
    :param read_only: sets ``DLPACK_FLAG_BITMASK_READ_ONLY`` (versioned only:
        the unversioned struct has no flags).
    :param copied: sets ``DLPACK_FLAG_BITMASK_IS_COPIED`` (versioned only).
    :param keep: an object kept alive until the deleter (a copy's buffer).
    """
    mem = _Export()
    mem.shape = nbytes
    mem.strides = 1
    base = ctypes.addressof(mem)
    shape_p = ctypes.cast(base + _Export.shape.offset,
                          ctypes.POINTER(ctypes.c_int64))
    strides_p = ctypes.cast(base + _Export.strides.offset,
                            ctypes.POINTER(ctypes.c_int64))
    if versioned:
        mt = mem.v
        mt.version.major, mt.version.minor = DLPACK_VERSION
        mt.flags = ((FLAG_READ_ONLY if read_only else 0) |
                    (FLAG_IS_COPIED if copied else 0))
        addr = base + _Export.v.offset
        name = ctypes.addressof(_NAME_BUF_VERSIONED)
    else:
        mt = mem.u
        addr = base + _Export.u.offset
        name = ctypes.addressof(_NAME_BUF)
    t = mt.dl_tensor
    t.data = data
    t.device.device_type, t.device.device_id = device
    t.ndim = 1
    t.dtype.code, t.dtype.bits, t.dtype.lanes = kDLUInt, 8, 1
    t.shape = shape_p
    t.strides = strides_p
    t.byte_offset = 0
    mt.manager_ctx = addr
    mt.deleter = _DELETER_ADDR
    with _lock:
        _registry[addr] = _Entry(mem, owner, keep)
    try:
        return _PyCapsule_New(addr, name, _destructor)
    except BaseException:
        with _lock:
            _registry.pop(addr, None)
        raise
