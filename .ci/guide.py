#!/usr/bin/env python3
"""Runs docs/guide.md, every block of it, so that the guide cannot drift from the binary.

    .ci/guide.py BINARY [--guide docs/guide.md] [--require-postgres] [--keep]

Every fenced block of the guide is accounted for; a fence of any other type fails the run:

- ```sh blocks run in order in ONE bash session (`set -euo pipefail`, so shell variables carry
  from block to block) whose HOME and working directory are a fresh temporary directory, with
  BINARY on PATH as `shipbase`. A block runs with stdin from /dev/null and a deadline (120 s).
- A ```sh block right after the comment `<!-- runner: background NAME ready=URL -->` is what
  the reader runs in another terminal (the server, the webhook receiver): it runs in the
  background in its own process group, and the runner polls URL (any HTTP answer counts) until
  it answers, with a deadline (30 s); a process that exits first fails the run.
  `<!-- runner: stop NAME -->` is the reader's Ctrl-C: SIGINT to that process group, which must
  then exit with status 0 within 30 s.
- ```json and ```text blocks are example output: they are checked against the standard output
  of the ```sh block before them. JSON: the same values, objects with the same keys, arrays of
  the same length; a string with "…" in it is a placeholder ("org_…" matches any string that
  starts with "org_"; "…" alone matches any value). Text: the same lines (trailing spaces
  ignored), "…" matching any run of characters within a line.
- Blocks between `<!-- runner: postgres begin -->` and `<!-- runner: postgres end -->` need a
  PostgreSQL database: the placeholder URL postgres://shipbase:secret@127.0.0.1:5432/shipbase
  in them is replaced by SHIPBASE_GUIDE_POSTGRES (an empty database, used as it is) or else by a
  fresh database made with `.ci/postgres.sh createdb` on the server SHIPBASE_TEST_POSTGRES
  names. With neither, those blocks are skipped and the runner says so;
  --require-postgres makes that an error (CI).

The one other rewrite: the loopback ports the guide uses (127.0.0.1:8080 for the server,
127.0.0.1:9000 for the webhook receiver) become free ports, in the blocks and in the expected
output, so that the run never collides with anything already listening there.

A failing block stops the run: the runner prints the block, its output and the logs of the
background processes, and exits 1. Every process it started is stopped when it ends, however
it ends; the temporary directory is removed unless --keep is given.
"""

import argparse
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

PG_PLACEHOLDER = "postgres://shipbase:secret@127.0.0.1:5432/shipbase"
PORTS = (8080, 9000)
BLOCK_DEADLINE = 120.0
READY_DEADLINE = 30.0
STOP_DEADLINE = 30.0
ELLIPSIS = "…"


class GuideError(Exception):
    """The guide is malformed, or a block failed; the message says which and why."""


# ---------------------------------------------------------------------------------------------
# Reading the guide


class Block:
    def __init__(self, kind, info, text, line):
        self.kind = kind  # "sh", "json" or "text"
        self.info = info
        self.text = text
        self.line = line  # line number of the opening fence
        self.background = None  # (name, ready_url) for a background block
        self.postgres = False


class Stop:
    def __init__(self, name, line):
        self.name = name
        self.line = line
        self.postgres = False


FENCE_TYPES = ("sh", "json", "text")
DIRECTIVE = re.compile(r"^<!--\s*runner:\s*(.*?)\s*-->\s*$")


