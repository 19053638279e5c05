"""Bank statement import: each bank's CSV export read into rows of (day, text, amount).

Banks disagree on everything: the separator, the date format, whether debits have their own
column, how a negative amount is written. Each format is a `Format`; `detect` picks one from
the header line."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import date, datetime

from ledger.accounts import Ledger, LedgerError, Posting, Transaction
from ledger.money import Money, MoneyError, by_currency, parse_amount


class ImportError_(ValueError):
    """A statement that cannot be read: unknown header, a bad line (with its number)."""


@dataclass(frozen=True)
class Row:
    day: date
    text: str
    amount: Money
    line: int  # 1-based line of the statement


@dataclass(frozen=True)
class Format:
    name: str
    header: str
    date_format: str
    separator: str

    def columns(self) -> list[str]:
        return self.header.split(self.separator)


FORMATS = [
    Format("northbank", "Date,Description,Amount,Currency", "%d/%m/%Y", ","),
    Format("southbank", "Booking date;Text;Debit;Credit;Currency", "%Y-%m-%d", ";"),
    Format("eastbank", "date|memo|amount|ccy", "%m/%d/%Y", "|"),
    Format("westbank", "Valuta\tVerwendungszweck\tBetrag\tWaehrung", "%d.%m.%Y", "\t"),
]


def detect(header: str) -> Format:
    """The format whose header line is `header` (spaces around names ignored)."""
    for fmt in FORMATS:
        wanted = [name.strip().lower() for name in fmt.columns()]
        found = [name.strip().lower() for name in header.rstrip("\r\n").split(fmt.separator)]
        if found == wanted:
            return fmt
    raise ImportError_(f"unknown statement header: {header.strip()!r}")


def parse_day(text: str, fmt: Format) -> date:
    try:
        return datetime.strptime(text.strip(), fmt.date_format).date()
    except ValueError:
        raise ImportError_(f"{fmt.name}: not a date in {fmt.date_format}: {text!r}") from None


def _amount(fields: dict[str, str], fmt: Format, code: str) -> Money:
    if fmt.name == "southbank":
        debit, credit = fields["Debit"].strip(), fields["Credit"].strip()
        if debit and credit:
            raise ImportError_("southbank: a line has both a debit and a credit")
        if debit:
            return -parse_amount(debit, code)
        return parse_amount(credit or "0", code)
    column = {"northbank": "Amount", "eastbank": "amount", "westbank": "Betrag"}[fmt.name]
    raw = fields[column]
    if fmt.name == "westbank":
        raw = raw.replace(".", "").replace(",", ".")
    return parse_amount(raw, code)


def _code(fields: dict[str, str], fmt: Format) -> str:
    column = {"northbank": "Currency", "southbank": "Currency", "eastbank": "ccy",
              "westbank": "Waehrung"}[fmt.name]
    return fields[column].strip() or "EUR"


def _text(fields: dict[str, str], fmt: Format) -> str:
    column = {"northbank": "Description", "southbank": "Text", "eastbank": "memo",
              "westbank": "Verwendungszweck"}[fmt.name]
    return " ".join(fields[column].split())


def _day_column(fmt: Format) -> str:
    return fmt.columns()[0]


def read_statement(text: str) -> list[Row]:
    """Every row of a statement export, in file order. Blank lines are skipped; any other
    line that does not read is an error naming its line number."""
    lines = text.splitlines()
    if not lines:
        raise ImportError_("empty statement")
    fmt = detect(lines[0])
    reader = csv.DictReader(io.StringIO("\n".join(lines[:-1])), delimiter=fmt.separator)
    rows = []
    for number, fields in enumerate(reader, start=2):
        if not any((value or "").strip() for value in fields.values()):
            continue
        try:
            code = _code(fields, fmt)
            rows.append(
                Row(
                    day=parse_day(fields[_day_column(fmt)], fmt),
                    text=_text(fields, fmt),
                    amount=_amount(fields, fmt, code),
                    line=number,
                )
            )
        except (MoneyError, KeyError) as exc:
            raise ImportError_(f"line {number}: {exc}") from None
    return rows


def deduplicate(rows: list[Row]) -> list[Row]:
    """Rows less exact repeats (same day, text and amount), the first of each kept: exports
    that overlap in time repeat the days they share."""
    seen: set[tuple[date, str, Money]] = set()
    kept = []
    for row in rows:
        key = (row.day, row.text, row.amount)
        if key in seen:
            continue
        seen.add(key)
        kept.append(row)
    return kept


RULES: list[tuple[str, str]] = [
    ("rent", "Expenses:Housing"),
    ("electricity", "Expenses:Utilities"),
    ("water", "Expenses:Utilities"),
    ("internet", "Expenses:Utilities"),
    ("supermarket", "Expenses:Groceries"),
    ("bakery", "Expenses:Groceries"),
    ("salary", "Income:Salary"),
    ("interest", "Income:Interest"),
    ("train", "Expenses:Transport"),
    ("fuel", "Expenses:Transport"),
    ("pharmacy", "Expenses:Health"),
    ("insurance", "Expenses:Insurance"),
]


def categorize(row: Row, rules: list[tuple[str, str]] | None = None) -> str:
    """The account a row goes to: the first rule whose word is in its text, else
    Expenses:Unsorted for money out and Income:Unsorted for money in."""
    text = row.text.lower()
    for word, account in rules or RULES:
        if word in text:
            return account
    return "Expenses:Unsorted" if row.amount.amount < 0 else "Income:Unsorted"


def summarize(rows: list[Row]) -> dict[str, int]:
    """How many rows each category got."""
    counts: dict[str, int] = {}
    for row in rows:
        account = categorize(row)
        counts[account] = counts.get(account, 0) + 1
    return counts


def load_rules(text: str) -> list[tuple[str, str]]:
    """Rules from a rules file: `word = Kind:Account` a line, first match wins, `#` starts a
    comment. Words are matched in lower case."""
    rules = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        word, sep, account = (part.strip() for part in line.partition("="))
        if not sep or not word or ":" not in account:
            raise ImportError_(f"rules line {number}: expected 'word = Kind:Account': {raw!r}")
        rules.append((word.lower(), account))
    return rules


def statement_total(rows: list[Row]) -> dict[str, Money]:
    """What a statement moved, per currency: the change of the bank balance it covers."""
    return by_currency(row.amount for row in rows)


def to_transaction(row: Row, bank: str, rules: list[tuple[str, str]] | None = None) -> Transaction:
    """The row as a transaction between the bank account and its category, tagged with the
    statement line it came from."""
    category = categorize(row, rules)
    postings = (Posting(bank, row.amount), Posting(category, -row.amount))
    return Transaction(row.day, row.text, postings, (f"line:{row.line}",))


@dataclass
class ImportReport:
    read: int = 0
    duplicates: int = 0
    posted: int = 0
    unsorted: list[str] = field(default_factory=list)  # texts left to an Unsorted account
    opened: list[str] = field(default_factory=list)  # accounts the import had to open


def import_statement(
    ledger: Ledger, text: str, bank: str, rules: list[tuple[str, str]] | None = None
) -> ImportReport:
    """Read a statement, drop its repeats and post a transaction per row to `ledger`, opening
    the category accounts it needs. Every row is checked before the first is posted."""
    every = read_statement(text)
    rows = deduplicate(every)
    report = ImportReport(read=len(every), duplicates=len(every) - len(rows))
    code = ledger.account(bank).code
    pending = []
    for row in rows:
        transaction = to_transaction(row, bank, rules)
        category = transaction.postings[1].account
        if category not in ledger.accounts and category not in report.opened:
            report.opened.append(category)
        if category.endswith(":Unsorted"):
            report.unsorted.append(row.text)
        if row.amount.code != code:
            raise ImportError_(f"line {row.line}: {row.amount.code} amount for a {code} account")
        pending.append(transaction)
    for name in report.opened:
        kind = "income" if name.startswith("Income:") else "expense"
        ledger.open(name, kind, code)
    try:
        for transaction in pending:
            ledger.post(transaction)
            report.posted += 1
    except LedgerError as exc:
        raise ImportError_(f"posting stopped after {report.posted} rows: {exc}") from None
    return report


def merge_statements(texts: list[str]) -> list[Row]:
    """The rows of several exports of one account, by day, each repeat kept once: exports
    downloaded a month at a time overlap on the days at their edges."""
    rows = [row for text in texts for row in read_statement(text)]
    return deduplicate(sorted(rows, key=lambda row: row.day))


def rows_by_month(rows: list[Row]) -> dict[tuple[int, int], list[Row]]:
    """Rows grouped by (year, month), months in calendar order, rows in their order."""
    months: dict[tuple[int, int], list[Row]] = {}
    for row in rows:
        months.setdefault((row.day.year, row.day.month), []).append(row)
    return {key: months[key] for key in sorted(months)}


STOPWORDS = frozenset({"the", "and", "for", "from", "to", "of", "card", "payment", "ref"})


def rule_suggestions(rows: list[Row], rules: list[tuple[str, str]] | None = None,
                     count: int = 5) -> list[tuple[str, int]]:
    """The words that occur most often in the rows no rule sorts, with how many rows carry
    them: candidates for new rules. Numbers, short words and stopwords are left out."""
    seen: dict[str, int] = {}
    for row in rows:
        if not categorize(row, rules).endswith(":Unsorted"):
            continue
        words = {word for word in row.text.lower().split() if word.isalpha()}
        for word in words - STOPWORDS:
            if len(word) > 2:
                seen[word] = seen.get(word, 0) + 1
    ranked = sorted(seen.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:count]
