"""Errors raised by :meth:`zut_ext.Extension.run`."""


class SdkError(Exception):
    """The connection with zut failed (handshake, I/O or framing)."""


class LineTooLong(SdkError):
    """A host line exceeded the 4 MiB frame limit."""


class NotConnected(SdkError):
    """A frame was sent before :meth:`Extension.run` connected, or after it returned."""