def parse(path):
    """The guide's blocks and stop actions, in order; fails on anything it cannot account for."""
    lines = open(path, encoding="utf-8").read().split("\n")
    items = []
    pending_background = None
    in_postgres = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            if not line.startswith("```"):
                raise GuideError(f"{path}:{i + 1}: only ``` fences at the start of a line are "
                                 f"supported (indented or ~~~ fences would go unchecked)")
            info = line[3:].strip()
            start = i
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                if lines[i].lstrip().startswith("```"):
                    raise GuideError(f"{path}:{i + 1}: a fence inside the block of line {start + 1}")
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise GuideError(f"{path}:{start + 1}: the block is never closed")
            if info not in FENCE_TYPES:
                raise GuideError(f"{path}:{start + 1}: unknown fence type {info!r}; the runner "
                                 f"knows {', '.join(FENCE_TYPES)} (see .ci/guide.py)")
            block = Block(info, info, "\n".join(body) + "\n", start + 1)
            block.postgres = in_postgres
            if pending_background:
                if info != "sh":
                    raise GuideError(f"{path}:{start + 1}: a background directive must be "
                                     f"followed by a sh block")
                block.background = pending_background
                pending_background = None
            items.append(block)
            i += 1
            continue
        m = DIRECTIVE.match(stripped)
        if m:
            words = m.group(1).split()
            if len(words) == 3 and words[0] == "background" and words[2].startswith("ready="):
                pending_background = (words[1], words[2][len("ready="):])
            elif len(words) == 2 and words[0] == "stop":
                stop = Stop(words[1], i + 1)
                stop.postgres = in_postgres
                items.append(stop)
            elif words == ["postgres", "begin"]:
                in_postgres = True
            elif words == ["postgres", "end"]:
                in_postgres = False
            else:
                raise GuideError(f"{path}:{i + 1}: unknown runner directive {m.group(1)!r}")
        elif "runner:" in stripped and stripped.startswith("<!--"):
            raise GuideError(f"{path}:{i + 1}: a runner directive must be one line of its own")
        i += 1
    if pending_background:
        raise GuideError(f"{path}: a background directive at the end is not followed by a block")
    if in_postgres:
        raise GuideError(f"{path}: `postgres begin` without `postgres end`")
    # Output blocks check the sh block before them.
    previous = None
    for item in items:
        if isinstance(item, Block) and item.kind in ("json", "text"):
            if not (isinstance(previous, Block) and previous.kind == "sh" and not previous.background):
                raise GuideError(f"{path}:{item.line}: an output block must follow a sh block "
                                 f"run in the foreground")
        previous = item
    return items


# ---------------------------------------------------------------------------------------------
# Comparing output


def json_values(text):
    decoder = json.JSONDecoder()
    values, pos = [], 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return values
        value, pos = decoder.raw_decode(text, pos)
        values.append(value)


def placeholder_regex(pattern):
    return re.compile("^" + ".*".join(re.escape(p) for p in pattern.split(ELLIPSIS)) + "$", re.S)


def match_json(expected, actual, path="$"):
    """None when actual matches expected, else where and how it differs."""
    if isinstance(expected, str) and ELLIPSIS in expected:
        if expected == ELLIPSIS:
            return None
        if isinstance(actual, str) and placeholder_regex(expected).match(actual):
            return None
        return f"{path}: expected {json.dumps(expected, ensure_ascii=False)}, got {json.dumps(actual, ensure_ascii=False)}"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {json.dumps(actual, ensure_ascii=False)}"
        if set(expected) != set(actual):
            missing = sorted(set(expected) - set(actual))
            extra = sorted(set(actual) - set(expected))
            return f"{path}: keys differ (missing {missing}, unexpected {extra})"
        for key in expected:
            problem = match_json(expected[key], actual[key], f"{path}.{key}")
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{path}: expected an array of {len(expected)}, got {json.dumps(actual, ensure_ascii=False)}"
        for n, (e, a) in enumerate(zip(expected, actual)):
            problem = match_json(e, a, f"{path}[{n}]")
            if problem:
                return problem
        return None
    # Numbers compare by value (49 == 49.0); booleans are not numbers here.
    if type(expected) is bool or type(actual) is bool:
        same = expected is actual
    elif isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        same = expected == actual
    else:
        same = type(expected) is type(actual) and expected == actual
    if same:
        return None
    return f"{path}: expected {json.dumps(expected, ensure_ascii=False)}, got {json.dumps(actual, ensure_ascii=False)}"


