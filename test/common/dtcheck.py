"""What the Python test scripts of devtcp share: ok/FAIL lines, skips
(exit 77), processes started in their own session (optionally in a network
namespace) with their output in a file, and reading that output.

A script keeps one Checker; cleanup() kills what it started.
"""
import os
import re
import signal
import subprocess
import sys
import time


class Checker:
    """ok/FAIL lines, the failures, and the processes a test started."""

    def __init__(self, ns=None, tail=0):
        self.ns = ns           # network namespace for spawn(..., ns=True)
        self.tail = tail       # characters of a failed check's output shown
        self.failures = []
        self.procs = []

    @staticmethod
    def log(msg):
        print(msg, flush=True)

    def check(self, cond, what, out=""):
        """ok/FAIL @p what; on failure the end of @p out (self.tail chars)."""
        self.log(("ok   " if cond else "FAIL ") + what)
        if not cond:
            self.failures.append(what)
            if out and self.tail:
                self.log(out[-self.tail:])
        return cond

    def skip(self, why, cleanup=None):
        self.log("SKIP: " + why)
        if cleanup is not None:
            cleanup()
        sys.exit(77)

    def spawn(self, cmd, out=None, ns=False, **kw):
        """Start @p cmd in a session of its own, output into file @p out."""
        if ns:
            cmd = ["ip", "netns", "exec", self.ns] + cmd
        f = open(out, "w") if out else subprocess.DEVNULL
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                             start_new_session=True, **kw)
        p.out_path = out
        self.procs.append(p)
        return p

    def kill_all(self):
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()


def text(p):
    """What process @p p (from Checker.spawn) wrote so far."""
    return open(p.out_path).read() if p.out_path else ""


def wait_text(p, pat, timeout):
    """Wait until @p p's output matches regex @p pat, it exits, or timeout."""
    end = time.time() + timeout
    while time.time() < end:
        if re.search(pat, text(p)):
            return True
        if p.poll() is not None:
            return bool(re.search(pat, text(p)))
        time.sleep(0.05)
    return False
