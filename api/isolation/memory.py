"""How much memory a process holds, read from the operating system without third-party packages.

The helper Blender's memory watchdog polls this. Linux reads ``/proc``; Windows asks
``GetProcessMemoryInfo`` (working set) through ctypes; macOS asks ``proc_pidinfo`` (resident
size) through ctypes. Anywhere else the answer is ``None`` and only the time limit guards the helper.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

GIB = 1024**3
#: Without a way to ask the machine, assume a small one.
FALLBACK_PHYSICAL = 8 * GIB


def resident_bytes(pid: int) -> int | None:
    """The process's resident memory in bytes, or None when it is gone or this OS cannot say."""
    try:
        if sys.platform.startswith("linux"):
            return _linux(pid)
        if sys.platform == "win32":
            return _windows(pid)
        if sys.platform == "darwin":
            return _macos(pid)
    except (OSError, ValueError, AttributeError):
        return None
    return None


def physical_bytes() -> int:
    """The machine's physical memory (the default ceiling is a share of it)."""
    try:
        if sys.platform == "win32":
            return _windows_physical()
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (OSError, ValueError, AttributeError):
        return FALLBACK_PHYSICAL


def _linux(pid: int) -> int:
    # statm: size resident shared text lib data dt, in pages.
    fields = Path(f"/proc/{pid}/statm").read_text().split()
    return int(fields[1]) * os.sysconf("SC_PAGE_SIZE")


class _ProcessMemoryCounters(ctypes.Structure):
    _fields_ = [
        ("cb", ctypes.c_ulong),
        ("PageFaultCount", ctypes.c_ulong),
        ("PeakWorkingSetSize", ctypes.c_size_t),
        ("WorkingSetSize", ctypes.c_size_t),
        ("QuotaPeakPagedPoolUsage", ctypes.c_size_t),
        ("QuotaPagedPoolUsage", ctypes.c_size_t),
        ("QuotaPeakNonPagedPoolUsage", ctypes.c_size_t),
        ("QuotaNonPagedPoolUsage", ctypes.c_size_t),
        ("PagefileUsage", ctypes.c_size_t),
        ("PeakPagefileUsage", ctypes.c_size_t),
    ]


def _windows(pid: int) -> int | None:
    windll = ctypes.WinDLL  # type: ignore[attr-defined]
    kernel32, psapi = windll("kernel32", use_last_error=True), windll("psapi", use_last_error=True)
    kernel32.OpenProcess.restype = ctypes.c_void_p
    process_query_limited_information = 0x1000
    handle = kernel32.OpenProcess(process_query_limited_information, False, pid)
    if not handle:
        return None
    try:
        counters = _ProcessMemoryCounters()
        counters.cb = ctypes.sizeof(counters)
        ok = psapi.GetProcessMemoryInfo(ctypes.c_void_p(handle), ctypes.byref(counters), counters.cb)
        return int(counters.WorkingSetSize) if ok else None
    finally:
        kernel32.CloseHandle(ctypes.c_void_p(handle))


class _MemoryStatusEx(ctypes.Structure):
    _fields_ = [
        ("dwLength", ctypes.c_ulong),
        ("dwMemoryLoad", ctypes.c_ulong),
        ("ullTotalPhys", ctypes.c_ulonglong),
        ("ullAvailPhys", ctypes.c_ulonglong),
        ("ullTotalPageFile", ctypes.c_ulonglong),
        ("ullAvailPageFile", ctypes.c_ulonglong),
        ("ullTotalVirtual", ctypes.c_ulonglong),
        ("ullAvailVirtual", ctypes.c_ulonglong),
        ("ullAvailExtendedVirtual", ctypes.c_ulonglong),
    ]


def _windows_physical() -> int:
    status = _MemoryStatusEx()
    status.dwLength = ctypes.sizeof(status)
    if not ctypes.WinDLL("kernel32").GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined]
        return FALLBACK_PHYSICAL
    return int(status.ullTotalPhys)


#: ``proc_pidinfo(pid, PROC_PIDTASKINFO, …)`` fills a ``proc_taskinfo``; its first two fields are
#: the virtual and the resident size (``<sys/proc_info.h>``). 96 bytes is the whole structure.
_PROC_PIDTASKINFO = 4
_TASKINFO_SIZE = 96


def _macos(pid: int) -> int | None:
    libproc = ctypes.CDLL("/usr/lib/libproc.dylib", use_errno=True)
    buffer = (ctypes.c_uint64 * (_TASKINFO_SIZE // 8))()
    filled = libproc.proc_pidinfo(pid, _PROC_PIDTASKINFO, ctypes.c_uint64(0), buffer, _TASKINFO_SIZE)
    return int(buffer[1]) if filled == _TASKINFO_SIZE else None
