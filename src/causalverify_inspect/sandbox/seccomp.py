"""The seccomp filter of the confined sandbox: a classic BPF program, built here, that bubblewrap loads (``--seccomp``).

It refuses, with ``EPERM``, the system calls R and the tools it starts never need and that widen what a hostile
program can reach: tracing other processes (``ptrace``, ``process_vm_*``), kernel interfaces with a history of
exploits (``bpf``, ``perf_event_open``, ``io_uring_*``, ``userfaultfd``, the key store), mounts and namespaces
(``mount`` and the new mount API, ``unshare``, ``setns``, ``clone`` with a namespace flag), and host administration
(modules, ``kexec``, ``reboot``, swap, clocks, quotas). ``clone3`` answers ``ENOSYS``, as Docker's default profile
does: its flags sit behind a pointer a filter cannot read, and glibc then falls back to ``clone``, whose flags it can.
Everything else is allowed. A foreign architecture (32-bit x86 entry) kills the process; x32 system call numbers
(bit 30 set) are refused. The numbers are x86_64's (``asm/unistd_64.h``; ``tests`` compare them with the installed
header); on another architecture no filter is built and the sandbox runs without one.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

DENIED = {
    "ptrace": 101,
    "syslog": 103,
    "uselib": 134,
    "vhangup": 153,
    "pivot_root": 155,
    "_sysctl": 156,
    "adjtimex": 159,
    "chroot": 161,
    "acct": 163,
    "settimeofday": 164,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "iopl": 172,
    "ioperm": 173,
    "init_module": 175,
    "delete_module": 176,
    "quotactl": 179,
    "lookup_dcookie": 212,
    "clock_settime": 227,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "unshare": 272,
    "perf_event_open": 298,
    "fanotify_init": 300,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "clock_adjtime": 305,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "finit_module": 313,
    "kexec_file_load": 320,
    "bpf": 321,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "quotactl_fd": 443,
}
"""System call name -> x86_64 number, refused with EPERM."""
CLONE, CLONE3 = 56, 435
NAMESPACE_FLAGS = 0x7E020080
"""CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME: ``clone`` with one is refused."""
X32_BIT = 0x40000000
AUDIT_ARCH_X86_64 = 0xC000003E

# classic BPF opcodes (linux/filter.h, linux/bpf_common.h) and seccomp return values (linux/seccomp.h)
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_RET_KILL_PROCESS, _RET_ERRNO, _RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (little endian: the low half of args[0])


def _assemble(program: list[tuple[int, int, str | None, str | None] | str]) -> bytes:
    """Pack ``(code, k, jump-if-true label, jump-if-false label)`` records and ``"label"`` markers into
    ``struct sock_filter`` records (u16 code, u8 jt, u8 jf, u32 k); a None label is the next instruction."""
    records = [item for item in program if not isinstance(item, str)]
    labels, index = {}, 0
    for item in program:
        if isinstance(item, str):
            labels[item] = index
        else:
            index += 1
    packed = []
    for at, (code, k, jt, jf) in enumerate(records):
        offsets = [0 if label is None else labels[label] - at - 1 for label in (jt, jf)]
        packed.append(struct.pack("<HBBI", code, *offsets, k))
    return b"".join(packed)


def filter_program() -> bytes | None:
    """The filter as bubblewrap reads it from ``--seccomp FD`` (packed sock_filter records); None off x86_64."""
    if platform.machine() != "x86_64":
        return None
    program: list = [
        (_LD_W_ABS, _ARCH, None, None),
        (_JEQ_K, AUDIT_ARCH_X86_64, "native", None),
        (_RET_K, _RET_KILL_PROCESS, None, None),
        "native",
        (_LD_W_ABS, _NR, None, None),
        (_JGE_K, X32_BIT, "eperm", None),
        *[(_JEQ_K, number, "eperm", None) for number in sorted(DENIED.values())],
        (_JEQ_K, CLONE3, "enosys", None),
        (_JEQ_K, CLONE, None, "allow"),
        (_LD_W_ABS, _ARG0, None, None),
        (_JSET_K, NAMESPACE_FLAGS, "eperm", None),
        "allow",
        (_RET_K, _RET_ALLOW, None, None),
        "eperm",
        (_RET_K, _RET_ERRNO | errno.EPERM, None, None),
        "enosys",
        (_RET_K, _RET_ERRNO | errno.ENOSYS, None, None),
    ]
    return _assemble(program)


def filter_fd() -> int | None:
    """A file descriptor (inheritable, at offset 0) holding :func:`filter_program`; None where there is none.

    bubblewrap reads it to the end; the caller closes it after starting the sandbox."""
    program = filter_program()
    if program is None:
        return None
    fd = os.memfd_create("cv-seccomp", 0)
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
