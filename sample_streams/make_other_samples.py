"""Write ``codex_run.ndjson`` and ``gemini_run.ndjson``: made-up but realistic runs of
OpenAI Codex (``codex exec --json``, 0.46+ shape) and Gemini CLI (``gemini -p ...
--output-format stream-json``), in the shapes shared/stream-json.md sections 4 and 5 give
(from each CLI's source and the captured streams it cites).

    python3 sample_streams/make_other_samples.py

Standard library only; always the same bytes.  Both fix the failing test of
``invoice-tool`` that the Cursor demo and the Claude Code sample fix.  Codex's run: reasoning
summaries, a to-do list ticked off as it goes (``item.updated``), a command that fails and
then passes, a file change, and the turn's usage (no event of Codex's carries a time).
Gemini's: the prompt echoed, text in chunks, a read, a search, a failing then passing
command, an edit, a read of a file that is not there, and the result's stats, every event
with its ISO time.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
CWD = "/home/maya/code/invoice-tool"

FAIL = """\
============================= test session starts ==============================
collected 4 items

tests/test_totals.py ..F.                                                 [100%]

=================================== FAILURES ===================================
______________________ test_total_rounds_to_cents ______________________________

    def test_total_rounds_to_cents():
>       assert total([Line(3, 19.99)], tax_rate=0.0825) == 64.92
E       assert 64.91 == 64.92

tests/test_totals.py:18: AssertionError
=========================== short test summary info ============================
FAILED tests/test_totals.py::test_total_rounds_to_cents - assert 64.91 == 64.92
========================= 1 failed, 3 passed in 0.08s ==========================
"""
PASS = """\
============================= test session starts ==============================
collected 31 items

tests/test_invoice.py ...........                                         [ 35%]
tests/test_tax.py ................                                        [ 87%]
tests/test_totals.py ....                                                 [100%]

