"""Write ``claude_code_run.ndjson``: a made-up but realistic Claude Code run
(``claude -p --output-format stream-json --verbose``, Claude Code 2.1 shape; see
shared/stream-json.md section 3 and the captured streams it cites).

    python3 sample_streams/make_claude_sample.py

Standard library only; always the same bytes.  The run fixes a failing test in
``invoice-tool``, as the Cursor demo does: hooks before the init, a signed thinking
part, one content part per line (a message's parts share its id), two calls side by
side, a command that fails and then passes, an edit, todos, and the result with its
usage and cost.
"""

from __future__ import annotations

import json
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

OUT = Path(__file__).resolve().parent / "claude_code_run.ndjson"
SID = "5b0e7c1a-93d4-4f6e-8a21-0c7d2f9e4b13"
CWD = "/home/maya/code/invoice-tool"
MODEL = "claude-sonnet-5"
T0 = datetime(2026, 8, 14, 9, 30, 0, tzinfo=timezone.utc)

_ids = iter(uuid.UUID(int=(0x5EED << 96) + i) for i in range(1, 10_000))
_clock = [0.0]
_msg = [0]
_tool = [0]


def uid() -> str:
    return str(next(_ids))


def stamp(after: float = 0.4) -> str:
    _clock[0] += after
    t = T0 + timedelta(seconds=_clock[0])
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def event(**fields) -> dict:
    return {**fields, "uuid": uid(), "session_id": SID}


def new_message() -> str:
    _msg[0] += 1
    return f"msg_01Inv0ice{_msg[0]:04d}ToolFixDemo"


def assistant(mid: str, part: dict, parent: str | None = None) -> dict:
    """A message's part (one a line); ``parent``: a sub-agent's, the id of its Task."""
    usage = {"input_tokens": 3, "cache_creation_input_tokens": 412, "cache_read_input_tokens": 18_204,
             "output_tokens": 96, "service_tier": "standard"}
    return event(type="assistant", message={
        "model": MODEL, "id": mid, "type": "message", "role": "assistant", "content": [part],
        "stop_reason": None, "stop_sequence": None, "usage": usage}, parent_tool_use_id=parent, timestamp=stamp(0.3))


def tool_use(name: str, args: dict) -> dict:
    _tool[0] += 1
    return {"type": "tool_use", "id": f"toolu_01Fx{_tool[0]:03d}InvoiceDemo", "name": name, "input": args,
            "caller": {"type": "direct"}}


def tool_result(use: dict, content: str, sidecar=None, is_error: bool = False, after: float = 0.6,
                parent: str | None = None) -> dict:
    part = {"tool_use_id": use["id"], "type": "tool_result", "content": content}
    if is_error:
        part["is_error"] = True
    fields = {"timestamp": stamp(after)}
    if sidecar is not None:
        fields["tool_use_result"] = sidecar
    return event(type="user", message={"role": "user", "content": [part]}, parent_tool_use_id=parent, **fields)


def numbered(text: str) -> str:
    return "\n".join(f"{i:>6}\u2192{line}" for i, line in enumerate(text.split("\n"), 1))


TOTALS = '''def invoice_total(invoice: Invoice) -> dict[str, Decimal]:
    base = subtotal(invoice.items)
    off = discount_amount(base, invoice.discount)
    taxed = base - off
    tax = tax_amount(base, invoice.tax_rate)
    return {"subtotal": base, "discount": off, "tax": tax, "total": taxed + tax}'''

FAILING = """============================= test session starts ==============================
collected 14 items

tests/test_totals.py ......F.......                                      [100%]

=================================== FAILURES ===================================
_________________________ test_tax_applies_after_discount _________________________
    def test_tax_applies_after_discount():
        inv = make_invoice([("Widget", 2, "50.00")], discount=("percent", "10"))
>       assert invoice_total(inv)["tax"] == Decimal("7.20")
E       AssertionError: assert Decimal('8.00') == Decimal('7.20')

tests/test_totals.py:41: AssertionError
=========================== short test summary info ============================
FAILED tests/test_totals.py::test_tax_applies_after_discount
========================= 1 failed, 13 passed in 0.21s ========================="""

