#!/usr/bin/env python3
"""gpuprof-ingest's progress line: on a terminal (a pseudo-terminal here) one line on stderr, redrawn in
place ("\\r"), that says the events written, their rate and how much of the file is read, and is taken away
before the next message; none when stderr is a pipe; none under -q. A single big input shows it too (the
line of inputs done read by -j is for several). -v says how each input is read.
"""
import os
import pty
import subprocess
import sys
import tempfile

import checks
from checks import BIN, check, ok


def run_pty(args, cwd):
    """args run with stderr (and stdout) on a pseudo-terminal: (exit status, bytes written there)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execv(os.path.join(BIN, args[0]), args)
    out = b""
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out


def main():
    with tempfile.TemporaryDirectory(prefix="gpuprof-progress-") as tmp:
        subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "400000", "--seed", "3", "-o",
                        os.path.join(tmp, "run"), "--no-expected"], check=True, capture_output=True)
        src = os.path.join("run", "4242.ndjson")
        rc, out = run_pty(["gpuprof-ingest", src, "-o", "a.db"], tmp)
        text = out.decode("utf-8", "replace")
        check("terminal: exit status", rc, 0)
        lines = [p for p in text.split("\r") if "events" in p and "/s" in p]
        ok("terminal: a single input shows a progress line", lines, text[-400:])
        ok("terminal: it says how much of the file is read", any(" MB of " in p and " read" in p for p in lines),
           text[-400:])
        # What stays on screen of each line (after its last "\r" and erase): a message, never progress text.
        kept = [l.split("\r")[-1].replace("\x1b[K", "") for l in text.split("\r\n")[:-1]]
        ok("terminal: every line left on screen is a message", kept and all(
            l.startswith("gpuprof-ingest: ") and "/s" not in l for l in kept), kept)
        ok("terminal: the summary line is one of them", f"gpuprof-ingest: {src}: 400000 kernels, 6000 memcpys, "
           "6000 ranges" in kept, kept)
        ok("terminal: nothing after the last line", text.endswith("\r\n"), text[-200:])

        # Several inputs read at once (-j): the line of inputs done, taken away the same way.
        subprocess.run([os.path.join(BIN, "gpuprof-synth"), "--kernels", "20000", "--seed", "4", "-o",
                        os.path.join(tmp, "run2"), "--no-expected"], check=True, capture_output=True)
        rc, out = run_pty(["gpuprof-ingest", "-j", "2", src, "run2", "-o", "j.db"], tmp)
        text = out.decode("utf-8", "replace")
        check("terminal, -j 2: exit status", rc, 0)
        ok("terminal, -j 2: the inputs done", "2/2 inputs" in text, text[-400:])
        kept = [l.split("\r")[-1].replace("\x1b[K", "") for l in text.split("\r\n")[:-1]]
        ok("terminal, -j 2: every line left on screen is a message", kept and all(
            l.startswith("gpuprof-ingest: ") and "/s" not in l for l in kept), kept)

        rc, out = run_pty(["gpuprof-ingest", "-q", src, "-o", "b.db"], tmp)
        check("terminal, -q: exit status", rc, 0)
        check("terminal, -q: nothing at all", out, b"")

        r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), src, "-o", "c.db"], cwd=tmp, capture_output=True,
                           text=True)
        check("piped: exit status", r.returncode, 0)
        ok("piped: no progress line", "\r" not in r.stderr and "/s" not in r.stderr, r.stderr)
        check("piped: the summary and done lines, besides warnings",
              [l.split(": ")[2].split(",")[0][:7] for l in r.stderr.splitlines() if ": warning: " not in l],
              ["400000 ", "done in"])

        r = subprocess.run([os.path.join(BIN, "gpuprof-ingest"), "-v", src, "-o", "d.db"], cwd=tmp,
                           capture_output=True, text=True)
        ok("-v: says how the input is read",
           f"gpuprof-ingest: {src}: read as ndjson, gpuprof wire format" in r.stderr and "(told by its content)"
           in r.stderr, r.stderr)
    return checks.summary("ingest_progress")


if __name__ == "__main__":
    sys.exit(main())