def check_output(block, stdout):
    """None when the output block matches the real output, else the difference."""
    if block.kind == "json":
        try:
            expected = json_values(block.text)
        except ValueError as e:
            return f"the json block itself is not JSON: {e}"
        try:
            actual = json_values(stdout)
        except ValueError as e:
            return f"the output is not JSON: {e}"
        if len(expected) != len(actual):
            return f"expected {len(expected)} JSON value(s), got {len(actual)}"
        for n, (e, a) in enumerate(zip(expected, actual)):
            problem = match_json(e, a, f"value {n + 1}" if len(expected) > 1 else "$")
            if problem:
                return problem
        return None
    expected = [l.rstrip() for l in block.text.rstrip("\n").split("\n")]
    actual = [l.rstrip() for l in stdout.rstrip("\n").split("\n")] if stdout.strip() else []
    if expected == [""]:
        expected = []
    if len(expected) != len(actual):
        return f"expected {len(expected)} line(s), got {len(actual)}"
    for n, (e, a) in enumerate(zip(expected, actual)):
        if not placeholder_regex(e).match(a):
            return f"line {n + 1}: expected {e!r}, got {a!r}"
    return None


# ---------------------------------------------------------------------------------------------
# Running


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path, lines=60):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            content = f.read().rstrip("\n").split("\n")
    except FileNotFoundError:
        return "(nothing)"
    if content == [""]:
        return "(nothing)"
    cut = content[-lines:]
    prefix = [f"… ({len(content) - lines} lines before)"] if len(content) > lines else []
    return "\n".join(prefix + cut)


def indent(text):
    return "\n".join("    " + l for l in text.rstrip("\n").split("\n"))