============================== 31 passed in 0.41s ==============================
"""
ANSWER = (
    "The failure came from `total()` rounding each line before adding tax, so a 3 × $19.99 "
    "order lost a cent. I changed `src/invoice_tool/totals.py` to add the tax first and round "
    "once, half up, with `Decimal`:\n\n"
    "- `total()` now returns `quantize(Decimal(\"0.01\"), ROUND_HALF_UP)` of the taxed sum\n"
    "- the test expectations are unchanged\n\n"
    "The full suite passes (31 tests)."
)


# -- Codex ----------------------------------------------------------------------------


def codex_run() -> list[dict]:
    todo = ["Reproduce the failing test", "Fix rounding in totals.py", "Run the full suite"]

    def todos(done: int) -> dict:
        return {"id": "item_1", "type": "todo_list", "items": [{"text": t, "completed": i < done}
                                                             for i, t in enumerate(todo)]}

    def command(iid: str, cmd: str, output: str | None = None, code: int | None = None) -> dict:
        item = {"id": iid, "type": "command_execution", "command": f"bash -lc {json.dumps(cmd)}",
                "aggregated_output": output or "", "exit_code": code,
                "status": "in_progress" if code is None else "completed" if code == 0 else "failed"}
        if code is None:
            del item["exit_code"]
        return item

    pytest_one = "python -m pytest -q tests/test_totals.py"
    return [
        {"type": "thread.started", "thread_id": "019a6f3e-2c41-7d12-9b0e-5a8c3f1d7e20"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning",
                                            "text": "**Planning the fix for the failing totals test**"}},
        {"type": "item.started", "item": todos(0)},
        {"type": "item.started", "item": command("item_2", pytest_one)},
        {"type": "item.completed", "item": command("item_2", pytest_one, FAIL, 1)},
        {"type": "item.updated", "item": todos(1)},
        {"type": "item.started", "item": command("item_3", "sed -n '1,40p' src/invoice_tool/totals.py")},
        {"type": "item.completed", "item": command(
            "item_3", "sed -n '1,40p' src/invoice_tool/totals.py",
            "from dataclasses import dataclass\n\n\n@dataclass\nclass Line:\n    quantity: int\n"
            "    unit_price: float\n\n\ndef total(lines, tax_rate):\n"
            "    subtotal = sum(round(l.quantity * l.unit_price, 2) for l in lines)\n"
            "    return round(subtotal * (1 + tax_rate), 2)\n", 0)},
        {"type": "item.completed", "item": {"id": "item_4", "type": "reasoning",
                                            "text": "**Rounding once, half up, after tax**"}},
        {"type": "item.completed", "item": {"id": "item_5", "type": "file_change", "status": "completed",
                                            "changes": [{"path": f"{CWD}/src/invoice_tool/totals.py",
                                                         "kind": "update"}]}},
        {"type": "item.updated", "item": todos(2)},
        {"type": "item.started", "item": command("item_6", "python -m pytest -q")},
        {"type": "item.completed", "item": command("item_6", "python -m pytest -q", PASS, 0)},
        {"type": "item.completed", "item": todos(3)},
        {"type": "item.completed", "item": {"id": "item_7", "type": "agent_message", "text": ANSWER}},
        {"type": "turn.completed", "usage": {"input_tokens": 48_210, "cached_input_tokens": 41_984,
                                             "output_tokens": 1_874}},
    ]


# -- Gemini CLI ------------------------------------------------------------------------

T0 = datetime(2026, 8, 14, 9, 30, 0, tzinfo=timezone.utc)
_clock = [0.0]


def stamp(after: float) -> str:
    _clock[0] += after
    t = T0 + timedelta(seconds=_clock[0])
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def gemini_run() -> list[dict]:
    n = [0]

    def ev(after: float, **fields) -> dict:
        return {"type": fields.pop("type"), "timestamp": stamp(after), **fields}

    def text(*chunks: str) -> list[dict]:
        return [ev(0.15, type="message", role="assistant", content=c, delta=True) for c in chunks]

    def call(name: str, params: dict, took: float, **result) -> list[dict]:
        n[0] += 1
        tid = f"{name}_1755163800{n[0]:03d}_0"
        return [ev(0.3, type="tool_use", tool_name=name, tool_id=tid, parameters=params),
                ev(took, type="tool_result", tool_id=tid, **result)]

    totals = f"{CWD}/src/invoice_tool/totals.py"
    return [
        ev(0.0, type="init", session_id="c7f1e2a0-5b2d-4f0e-9a51-0d3e2b1c4a77", model="gemini-2.5-pro"),
        ev(0.01, type="message", role="user",
           content="CI is red on main: find out why tests/test_totals.py fails and fix the code. "
                   "Don't change the test expectations."),
        *text("I'll run the failing test first to see ", "what it expects."),
        *call("run_shell_command", {"command": "python -m pytest -q tests/test_totals.py",
                                    "description": "Run the failing test file."}, 2.1,
              status="success", output=FAIL),
        *text("The total is a cent short. ", "Let me read `totals.py`."),
        *call("read_file", {"file_path": totals}, 0.1, status="success", output=""),
        *call("grep_search", {"pattern": "round\\(", "dir_path": f"{CWD}/src"}, 0.2, status="success",
              output="Found 2 matches"),
        *call("read_file", {"file_path": f"{CWD}/src/invoice_tool/rounding.py"}, 0.1, status="error",
              error={"type": "file_not_found", "message": f"File not found: {CWD}/src/invoice_tool/rounding.py"}),
        *text("Each line is rounded before tax is added. ", "I'll round once, after tax, half up."),
        *call("replace", {"file_path": totals, "instruction": "Round once, half up, after adding tax.",
                          "old_string": "    subtotal = sum(round(l.quantity * l.unit_price, 2) for l in lines)\n"
                                        "    return round(subtotal * (1 + tax_rate), 2)\n",
                          "new_string": "    subtotal = sum(Decimal(str(l.unit_price)) * l.quantity for l in lines)\n"
                                        "    taxed = subtotal * (1 + Decimal(str(tax_rate)))\n"
                                        "    return float(taxed.quantize(Decimal(\"0.01\"), ROUND_HALF_UP))\n"},
              0.4, status="success", output=f"Successfully modified file: {totals} (1 replacements)."),
        *call("run_shell_command", {"command": "python -m pytest -q", "description": "Run the full suite."}, 2.6,
              status="success", output=PASS),
        *text(ANSWER[:120], ANSWER[120:260], ANSWER[260:]),
        ev(0.2, type="result", status="success",
           stats={"total_tokens": 61_540, "input_tokens": 58_912, "output_tokens": 2_628, "cached": 44_160,
                  "input": 14_752, "duration_ms": 19_820, "tool_calls": 6}),
    ]


def write(name: str, events: list[dict]) -> Path:
    out = HERE / name
    out.write_bytes("".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n"
                            for e in events).encode())
    return out


def main() -> int:
    for name, events in (("codex_run.ndjson", codex_run()), ("gemini_run.ndjson", gemini_run())):
        print(write(name, events))
    return 0


if __name__ == "__main__":
    sys.exit(main())
