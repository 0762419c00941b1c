"""No network from a process that runs other people's SPARQL: a seccomp filter.

Oxigraph has an HTTP client: ``SERVICE <url>`` in a query and ``LOAD <url>`` in
an update make it connect wherever the URL says. memkg's endpoint refuses both
by reading the request's text, but a reading of SPARQL that is not Oxigraph's own
can disagree with it (a ``<`` read as an IRI by one and as "less than" by the
other). So the decision does not rest on reading: every process that evaluates
a token holder's SPARQL (the endpoint's workers) first installs a seccomp-BPF
filter with :func:`install`, and from then on the kernel refuses it any socket
that is not a Unix one (``socket()`` fails with EACCES). Whatever the text says,
no connection leaves the process.

The filter, in classic BPF, for x86_64 and aarch64 (the architectures checked):

* a system call of another architecture (x86_64's x32 and i386 entry points
  included) fails with EPERM;
* ``socket(domain, …)`` with ``domain != AF_UNIX`` fails with EACCES
  (the pipe to the server is a Unix socket pair, made before the filter);
* ``io_uring_setup`` fails with EPERM (io_uring can open sockets without ``socket()``);
* everything else is allowed.

``PR_SET_NO_NEW_PRIVS`` comes first (the kernel requires it of an unprivileged
filter), and the filter is applied to every thread of the process
(``SECCOMP_FILTER_FLAG_TSYNC``); children inherit it. It cannot be removed.

>>> isinstance(supported(), bool)
True
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import socket
import struct
import sys


class SandboxUnavailable(OSError):
    """The filter cannot be installed here (not Linux, another architecture, seccomp off)."""


# <linux/audit.h>, <asm/unistd.h>
_ARCHES = {
    # machine: (AUDIT_ARCH_*, __NR_socket, __NR_io_uring_setup, __NR_seccomp, x32 bit or 0)
    "x86_64": (0xC000003E, 41, 425, 317, 0x40000000),
    "aarch64": (0xC00000B7, 198, 425, 277, 0),
}
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
# BPF opcodes
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
# offsets in struct seccomp_data: nr, arch, instruction_pointer, args[6]
_NR, _ARCH, _ARG0 = 0, 4, 16


def _machine() -> str:
    return platform.machine().lower().replace("arm64", "aarch64").replace("amd64", "x86_64")


def supported() -> bool:
    """Whether :func:`install` can work here: Linux, x86_64 or aarch64, a little-endian CPU."""
    return sys.platform.startswith("linux") and _machine() in _ARCHES and sys.byteorder == "little"


def _program() -> bytes:
    arch, nr_socket, nr_io_uring, _, x32 = _ARCHES[_machine()]
    deny = _SECCOMP_RET_ERRNO | errno.EPERM
    code: list[tuple[int, int, int, int]] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 1, 0, arch),
        (_RET_K, 0, 0, deny),
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if x32:
        code += [(_JGE_K, 0, 1, x32), (_RET_K, 0, 0, deny)]
    code += [
        (_JEQ_K, 0, 1, nr_io_uring),
        (_RET_K, 0, 0, deny),
        (_JEQ_K, 1, 0, nr_socket),
        (_RET_K, 0, 0, _SECCOMP_RET_ALLOW),
        (_LD_W_ABS, 0, 0, _ARG0),  # the low 32 bits of the domain (little-endian)
        (_JEQ_K, 0, 1, socket.AF_UNIX),
        (_RET_K, 0, 0, _SECCOMP_RET_ALLOW),
        (_RET_K, 0, 0, _SECCOMP_RET_ERRNO | errno.EACCES),
    ]
    return b"".join(struct.pack("=HBBI", op, jt, jf, k) for op, jt, jf, k in code)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_installed = False


def install() -> None:
    """Forbid this process (every thread, every child) any socket but a Unix one; for good.

    Raises :class:`SandboxUnavailable` when it cannot: the caller must then not run
    untrusted SPARQL.
    """
    global _installed
    if _installed:
        return
    if not supported():
        raise SandboxUnavailable(
            f"the network sandbox needs Linux on x86_64 or aarch64 (this is {sys.platform} on {platform.machine()})"
        )
    nr_seccomp = _ARCHES[_machine()][3]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SandboxUnavailable(f"prctl(PR_SET_NO_NEW_PRIVS) failed: {os.strerror(ctypes.get_errno())}")
    program = _program()
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    result = libc.syscall(
        ctypes.c_long(nr_seccomp), ctypes.c_uint(_SECCOMP_SET_MODE_FILTER),
        ctypes.c_uint(_SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(fprog),
    )
    if result != 0:
        err = ctypes.get_errno()
        raise SandboxUnavailable(f"seccomp(SECCOMP_SET_MODE_FILTER) failed: {os.strerror(err) if err else result}")
    _installed = True


def installed() -> bool:
    """Whether this process installed the filter."""
    return _installed