PASSING = """============================= test session starts ==============================
collected 14 items

tests/test_totals.py ..............                                      [100%]

============================== 14 passed in 0.19s ==============================
"""


def build() -> list[dict]:
    out: list[dict] = []
    add = out.append
    hook = uid()
    add(event(type="system", subtype="hook_started", hook_id=hook, hook_name="SessionStart:startup",
              hook_event="SessionStart"))
    add(event(type="system", subtype="hook_response", hook_id=hook, hook_name="SessionStart:startup",
              hook_event="SessionStart", output="", stdout="", stderr="", exit_code=0, outcome="success"))
    add(event(type="system", subtype="init", cwd=CWD, tools=["Task", "Bash", "Glob", "Grep", "Read", "Edit",
                                                             "Write", "TodoWrite", "WebFetch"],
              mcp_servers=[], model=MODEL, permissionMode="acceptEdits", slash_commands=["compact", "review"],
              apiKeySource="none", claude_code_version="2.1.224", output_style="default", agents=[], skills=[],
              plugins=[]))
    add(event(type="system", subtype="thinking_tokens", estimated_tokens=60, estimated_tokens_delta=60))
    m = new_message()
    add(assistant(m, {"type": "thinking", "thinking": "", "signature": "EpACCokBCBAYAipA" + "x7Q2" * 60}))
    add(assistant(m, {"type": "text", "text": "I'll run the tests first to see what fails."}))
    run1 = tool_use("Bash", {"command": "python -m pytest -q tests/test_totals.py",
                             "description": "Run the totals tests"})
    add(assistant(m, run1))
    add(tool_result(run1, "Exit code 1\n" + FAILING, is_error=True, after=2.1))
    m = new_message()
    add(assistant(m, {"type": "text", "text": "One test fails: **tax is computed on the subtotal**, before the "
                                              "discount. Let me find where the totals are computed."}))
    grep = tool_use("Grep", {"pattern": "def invoice_total", "path": f"{CWD}/src", "output_mode": "content", "-n": True})
    todo = tool_use("TodoWrite", {"todos": [
        {"content": "Find where tax is computed", "status": "in_progress", "activeForm": "Finding the tax code"},
        {"content": "Apply tax after the discount", "status": "pending", "activeForm": "Fixing the tax base"},
        {"content": "Run the tests again", "status": "pending", "activeForm": "Running the tests"}]})
    add(assistant(m, grep))
    add(assistant(m, todo))  # (two calls side by side: both start before either ends)
    add(tool_result(todo, "Todos have been modified successfully. Ensure that you continue to use the todo list "
                          "to track your progress.", after=0.1))
    add(tool_result(grep, "src/invoice_tool/totals.py:30:def invoice_total(invoice: Invoice) -> dict[str, Decimal]:",
                    sidecar={"mode": "content", "numFiles": 1, "filenames": [], "content": "…", "numLines": 1},
                    after=0.2))
    m = new_message()
    read = tool_use("Read", {"file_path": f"{CWD}/src/invoice_tool/totals.py", "offset": 30, "limit": 6})
    add(assistant(m, read))
    add(tool_result(read, numbered(TOTALS), sidecar={"type": "text", "file": {
        "filePath": f"{CWD}/src/invoice_tool/totals.py", "content": TOTALS, "numLines": 6, "startLine": 30,
        "totalLines": 58}}))
    add(event(type="rate_limit_event", rate_limit_info={"status": "allowed", "resetsAt": 1786705200,
                                                        "rateLimitType": "five_hour", "isUsingOverage": False}))
    # A sub-agent checks the other callers: its prompt, words and call carry its Task's id.
    m = new_message()
    prompt = "Find every caller of tax_amount() in src/ and say whether any relies on the pre-discount base."
    task = tool_use("Task", {"description": "Check other tax callers", "subagent_type": "Explore",
                             "prompt": prompt})
    add(assistant(m, task))
    sub = task["id"]
    add(event(type="user", message={"role": "user", "content": [{"type": "text", "text": prompt}]},
              parent_tool_use_id=sub, timestamp=stamp(0.2)))
    m = new_message()
    add(assistant(m, {"type": "text", "text": "Searching `src/` for callers of `tax_amount`."}, parent=sub))
    callers = tool_use("Grep", {"pattern": "tax_amount\\(", "path": f"{CWD}/src", "output_mode": "content", "-n": True})
    add(assistant(m, callers, parent=sub))
    add(tool_result(callers, "src/invoice_tool/totals.py:22:def tax_amount(base: Decimal, rate: Decimal) -> Decimal:\n"
                             "src/invoice_tool/totals.py:34:    tax = tax_amount(base, invoice.tax_rate)",
                    sidecar={"mode": "content", "numFiles": 1, "filenames": [], "content": "…", "numLines": 2},
                    after=0.3, parent=sub))
    m = new_message()
    found = "Only `invoice_total` calls `tax_amount`: no other caller depends on the pre-discount base."
    add(assistant(m, {"type": "text", "text": found}, parent=sub))
    add(tool_result(task, found, sidecar={"status": "completed", "prompt": prompt, "totalToolUseCount": 1,
                                          "content": [{"type": "text", "text": found}]}, after=0.4))
    m = new_message()
    add(assistant(m, {"type": "text", "text": "The tax base should be `taxed`, not `base`. Fixing it:"}))
    edit = tool_use("Edit", {"file_path": f"{CWD}/src/invoice_tool/totals.py",
                             "old_string": "    tax = tax_amount(base, invoice.tax_rate)",
                             "new_string": "    tax = tax_amount(taxed, invoice.tax_rate)"})
    add(assistant(m, edit))
    add(tool_result(edit, f"The file {CWD}/src/invoice_tool/totals.py has been updated. Here's the result of "
                          "running `cat -n` on a snippet of the edited file:\n" + numbered(TOTALS)))
    m = new_message()
    run2 = tool_use("Bash", {"command": "python -m pytest -q tests/test_totals.py",
                             "description": "Run the totals tests again"})
    add(assistant(m, run2))
    add(tool_result(run2, PASSING.rstrip("\n"), sidecar={"stdout": PASSING, "stderr": "", "interrupted": False,
                                                         "isImage": False}, after=1.8))
    m = new_message()
    final = ("Fixed. In `invoice_total`, tax was computed on the **subtotal**; it is now computed on the "
             "discounted amount:\n\n```python\ntax = tax_amount(taxed, invoice.tax_rate)\n```\n\n"
             "All 14 tests pass.")
    add(assistant(m, {"type": "text", "text": final}))
    add(event(type="result", subtype="success", is_error=False, duration_ms=int(_clock[0] * 1000) + 2400,
              duration_api_ms=int(_clock[0] * 1000) - 800, num_turns=7, result=final, stop_reason="end_turn",
              total_cost_usd=0.1184, usage={"input_tokens": 21, "cache_creation_input_tokens": 2884,
                                            "cache_read_input_tokens": 127_428, "output_tokens": 672},
              permission_denials=[]))
    return out


def main() -> int:
    events = build()
    text = "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in events)
    # Every call started has its result, after it; the result is the last event.
    started = [p["id"] for e in events if e["type"] == "assistant" for p in e["message"]["content"]
               if p["type"] == "tool_use"]
    ended = [p["tool_use_id"] for e in events if e["type"] == "user" for p in e["message"]["content"]
             if p["type"] == "tool_result"]
    assert sorted(started) == sorted(ended) and len(set(started)) == len(started)
    assert events[-1]["type"] == "result"
    OUT.write_text(text, encoding="utf-8", newline="")
    print(f"{OUT.name}  {len(events)} lines  {len(text.encode())} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
