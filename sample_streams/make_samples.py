#!/usr/bin/env python3
"""Generate the sample Cursor CLI ``--output-format stream-json`` files in this directory.

Everything here is made up (ids, timestamps, the "invoice-tool" project), but every line
follows the shapes seen in real Cursor CLI 2026.08+ captures (see
``/work/shared/stream-json.md``): ``tool_call`` objects carry ``<kind>ToolCall`` plus the
sibling keys ``hookAdditionalContexts``/``toolCallId``/``startedAtMs``/``completedAtMs``
(int64 as strings), ``call_id`` values contain an (escaped) newline, pre-tool assistant
segments carry ``model_call_id`` + ``timestamp_ms`` and the final one carries neither, and
``result.result`` is every consolidated assistant segment concatenated with no separator.

Stdlib only and fully deterministic: running it twice produces byte-identical files.

    python3 sample_streams/make_samples.py          # (re)generate + validate
"""
from __future__ import annotations

import difflib
import hashlib
import json
import random
import re
import shlex
import string
import sys
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parent

# ---------------------------------------------------------------------------
# The fake project the sessions work on ("invoice-tool").
# ---------------------------------------------------------------------------

CWD = "/home/maya/code/invoice-tool"

PYPROJECT = '''[build-system]
requires = ["hatchling>=1.24"]
build-backend = "hatchling.build"

[project]
name = "invoice-tool"
version = "0.4.1"
description = "Create, total and export customer invoices from TOML files"
readme = "README.md"
requires-python = ">=3.11"
license = "MIT"
authors = [{ name = "Maya Okafor", email = "maya@northwind.example" }]
dependencies = ["rich>=13.7"]

[project.optional-dependencies]
preview = ["textual>=0.79"]
pdf = ["reportlab>=4.2"]
dev = ["pytest>=8.2", "pytest-cov>=5.0", "ruff>=0.6"]

[project.scripts]
invoice-tool = "invoice_tool.cli:main"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["src"]
addopts = "-ra"

[tool.coverage.run]
source = ["invoice_tool"]
branch = true

[tool.ruff]
line-length = 100
target-version = "py311"
'''

README = '''# invoice-tool

Small command-line helper we use to total and export customer invoices.

```console
$ invoice-tool summary examples/northwind.toml
$ invoice-tool preview examples/northwind.toml   # needs the [preview] extra
```

Amounts are `Decimal` end to end; tax is charged on the discounted subtotal.
'''

GITIGNORE = '''__pycache__/
*.egg-info/
.venv/
.coverage
dist/
'''

INIT_PY = '''"""invoice-tool: totals and exports for customer invoices."""

__version__ = "0.4.1"
'''

MODELS_PY = '''"""Core invoice data structures."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal


@dataclass(frozen=True)
class LineItem:
    description: str
    unit_price: Decimal
    quantity: int = 1

    def __post_init__(self) -> None:
        if self.quantity < 0:
            raise ValueError("quantity must be non-negative")
        if not isinstance(self.unit_price, Decimal):
            raise TypeError("unit_price must be a Decimal")


@dataclass(frozen=True)
class Discount:
    """``kind`` is "percent" (value 0-100) or "fixed" (an amount)."""

    kind: str
    value: Decimal


@dataclass
class Invoice:
    number: str
    customer: str
    items: list[LineItem] = field(default_factory=list)
    discount: Discount | None = None
    tax_rate: Decimal = Decimal("0.08")
    issued: date = field(default_factory=date.today)
    currency: str = "USD"
    customer_vat: str | None = None

    def add(self, description: str, unit_price: str, quantity: int = 1) -> LineItem:
        item = LineItem(description, Decimal(unit_price), quantity)
        self.items.append(item)
        return item
'''

TOTALS_BEFORE = '''"""Invoice total calculations.

All helpers take and return ``Decimal`` values in the invoice currency.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Iterable

from .models import Discount, Invoice, LineItem

TWO_PLACES = Decimal("0.01")


def line_total(item: LineItem) -> Decimal:
    """Quantity times unit price, before any discount or tax."""
    return item.unit_price * item.quantity


def subtotal(items: Iterable[LineItem]) -> Decimal:
    return sum((line_total(item) for item in items), Decimal("0"))


def discount_amount(base: Decimal, discount: Discount | None) -> Decimal:
    if discount is None:
        return Decimal("0")
    if discount.kind == "percent":
        return base * discount.value / Decimal(100)
    if discount.kind == "fixed":
        return min(discount.value, base)
    raise ValueError(f"unknown discount kind: {discount.kind!r}")


def tax_amount(base: Decimal, rate: Decimal) -> Decimal:
    return Decimal(round(float(base * rate), 2))


def invoice_total(invoice: Invoice) -> dict[str, Decimal]:
    """Breakdown shown on the PDF and in the CLI summary."""
    sub = subtotal(invoice.items)
    tax = tax_amount(sub, invoice.tax_rate)
    disc = discount_amount(sub, invoice.discount)
    total = sub - disc + tax
    return {
        "subtotal": sub.quantize(TWO_PLACES),
        "discount": disc.quantize(TWO_PLACES),
        "tax": tax.quantize(TWO_PLACES),
        "total": total.quantize(TWO_PLACES),
    }
'''

TOTALS_AFTER = '''"""Invoice total calculations.

All helpers take and return ``Decimal`` values in the invoice currency.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Iterable

from .models import Discount, Invoice, LineItem
from .money import quantize_money


def line_total(item: LineItem) -> Decimal:
    """Quantity times unit price, before any discount or tax."""
    return item.unit_price * item.quantity


def subtotal(items: Iterable[LineItem]) -> Decimal:
    return sum((line_total(item) for item in items), Decimal("0"))


def discount_amount(base: Decimal, discount: Discount | None) -> Decimal:
    if discount is None:
        return Decimal("0")
    if discount.kind == "percent":
        return base * discount.value / Decimal(100)
    if discount.kind == "fixed":
        return min(discount.value, base)
    raise ValueError(f"unknown discount kind: {discount.kind!r}")


def tax_amount(base: Decimal, rate: Decimal) -> Decimal:
    """Tax on ``base``, rounded half-up to whole cents (never via float)."""
    return quantize_money(base * rate)


def invoice_total(invoice: Invoice) -> dict[str, Decimal]:
    """Breakdown shown on the PDF and in the CLI summary.

    Tax is charged on the discounted amount, not on the gross subtotal.
    """
    sub = subtotal(invoice.items)
    disc = discount_amount(sub, invoice.discount)
    taxable = sub - disc
    tax = tax_amount(taxable, invoice.tax_rate)
    total = taxable + tax
    return {
        "subtotal": quantize_money(sub),
        "discount": quantize_money(disc),
        "tax": tax,
        "total": quantize_money(total),
    }
'''

MONEY_PY = '''"""Money helpers shared by the totals code and the exporters."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def quantize_money(value: Decimal) -> Decimal:
    """Round ``value`` to whole cents, ties away from zero.

    Never round money through ``float``: ``round(1.005, 2)`` is ``1.0`` because
    1.005 is stored as 1.00499999..., while this returns ``Decimal("1.01")``.
    """
    return value.quantize(CENT, rounding=ROUND_HALF_UP)
'''

CLI_PY = '''"""Command-line entry point: ``invoice-tool summary invoice.toml``."""
from __future__ import annotations

import argparse
import sys
import tomllib
from decimal import Decimal
from pathlib import Path

from .models import Discount, Invoice
from .totals import invoice_total


def load_invoice(path: Path) -> Invoice:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    invoice = Invoice(
        number=data["number"],
        customer=data["customer"],
        tax_rate=Decimal(str(data.get("tax_rate", "0.08"))),
        customer_vat=data.get("customer_vat"),
    )
    for row in data.get("items", []):
        invoice.add(row["description"], str(row["unit_price"]), int(row.get("quantity", 1)))
    if "discount" in data:
        raw = data["discount"]
        invoice.discount = Discount(raw["kind"], Decimal(str(raw["value"])))
    return invoice


def render_summary(invoice: Invoice) -> str:
    """Rich console markup for the summary footer."""
    totals = invoice_total(invoice)
    lines = [
        f"[dim]Invoice {invoice.number} · {invoice.customer}[/dim]",
        f"Subtotal: {totals['subtotal']}",
        f"Discount: -{totals['discount']}",
        f"Tax: {totals['tax']}",
        f"[bold]Total:[/bold] {round(float(totals['total']), 2):.2f} {invoice.currency}",
    ]
    return "\\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="invoice-tool")
    sub = parser.add_subparsers(dest="command", required=True)
    summary = sub.add_parser("summary", help="print invoice totals")
    summary.add_argument("path", type=Path)
    summary.add_argument("--plain", action="store_true", help="disable colors")
    preview = sub.add_parser("preview", help="open the TUI preview")
    preview.add_argument("path", type=Path)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    invoice = load_invoice(args.path)
    if args.command == "preview":
        from .preview import PreviewApp  # Textual is an optional extra

        PreviewApp(invoice).run()
        return 0
    from rich.console import Console

    Console(no_color=args.plain).print(render_summary(invoice))
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

PREVIEW_PY = '''"""Minimal Textual preview: ``invoice-tool preview invoice.toml``."""
from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Footer, Static

from .cli import render_summary
from .models import Invoice


class PreviewApp(App):
    BINDINGS = [("q", "quit", "Quit")]

    def __init__(self, invoice: Invoice) -> None:
        super().__init__()
        self.invoice = invoice

    def compose(self) -> ComposeResult:
        yield Static(render_summary(self.invoice), id="summary")
        yield Static("[@click=app.quit]Close preview[/]", id="close")
        yield Footer()
'''

EXPORTERS_INIT = '''"""Invoice exporters (CSV always available, PDF needs the [pdf] extra)."""

from .csv import export_csv

__all__ = ["export_csv"]
'''

EXPORT_CSV_BEFORE = '''"""CSV export: one row per line item plus a totals footer."""
from __future__ import annotations

import csv
import io

from ..models import Invoice
from ..totals import invoice_total

COLUMNS = ["invoice", "issued", "customer", "description", "quantity", "unit_price", "line_total"]


def export_csv(invoice: Invoice) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\\n")
    writer.writerow(COLUMNS)
    for item in invoice.items:
        writer.writerow(
            [
                invoice.number,
                invoice.issued.isoformat(),
                invoice.customer,
                item.description,
                item.quantity,
                f"{item.unit_price:.2f}",
                f"{item.unit_price * item.quantity:.2f}",
            ]
        )
    totals = invoice_total(invoice)
    for label in ("subtotal", "discount", "tax", "total"):
        writer.writerow([invoice.number, "", "", label.upper(), "", "", f"{totals[label]:.2f}"])
    return buf.getvalue()
'''

EXPORT_CSV_AFTER = '''"""CSV export: one row per line item plus a totals footer."""
from __future__ import annotations

import csv
import io

