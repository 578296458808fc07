//! zut extension host.
