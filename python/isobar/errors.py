"""Exceptions raised by isobar: one per C status code, each also a standard Python exception
so that ordinary `except ValueError` / `except OSError` code catches them."""


class IsobarError(Exception):
    """A failed isobar call; `status` is the C status name (e.g. "ISO_ERR_INVALID")."""

    def __init__(self, message, status="ISO_ERR"):
        super().__init__(message)
        self.status = status


class InvalidArgumentError(IsobarError, ValueError):
    """An argument or model value out of range, non-finite, or of the wrong shape or dtype."""


class NotFoundError(IsobarError, LookupError):
    """A name or index that does not exist."""


class StateError(IsobarError, RuntimeError):
    """An object not in a state that allows the call."""


class BackendError(IsobarError, RuntimeError):
    """The backend asked for is not available, or a CUDA call failed."""


class FileError(IsobarError, OSError):
    """A file could not be read or written."""


class ParseError(IsobarError, ValueError):
    """A malformed file (the message names file and line)."""


class CapacityError(IsobarError, RuntimeError):
    """A fixed capacity is too small."""


class UnsupportedError(IsobarError, NotImplementedError):
    """A feature isobar does not support (the message names it)."""


_BY_STATUS = {
    1: ("ISO_ERR_NULL", InvalidArgumentError),
    2: ("ISO_ERR_INVALID", InvalidArgumentError),
    3: ("ISO_ERR_STATE", StateError),
    4: ("ISO_ERR_NOMEM", MemoryError),
    5: ("ISO_ERR_BACKEND", BackendError),
    6: ("ISO_ERR_CUDA", BackendError),
    7: ("ISO_ERR_NOT_FOUND", NotFoundError),
    8: ("ISO_ERR_IO", FileError),
    9: ("ISO_ERR_PARSE", ParseError),
    10: ("ISO_ERR_CAPACITY", CapacityError),
    11: ("ISO_ERR_UNSUPPORTED", UnsupportedError),
}


def from_status(status, message):
    """The exception for C status code `status` carrying `message`."""
    name, cls = _BY_STATUS.get(status, (f"status {status}", IsobarError))
    if cls is MemoryError:
        return MemoryError(message)
    return cls(message, name)