from ..models import Invoice
from ..totals import invoice_total

COLUMNS = [
    "invoice",
    "issued",
    "customer",
    "customer_vat",
    "description",
    "quantity",
    "unit_price",
    "line_total",
]


def export_csv(invoice: Invoice) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\\n")
    writer.writerow(COLUMNS)
    vat = invoice.customer_vat or ""
    for item in invoice.items:
        writer.writerow(
            [
                invoice.number,
                invoice.issued.isoformat(),
                invoice.customer,
                vat,
                item.description,
                item.quantity,
                f"{item.unit_price:.2f}",
                f"{item.unit_price * item.quantity:.2f}",
            ]
        )
    totals = invoice_total(invoice)
    for label in ("subtotal", "discount", "tax", "total"):
        writer.writerow([invoice.number, "", "", "", label.upper(), "", "", f"{totals[label]:.2f}"])
    return buf.getvalue()
'''

EXPORT_PDF = '''"""PDF export (optional dependency: reportlab)."""
from __future__ import annotations

from pathlib import Path

from ..models import Invoice
from ..totals import invoice_total


def export_pdf(invoice: Invoice, target: Path) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(target), pagesize=A4)
    canvas.setFont("Helvetica-Bold", 16)
    canvas.drawString(72, 770, f"Invoice {invoice.number}")
    canvas.setFont("Helvetica", 11)
    y = 740
    for item in invoice.items:
        canvas.drawString(72, y, f"{item.quantity} x {item.description} @ {item.unit_price:.2f}")
        y -= 16
    for label, amount in invoice_total(invoice).items():
        canvas.drawRightString(520, y - 8, f"{label.title()}: {amount:.2f} {invoice.currency}")
        y -= 16
    canvas.save()
    return target
'''

TEST_TOTALS = '''from decimal import Decimal

import pytest

from invoice_tool.models import Discount, Invoice, LineItem
from invoice_tool.totals import (
    discount_amount,
    invoice_total,
    line_total,
    subtotal,
    tax_amount,
)


def make_invoice(items, *, discount=None, tax_rate="0.08"):
    return Invoice(
        number="INV-2031",
        customer="Northwind Traders",
        items=[LineItem(desc, Decimal(price), qty) for desc, price, qty in items],
        discount=discount,
        tax_rate=Decimal(tax_rate),
    )


def test_line_total_multiplies_quantity():
    assert line_total(LineItem("Widget", Decimal("2.50"), 4)) == Decimal("10.00")


def test_subtotal_of_empty_invoice_is_zero():
    assert subtotal([]) == Decimal("0")


def test_subtotal_sums_lines():
    items = [LineItem("A", Decimal("1.10"), 3), LineItem("B", Decimal("0.45"), 2)]
    assert subtotal(items) == Decimal("4.20")


def test_percent_discount():
    assert discount_amount(Decimal("200"), Discount("percent", Decimal("15"))) == Decimal("30")


def test_fixed_discount_never_exceeds_base():
    assert discount_amount(Decimal("20"), Discount("fixed", Decimal("25"))) == Decimal("20")


def test_unknown_discount_kind_raises():
    with pytest.raises(ValueError, match="unknown discount kind"):
        discount_amount(Decimal("10"), Discount("bogo", Decimal("1")))


def test_total_without_discount():
    invoice = make_invoice([("Consulting", "120.00", 2)])
    assert invoice_total(invoice) == {
        "subtotal": Decimal("240.00"),
        "discount": Decimal("0.00"),
        "tax": Decimal("19.20"),
        "total": Decimal("259.20"),
    }


def test_total_with_percent_discount():
    invoice = make_invoice(
        [("Widget", "24.00", 3), ("Setup fee", "30.00", 1)],
        discount=Discount("percent", Decimal("10")),
    )
    result = invoice_total(invoice)
    # Tax is charged on the discounted amount (INV-142).
    assert result["tax"] == Decimal("7.34")
    assert result["total"] == Decimal("99.14")


def test_tax_rounds_half_up():
    assert tax_amount(Decimal("20.10"), Decimal("0.05")) == Decimal("1.01")
'''

TEST_MODELS = '''from decimal import Decimal

import pytest

from invoice_tool.models import Invoice, LineItem


def test_negative_quantity_is_rejected():
    with pytest.raises(ValueError):
        LineItem("Widget", Decimal("1.00"), -1)


def test_unit_price_must_be_decimal():
    with pytest.raises(TypeError):
        LineItem("Widget", 1.0, 1)


def test_add_appends_a_line_item():
    invoice = Invoice(number="INV-1", customer="Acme")
    item = invoice.add("Hosting", "49.00", 2)
    assert invoice.items == [item]
    assert item.unit_price == Decimal("49.00")


def test_default_currency_is_usd():
    assert Invoice(number="INV-2", customer="Acme").currency == "USD"
'''

TEST_CLI = '''from pathlib import Path

import pytest

from invoice_tool.cli import build_parser, load_invoice, render_summary

NORTHWIND = """
number = "INV-2031"
customer = "Northwind Traders"
tax_rate = "0.08"

[[items]]
description = "Consulting"
unit_price = "120.00"
quantity = 2
"""


def write_invoice(tmp_path: Path) -> Path:
    path = tmp_path / "northwind.toml"
    path.write_text(NORTHWIND, encoding="utf-8")
    return path


def test_load_invoice_reads_items(tmp_path):
    invoice = load_invoice(write_invoice(tmp_path))
    assert [item.description for item in invoice.items] == ["Consulting"]


def test_summary_markup_has_bold_total(tmp_path):
    summary = render_summary(load_invoice(write_invoice(tmp_path)))
    assert summary.splitlines()[-1] == "[bold]Total:[/bold] 259.20 USD"


def test_command_is_required():
    with pytest.raises(SystemExit):
        build_parser().parse_args([])
'''

TEST_EXPORT_CSV = '''from decimal import Decimal

from invoice_tool.exporters import export_csv
from invoice_tool.models import Invoice


def make_invoice():
    invoice = Invoice(number="INV-7", customer="Acme", customer_vat="DE811907980")
    invoice.add("Hosting", "49.00", 2)
    invoice.add("Support", "15.50", 1)
    return invoice


def test_one_row_per_item_plus_footer():
    rows = export_csv(make_invoice()).splitlines()
    assert len(rows) == 1 + 2 + 4


def test_footer_ends_with_total():
    last = export_csv(make_invoice()).splitlines()[-1].split(",")
    assert last[-1] == "122.58"


def test_tax_rate_defaults_to_eight_percent():
    assert make_invoice().tax_rate == Decimal("0.08")
'''

DOCKERFILE = '''# syntax=docker/dockerfile:1.7
FROM python:3.12-slim AS builder
WORKDIR /src
RUN apt-get update && apt-get install -y --no-install-recommends build-essential \\
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip wheel --no-cache-dir --wheel-dir /wheels ".[pdf]"

FROM python:3.12-slim
WORKDIR /app
COPY --from=builder /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
USER 1000:1000
ENTRYPOINT ["invoice-tool"]
CMD ["--help"]
'''

NORTHWIND_TOML = '''number = "INV-2031"
customer = "Northwind Traders"
customer_vat = "GB123456789"
tax_rate = "0.08"

[discount]
kind = "percent"
value = "10"

[[items]]
description = "Widget"
unit_price = "24.00"
quantity = 3