class Session:
    """One bash process; blocks are sourced into it, so their variables carry over."""

    def __init__(self, root, home, env):
        self.root = root
        self.runner_dir = os.path.join(root, "runner")
        os.makedirs(self.runner_dir)
        self.session_log = os.path.join(self.runner_dir, "session.err")
        self.bash = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=home, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=open(self.session_log, "wb"), start_new_session=True)
        self.buffer = b""
        self.background = {}  # name -> (pid, log path, block)
        self.send("set -euo pipefail\n")

    def send(self, text):
        self.bash.stdin.write(text.encode())
        self.bash.stdin.flush()

    def read_marker(self, prefix, deadline):
        """The rest of the next line that starts with prefix, or None if bash exited; raises
        TimeoutError after the deadline."""
        fd = self.bash.stdout.fileno()
        end = time.monotonic() + deadline
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                text = line.decode(errors="replace")
                if text.startswith(prefix):
                    return text[len(prefix):].strip()
            remaining = end - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self.buffer += chunk

    def files(self, n):
        base = os.path.join(self.runner_dir, f"block{n:03d}")
        return base + ".sh", base + ".out", base + ".err"

    def run(self, n, block, text):
        """Runs a foreground block; returns (ok, status message, stdout)."""
        script, out, err = self.files(n)
        with open(script, "w", encoding="utf-8") as f:
            f.write(text)
        self.send(f"source {script} > {out} 2> {err} < /dev/null; echo __guide_done__ {n}\n")
        try:
            marker = self.read_marker("__guide_done__ ", BLOCK_DEADLINE)
        except TimeoutError:
            return False, f"still running after {BLOCK_DEADLINE:.0f} s", read(out)
        if marker is None:
            status = self.bash.wait(timeout=10)
            return False, f"exited with status {status}", read(out)
        return True, "", read(out)

    def start_background(self, n, block, text, ready_url):
        script, out, _ = self.files(n)
        name = block.background[0]
        with open(script, "w", encoding="utf-8") as f:
            f.write(text)
        # Job control on for this one job: it gets its own process group, which takes SIGINT
        # like a terminal's Ctrl-C would, and is stopped whole at the end.
        self.send(f"set -m; ( source {script} ) > {out} 2>&1 < /dev/null & "
                  f"echo __guide_bg__ $!; set +m\n")
        marker = self.read_marker("__guide_bg__ ", 10)
        if marker is None:
            raise GuideError("the shell exited while starting a background block")
        pid = int(marker)
        self.background[name] = (pid, out, block)
        end = time.monotonic() + READY_DEADLINE
        while True:
            if not alive(pid):
                return False, f"exited before {ready_url} answered"
            try:
                urllib.request.urlopen(ready_url, timeout=2).close()
                answered = True
            except urllib.error.HTTPError:
                answered = True  # any HTTP answer: it is listening
            except (urllib.error.URLError, OSError):
                answered = False
            if answered:
                if not alive(pid):
                    return False, f"exited, although {ready_url} answered (something else listens there?)"
                return True, ""
            if time.monotonic() > end:
                return False, f"{ready_url} did not answer within {READY_DEADLINE:.0f} s"
            time.sleep(0.1)

    def stop(self, name):
        """Ctrl-C for a background block; returns (ok, message)."""
        if name not in self.background:
            return False, f"no background block named {name} is running"
        pid, _, _ = self.background.pop(name)
        try:
            os.killpg(pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        self.send(f"__guide_rc=0; wait {pid} || __guide_rc=$?; echo __guide_stopped__ $__guide_rc\n")
        try:
            marker = self.read_marker("__guide_stopped__ ", STOP_DEADLINE)
        except TimeoutError:
            kill_group(pid)
            return False, f"{name} did not stop within {STOP_DEADLINE:.0f} s of SIGINT"
        if marker is None:
            return False, "the shell exited while waiting for it"
        if marker != "0":
            return False, f"{name} exited with status {marker} after SIGINT"
        # Everything it started is gone too (a server still holding its port would answer for
        # the next one).
        end = time.monotonic() + STOP_DEADLINE
        while group_alive(pid):
            if time.monotonic() > end:
                kill_group(pid)
                return False, f"processes of {name} were still running {STOP_DEADLINE:.0f} s after SIGINT"
            time.sleep(0.05)
        return True, ""

    def background_logs(self):
        return [(name, out) for name, (_, out, _) in self.background.items()]

    def close(self):
        for name, (pid, _, _) in list(self.background.items()):
            kill_group(pid)
        self.background.clear()
        # An idle shell ends when its input does; one still running a block is stopped with
        # everything in its process group.
        try:
            self.bash.stdin.close()
        except OSError:
            pass
        try:
            self.bash.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass
        kill_group(self.bash.pid)
        try:
            self.bash.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (FileNotFoundError, IndexError):
        return False


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # Only zombies left counts as gone.
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                    return True
            except (FileNotFoundError, IndexError, ValueError):
                continue
    return False


def kill_group(pgid):
    """SIGTERM to the process group, then SIGKILL if it is still there after 10 s."""
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + wait
        while time.monotonic() < end:
            if not group_alive(pgid):
                return
            time.sleep(0.05)


def postgres_url(repo):
    url = os.environ.get("SHIPBASE_GUIDE_POSTGRES")
    if url:
        return url, "SHIPBASE_GUIDE_POSTGRES"
    server = os.environ.get("SHIPBASE_TEST_POSTGRES")
    if not server:
        return None, None
    name = f"guide_{os.getpid()}_{int(time.time())}"
    made = subprocess.run([os.path.join(repo, ".ci", "postgres.sh"), "createdb", server, name],
                          capture_output=True, text=True)
    if made.returncode != 0:
        raise GuideError(f"could not create the database {name}: {made.stderr.strip()}")
    return made.stdout.strip(), f"a fresh database {name} on SHIPBASE_TEST_POSTGRES"


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--guide", default=os.path.join(repo, "docs", "guide.md"))
    parser.add_argument("--require-postgres", action="store_true",
                        help="fail instead of skipping the PostgreSQL part")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()

    binary = os.path.realpath(args.binary)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print(f"guide: no executable binary at {args.binary}", file=sys.stderr)
        return 2
    for tool in ("bash", "curl", "jq", "openssl", "python3"):
        if not shutil.which(tool):
            print(f"guide: {tool} is needed to run the guide", file=sys.stderr)
            return 2
    try:
        items = parse(args.guide)
    except GuideError as e:
        print(f"guide: {e}", file=sys.stderr)
        return 1

    started = time.monotonic()
    root = tempfile.mkdtemp(prefix="shipbase-guide-")
    session = None
    # SIGTERM and SIGHUP end the run the way Ctrl-C does: through the cleanup below.
    def interrupted(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)
    guide = os.path.relpath(args.guide)
    try:
        pg_url, pg_source = postgres_url(repo)
        if args.require_postgres and not pg_url:
            raise GuideError("--require-postgres: set SHIPBASE_TEST_POSTGRES (a PostgreSQL server "
                             "URL) or SHIPBASE_GUIDE_POSTGRES (an empty database)")
        subs = {f"127.0.0.1:{port}": f"127.0.0.1:{free_port()}" for port in PORTS}
        if pg_url:
            subs[PG_PLACEHOLDER] = pg_url

        def substitute(text):
            for old, new in subs.items():
                text = text.replace(old, new)
            return text

        home = os.path.join(root, "home")
        bindir = os.path.join(root, "bin")
        os.makedirs(home)
        os.makedirs(bindir)
        os.symlink(binary, os.path.join(bindir, "shipbase"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("SHIPBASE_")}
        env.update(HOME=home, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), NO_COLOR="1")
        print(f"guide: {guide} with {binary}")
        print(f"guide: ports {', '.join(f'{o} → {n}' for o, n in subs.items() if 'postgres' not in o)}; "
              f"PostgreSQL: {pg_source or 'none (that part is skipped)'}")
        session = Session(root, home, env)

        last_stdout = None
        skipped = 0
        counts = {"sh": 0, "json": 0, "text": 0, "stop": 0}
        for n, item in enumerate(items, 1):
            if item.postgres and not pg_url:
                skipped += 1
                continue
            t0 = time.monotonic()
            if isinstance(item, Stop):
                ok, message = session.stop(item.name)
                label = f"stop {item.name}"
                counts["stop"] += 1
                if not ok:
                    fail(guide, item.line, label, None, message, "", "", session)
                print(f"  ok  {guide}:{item.line:<5} {label:<18} {time.monotonic() - t0:6.2f} s")
                continue
            if item.kind == "sh":
                text = substitute(item.text)
                counts["sh"] += 1
                if item.background:
                    name, url = item.background
                    ok, message = session.start_background(n, item, text, substitute(url))
                    label = f"sh, background {name}"
                    if not ok:
                        fail(guide, item.line, label, text, message,
                             read(session.background[name][1]), "", session)
                    last_stdout = None
                else:
                    ok, message, stdout = session.run(n, item, text)
                    label = "sh"
                    if not ok:
                        fail(guide, item.line, label, text, message, stdout,
                             read(session.files(n)[2]), session)
                    last_stdout = stdout
            else:
                counts[item.kind] += 1
                label = f"{item.kind} output"
                expected = Block(item.kind, item.info, substitute(item.text), item.line)
                problem = check_output(expected, last_stdout)
                if problem:
                    fail(guide, item.line, label, expected.text,
                         f"the output differs: {problem}", last_stdout, "", session)
            print(f"  ok  {guide}:{item.line:<5} {label:<18} {time.monotonic() - t0:6.2f} s")

        print(f"guide: {counts['sh']} sh blocks run, {counts['json'] + counts['text']} outputs "
              f"checked, {counts['stop']} stops, in {time.monotonic() - started:.1f} s")
        if skipped:
            print(f"guide: SKIPPED the PostgreSQL part ({skipped} items): set SHIPBASE_TEST_POSTGRES "
                  f"(a server URL) or SHIPBASE_GUIDE_POSTGRES (an empty database) to run it")
        return 0
    except GuideError as e:
        print(f"guide: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as e:
        print(f"guide: interrupted ({e or 'Ctrl-C'})", file=sys.stderr)
        return 130
    finally:
        if session:
            session.close()
        if args.keep:
            print(f"guide: kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


def fail(guide, line, label, text, message, stdout, stderr, session):
    report = [f"FAILED {guide}:{line} ({label}): {message}"]
    if text is not None:
        report += ["-- the block:", indent(text)]
    report += ["-- its standard output:", indent(stdout or "(nothing)")]
    if stderr:
        report += ["-- its standard error:", indent(stderr)]
    for name, log in session.background_logs():
        report += [f"-- the output of {name} (background), last lines:", indent(tail(log))]
    session_err = read(session.session_log).strip()
    if session_err:
        report += ["-- the shell's own standard error:", indent(session_err)]
    raise GuideError("\n".join(report))


if __name__ == "__main__":
    sys.exit(main())
