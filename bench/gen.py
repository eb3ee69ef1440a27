#!/usr/bin/env python3
"""Deterministic generator of realistic synthetic Cursor ``stream-json`` files.

    python bench/gen.py --events 100000 --seed 1 -o bench/data/stream-100k.ndjson
    python bench/gen.py --bytes 1G --seed 1 -o bench/data/stream-1g.ndjson
    python bench/gen.py --events 200 --huge-line 64 -o bench/data/huge-64mb.ndjson

The output looks like one long ``cursor-agent -p --output-format stream-json
--stream-partial-output`` session (see shared/stream-json.md section 1):

* ``system/init``, the ``user`` prompt, then model turns until the budget is
  used, a final answer and a ``result/success`` event;
* each turn: ``thinking/delta`` bursts (some empty) + ``thinking/completed``,
  assistant token deltas (``timestamp_ms``, no ``model_call_id``) followed by
  the consolidated re-send that carries ``model_call_id``, then tool calls;
* tool calls of every main kind (shell with stdout/stderr and exit codes,
  read, edit with before/after/diffString, ls, grep, glob, updateTodos,
  semSearch, webFetch, mcp, an unknown ``quantumLeapToolCall``), rejected
  shells whose completion has no ``args``, a few error outcomes;
* parallel calls sharing one ``model_call_id`` whose completions arrive in
  finish order (not start order);
* heavy-tailed payload sizes: most results 0.2-5 KB (log-normal), about
  1.5 % between 100 KB and 2 MB (Pareto);
* increasing ``timestamp_ms``, ``startedAtMs``/``completedAtMs`` as strings,
  call ids ``call-<uuid>-<n>\\nfc_<uuid>_<n>`` (an escaped newline).

With ``--events N`` the file holds exactly N events (lines).  With
``--bytes SIZE`` turns are generated until the file reaches SIZE (the final
answer and the result then end it, slightly past SIZE).  ``--huge-line MB``
adds one tool result line of that many MB (``--huge-at`` places it).

Everything comes from one ``random.Random(seed)``: the same arguments give
the same bytes.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
import uuid

import orjson

dumps = orjson.dumps

# -- vocabulary ----------------------------------------------------------------

WORDS = (
    "the a to of and in for is that it on with this we be as are file test function "
    "call value return error data config path module import class method should need "
    "will first then check read update fix run tests failing pass output line change "
    "handler request response parser stream event model view index cache buffer "
    "timeout retry session token user client server query result status code build "
    "lint type schema field record loader writer worker queue thread async await "
    "now let me look at where how why because so but also next step done works "
    "edge case null empty missing extra large small fast slow memory cpu bytes"
).split()
UNICODE_BITS = ["’", "—", "→", "✓", "日本語", "テスト", "ünïcödé", "“quoted”", "…", "λ"]
IDENT = (
    "parse load save render apply flush read write open close start stop handle emit "
    "decode encode split join merge update reset build check validate resolve fetch"
).split()
NOUNS = (
    "event record stream buffer session model view index cache payload config request "
    "response token client server query result status line chunk frame header item"
).split()
DIRS = ["src", "lib", "app", "core", "ui", "tests", "utils", "api", "internal", "pkg", "cmd", "docs"]
EXTS = [".py", ".py", ".py", ".ts", ".tsx", ".go", ".rs", ".md", ".json", ".toml", ".js", ".yaml"]
CWD = "/home/dev/projects/acme-platform"
MODELS = ["Auto", "Claude 4 Sonnet", "GPT-5.6 Luna 272K High", "Composer 2.5 Fast"]
TODO_STATUS = ["TODO_STATUS_PENDING", "TODO_STATUS_IN_PROGRESS", "TODO_STATUS_COMPLETED"]

# Tool kinds and their weights in a long coding session.
KINDS = [
    ("read", 24), ("shell", 20), ("edit", 14), ("grep", 10), ("glob", 5), ("ls", 5),
    ("updateTodos", 5), ("semSearch", 5), ("webFetch", 3), ("mcp", 4), ("unknown", 1),
    ("shell_rejected", 2), ("read_error", 2),
]
_KIND_CUM: list[tuple[float, str]] = []
_acc = 0.0
for _k, _w in KINDS:
    _acc += _w
    _KIND_CUM.append((_acc, _k))
_KIND_TOTAL = _acc

P_BIG = 0.015  # share of tool results in the 100 KB - 2 MB tail
BIG_MIN, BIG_MAX, PARETO_ALPHA = 100_000, 2_000_000, 1.1
SMALL_MIN, SMALL_MAX, SMALL_MEDIAN, SMALL_SIGMA = 200, 5_000, 1_200, 0.8

MAX_TURN_EVENTS = 200  # upper bound of events in one turn (keeps --events exact)


def parse_size(text: str) -> int:
    """'1G', '512M', '64k', '1000' -> bytes (binary units)."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    mult = 1
    for suffix, m in (("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40)):
        if t.endswith(suffix):
            t, mult = t[:-1], m
            break
    return int(float(t) * mult)


class Gen:
    def __init__(self, out, seed: int) -> None:
        self.out = out
        self.rng = random.Random(seed)
        r = self.rng
        self.r = r.random
        self.buf: list[bytes] = []
        self.buf_bytes = 0
        self.bytes = 0
        self.events = 0
        self.tool_calls = 0
        self.big_results = 0
        self.sid = self.uuid()
        self.request_id = self.uuid()
        self.turn = 0
        self.ts = 1_787_000_000_000 + int(r.random() * 10_000_000)
        self.first_ts = self.ts
        self.segments: list[str] = []
        self._sid_b = self.sid.encode()
        self._tail_ts = b'","timestamp_ms":'
        # Token pools: (json bytes, str) pairs, built once.
        self.tokens = self._token_pool(4000)
        self.paths = [self._make_path() for _ in range(400)]
        self.code = self._corpus(4 << 20, self._code_line)
        self.logs = self._corpus(4 << 20, self._log_line)
        self.prose = self._corpus(2 << 20, self._prose_line)

    # -- primitives ---------------------------------------------------------------
    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def pick(self, seq):
        return seq[int(self.r() * len(seq))]

    def _token_pool(self, n: int) -> list[tuple[bytes, str]]:
        pool = []
        for _ in range(n):
            k = 1 + int(self.r() * 3)
            words = [self.pick(WORDS) for _ in range(k)]
            if self.r() < 0.03:
                words.append(self.pick(UNICODE_BITS))
            s = " " + " ".join(words)
            if self.r() < 0.08:
                s += self.pick([".", ",", ":", "\n\n", "`", "**"])
            pool.append((dumps(s), s))
        return pool

    def _make_path(self) -> str:
        depth = 1 + int(self.r() * 3)
        parts = [self.pick(DIRS) for _ in range(depth)]
        name = f"{self.pick(IDENT)}_{self.pick(NOUNS)}{self.pick(EXTS)}"
        return f"{CWD}/{'/'.join(parts)}/{name}"

    def _code_line(self) -> str:
        r = self.r()
        ind = "    " * int(self.r() * 4)
        if r < 0.15:
            return f"{ind}def {self.pick(IDENT)}_{self.pick(NOUNS)}(self, {self.pick(NOUNS)}: dict) -> None:"
        if r < 0.3:
            return f"{ind}{self.pick(NOUNS)} = self.{self.pick(IDENT)}({self.pick(NOUNS)}, limit={int(self.r() * 1000)})"
        if r < 0.4:
            return f"{ind}# {' '.join(self.pick(WORDS) for _ in range(6))}"
        if r < 0.5:
            return f"{ind}if {self.pick(NOUNS)} is None or len({self.pick(NOUNS)}) > {int(self.r() * 64)}:"
        if r < 0.6:
            return f'{ind}raise ValueError(f"{self.pick(WORDS)} {{{self.pick(NOUNS)}!r}} {self.pick(WORDS)}")'
        if r < 0.7:
            return ""
        if r < 0.8:
            return f"{ind}return {self.pick(NOUNS)}.{self.pick(IDENT)}()"
        if r < 0.9:
            return f"{ind}for {self.pick(NOUNS)} in self.{self.pick(NOUNS)}s:"
        return f'{ind}log.debug("{self.pick(IDENT)} %s", {self.pick(NOUNS)})  # {self.pick(UNICODE_BITS)}'

    def _log_line(self) -> str:
        r = self.r()
        p = self.pick(self.paths)[len(CWD) + 1 :]
        if r < 0.35:
            return f"{p}::test_{self.pick(IDENT)}_{self.pick(NOUNS)} PASSED{' ' * int(self.r() * 8)}[{int(self.r() * 100):>3}%]"
        if r < 0.45:
            return f"\x1b[32m✓\x1b[0m {self.pick(IDENT)} {self.pick(NOUNS)} ({int(self.r() * 900)} ms)"
        if r < 0.52:
            return f"\x1b[31mFAILED\x1b[0m {p}::test_{self.pick(IDENT)} - AssertionError: assert {int(self.r() * 9)} == {int(self.r() * 9)}"
        if r < 0.7:
            return f"{p}:{int(self.r() * 900)}:{int(self.r() * 80)}: E501 line too long ({80 + int(self.r() * 60)} > 79)"
        if r < 0.85:
            return f"-rw-r--r--  1 dev dev {int(self.r() * 90000):>6} Nov 22 10:{int(self.r() * 60):02d} {p}"
        return f"  {' '.join(self.pick(WORDS) for _ in range(8))}"

    def _prose_line(self) -> str:
        r = self.r()
        if r < 0.1:
            return f"## {' '.join(self.pick(WORDS) for _ in range(4)).title()}"
        if r < 0.25:
            return f"- {' '.join(self.pick(WORDS) for _ in range(9))}"
        if r < 0.3:
            return ""
        return " ".join(self.pick(WORDS) for _ in range(14)) + "."

    def _corpus(self, size: int, line) -> str:
        lines: list[str] = []
        n = 0
        while n < size:
            s = line()
            lines.append(s)
            n += len(s) + 1
        return "\n".join(lines) + "\n"

    def text(self, corpus: str, size: int) -> str:
        """``size`` characters of ``corpus`` starting at a random line."""
        if size >= len(corpus) // 2:
            reps = size // len(corpus) + 2
            start = int(self.r() * 1000)
            return (corpus * reps)[start : start + size]
        start = int(self.r() * (len(corpus) - size - 1))
        nl = corpus.find("\n", start, start + 400)
        if nl >= 0 and nl + 1 + size <= len(corpus):
            start = nl + 1
        return corpus[start : start + size]

    def payload_size(self) -> int:
        """Heavy-tailed: log-normal 0.2-5 KB, P_BIG of them Pareto 100 KB-2 MB."""
        if self.r() < P_BIG:
            self.big_results += 1
            return min(BIG_MAX, int(BIG_MIN / (1.0 - self.r()) ** (1.0 / PARETO_ALPHA)))
        s = int(math.exp(self.rng.gauss(math.log(SMALL_MEDIAN), SMALL_SIGMA)))
        if s < SMALL_MIN or s > SMALL_MAX:
            s = int(math.exp(math.log(SMALL_MIN) + self.r() * math.log(SMALL_MAX / SMALL_MIN)))
        return s

    def gap(self, mean_ms: float) -> int:
        return int(self.rng.expovariate(1.0 / mean_ms)) if mean_ms > 0 else 0

    # -- output ---------------------------------------------------------------------
    def emit_bytes(self, line: bytes) -> None:
        self.buf.append(line)
        n = len(line) + 1
        self.buf_bytes += n
        self.bytes += n
        self.events += 1
        if self.buf_bytes > (4 << 20):
            self.flush()

    def emit(self, obj: dict) -> None:
        self.emit_bytes(dumps(obj))

    def flush(self) -> None:
        if self.buf:
            self.buf.append(b"")
            self.out.write(b"\n".join(self.buf))
            self.buf.clear()
            self.buf_bytes = 0

    # -- events -----------------------------------------------------------------------
    def init(self) -> None:
        self.emit({
            "type": "system", "subtype": "init", "apiKeySource": "login", "cwd": CWD,
            "session_id": self.sid, "model": self.pick(MODELS), "permissionMode": "default",
        })
        prompt = (
            "Refactor the stream parser to handle partial lines, fix the failing tests in "
            "tests/test_stream.py, update the docs, and make sure `make check` passes. "
            "Keep the public API unchanged."
        )
        self.emit({
            "type": "user", "message": {"role": "user", "content": [{"type": "text", "text": prompt}]},
            "session_id": self.sid,
        })

    def thinking(self, n: int) -> None:
        head = b'{"type":"thinking","subtype":"delta","text":'
        mid = b',"session_id":"' + self._sid_b + self._tail_ts
        empty = self.r() < 0.1  # some builds send only empty thinking deltas
        tokens = self.tokens
        nt = len(tokens)
        r = self.r
        for _ in range(n):
            self.ts += int(r() * 25) if r() < 0.7 else 0
            tb = b'""' if empty or r() < 0.03 else tokens[int(r() * nt)][0]
            self.emit_bytes(head + tb + mid + str(self.ts).encode() + b"}")
        self.ts += self.gap(20)
        self.emit_bytes(
            b'{"type":"thinking","subtype":"completed","session_id":"' + self._sid_b
            + self._tail_ts + str(self.ts).encode() + b"}"
        )

    def assistant_deltas(self, n: int) -> str:
        head = b'{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":'
        mid = b'}]},"session_id":"' + self._sid_b + self._tail_ts
        parts = []
        tokens = self.tokens
        nt = len(tokens)
        r = self.r
        for i in range(n):
            tb, ts = tokens[int(r() * nt)]
            if i == 0:
                ts = ts.lstrip()
                tb = dumps(ts)
            parts.append(ts)
            self.ts += int(r() * 30) if r() < 0.8 else 0
            self.emit_bytes(head + tb + mid + str(self.ts).encode() + b"}")
        text = "".join(parts)
        self.segments.append(text)
        return text

    def assistant_full(self, text: str, model_call_id: str | None) -> None:
        obj: dict = {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
            "session_id": self.sid,
        }
        if model_call_id is not None:
            self.ts += 1
            obj["model_call_id"] = model_call_id
            obj["timestamp_ms"] = self.ts
        self.emit(obj)

    def model_call_id(self) -> str:
        suffix = "".join(self.pick("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(4))
        return f"{self.request_id}-{self.turn}-{suffix}"

    def call_id(self, n: int) -> str:
        a = self.uuid()
        b = self.uuid()
        return f"call-{a}-{n}\nfc_{b}_{n}"

    # -- tool payloads ---------------------------------------------------------------------
    def tool(self, kind: str, cid: str, size: int) -> tuple[str, dict, dict | None, dict]:
        """(key, args, result, extra fields of the <kind>ToolCall object)."""
        pick, r = self.pick, self.r
        if kind in ("shell", "shell_rejected"):
            cmd = pick([
                "pytest -q tests/", "make check", "ruff check .", "git status --short",
                "ls -la src/", "npm test -- --runInBand", "go test ./...", "cargo build",
                "rg -n 'TODO' src | head -50", "python -m mypy src", "cat pyproject.toml",
            ])
            words = cmd.split()
            desc = f"Run {words[0]} to check the {pick(NOUNS)}"
            args = {
                "command": cmd, "workingDirectory": "", "timeout": 30000, "toolCallId": cid,
                "simpleCommands": [words[0]], "hasInputRedirect": False, "hasOutputRedirect": False,
                "parsingResult": {
                    "parsingFailed": False,
                    "executableCommands": [{
                        "name": words[0],
                        "args": [{"type": "word", "value": w} for w in words[1:]],
                        "fullText": cmd,
                    }],
                    "hasRedirects": False, "hasCommandSubstitution": False, "redirects": [],
                },
                "fileOutputThresholdBytes": "40000", "isBackground": False, "skipApproval": False,
                "timeoutBehavior": "TIMEOUT_BEHAVIOR_BACKGROUND", "hardTimeout": 86400000,
                "description": desc, "closeStdin": True, "conversationId": self.sid,
                "adminCommandDenylist": [],
            }
            if kind == "shell_rejected":
                result = {"rejected": {"command": cmd, "workingDirectory": CWD, "reason": "", "isReadonly": False}}
                return "shellToolCall", args, result, {"description": desc}
            code = 0 if r() < 0.85 else pick([1, 1, 2, 127, 130])
            out = self.text(self.logs, size)
            err = "" if code == 0 else (
                f"{words[0]}: error: {' '.join(pick(WORDS) for _ in range(6))} (exit {code})\n"
                + self.text(self.logs, min(size, 200 + int(r() * 800)))
            )
            ms = 20 + int(r() * 4000)
            result = {
                "success": {
                    "command": cmd, "workingDirectory": "", "exitCode": code, "signal": "",
                    "stdout": out, "stderr": err, "executionTime": ms, "interleavedOutput": out + err,
                    "localExecutionTimeMs": ms // 3,
                },
                "isBackground": False,
            }
            return "shellToolCall", args, result, {"description": desc}
        if kind in ("read", "read_error"):
            path = pick(self.paths)
            args: dict = {"path": path}
            if r() < 0.2:
                args["offset"] = 1 + int(r() * 400)
                args["limit"] = 200
            if kind == "read_error":
                return "readToolCall", args, {"error": {"message": f"File not found: {path}"}}, {}
            content = self.text(self.code, size)
            lines = content.count("\n")
            result = {"success": {
                "content": content, "isEmpty": not content, "exceededLimit": False,
                "totalLines": lines, "fileSize": len(content), "path": path,
                "readRange": {"startLine": 1, "endLine": lines},
            }}
            return "readToolCall", args, result, {}
        if kind == "edit":
            path = pick(self.paths)
            before = self.text(self.code, size)
            lines = before.split("\n")
            at = int(r() * len(lines))
            added = [self._code_line() for _ in range(1 + int(r() * 6))]
            removed = lines[at : at + int(r() * 3)]
            after_lines = lines[:at] + added + lines[at + len(removed) :]
            after = "\n".join(after_lines)
            ctx = lines[max(0, at - 3) : at]
            diff = "\n".join(
                [f"--- a{path}", f"+++ b{path}", f"@@ -{at - len(ctx) + 1},{len(ctx) + len(removed)} "
                 f"+{at - len(ctx) + 1},{len(ctx) + len(added)} @@"]
                + [" " + c for c in ctx] + ["-" + c for c in removed] + ["+" + c for c in added]
            )
            new_file = r() < 0.1
            snippet = "\n".join(added) + "\n"
            args = {"path": path, "streamContent": after if new_file else snippet}
            res = {
                "path": path, "linesAdded": len(added), "linesRemoved": len(removed), "diffString": diff,
                "afterFullFileContent": after, "message": f"Wrote contents to {path}",
            }
            if not new_file:
                res["beforeFullFileContent"] = before
            return "editToolCall", args, {"success": res}, {}
        if kind == "ls":
            d = pick(self.paths).rsplit("/", 2)[0]
            n = max(1, size // 40)
            files = [{"name": f"{pick(IDENT)}_{pick(NOUNS)}_{i}{pick(EXTS)}"} for i in range(n)]
            sub = [{
                "absPath": f"{d}/{pick(DIRS)}{j}", "childrenDirs": [],
                "childrenFiles": files[j::4][:20], "childrenWereProcessed": True,
                "fullSubtreeExtensionCounts": {".py": 3}, "numFiles": len(files[j::4][:20]),
            } for j in range(min(4, n))]
            args = {"path": d, "ignore": [], "toolCallId": cid}
            res = {"directoryTreeRoot": {
                "absPath": d, "childrenDirs": sub, "childrenFiles": files, "childrenWereProcessed": True,
                "fullSubtreeExtensionCounts": {".py": n // 2, ".md": n // 4, ".json": n - n // 2 - n // 4},
                "numFiles": n,
            }}
            return "lsToolCall", args, {"success": res}, {}
        if kind == "grep":
            pat = pick(["TODO|FIXME", "def parse_", "import orjson", "timeout", "class .*Error", "session_id"])
            matches = []
            total = 0
            while total < size:
                p = pick(self.paths)
                hits = []
                for _ in range(1 + int(r() * 6)):
                    c = self._code_line()
                    hits.append({"lineNumber": 1 + int(r() * 900), "content": c,
                                 "contentTruncated": False, "isContextLine": r() < 0.3})
                    total += len(c) + 70
                matches.append({"file": p[len(CWD) + 1 :], "matches": hits})
                total += len(p)
            nlines = sum(len(m["matches"]) for m in matches)
            args = {"pattern": pat, "path": CWD, "caseInsensitive": False, "multiline": False,
                    "toolCallId": cid, "outputMode": "content"}
            if r() < 0.5:
                args["glob"] = "*.py"
            res = {"pattern": pat, "path": CWD, "outputMode": "content", "workspaceResults": {
                CWD: {"content": {"matches": matches, "totalLines": nlines, "totalMatchedLines": nlines,
                                  "clientTruncated": False, "ripgrepTruncated": False}},
            }}
            return "grepToolCall", args, {"success": res}, {}
        if kind == "glob":
            pat = pick(["**/*.py", "src/**/*.ts", "**/test_*.py", "**/*.md", "docs/**"])
            n = max(0, size // 45)
            files = [pick(self.paths)[len(CWD) + 1 :] for _ in range(n)]
            args = {"targetDirectory": CWD, "globPattern": pat}
            res = {"pattern": "", "path": CWD, "files": files, "totalFiles": n}
            if n > 100:
                res["clientTruncated"] = False
            return "globToolCall", args, {"success": res}, {}
        if kind == "updateTodos":
            n = 3 + int(r() * 8)
            now = str(self.ts - 1000)
            todos = [{
                "id": str(i + 1), "content": " ".join(pick(WORDS) for _ in range(7)).capitalize(),
                "status": pick(TODO_STATUS), "createdAt": now, "updatedAt": str(self.ts),
                "dependencies": [str(i)] if i and r() < 0.3 else [],
            } for i in range(n)]
            args = {"todos": todos, "merge": r() < 0.5}
            res = {"todos": todos, "totalCount": n, "wasMerge": args["merge"]}
            return "updateTodosToolCall", args, {"success": res}, {}
        if kind == "semSearch":
            q = f"where is the {pick(NOUNS)} {pick(IDENT)}ed"
            blocks = []
            total = 0
            while total < size:
                p = pick(self.paths)
                start = 1 + int(r() * 500)
                body = self.text(self.code, 150 + int(r() * 600))
                blocks.append(f'<search_result path="{p}" startLine="{start}" endLine="{start + body.count(chr(10))}">\n{body}\n</search_result>')
                total += len(blocks[-1])
            args = {"query": q, "targetDirectories": [], "explanation": f"Find the {pick(NOUNS)} code"}
            return "semSearchToolCall", args, {"success": {"results": "\n".join(blocks)}}, {}
        if kind == "webFetch":
            url = f"https://docs.example.org/{pick(NOUNS)}/{pick(IDENT)}.html"
            args = {"url": url, "toolCallId": cid}
            if r() < 0.05:
                return "webFetchToolCall", args, {"error": {"url": url, "error": "HTTP 404 Not Found"}}, {}
            return "webFetchToolCall", args, {"success": {"url": url, "markdown": self.text(self.prose, size)}}, {}
        if kind == "mcp":
            tool = pick(["search_issues", "get_file_contents", "list_commits", "query"])
            server = pick(["github", "linear", "postgres"])
            args = {"name": f"{server}-{tool}", "args": {"query": f"{pick(NOUNS)} {pick(WORDS)}", "limit": 20},
                    "toolCallId": cid, "providerIdentifier": server, "toolName": tool}
            body = self.text(self.prose, size)
            is_err = r() < 0.04
            res = {"content": [{"text": {"text": body}}], "isError": is_err}
            return "mcpToolCall", args, {"success": res}, {}
        # An unknown, future tool kind: must be shown generically.
        args = {"target": pick(self.paths), "mode": "warp", "toolCallId": cid}
        res = {"jumped": True, "log": self.text(self.logs, min(size, 2000))}
        return "quantumLeapToolCall", args, {"success": res}, {}

    def pick_kind(self) -> str:
        x = self.r() * _KIND_TOTAL
        for cum, k in _KIND_CUM:
            if x < cum:
                return k
        return KINDS[-1][0]

    def tool_calls_(self, n: int, mcid: str, huge: tuple[str, int] | None = None) -> None:
        """n calls of one model turn: all starts, then completions in finish order."""
        calls = []
        for i in range(n):
            cid = self.call_id(i)
            if huge is not None:
                kind, size = huge
            else:
                kind = self.pick_kind()
                size = self.payload_size()
            key, args, result, extra = self.tool(kind, cid, size)
            self.ts += int(self.r() * 3)
            started_at = self.ts - int(self.r() * 60)
            dur = int(math.exp(self.rng.gauss(math.log(400), 1.4)))
            if kind.startswith("shell") and self.r() < 0.05:
                dur += int(self.r() * 120_000)  # a long build/test run
            body = {"args": args, **extra}
            tc = {key: body, "hookAdditionalContexts": [], "toolCallId": cid, "startedAtMs": str(started_at)}
            self.emit({
                "type": "tool_call", "subtype": "started", "call_id": cid, "tool_call": tc,
                "model_call_id": mcid, "session_id": self.sid, "timestamp_ms": self.ts,
            })
            calls.append((started_at + dur, i, cid, key, args, result, extra, started_at, kind))
            self.tool_calls += 1
        calls.sort()
        for done_at, _i, cid, key, args, result, extra, started_at, kind in calls:
            self.ts = max(self.ts + 1, done_at + int(self.r() * 40))
            body = {"result": result, **extra} if kind == "shell_rejected" else {"args": args, "result": result, **extra}
            tc = {
                key: body, "hookAdditionalContexts": [], "toolCallId": cid,
                "startedAtMs": str(started_at), "completedAtMs": str(done_at),
            }
            self.emit({
                "type": "tool_call", "subtype": "completed", "call_id": cid, "tool_call": tc,
                "model_call_id": mcid, "session_id": self.sid, "timestamp_ms": self.ts,
            })

    def turn_(self, huge: tuple[str, int] | None = None) -> None:
        r = self.r
        self.ts += 300 + self.gap(1500)
        if huge is not None:
            self.thinking(3)  # keeps the huge turn at exactly 6 events
        elif r() < 0.85:
            self.thinking(1 + min(120, int(self.rng.expovariate(1 / 18))))
        mcid = self.model_call_id()
        if huge is None and r() < 0.7:
            text = self.assistant_deltas(1 + min(60, int(self.rng.expovariate(1 / 14))))
            self.assistant_full(text, mcid)
        n = 1 if huge is not None or r() < 0.7 else 2 + int(r() * 5)
        self.tool_calls_(n, mcid, huge)
        self.turn += 1

    def final(self, events_left: int | None) -> None:
        """Final thinking + answer + result; with events_left, use exactly that many events."""
        if events_left is None:
            think_events, k_text = 13, 30
        else:
            # (thinking deltas + completed) + text deltas + consolidated + result
            avail = max(1, events_left - 2)
            k_text = max(1, min(40, avail // 2))
            think_events = avail - k_text
        self.ts += 500 + self.gap(1000)
        if think_events > 0:
            self.thinking(think_events - 1)
        text = self.assistant_deltas(k_text)
        self.assistant_full(text, None)  # the final consolidated segment: no timestamp_ms
        self.emit({
            "type": "result", "subtype": "success", "duration_ms": self.ts - self.first_ts,
            "duration_api_ms": self.ts - self.first_ts, "is_error": False,
            "result": "".join(self.segments), "session_id": self.sid, "request_id": self.request_id,
            "usage": {"inputTokens": 40_000 + self.events * 3, "outputTokens": self.events // 2,
                      "cacheReadTokens": self.events * 20, "cacheWriteTokens": 0},
        })


def generate(
    path: str, events: int | None = None, bytes_target: int | None = None, seed: int = 1,
    huge_mb: float = 0.0, huge_at: float = 0.5, huge_kind: str = "read",
) -> dict:
    """Write a stream to ``path``; returns counters (events, bytes, tool_calls, ...)."""
    if events is None and bytes_target is None:
        raise ValueError("give events or bytes_target")
    if events is not None and events < 5 + (6 if huge_mb > 0 else 0):
        raise ValueError("--events too small (at least 5, 11 with --huge-line)")
    t0 = time.perf_counter()
    tmp = path + ".tmp"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(tmp, "wb") as f:
        g = Gen(f, seed)
        g.init()
        huge_pending = huge_mb > 0
        huge_size = int(huge_mb * (1 << 20))
        huge_line = None
        while True:
            if events is not None:
                left = events - g.events
                reserve = 3 + (6 if huge_pending else 0)
                if left - reserve < MAX_TURN_EVENTS:
                    break
                progress = g.events / events
            else:
                assert bytes_target is not None
                if g.bytes >= bytes_target - 64 * 1024 - (huge_size if huge_pending else 0):
                    break
                progress = g.bytes / bytes_target
            if huge_pending and progress >= huge_at:
                huge_pending = False
                g.turn_(huge=(huge_kind, huge_size))
                huge_line = g.events  # the completed event is the last line of that turn
                continue
            g.turn_()
        if huge_pending:
            if events is not None and events - g.events < 9:
                raise ValueError("not enough events left for the huge line")
            g.turn_(huge=(huge_kind, huge_size))
            huge_line = g.events
        g.final(None if events is None else events - g.events)
        g.flush()
    os.replace(tmp, path)
    if events is not None:
        assert g.events == events, (g.events, events)
    return {
        "path": path, "events": g.events, "bytes": g.bytes, "tool_calls": g.tool_calls,
        "big_results": g.big_results, "turns": g.turn, "huge_line": huge_line,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = ap.add_mutually_exclusive_group(required=True)
    size.add_argument("--events", type=int, help="exact number of events (lines)")
    size.add_argument("--bytes", dest="bytes_target", type=parse_size, help="target file size, e.g. 1G, 300M")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--huge-line", type=float, default=0.0, metavar="MB",
                    help="add one tool result line of this many MiB")
    ap.add_argument("--huge-at", type=float, default=0.5, metavar="FRACTION",
                    help="where the huge line goes (0 = start, 1 = end; default 0.5)")
    ap.add_argument("--huge-kind", choices=["read", "shell", "webFetch", "edit"], default="read")
    ns = ap.parse_args(argv)
    stats = generate(ns.output, ns.events, ns.bytes_target, ns.seed, ns.huge_line, ns.huge_at, ns.huge_kind)
    print(orjson.dumps(stats).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