[[items]]
description = "Setup fee"
unit_price = "30.00"
'''

PROJECT_BEFORE = {
    ".gitignore": GITIGNORE,
    "Dockerfile": DOCKERFILE,
    "README.md": README,
    "pyproject.toml": PYPROJECT,
    "examples/northwind.toml": NORTHWIND_TOML,
    "src/invoice_tool/__init__.py": INIT_PY,
    "src/invoice_tool/cli.py": CLI_PY,
    "src/invoice_tool/models.py": MODELS_PY,
    "src/invoice_tool/preview.py": PREVIEW_PY,
    "src/invoice_tool/totals.py": TOTALS_BEFORE,
    "src/invoice_tool/exporters/__init__.py": EXPORTERS_INIT,
    "src/invoice_tool/exporters/csv.py": EXPORT_CSV_BEFORE,
    "src/invoice_tool/exporters/pdf.py": EXPORT_PDF,
    "tests/test_cli.py": TEST_CLI,
    "tests/test_export_csv.py": TEST_EXPORT_CSV,
    "tests/test_models.py": TEST_MODELS,
    "tests/test_totals.py": TEST_TOTALS,
}

# Genuine `python -m pytest -q --color=yes` output captured from a scratch copy of the
# project above (before and after the fix); only the run time was normalised.
PYTEST_FAIL_OUT = (
    '\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[31mF\x1b[0m\x1b[31mF\x1b[0m\x1b[31m                                                      [100%]\x1b[0m\n'
    '=================================== FAILURES ===================================\n'
    '\x1b[31m\x1b[1m_______________________ test_total_with_percent_discount _______________________\x1b[0m\n'
    '\n'
    '    \x1b[0m\x1b[94mdef\x1b[39;49;00m\x1b[90m \x1b[39;49;00m\x1b[92mtest_total_with_percent_discount\x1b[39;49;00m():\x1b[90m\x1b[39;49;00m\n'
    '        invoice = make_invoice(\x1b[90m\x1b[39;49;00m\n'
    '            [(\x1b[33m"\x1b[39;49;00m\x1b[33mWidget\x1b[39;49;00m\x1b[33m"\x1b[39;49;00m, \x1b[33m"\x1b[39;49;00m\x1b[33m24.00\x1b[39;49;00m\x1b[33m"\x1b[39;49;00m, \x1b[94m3\x1b[39;49;00m), (\x1b[33m"\x1b[39;49;00m\x1b[33mSetup fee\x1b[39;49;00m\x1b[33m"\x1b[39;49;00m, \x1b[33m"\x1b[39;49;00m\x1b[33m30.00\x1b[39;49;00m\x1b[33m"\x1b[39;49;00m, \x1b[94m1\x1b[39;49;00m)],\x1b[90m\x1b[39;49;00m\n'
    '            discount=Discount(\x1b[33m"\x1b[39;49;00m\x1b[33mpercent\x1b[39;49;00m\x1b[33m"\x1b[39;49;00m, Decimal(\x1b[33m"\x1b[39;49;00m\x1b[33m10\x1b[39;49;00m\x1b[33m"\x1b[39;49;00m)),\x1b[90m\x1b[39;49;00m\n'
    '        )\x1b[90m\x1b[39;49;00m\n'
    '        result = invoice_total(invoice)\x1b[90m\x1b[39;49;00m\n'
    '        \x1b[90m# Tax is charged on the discounted amount (INV-142).\x1b[39;49;00m\x1b[90m\x1b[39;49;00m\n'
    '>       \x1b[94massert\x1b[39;49;00m result[\x1b[33m"\x1b[39;49;00m\x1b[33mtax\x1b[39;49;00m\x1b[33m"\x1b[39;49;00m] == Decimal(\x1b[33m"\x1b[39;49;00m\x1b[33m7.34\x1b[39;49;00m\x1b[33m"\x1b[39;49;00m)\x1b[90m\x1b[39;49;00m\n'
    "\x1b[1m\x1b[31mE       AssertionError: assert Decimal('8.16') == Decimal('7.34')\x1b[0m\n"
    "\x1b[1m\x1b[31mE        +  where Decimal('7.34') = Decimal('7.34')\x1b[0m\n"
    '\n'
    '\x1b[1m\x1b[31mtests/test_totals.py\x1b[0m:68: AssertionError\n'
    '\x1b[31m\x1b[1m___________________________ test_tax_rounds_half_up ____________________________\x1b[0m\n'
    '\n'
    '    \x1b[0m\x1b[94mdef\x1b[39;49;00m\x1b[90m \x1b[39;49;00m\x1b[92mtest_tax_rounds_half_up\x1b[39;49;00m():\x1b[90m\x1b[39;49;00m\n'
    '>       \x1b[94massert\x1b[39;49;00m tax_amount(Decimal(\x1b[33m"\x1b[39;49;00m\x1b[33m20.10\x1b[39;49;00m\x1b[33m"\x1b[39;49;00m), Decimal(\x1b[33m"\x1b[39;49;00m\x1b[33m0.05\x1b[39;49;00m\x1b[33m"\x1b[39;49;00m)) == Decimal(\x1b[33m"\x1b[39;49;00m\x1b[33m1.01\x1b[39;49;00m\x1b[33m"\x1b[39;49;00m)\x1b[90m\x1b[39;49;00m\n'
    "\x1b[1m\x1b[31mE       AssertionError: assert Decimal('1') == Decimal('1.01')\x1b[0m\n"
    "\x1b[1m\x1b[31mE        +  where Decimal('1') = tax_amount(Decimal('20.10'), Decimal('0.05'))\x1b[0m\n"
    "\x1b[1m\x1b[31mE        +    where Decimal('20.10') = Decimal('20.10')\x1b[0m\n"
    "\x1b[1m\x1b[31mE        +    and   Decimal('0.05') = Decimal('0.05')\x1b[0m\n"
    "\x1b[1m\x1b[31mE        +  and   Decimal('1.01') = Decimal('1.01')\x1b[0m\n"
    '\n'
    '\x1b[1m\x1b[31mtests/test_totals.py\x1b[0m:73: AssertionError\n'
    '\x1b[36m\x1b[1m=========================== short test summary info ============================\x1b[0m\n'
    "\x1b[31mFAILED\x1b[0m tests/test_totals.py::\x1b[1mtest_total_with_percent_discount\x1b[0m - AssertionError: assert Decimal('8.16') == Decimal('7.34')\n"
    "\x1b[31mFAILED\x1b[0m tests/test_totals.py::\x1b[1mtest_tax_rounds_half_up\x1b[0m - AssertionError: assert Decimal('1') == Decimal('1.01')\n"
    '\x1b[31m\x1b[31m\x1b[1m2 failed\x1b[0m, \x1b[32m17 passed\x1b[0m\x1b[31m in 0.19s\x1b[0m\x1b[0m\n'
)

PYTEST_PASS_OUT = (
    '\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m.\x1b[0m\x1b[32m                                                      [100%]\x1b[0m\n'
    '\x1b[32m\x1b[32m\x1b[1m19 passed\x1b[0m\x1b[32m in 0.12s\x1b[0m\x1b[0m\n'
)

# ---------------------------------------------------------------------------
# Deterministic ids and JSON encoding
# ---------------------------------------------------------------------------


def dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _h(seed: str) -> str:
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def make_uuid4(seed: str) -> str:
    h = _h(seed)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


def make_fc_uuid(seed: str) -> str:
    # The fc_ half of real call ids has a '9' in the version position (…-904d-…, …-9851-…).
    h = _h("fc:" + seed)
    return f"{h[:8]}-{h[8:12]}-9{h[13:16]}-{h[16:20]}-{h[20:32]}"


def suffix4(seed: str) -> str:
    n = int(_h("mc:" + seed), 16)
    alphabet = string.ascii_lowercase + string.digits
    return "".join(alphabet[(n >> (6 * i)) % 36] for i in range(4))


def word_chunks(text: str, rng: random.Random, lo: int = 1, hi: int = 3) -> list[str]:
    """Split reasoning text into phrase-sized deltas (leading whitespace kept)."""
    toks = re.findall(r"\s*\S+|\s+$", text)
    assert "".join(toks) == text
    out, i = [], 0
    while i < len(toks):
        n = rng.randint(lo, hi)
        out.append("".join(toks[i : i + n]))
        i += n
    return out


def token_chunks(text: str, rng: random.Random) -> list[str]:
    """Token-sized pieces as sent with --stream-partial-output ("`", "sample", ".txt", ...)."""
    toks = re.findall(r"\s*[A-Za-z0-9_’']+|\s*[^\sA-Za-z0-9_’']|\s+", text)
    assert "".join(toks) == text
    out: list[str] = []
    for tok in toks:
        # long words are occasionally split in two, like real BPE pieces ("clar" + "ifying")
        core = tok.lstrip()
        if len(core) > 8 and core.isalpha() and rng.random() < 0.5:
            cut = len(tok) - len(core) + rng.randint(3, len(core) - 3)
            out.extend([tok[:cut], tok[cut:]])
        else:
            out.append(tok)
    return out


# ---------------------------------------------------------------------------
# Stream builder
# ---------------------------------------------------------------------------


class Call:
    def __init__(self, kind, call_id, args, description, model_call_id, index):
        self.kind = kind
        self.index = index
        self.call_id = call_id
        self.args = args
        self.description = description
        self.model_call_id = model_call_id
        self.started_at = None


class Run:
    """One ``cursor-agent -p --output-format stream-json`` process."""

    def __init__(self, slug, *, session_id, cwd, model, t0, first_event_after=2900):
        self.slug = slug
        self.session_id = session_id
        self.cwd = cwd
        self.model = model
        self.request_id = make_uuid4(slug + ":request")
        self.rng = random.Random(slug)
        self.t0 = t0
        self.now = t0 + first_event_after
        self.events: list = []  # dicts, or a raw str for a deliberately broken line
        self.segments: list[str] = []
        self.turn = -1
        self.model_call_id = None
        self.call_index = 0
        self.fc = None
        self.pending = ""

    # -- plumbing ----------------------------------------------------------
    def emit(self, obj):
        self.events.append(obj)
        return obj

    def tick(self, lo, hi):
        self.now += self.rng.randint(lo, hi)
        return self.now

    def wait(self, lo, hi):
        self.now += self.rng.randint(lo, hi)

    def stream_tick(self):
        """Gap between two streamed deltas: mostly bursts in the same few ms, sometimes a pause."""
        r = self.rng.random()
        if r < 0.08:
            return self.tick(40, 320)
        if r < 0.45:
            return self.tick(0, 0)
        return self.tick(1, 6)

    # -- fixed events ------------------------------------------------------
    def init(self):
        self.emit(
            {
                "type": "system",
                "subtype": "init",
                "apiKeySource": "login",
                "cwd": self.cwd,
                "session_id": self.session_id,
                "model": self.model,
                "permissionMode": "default",
            }
        )

    def user(self, text):
        self.emit(
            {
                "type": "user",
                "message": {"role": "user", "content": [{"type": "text", "text": text}]},
                "session_id": self.session_id,
            }
        )

    def new_turn(self):
        self.turn += 1
        self.model_call_id = f"{self.request_id}-{self.turn}-{suffix4(f'{self.slug}:{self.turn}')}"
        self.call_index = 0
        self.fc = make_fc_uuid(f"{self.slug}:{self.turn}")

    # -- reasoning and text ------------------------------------------------
    def think(self, text, gap=(1100, 2600), completed=True):
        self.wait(*gap)
        for chunk in word_chunks(text, self.rng):
            self.emit(
                {
                    "type": "thinking",
                    "subtype": "delta",
                    "text": chunk,
                    "session_id": self.session_id,
                    "timestamp_ms": self.stream_tick(),
                }
            )
        if completed:
            self.emit(
                {
                    "type": "thinking",
                    "subtype": "completed",
                    "session_id": self.session_id,
                    "timestamp_ms": self.tick(0, 2),
                }
            )

    def _assistant(self, text, *, model_call_id=None, ts=None):
        obj = {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
            "session_id": self.session_id,
        }
        if model_call_id is not None:
            obj["model_call_id"] = model_call_id
        if ts is not None:
            obj["timestamp_ms"] = ts
        return self.emit(obj)

    def say(self, text):
        """A whole pre-tool segment (no --stream-partial-output)."""
        self.segments.append(text)
        self._assistant(text, model_call_id=self.model_call_id, ts=self.tick(1, 5))

    def say_final(self, text):
        """The last segment of the run: neither model_call_id nor timestamp_ms."""
        self.wait(len(text) * 6, len(text) * 9)  # time to stream it before it is emitted
        self.segments.append(text)
        self._assistant(text)

    def stream(self, text, gap=(400, 900)):
        """--stream-partial-output deltas (timestamp_ms, no model_call_id)."""
        self.wait(*gap)
        for tok in token_chunks(text, self.rng):
            self._assistant(tok, ts=self.stream_tick())
        self.pending += text

    def flush(self, kind):
        """Consolidated re-send of the buffered segment.

        kind: "tool" (before a tool call: model_call_id + timestamp_ms), "query" (before an
        interaction_query: timestamp_ms only), "final" (end of run: neither).
        """
        text, self.pending = self.pending, ""
        self.segments.append(text)
        if kind == "tool":
            self._assistant(text, model_call_id=self.model_call_id, ts=self.tick(0, 2))
        elif kind == "query":
            self._assistant(text, ts=self.tick(300, 1200))
        elif kind == "final":
            self.wait(5, 40)
            self._assistant(text)
        else:
            raise ValueError(kind)

    # -- tools -------------------------------------------------------------
    def prepare(self, kind, args, description=None):
        idx = self.call_index
        self.call_index += 1
        call_id = (
            f"call-{make_uuid4(f'{self.slug}:call:{self.turn}:{idx}')}-{self.turn}"
            f"\nfc_{self.fc}_{idx}"
        )
        if callable(args):
            args = args(call_id)
        return Call(kind, call_id, args, description, self.model_call_id, idx)

    def _tool_obj(self, call, *, with_args=True, result=None, completed_at=None):
        inner = {}
        if with_args and call.args is not None:
            inner["args"] = call.args
        if result is not None:
            inner["result"] = result
        if call.description is not None and with_args:
            inner["description"] = call.description
        obj = {
            call.kind: inner,
            "hookAdditionalContexts": [],
            "toolCallId": call.call_id,
            "startedAtMs": str(call.started_at),
        }
        if completed_at is not None:
            obj["completedAtMs"] = str(completed_at)
        return obj

    def emit_started(self, call, *, ts=None, started_at=None):
        if ts is None:
            ts = self.tick(0, 1) if call.index == 0 else self.tick(70, 160)
        if started_at is None:
            started_at = ts - self.rng.randint(45, 150)
        call.started_at = started_at
        self.now = max(self.now, ts)
        self.emit(
            {
                "type": "tool_call",
                "subtype": "started",
                "call_id": call.call_id,
                "tool_call": self._tool_obj(call),
                "model_call_id": call.model_call_id,
                "session_id": self.session_id,
                "timestamp_ms": ts,
            }
        )
        return call

    def start(self, kind, args, description=None):
        return self.emit_started(self.prepare(kind, args, description))

    def complete(self, call, result, *, duration, with_args=True):
        completed_at = call.started_at + duration
        ts = max(completed_at + self.rng.randint(25, 60), self.now + 1)
        self.now = ts
        if callable(result):
            result = result(duration)
        self.emit(
            {
                "type": "tool_call",
                "subtype": "completed",
                "call_id": call.call_id,
                "tool_call": self._tool_obj(
                    call, with_args=with_args, result=result, completed_at=completed_at
                ),
                "model_call_id": call.model_call_id,
                "session_id": self.session_id,
                "timestamp_ms": ts,
            }
        )

    # -- other events --------------------------------------------------------
    def retry(self, attempt, gap):
        self.wait(*gap)
        self.emit(
            {
                "type": "retry",
                "subtype": "starting",
                "attempt": attempt,
                "is_resume": True,
                "session_id": self.session_id,
            }
        )

    def result(self, usage, tail=(350, 900)):
        self.wait(*tail)
        duration = self.now - self.t0
        self.emit(
            {
                "type": "result",
                "subtype": "success",
                "duration_ms": duration,
                "duration_api_ms": duration,
                "is_error": False,
                "result": "".join(self.segments),
                "session_id": self.session_id,
                "request_id": self.request_id,
                "usage": usage,
            }
        )

    def error_result(self, message, tail=(200, 600)):
        self.wait(*tail)
        duration = self.now - self.t0
        self.emit(
            {
                "type": "result",
                "subtype": "error",
                "duration_ms": duration,
                "duration_api_ms": duration,
                "is_error": True,
                "result": message,
                "session_id": self.session_id,
                "request_id": self.request_id,
            }
        )


# ---------------------------------------------------------------------------
# Tool payload helpers
# ---------------------------------------------------------------------------


def parse_simple_commands(cmd: str) -> list[dict]:
    out = []
    for part in re.split(r"\s*(?:&&|\|\||\||;)\s*", cmd.strip()):
        toks = shlex.split(part)
        name, rest = toks[0], toks[1:]
        out.append(
            {
                "name": name,
                "args": [
                    {"type": "number" if re.fullmatch(r"-?\d+(?:\.\d+)?", t) else "word", "value": t}
                    for t in rest
                ],
                "fullText": part,
            }
        )
    return out


def shell_args(run: Run, command: str, description: str, timeout: int = 30000):
    def build(call_id):
        cmds = parse_simple_commands(command)
        return {
            "command": command,
            "workingDirectory": "",
            "timeout": timeout,
            "toolCallId": call_id,
            "simpleCommands": [c["name"] for c in cmds],
            "hasInputRedirect": False,
            "hasOutputRedirect": False,
            "parsingResult": {
                "parsingFailed": False,
                "executableCommands": cmds,
                "hasRedirects": False,
                "hasCommandSubstitution": False,
                "redirects": [],
            },
            "fileOutputThresholdBytes": "40000",
            "isBackground": False,
            "skipApproval": False,
            "timeoutBehavior": "TIMEOUT_BEHAVIOR_BACKGROUND",
            "hardTimeout": 86400000,
            "description": description,
            "closeStdin": True,
            "conversationId": run.session_id,
            "adminCommandDenylist": [],
        }

    return build


def shell_outcome(command, *, stdout="", stderr="", exit_code=0, local_ms, outcome="success", signal=""):
    def build(duration):
        return {
            outcome: {
                "command": command,
                "workingDirectory": "",
                "exitCode": exit_code,
                "signal": signal,
                "stdout": stdout,
                "stderr": stderr,
                "executionTime": duration,
                "interleavedOutput": stdout + stderr,
                "localExecutionTimeMs": local_ms,
            },
            "isBackground": False,
        }

    return build


def shell(run: Run, command: str, description: str, timeout: int = 30000):
    return run.start("shellToolCall", shell_args(run, command, description, timeout), description)


def read_result(abs_path: str, text: str, start: int = 1, limit: int | None = None):
    lines = text.splitlines(keepends=True)
    sel = lines[start - 1 : start - 1 + limit] if limit else lines[start - 1 :]
    return {
        "success": {
            "content": "".join(sel),
            "isEmpty": not text,
            "exceededLimit": False,
            "totalLines": len(lines),
            "fileSize": len(text.encode("utf-8")),
            "path": abs_path,
            "readRange": {"startLine": start, "endLine": start - 1 + len(sel)},
        }
    }


def unified_diff(before: str | None, after: str, abs_path: str):
    """diffString as Cursor sends it: no trailing newline, a//b/ + absolute path."""
    if before is None:
        lines = after.splitlines()
        count = "" if len(lines) == 1 else f",{len(lines)}"
        text = f"--- /dev/null\n+++ b/{abs_path}\n@@ -1,0 +1{count} @@\n" + "\n".join(
            "+" + line for line in lines
        )
        return text, len(lines), 0
    diff = list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"a/{abs_path}", f"b/{abs_path}", lineterm=""
        )
    )
    added = sum(1 for line in diff if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in diff if line.startswith("-") and not line.startswith("---"))
    return "\n".join(diff), added, removed


def edit_result(abs_path: str, before: str | None, after: str):
    diff, added, removed = unified_diff(before, after, abs_path)
    success = {"path": abs_path, "linesAdded": added, "linesRemoved": removed, "diffString": diff}
    if before is not None:
        success["beforeFullFileContent"] = before
    success["afterFullFileContent"] = after
    success["message"] = f"Wrote contents to {abs_path}"
    return {"success": success}


def ls_tree(abs_root: str, rel_paths: list[str]) -> dict:
    tree: dict = {}
    for rel in rel_paths:
        node = tree
        *dirs, name = rel.split("/")
        for d in dirs:
            node = node.setdefault(d, {})
        node[name] = None

    def build(path, node):
        dirs = sorted(k for k, v in node.items() if v is not None)
        files = sorted(k for k, v in node.items() if v is None)
        children = [build(f"{path}/{d}", node[d]) for d in dirs]
        counts: dict[str, int] = {}
        for f in files:
            if "." in f.lstrip("."):
                ext = "." + f.rsplit(".", 1)[1]
                counts[ext] = counts.get(ext, 0) + 1
        for child in children:
            for ext, n in child["fullSubtreeExtensionCounts"].items():
                counts[ext] = counts.get(ext, 0) + n
        return {
            "absPath": path,
            "childrenDirs": children,
            "childrenFiles": [{"name": f} for f in files],
            "childrenWereProcessed": True,
            "fullSubtreeExtensionCounts": dict(sorted(counts.items())),
            "numFiles": len(files) + sum(c["numFiles"] for c in children),
        }

    return build(abs_root, tree)


def grep_content(root: str, files: dict[str, str], pattern: str, under: str, suffix: str = ".py"):
    rx = re.compile(pattern)
    matches, total = [], 0
    for rel in sorted(files):
        if not rel.startswith(under) or not rel.endswith(suffix):
            continue
        hits = [
            {"lineNumber": i, "content": line, "contentTruncated": False, "isContextLine": False}
            for i, line in enumerate(files[rel].splitlines(), 1)
            if rx.search(line)
        ]
        if hits:
            matches.append({"file": rel, "matches": hits})
            total += len(hits)
    return {
        root: {
            "content": {
                "matches": matches,
                "totalLines": total,
                "totalMatchedLines": total,
                "clientTruncated": False,
                "ripgrepTruncated": False,
            }
        }
    }


def sem_block(rel: str, text: str, first: str, last: str) -> str:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines, 1) if first in line)
    end = next(i for i, line in enumerate(lines, 1) if i >= start and last in line)
    body = "\n".join(lines[start - 1 : end])
    return f'<search_result path="{rel}" startLine="{start}" endLine="{end}">\n{body}\n</search_result>'


def todo(tid, content, status, created, updated, deps=()):
    return {
        "id": tid,
        "content": content,
        "status": f"TODO_STATUS_{status}",
        "createdAt": str(created),
        "updatedAt": str(updated),
        "dependencies": list(deps),
    }


def todos_result(todos, merge):
    return {"success": {"todos": todos, "totalCount": len(todos), "wasMerge": merge}}


def usage(inp, out, cache_read, cache_write=0):
    return {
        "inputTokens": inp,
        "outputTokens": out,
        "cacheReadTokens": cache_read,
        "cacheWriteTokens": cache_write,
    }


def A(rel: str) -> str:
    return f"{CWD}/{rel}"


# ---------------------------------------------------------------------------
# 1. reference_example.ndjson — the official doc example, modern shape
# ---------------------------------------------------------------------------

NOTES_CWD = "/home/dev/notes-app"

NOTES_README = """# notes-app

A small self-hosted notes service: Markdown notes stored in SQLite, served over a JSON API
and a minimal web UI.

## Features

- Full-text search (SQLite FTS5)
- Tags and pinned notes
- Export everything as a zip of `.md` files

## Running locally

```bash
uv sync
uv run notes-app --db ./notes.db --port 8080
```

Open http://localhost:8080 and log in with the token printed on first start.

## Status

Single-user only; multi-user support is tracked in #12.
"""

NOTES_SUMMARY = """# Summary

notes-app is a small, single-user, self-hosted notes service that stores Markdown notes in
SQLite and exposes them through a JSON API and a minimal web UI. It supports full-text search
via SQLite FTS5, tags and pinned notes, and can export every note as a zip of Markdown files.
It runs locally with `uv run notes-app --db ./notes.db --port 8080`; multi-user support is
planned but not implemented yet.
"""


def build_reference_example() -> list[Run]:
    run = Run(
        "reference_example",
        session_id=make_uuid4("reference_example:session"),
        cwd=NOTES_CWD,
        model="Claude 4 Sonnet",
        t0=1789912345000,
    )
    run.init()
    run.user("Read README.md and write a one-paragraph summary of it to SUMMARY.md")

    run.new_turn()
    run.think("Reading README.md first so the summary reflects what it actually says.")
    run.say("I'll read `README.md` first.")
    readme = f"{NOTES_CWD}/README.md"
    call = run.start("readToolCall", {"path": readme})
    run.complete(call, read_result(readme, NOTES_README), duration=412)

    run.new_turn()
    run.think(
        "The README covers storage, API, features, how to run it and the single-user limitation. "
        "One paragraph can cover all of that."
    )
    run.say("Writing the summary to `SUMMARY.md`.")
    summary = f"{NOTES_CWD}/SUMMARY.md"
    call = run.start(
        "writeToolCall",
        lambda cid: {"path": summary, "fileText": NOTES_SUMMARY, "toolCallId": cid},
    )
    run.complete(
        call,
        {
            "success": {
                "path": summary,
                "linesCreated": len(NOTES_SUMMARY.splitlines()),
                "fileSize": len(NOTES_SUMMARY.encode("utf-8")),
            }
        },
        duration=988,
    )

    run.new_turn()
    run.think("Summary written.")
    run.say_final(
        "Created `SUMMARY.md` with a one-paragraph summary: a single-user, self-hosted Markdown "
        "notes service on SQLite with search, tags, pinning and zip export."
    )
    run.result(usage(9184, 402, 12288))
    return [run]


# ---------------------------------------------------------------------------
# 2. demo_session.ndjson — the demo: fixing a failing test in invoice-tool
# ---------------------------------------------------------------------------

LINEAR_ISSUE = json.dumps(
    {
        "identifier": "INV-142",
        "title": "Invoice totals wrong when a percentage discount is applied",
        "state": "In Progress",
        "priority": 2,
        "assignee": "Maya Okafor",
        "labels": ["bug", "billing"],
        "description": (
            "Northwind reported that INV-2031 charged $99.96 but their accounting system "
            "expects $99.14. Looks like we charge sales tax on the pre-discount amount.\n\n"
            "Also seeing a one-cent drift on some tax lines (5% of $20.10 shows $1.00, "
            "should be $1.01).\n\nCI on main has been red since #88 added regression tests "
            "for both cases."
        ),
        "url": "https://linear.app/northwind-dev/issue/INV-142",
        "updatedAt": "2026-09-21T08:14:02.000Z",
    },
    indent=2,
)

DECIMAL_DOCS_MD = """# decimal — Decimal fixed-point and floating-point arithmetic

[…]

### quantize(exp, rounding=None, context=None)

Return a value equal to the first operand after rounding and having the exponent of the
second operand.

```python
>>> Decimal('1.41421356').quantize(Decimal('1.000'))
Decimal('1.414')
```

Unlike other operations, if the length of the coefficient after the quantize operation
would be greater than precision, then an `InvalidOperation` is signaled.

If *rounding* is given it is used; otherwise the rounding mode of the *context* argument
is used, and if no context is given the current thread's context is used
(`ROUND_HALF_EVEN` by default).

## Rounding modes

| Constant | Behaviour |
|---|---|
| `ROUND_CEILING` | towards Infinity |
| `ROUND_DOWN` | towards zero |
| `ROUND_FLOOR` | towards -Infinity |
| `ROUND_HALF_DOWN` | to nearest with ties going towards zero |
| `ROUND_HALF_EVEN` | to nearest with ties going to nearest even integer |
| `ROUND_HALF_UP` | to nearest with ties going away from zero |
| `ROUND_UP` | away from zero |
| `ROUND_05UP` | away from zero if last digit after rounding towards zero would have been 0 or 5; otherwise towards zero |

[…]
"""

GIT_STATUS_OUT = " M src/invoice_tool/totals.py\n?? src/invoice_tool/money.py\n"


def build_demo_session() -> list[Run]:
    files = dict(PROJECT_BEFORE)
    run = Run(
        "demo_session",
        session_id=make_uuid4("demo_session:session"),
        cwd=CWD,
        model="Composer 2.5 Fast",
        t0=1790000312000,
        first_event_after=3400,
    )
    run.init()
    run.user(
        "CI is red on main for invoice-tool (Linear INV-142). Find out why tests/test_totals.py "
        "fails and fix the code. Don't change the test expectations, and run the full suite "
        "before you finish."
    )

    # -- turn 0: issue + layout + todos, in parallel ------------------------------------
    run.new_turn()
    run.think(
        "**Getting oriented**\n\nThe user wants the failing tests in `tests/test_totals.py` fixed "
        "without touching the expectations, and points at Linear INV-142. I'll pull the issue, "
        "look at the repository layout and write a short todo list at the same time, then "
        "reproduce the failure locally before reading any code in detail."
    )
    run.say(
        "I'll start by reading **INV-142**, mapping out the repo and setting up a todo list — "
        "all in parallel."
    )
    t_created = run.now
    mcp = run.start(
        "mcpToolCall",
        lambda cid: {
            "name": "linear-get_issue",
            "args": {"id": "INV-142"},
            "toolCallId": cid,
            "providerIdentifier": "linear",
            "toolName": "get_issue",
        },
    )
    ls = run.start("lsToolCall", lambda cid: {"path": CWD, "ignore": [], "toolCallId": cid})
    todos0 = [
        todo("repro", "Reproduce the failing tests locally", "IN_PROGRESS", t_created, t_created),
        todo("root-cause", "Find the root cause in totals.py", "PENDING", t_created, t_created, ["repro"]),
        todo(
            "fix",
            "Fix the tax/discount calculation without changing test expectations",
            "PENDING",
            t_created,
            t_created,
            ["root-cause"],
        ),
        todo("verify", "Run the full suite and review the diff", "PENDING", t_created, t_created, ["fix"]),
    ]
    todo_call = run.start("updateTodosToolCall", {"todos": todos0, "merge": False})
    # completions arrive in finish order: todos, ls, then the (remote) MCP call
    run.complete(todo_call, todos_result(todos0, False), duration=236)
    run.complete(ls, {"success": {"directoryTreeRoot": ls_tree(CWD, sorted(files))}}, duration=618)
    run.complete(
        mcp,
        {"success": {"content": [{"text": {"text": LINEAR_ISSUE}}], "isError": False}},
        duration=2143,
    )

    # -- turn 1: reproduce ---------------------------------------------------------------
    run.new_turn()
    run.think(
        "**Reading the issue**\n\nINV-142 describes two symptoms: tax charged on the pre-discount "
        "amount, and a one-cent drift when 5% of $20.10 is rounded. Those sound like two separate "
        "problems — order of operations and rounding. The layout is a standard `src/` package "
        "with `totals.py` next to `models.py`. Let me run the suite to see exactly which "
        "assertions fail."
    )
    run.say(
        "The issue describes two symptoms — tax charged before the discount, and a one-cent "
        "rounding drift. Reproducing with the test suite first:"
    )
    cmd = "python -m pytest -q --color=yes"
    call = shell(run, cmd, "Run the test suite with colored output")
    run.complete(call, shell_outcome(cmd, stdout=PYTEST_FAIL_OUT, exit_code=1, local_ms=1386), duration=2617)

    # -- turn 2: read implementation + tests in parallel ---------------------------------
    run.new_turn()
    run.think(
        "**Two failures**\n\n`test_total_with_percent_discount` gets tax `8.16` instead of `7.34` "
        "— that is 8% of 102.00 rather than 8% of 91.80, so the discount is applied after tax is "
        "computed. `test_tax_rounds_half_up` gets `Decimal('1')` instead of `1.01`, which smells "
        "like float rounding: 1.005 is stored as 1.00499999… so `round()` goes down. I need "
        "`totals.py` and the tests side by side."
    )
    run.say(
        "Two failures, both in `tests/test_totals.py`:\n\n"
        "- `test_total_with_percent_discount` — tax is `8.16`, expected `7.34`\n"
        "- `test_tax_rounds_half_up` — `tax_amount()` returns `Decimal('1')` instead of "
        "`Decimal('1.01')`\n\nReading the implementation and the tests side by side."
    )
    p_totals, p_tests = "src/invoice_tool/totals.py", "tests/test_totals.py"
    r1 = run.start("readToolCall", {"path": A(p_totals)})
    r2 = run.start("readToolCall", {"path": A(p_tests)})
    run.complete(r2, read_result(A(p_tests), files[p_tests]), duration=402)
    run.complete(r1, read_result(A(p_totals), files[p_totals]), duration=655)

    # -- turn 3: grep (no assistant text in this turn) -----------------------------------
    run.new_turn()
    run.think(
        "**Both bugs are in totals.py**\n\n`invoice_total` calls `tax_amount(sub, …)` before the "
        "discount is subtracted, so tax is computed on the gross subtotal. And `tax_amount` does "
        "`Decimal(round(float(base * rate), 2))`, a round-trip through binary floats. Before I "
        "change it, let me check whether `round(` is used anywhere else in the package so I "
        "don't leave another copy of the same pattern behind."
    )
    call = run.start(
        "grepToolCall",
        lambda cid: {
            "pattern": r"round\(",
            "path": A("src"),
            "caseInsensitive": False,
            "multiline": False,
            "toolCallId": cid,
            "glob": "*.py",
            "outputMode": "content",
        },
    )
    run.complete(
        call,
        {
            "success": {
                "pattern": r"round\(",
                "path": A("src"),
                "outputMode": "content",
                "workspaceResults": grep_content(CWD, files, r"round\(", "src/"),
            }
        },
        duration=377,
    )

    # -- turn 4: semantic search + glob in parallel --------------------------------------
    run.new_turn()
    run.think(
        "**Other call sites**\n\nThe second hit is in `cli.py`: `round(float(totals['total']), 2)` "
        "inside the `[bold]Total:[/bold]` line of `render_summary`. The value is already "
        "quantized by then, so it only affects formatting. Let me find where the totals are "
        "displayed and which test files exist, so I know what else exercises this code."
    )
    sem_query = "where are invoice totals rendered or displayed to the user"
    sem = run.start(
        "semSearchToolCall",
        {
            "query": sem_query,
            "targetDirectories": [A("src")],
            "explanation": "Find every consumer of invoice_total() before changing its behaviour",
        },
    )
    glob = run.start("globToolCall", {"targetDirectory": CWD, "globPattern": "tests/**/test_*.py"})
    test_files = sorted(p for p in files if p.startswith("tests/test_"))
    run.complete(
        glob,
        {
            "success": {
                "pattern": "",
                "path": CWD,
                "files": test_files,
                "totalFiles": len(test_files),
                "clientTruncated": False,
                "ripgrepTruncated": False,
            }
        },
        duration=251,
    )
    sem_results = "\n\n".join(
        [
            sem_block("src/invoice_tool/cli.py", files["src/invoice_tool/cli.py"], "def render_summary", 'return "\\n".join(lines)'),
            sem_block("src/invoice_tool/preview.py", files["src/invoice_tool/preview.py"], "def compose", "yield Footer()"),
            sem_block(
                "src/invoice_tool/exporters/csv.py",
                files["src/invoice_tool/exporters/csv.py"],
                "totals = invoice_total(invoice)",
                "return buf.getvalue()",
            ),
            sem_block("src/invoice_tool/models.py", files["src/invoice_tool/models.py"], "class Discount", "value: Decimal"),
        ]
    )
    run.complete(sem, {"success": {"results": sem_results}}, duration=1864)

    # -- turn 5: read models.py ------------------------------------------------------------
    run.new_turn()
    run.think(
        "**Checking the types**\n\nTotals are consumed by `render_summary` (also used by the "
        "Textual preview) and the CSV exporter; none of them recompute tax. `Discount` lives in "
        "`models.py` — I'll read it to confirm `value` and `tax_rate` are `Decimal`, so the fix "
        "can stay entirely in `Decimal`."
    )
    p_models = "src/invoice_tool/models.py"
    call = run.start("readToolCall", {"path": A(p_models)})
    run.complete(call, read_result(A(p_models), files[p_models]), duration=433)

    # -- turn 6: web fetch ---------------------------------------------------------------
    run.new_turn()
    run.think(
        "**Confirming rounding semantics**\n\n`Discount.value`, `Invoice.tax_rate` and "
        "`LineItem.unit_price` are all `Decimal`, so the only float conversion is in "
        "`tax_amount`. For cents I want ties rounded away from zero, and I believe the default "
        "context uses `ROUND_HALF_EVEN`. Worth double-checking in the docs rather than guessing."
    )
    run.say(
        "Everything upstream is already `Decimal`; the only float round-trip is in "
        "`tax_amount()`. Quickly confirming the `Decimal.quantize` rounding modes before I pick one:"
    )
    url = "https://docs.python.org/3/library/decimal.html#decimal.Decimal.quantize"
    call = run.start("webFetchToolCall", lambda cid: {"url": url, "toolCallId": cid})
    run.complete(call, {"success": {"url": url, "markdown": DECIMAL_DOCS_MD}}, duration=1937)

    # -- turn 7: plan + todo update --------------------------------------------------------
    run.new_turn()
    run.think(
        "**Planning the fix**\n\n`ROUND_HALF_UP` is ties-away-from-zero, the default is half-even. "
        "Plan: add a tiny `money.py` with `quantize_money()` using `ROUND_HALF_UP`, make "
        "`tax_amount` use it, and compute tax on `subtotal - discount`. The return shape of "
        "`invoice_total` stays the same, so the CLI and exporters need no changes. Update the "
        "todo list first."
    )
    run.say(
        "## Root cause\n\n"
        "There are two independent bugs in `src/invoice_tool/totals.py`:\n\n"
        "1. **Tax is computed on the gross subtotal.** `invoice_total()` calls "
        "`tax_amount(sub, …)` *before* subtracting the discount, so a 10% discount still pays "
        "tax on the full `102.00`.\n"
        "2. **Rounding goes through `float`.** `tax_amount()` does "
        "`Decimal(round(float(base * rate), 2))`; `1.005` is really `1.00499999…` in binary, "
        "so it rounds down to `1.00`.\n\n"
        "### Plan\n\n"
        "- Add `src/invoice_tool/money.py` with one helper, `quantize_money()` "
        "(`ROUND_HALF_UP`, whole cents)\n"
        "- Use it in `tax_amount()` and for every amount returned by `invoice_total()`\n"
        "- Tax the discounted amount:\n\n"
        "```python\n"
        "taxable = sub - disc\n"
        "tax = tax_amount(taxable, invoice.tax_rate)\n"
        "total = taxable + tax\n"
        "```\n\n"
        "The tests stay exactly as they are."
    )
    t_upd = run.now
    todos1 = [
        todo("repro", "Reproduce the failing tests locally", "COMPLETED", t_created, t_upd),
        todo("root-cause", "Find the root cause in totals.py", "COMPLETED", t_created, t_upd, ["repro"]),
        todo(
            "fix",
            "Fix the tax/discount calculation without changing test expectations",
            "IN_PROGRESS",
            t_created,
            t_upd,
            ["root-cause"],
        ),
        todo("verify", "Run the full suite and review the diff", "PENDING", t_created, t_created, ["fix"]),
    ]
    merge_args = [todos1[0], todos1[1], todos1[2]]
    call = run.start("updateTodosToolCall", {"todos": merge_args, "merge": True})
    run.complete(call, todos_result(todos1, True), duration=212)

    # -- turn 8: create money.py (editToolCall without beforeFullFileContent) -----------
    run.new_turn()
    run.think(
        "**Creating the helper**\n\nStarting with the new module so `totals.py` can import it. "
        "A docstring explaining why not to use `round()` on floats will save the next person "
        "from reintroducing this."
    )
    p_money = "src/invoice_tool/money.py"
    call = run.start("editToolCall", {"path": A(p_money), "streamContent": MONEY_PY})
    run.complete(call, edit_result(A(p_money), None, MONEY_PY), duration=1309)
    files[p_money] = MONEY_PY

    # -- turn 9: edit totals.py ---------------------------------------------------------
    run.new_turn()
    run.think(
        "**Updating totals.py**\n\nNow rewrite `tax_amount` to use the helper and reorder "
        "`invoice_total` so the discount is subtracted before tax. `TWO_PLACES` becomes unused; "
        "I'll drop it in favour of `quantize_money`."
    )
    run.say("Now the fix in `totals.py` — tax on the discounted amount, and no more `float` round-trip:")
    call = run.start("editToolCall", {"path": A(p_totals), "streamContent": TOTALS_AFTER})
    run.complete(call, edit_result(A(p_totals), files[p_totals], TOTALS_AFTER), duration=1582)
    files[p_totals] = TOTALS_AFTER

    # -- turn 10: unknown tool kind (readLintsToolCall) ---------------------------------
    run.new_turn()
    run.think("**Lint check**\n\nQuick lint pass on the two files I touched before re-running the suite.")
    call = run.start("readLintsToolCall", {"paths": [A(p_money), A(p_totals)]})
    run.complete(
        call,
        {
            "success": {
                "fileDiagnostics": [
                    {"path": A(p_money), "diagnostics": []},
                    {"path": A(p_totals), "diagnostics": []},
                ],
                "totalDiagnostics": 0,
            }
        },
        duration=694,
    )

    # -- turn 11: tests pass ------------------------------------------------------------
    run.new_turn()
    run.think("**Re-running tests**\n\nNo diagnostics. Running the full suite again, same flags as before.")
    run.say("No lint issues. Re-running the full suite:")
    call = shell(run, cmd, "Re-run the test suite")
    run.complete(call, shell_outcome(cmd, stdout=PYTEST_PASS_OUT, local_ms=1179), duration=2388)

    # -- turn 12: git status + todos, in parallel ---------------------------------------
    run.new_turn()
    run.think(
        "**Wrapping up**\n\nAll 19 tests pass. I'll mark the todos as done and check `git status` "
        "to make sure only the intended files changed."
    )
    git_cmd = "git status --short"
    git = shell(run, git_cmd, "Show changed files")
    t_done = run.now
    todos2 = [dict(t, status="TODO_STATUS_COMPLETED", updatedAt=str(t_done)) for t in todos1]
    call = run.start("updateTodosToolCall", {"todos": todos2[2:], "merge": True})
    run.complete(call, todos_result(todos2, True), duration=188)
    run.complete(git, shell_outcome(git_cmd, stdout=GIT_STATUS_OUT, local_ms=41), duration=1247)

    # -- final answer -----------------------------------------------------------------------
    run.new_turn()
    run.think(
        "**Summarizing**\n\nTwo files changed and everything is green. I should mention the "
        "display-only `round()` in `cli.py` (its Rich markup is untouched) and that the Textual "
        "preview just reuses `render_summary()`."
    )
    run.say_final(
        "## Summary\n\n"
        "Fixed **INV-142** — all 19 tests pass again, and no test expectations were changed.\n\n"
        "### What was wrong\n\n"
        "- `invoice_total()` charged tax on the subtotal *before* the discount (`8.16` instead "
        "of `7.34` on the Northwind invoice, so `99.96` instead of `99.14`)\n"
        "- `tax_amount()` rounded through `float`, so `1.005` became `1.00` instead of `1.01`\n\n"
        "### Changes\n\n"
        "- **New** `src/invoice_tool/money.py` — `quantize_money()` rounds to cents with "
        "`ROUND_HALF_UP`\n"
        "- `src/invoice_tool/totals.py` — tax is computed on `subtotal - discount`, and every "
        "returned amount goes through `quantize_money()`\n\n"
        "```text\n$ python -m pytest -q\n19 passed in 0.12s\n```\n\n"
        "### Left alone (possible follow-up)\n\n"
        "- `render_summary()` in `cli.py` still formats the total with `round(float(...), 2)`. "
        "It is display-only and the value is already quantized, so it's harmless; the Rich "
        "markup there (`[bold]Total:[/bold]`) is unchanged.\n"
        "- The Textual preview's close link (`[@click=app.quit]Close preview[/]`) in "
        "`preview.py` renders the same `render_summary()` output, so it picks up the fix "
        "automatically.\n\n"
        "Nothing is committed — `git status` shows one modified file and one new file."
    )
    run.result(usage(38412, 4987, 612864))
    return [run]


# ---------------------------------------------------------------------------
# 3. failed_run.ndjson — tool failures, a rejected shell, then result/error
# ---------------------------------------------------------------------------

DOCKER_BUILD_ERR = """#0 building with "desktop-linux" instance using docker driver

#1 [internal] load build definition from Dockerfile
#1 transferring dockerfile: 598B done
#1 DONE 0.0s

#2 resolve image config for docker-image://docker.io/docker/dockerfile:1.7
#2 DONE 1.1s

#3 docker-image://docker.io/docker/dockerfile:1.7@sha256:a57df69d0ea827fb7266491f2813635de6f17269be881f696fbfdf2d83dda33e
#3 CACHED

#4 [internal] load metadata for docker.io/library/python:3.12-slim
#4 DONE 0.8s

#5 [internal] load .dockerignore
#5 transferring context: 2B done
#5 DONE 0.0s

#6 [builder 1/6] FROM docker.io/library/python:3.12-slim@sha256:2b0079146a74e23bf4ae8f6a28e1b484c6292f6fb904cbb51825b4a19812fcd8
#6 CACHED

#7 [internal] load build context
#7 transferring context: 21.84kB done
#7 DONE 0.0s

#8 [builder 2/6] WORKDIR /src
#8 CACHED

#9 [builder 3/6] RUN apt-get update && apt-get install -y --no-install-recommends build-essential     && rm -rf /var/lib/apt/lists/*
#9 CACHED

#10 [builder 4/6] COPY pyproject.toml README.md ./
#10 DONE 0.1s

#11 [builder 5/6] COPY src ./src
#11 DONE 0.0s

#12 [builder 6/6] RUN pip wheel --no-cache-dir --wheel-dir /wheels ".[pdf]"
#12 2.913 Processing /src
#12 3.207   Installing build dependencies: started
#12 9.884   Installing build dependencies: finished with status 'done'
#12 9.891   Getting requirements to build wheel: started
#12 10.12   Getting requirements to build wheel: finished with status 'done'
#12 10.13   Preparing metadata (pyproject.toml): started
#12 10.41   Preparing metadata (pyproject.toml): finished with status 'done'
#12 11.06 Collecting rich>=13.7 (from invoice-tool==0.4.1)
#12 11.32   Downloading rich-13.9.4-py3-none-any.whl.metadata (18 kB)
#12 11.88 Collecting reportlab>=4.2 (from invoice-tool==0.4.1)
#12 12.05   Downloading reportlab-4.2.5-py3-none-any.whl.metadata (1.5 kB)
#12 12.61 Collecting pillow>=9.0.0 (from reportlab>=4.2->invoice-tool==0.4.1)
#12 12.79   Downloading pillow-11.0.0.tar.gz (46.6 MB)
#12 19.47   Installing build dependencies: started
#12 31.02   Installing build dependencies: finished with status 'done'
#12 31.30 Building wheels for collected packages: invoice-tool, pillow
#12 31.31   Building wheel for pillow (pyproject.toml): started
#12 54.77 Killed
#12 ERROR: process "/bin/sh -c pip wheel --no-cache-dir --wheel-dir /wheels \\".[pdf]\\"" did not complete successfully: exit code: 137
------
 > [builder 6/6] RUN pip wheel --no-cache-dir --wheel-dir /wheels ".[pdf]":
12.79   Downloading pillow-11.0.0.tar.gz (46.6 MB)
19.47   Installing build dependencies: started
31.02   Installing build dependencies: finished with status 'done'
31.30 Building wheels for collected packages: invoice-tool, pillow
31.31   Building wheel for pillow (pyproject.toml): started
54.77 Killed
------
Dockerfile:8
--------------------
   6 |     COPY pyproject.toml README.md ./
   7 |     COPY src ./src
   8 | >>> RUN pip wheel --no-cache-dir --wheel-dir /wheels ".[pdf]"
   9 |     
  10 |     FROM python:3.12-slim
--------------------
ERROR: failed to solve: process "/bin/sh -c pip wheel --no-cache-dir --wheel-dir /wheels \\".[pdf]\\"" did not complete successfully: exit code: 137
"""


def build_failed_run() -> list[Run]:
    run = Run(
        "failed_run",
        session_id=make_uuid4("failed_run:session"),
        cwd=CWD,
        model="Claude 4 Sonnet",
        t0=1790003611000,
    )
    run.init()
    run.user(
        "Build the invoice-tool Docker image and push it to the staging registry "
        "(registry.internal.example:5000)."
    )

    run.new_turn()
    run.think(
        "**Finding the build config**\n\nI need the Dockerfile and whatever staging settings exist "
        "before building. I'll read the Dockerfile and the staging env file together."
    )
    run.say("I'll check the `Dockerfile` and the staging settings first.")
    env_path = A("deploy/.env.staging")
    r1 = run.start("readToolCall", {"path": A("Dockerfile")})
    r2 = run.start("readToolCall", {"path": env_path})
    run.complete(r2, {"error": {"message": f"File not found: {env_path}"}}, duration=188)
    run.complete(r1, read_result(A("Dockerfile"), DOCKERFILE), duration=356)

    run.new_turn()
    run.think(
        "**Building the image**\n\nThere's no `deploy/.env.staging`, but the Dockerfile is "
        "self-contained and the registry comes from the prompt. Build with the staging tag "
        "first; push only if the build succeeds."
    )
    run.say(
        "There's no `deploy/.env.staging`, but the `Dockerfile` is self-contained. Building "
        "the image with the staging tag:"
    )
    build_cmd = "docker build -t registry.internal.example:5000/invoice-tool:staging ."
    call = shell(run, build_cmd, "Build the staging Docker image", timeout=600000)
    run.complete(
        call,
        shell_outcome(build_cmd, stderr=DOCKER_BUILD_ERR, exit_code=1, local_ms=56240, outcome="failure"),
        duration=57431,
    )

    run.new_turn()
    run.think(
        "**The build was OOM-killed**\n\nThe `pip wheel` step died with exit code 137 while "
        "compiling Pillow from source — the Docker VM ran out of memory. Clearing the build "
        "cache and dangling images usually frees enough room on Docker Desktop."
    )
    run.say(
        "The build step was killed (`exit code: 137`, out of memory while compiling Pillow). "
        "I'll free up space in the Docker VM and retry:"
    )
    prune_cmd = "docker system prune -af --volumes"
    call = shell(run, prune_cmd, "Remove unused Docker data")
    run.complete(
        call,
        {
            "rejected": {
                "command": prune_cmd,
                "workingDirectory": CWD,
                "reason": "",
                "isReadonly": False,
            }
        },
        duration=903,
        with_args=False,  # real rejected completions carry no args
    )

    run.new_turn()
    run.think(
        "**Prune was rejected**\n\nThe permission layer blocked the prune, and it is destructive "
        "(it would also delete volumes), so I shouldn't retry it. Better options: pin a "
        "Pillow version that ships a manylinux wheel, or raise the",
        completed=False,  # the model stream drops mid-thought
    )
    run.retry(1, (2100, 2600))
    run.retry(2, (4100, 4700))
    run.retry(3, (8200, 8900))
    run.error_result(
        "ConnectError: [unavailable] upstream connect error or disconnect/reset before headers. "
        "reset reason: connection termination",
        tail=(15800, 16900),
    )
    return [run]


# ---------------------------------------------------------------------------
# 4. truncated_run.ndjson — process killed mid-run (partial output)
# ---------------------------------------------------------------------------


def build_truncated_run() -> list[Run]:
    run = Run(
        "truncated_run",
        session_id=make_uuid4("truncated_run:session"),
        cwd=CWD,
        model="Auto",
        t0=1790007245000,
    )
    run.init()
    run.user("Run the full test suite with coverage and tell me which modules are below 80%.")

    run.new_turn()
    run.think(
        "**Checking coverage setup**\n\nFirst see how coverage is configured in `pyproject.toml` "
        "so I use the right source package."
    )
    run.stream("I'll check how coverage is configured before running anything.")
    run.flush("tool")
    call = run.start("readToolCall", {"path": A("pyproject.toml")})
    run.complete(call, read_result(A("pyproject.toml"), PYPROJECT), duration=391)

    run.new_turn()
    run.think(
        "**Running with coverage**\n\n`pytest-cov` is in the dev extras and `[tool.coverage.run]` "
        "sets `source = [\"invoice_tool\"]` with branch coverage. I'll run the suite with a "
        "term-missing report and, in parallel, look for `pragma: no cover` exclusions that "
        "would skew the numbers."
    )
    run.stream(
        "Coverage is set up for `invoice_tool` with branch coverage. Running the suite with a "
        "per-file report now, and checking for `# pragma: no cover` exclusions in parallel."
    )
    run.flush("tool")
    cov_cmd = "python -m pytest --cov=invoice_tool --cov-report=term-missing"
    shell(run, cov_cmd, "Run tests with a coverage report", timeout=300000)  # never completes
    # The parallel grep's started line is cut off mid-JSON (the process was killed while
    # writing it): the file ends inside the tool_call object, with no trailing newline.
    grep = run.prepare(
        "grepToolCall",
        lambda cid: {
            "pattern": "pragma: no cover",
            "path": A("src"),
            "caseInsensitive": False,
            "multiline": False,
            "toolCallId": cid,
            "outputMode": "content",
        },
    )
    run.emit_started(grep)
    full = dumps(run.events.pop())
    cut = full.index('"hookAdditionalContexts"') + len('"hookAdditionalC')
    run.events.append(full[:cut])
    return [run]


# ---------------------------------------------------------------------------
# 5. partial_output.ndjson — --stream-partial-output with an interaction_query
# ---------------------------------------------------------------------------

QUESTION_SKIPPED = "Questions skipped by the user, continue with the information you already have"


def build_partial_output() -> list[Run]:
    run = Run(
        "partial_output",
        session_id=make_uuid4("partial_output:session"),
        cwd=CWD,
        model="GPT-5.6 Luna 272K High",
        t0=1790010833000,
    )
    run.init()
    run.user(
        "Which export formats does invoice-tool support today? Ask me which new one I want "
        "before writing any code."
    )

    run.new_turn()
    run.think(
        "**Checking the exporters**\n\nI'll list the exporter modules first, then ask which "
        "format to add.",
        gap=(600, 900),
    )
    run.stream("I’ll look at the existing exporters first.")
    run.flush("tool")
    call = run.start(
        "globToolCall", {"targetDirectory": A("src/invoice_tool"), "globPattern": "exporters/*.py"}
    )
    exporters = ["exporters/__init__.py", "exporters/csv.py", "exporters/pdf.py"]
    run.complete(
        call,
        {
            "success": {
                "pattern": "",
                "path": A("src/invoice_tool"),
                "files": exporters,
                "totalFiles": len(exporters),
                "clientTruncated": False,
                "ripgrepTruncated": False,
            }
        },
        duration=233,
    )

    run.new_turn()
    run.think(
        "**Preparing the question**\n\nCSV and PDF exist. Sensible next candidates: JSON, Excel, "
        "or a UBL e-invoice. One multiple-choice question is enough.",
        gap=(1300, 1800),
    )
    run.stream(
        "`invoice-tool` currently ships two exporters: **CSV** (`exporters/csv.py`) and **PDF** "
        "(`exporters/pdf.py`, needs the `[pdf]` extra). I’ll ask which format you want next."
    )
    run.flush("query")  # consolidated copy: timestamp_ms but no model_call_id
    question_args = {
        "title": "Next export format",
        "questions": [
            {
                "id": "format",
                "prompt": "Which export format should I add next?",
                "options": [
                    {"id": "json", "label": "JSON (mirrors the CSV columns)"},
                    {"id": "xlsx", "label": "Excel .xlsx"},
                    {"id": "ubl", "label": "UBL 2.1 XML e-invoice (PEPPOL)"},
                ],
                "allowMultiple": False,
            }
        ],
        "runAsync": False,
        "asyncOriginalToolCallId": "",
    }
    ask = run.prepare("askQuestionToolCall", question_args)
    request_ts = run.now
    run.emit(
        {
            "type": "interaction_query",
            "subtype": "request",
            "query_type": "askQuestionInteractionQuery",
            "query": {
                "id": 0,
                "askQuestionInteractionQuery": {"args": question_args, "toolCallId": ask.call_id},
            },
            "session_id": run.session_id,
            "timestamp_ms": request_ts,
        }
    )
    run.emit(
        {
            "type": "interaction_query",
            "subtype": "response",
            "query_type": "askQuestionInteractionQuery",
            "response": {
                "id": 0,
                "askQuestionInteractionResponse": {
                    "result": {"rejected": {"reason": QUESTION_SKIPPED}}
                },
            },
            "session_id": run.session_id,
            "timestamp_ms": run.tick(1, 2),
        }
    )
    # The started event arrives after the question already resolved; startedAtMs is earlier.
    run.emit_started(ask, ts=run.tick(80, 110), started_at=request_ts - 1163)
    run.complete(ask, {"rejected": {"reason": QUESTION_SKIPPED}}, duration=1190)

    run.new_turn()
    run.stream(
        "The question was skipped, so I haven’t written any code. When you’re ready, pick one "
        "of these:\n\n"
        "- **JSON** — simplest; same columns as the CSV export\n"
        "- **Excel `.xlsx`** — needs `openpyxl` as a new optional extra\n"
        "- **UBL 2.1 XML** — e-invoicing (PEPPOL); the most work, but some EU customers require it\n\n"
        "Then resume this session with the format name.",
        gap=(1400, 1700),
    )
    run.flush("final")
    run.result(usage(6, 311, 20096, 19872), tail=(150, 400))
    return [run]


# ---------------------------------------------------------------------------
# 6. two_sessions.ndjson — a run, then a --resume run with the same session_id
# ---------------------------------------------------------------------------


def build_two_sessions() -> list[Run]:
    session = make_uuid4("two_sessions:session")
    p_csv = "src/invoice_tool/exporters/csv.py"

    first = Run("two_sessions:1", session_id=session, cwd=CWD, model="Auto", t0=1790014417000)
    first.init()
    first.user("What columns does the CSV export include?")
    first.new_turn()
    first.think("The CSV exporter lives under `exporters/`. Reading it directly.")
    first.say("Let me read the CSV exporter.")
    call = first.start("readToolCall", {"path": A(p_csv)})
    first.complete(call, read_result(A(p_csv), EXPORT_CSV_BEFORE), duration=377)
    first.new_turn()
    first.think(
        "Seven columns per item row, plus four footer rows for subtotal, discount, tax and total."
    )
    first.say_final(
        "`export_csv()` (`src/invoice_tool/exporters/csv.py`) writes one row per line item with "
        "these columns:\n\n"
        "| Column | Value |\n"
        "|---|---|\n"
        "| `invoice` | invoice number |\n"
        "| `issued` | issue date (ISO 8601) |\n"
        "| `customer` | customer name |\n"
        "| `description` | line item description |\n"
        "| `quantity` | quantity |\n"
        "| `unit_price` | unit price, 2 decimals |\n"
        "| `line_total` | quantity × unit price |\n\n"
        "After the items it appends four footer rows — `SUBTOTAL`, `DISCOUNT`, `TAX` and `TOTAL` "
        "— with the amount in the last column. The customer's VAT number is **not** exported."
    )
    first.result(usage(12873, 389, 9984))

    second = Run("two_sessions:2", session_id=session, cwd=CWD, model="Auto", t0=1790014702000)
    second.init()
    second.user("Add the customer's VAT number as a column right after customer, then run the CSV tests.")
    second.new_turn()
    second.think(
        "**Adding the VAT column**\n\n`Invoice.customer_vat` already exists (optional). Insert "
        "`customer_vat` after `customer` in `COLUMNS`, write `invoice.customer_vat or \"\"` in "
        "each row, and add one more empty cell to the footer rows so the amount stays last."
    )
    second.say(
        "Adding a `customer_vat` column after `customer`: item rows get `invoice.customer_vat` "
        "(blank when unset), and the footer rows get one more empty cell so the amount stays in "
        "the last column."
    )
    call = second.start("editToolCall", {"path": A(p_csv), "streamContent": EXPORT_CSV_AFTER})
    second.complete(call, edit_result(A(p_csv), EXPORT_CSV_BEFORE, EXPORT_CSV_AFTER), duration=1466)
    second.new_turn()
    second.think("Edit applied. Running just the CSV exporter tests.")
    second.say("Running the CSV exporter tests:")
    test_cmd = "python -m pytest -q tests/test_export_csv.py"
    out = "...                                                                      [100%]\n3 passed in 0.08s\n"
    call = shell(second, test_cmd, "Run CSV exporter tests")
    second.complete(call, shell_outcome(test_cmd, stdout=out, local_ms=962), duration=2174)
    second.new_turn()
    second.think("All three pass.")
    second.say_final(
        "Done. `customer_vat` is now the 4th column of the CSV export (right after `customer`); "
        "it's empty for customers without a VAT number. The footer rows were padded so "
        "`SUBTOTAL`/`DISCOUNT`/`TAX`/`TOTAL` amounts are still in the last column, and "
        "`tests/test_export_csv.py` passes (3 passed)."
    )
    second.result(usage(15220, 512, 23424))
    return [first, second]


# ---------------------------------------------------------------------------
# Writing and validation
# ---------------------------------------------------------------------------

SAMPLES = {
    "reference_example.ndjson": build_reference_example,
    "demo_session.ndjson": build_demo_session,
    "failed_run.ndjson": build_failed_run,
    "truncated_run.ndjson": build_truncated_run,
    "partial_output.ndjson": build_partial_output,
    "two_sessions.ndjson": build_two_sessions,
}

# call ids deliberately left without a `completed` event, per file (filled in by validate)
EXPECTED_DANGLING = {"truncated_run.ndjson": 1}


def render(runs: list[Run]) -> str:
    parts = []
    for run in runs:
        for ev in run.events:
            parts.append(ev if isinstance(ev, str) else dumps(ev))
    text = "\n".join(parts)
    if not isinstance(runs[-1].events[-1], str):
        text += "\n"  # a killed process leaves no trailing newline
    return text


def consolidated_segments(objs: list[dict]) -> list[str]:
    """Rebuild assistant segments with the robust rule from stream-json.md §1.5."""
    segments, acc = [], ""
    for obj in objs:
        if obj.get("type") != "assistant":
            continue
        text = "".join(c.get("text", "") for c in obj["message"]["content"])
        if text == acc or "model_call_id" in obj or "timestamp_ms" not in obj:
            segments.append(text)
            acc = ""
        else:
            acc += text
    return segments


def validate(name: str, text: str) -> dict:
    truncated = not text.endswith("\n")
    raw_lines = text.split("\n")
    if truncated:
        last = raw_lines.pop()
        try:
            json.loads(last)
        except json.JSONDecodeError:
            pass
        else:
            raise AssertionError(f"{name}: last line was supposed to be broken")
    else:
        assert raw_lines.pop() == ""
    objs = [json.loads(line) for line in raw_lines]  # every complete line must parse
    for line in raw_lines:
        assert "\n" not in line and line.strip() == line

    sessions = {o["session_id"] for o in objs}
    assert len(sessions) == 1, f"{name}: session ids {sessions}"

    runs, cur = [], None
    for o in objs:
        if o["type"] == "system" and o.get("subtype") == "init":
            cur = []
            runs.append(cur)
        assert cur is not None, f"{name}: event before init"
        cur.append(o)

    dangling_total = []
    info = {"lines": len(raw_lines) + (1 if truncated else 0), "runs": len(runs), "parallel": []}
    for objs_run in runs:
        last_ts = 0
        started, completed = {}, set()
        by_mcid: dict[str, list[str]] = {}
        for o in objs_run:
            ts = o.get("timestamp_ms")
            if ts is not None:
                assert isinstance(ts, int) and ts >= last_ts, f"{name}: timestamp goes back at {o}"
                last_ts = ts
            if o["type"] != "tool_call":
                continue
            cid, tc = o["call_id"], o["tool_call"]
            assert "\n" in cid and cid.startswith("call-") and "\nfc_" in cid
            assert tc["toolCallId"] == cid and isinstance(tc["startedAtMs"], str)
            kinds = [k for k in tc if k.endswith("ToolCall")]
            assert len(kinds) == 1 and "hookAdditionalContexts" in tc
            inner = tc[kinds[0]]
            if "toolCallId" in inner.get("args", {}):
                assert inner["args"]["toolCallId"] == cid
            if o["subtype"] == "started":
                assert cid not in started and "result" not in inner and "completedAtMs" not in tc
                started[cid] = o
                by_mcid.setdefault(o["model_call_id"], []).append(cid)
            else:
                assert cid in started and cid not in completed, f"{name}: unmatched completed"
                assert isinstance(tc["completedAtMs"], str)
                assert int(tc["completedAtMs"]) >= int(tc["startedAtMs"])
                assert tc["startedAtMs"] == started[cid]["tool_call"]["startedAtMs"]
                assert o["model_call_id"] == started[cid]["model_call_id"]
                assert len(inner["result"]) >= 1
                ok = inner["result"].get("success")
                if kinds[0] == "shellToolCall" and ok:
                    assert ok["executionTime"] == int(tc["completedAtMs"]) - int(tc["startedAtMs"])
                completed.add(cid)
        dangling_total += [cid for cid in started if cid not in completed]
        order = [o["call_id"] for o in objs_run if o["type"] == "tool_call" and o["subtype"] == "completed"]
        for mcid, cids in by_mcid.items():
            if len(cids) > 1:
                done = [c for c in order if c in cids]
                info["parallel"].append({"model_call_id": mcid, "started": cids, "completed": done})

        results = [o for o in objs_run if o["type"] == "result"]
        if results:
            res = results[-1]
            assert objs_run[-1] is res, f"{name}: result must be the run's last event"
            for o in objs_run:
                if "model_call_id" in o:
                    assert re.fullmatch(re.escape(res["request_id"]) + r"-\d+-[a-z0-9]{4}", o["model_call_id"])
            if res["subtype"] == "success":
                assert res["result"] == "".join(consolidated_segments(objs_run)), f"{name}: result.result"
                assert res["duration_ms"] == res["duration_api_ms"]
                assert set(res["usage"]) == {"inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"}
            else:
                assert res["is_error"] is True
            first_ts = next(o["timestamp_ms"] for o in objs_run if "timestamp_ms" in o)
            assert res["duration_ms"] > last_ts - first_ts
    assert len(dangling_total) == EXPECTED_DANGLING.get(name, 0), f"{name}: dangling {dangling_total}"
    info["dangling"] = dangling_total
    info["truncated"] = truncated
    info["bytes"] = len(text.encode("utf-8"))
    return info


def main() -> int:
    summary = {}
    for name, build in SAMPLES.items():
        text = render(build())
        (OUT_DIR / name).write_text(text, encoding="utf-8", newline="")
        summary[name] = validate(name, text)
    assert summary["demo_session.ndjson"]["bytes"] < 300_000
    assert 300 <= summary["demo_session.ndjson"]["lines"] <= 600
    width = max(map(len, summary))
    for name, info in summary.items():
        extra = []
        if info["runs"] > 1:
            extra.append(f"{info['runs']} runs")
        if info["parallel"]:
            extra.append(f"{len(info['parallel'])} parallel groups")
        if info["dangling"]:
            extra.append(f"{len(info['dangling'])} dangling call")
        if info["truncated"]:
            extra.append("last line truncated")
        print(f"{name:<{width}}  {info['lines']:>4} lines  {info['bytes']:>7} bytes  {', '.join(extra)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
